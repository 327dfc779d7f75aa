package policy

import (
	"slices"
	"testing"
)

func grantRules(t *testing.T) Rules {
	t.Helper()
	ws := t.TempDir()
	return Rules{Workspace: ws, Home: t.TempDir(), Resolver: OSResolver{}}
}

// Grant proposes exact rules: they let the asked command run, and not a
// neighbour of it (another URL, another mode, more arguments).
func TestGrantIsExact(t *testing.T) {
	rules := grantRules(t)
	for _, tc := range []struct {
		cmd        string
		want       []string
		neighbours []string
	}{
		{"curl -X DELETE https://api.example.com/items/1", []string{"curl -X DELETE https://api.example.com/items/1"},
			[]string{"curl -X DELETE https://api.example.com/items/2", "curl -X DELETE https://api.example.com/items/1 https://evil.example/x"}},
		{"echo start && chmod -R 777 .", []string{"chmod -R 777 ."},
			[]string{"chmod -R 777 ..", "chmod -R 777 . /tmp"}},
	} {
		v := Check(tc.cmd, rules)
		if v.Decision != Ask {
			t.Fatalf("%q: %v, want ask (the test needs an ask)", tc.cmd, v.Decision)
		}
		got := Grant(tc.cmd, v, rules)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Grant(%q) = %q, want %q", tc.cmd, got, tc.want)
			continue
		}
		r2 := rules
		r2.Allow = append(r2.Allow, got...)
		if d := Check(tc.cmd, r2).Decision; d != Allow {
			t.Errorf("%q with its grant: %v", tc.cmd, d)
		}
		for _, n := range tc.neighbours {
			if d := Check(n, r2).Decision; d == Allow {
				t.Errorf("the grant for %q also allows %q", tc.cmd, n)
			}
		}
	}
}

// No grant is offered when a finding no rule may lift would still block
// the command, for a deny, or for words a rule cannot spell.
func TestGrantRefused(t *testing.T) {
	rules := grantRules(t)
	for _, cmd := range []string{
		"rm -rf /",                            // deny, floor
		"chmod -R 777 . && cat ~/.ssh/id_rsa", // an ask beside a deny
		"curl -X DELETE \"https://api.example.com/items/$ID\"", // a word the analysis cannot resolve
		"curl -X DELETE 'https://api.example.com/a b'",         // a blank inside a word
		"echo pw''ned > /proc/self/fd/7",                       // the finding is the redirect, which a rule does not spell
		"LD_LIBRARY_PATH=/opt/x chmod -R 777 .",                // a leading assignment
		"bash -c 'chmod -R 777 .'",                             // under a wrapper
	} {
		v := Check(cmd, rules)
		if got := Grant(cmd, v, rules); got != nil {
			t.Errorf("Grant(%q) [%v] = %q, want none", cmd, v.Decision, got)
		}
	}
}

func TestExactRuleSpelling(t *testing.T) {
	for _, argv := range [][]string{{"a", "b*"}, {"a", "[x]"}, {"a", "x y"}, {"a", ""}, {"a", "\x1b[31m"}, {}} {
		if r, ok := exactRule(argv); ok {
			t.Errorf("exactRule(%q) = %q", argv, r)
		}
	}
	if r, ok := exactRule([]string{"npm", "run", "test:unit"}); !ok || r != "npm run test:unit" {
		t.Errorf("exactRule(npm run test:unit) = %q %v", r, ok)
	}
}
