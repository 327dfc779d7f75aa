package policy

import (
	"strings"
	"testing"
)

func TestSuggest(t *testing.T) {
	rules := Rules{Workspace: "/work/ws", Home: "/home/u"}
	for _, tc := range []struct {
		cmd       string
		want, not []string
	}{
		{cmd: "ls -la"},
		// A default deny: the suggested rule, verified, lets it run.
		{cmd: "git push --force origin main", want: []string{`allow: ["git push *"]`, "would then run"}},
		// A floor finding stays whatever the configuration says.
		{cmd: "sudo rm -rf /", want: []string{`allow: ["sudo rm *"]`, "SG2001 is part of the built-in floor"}},
	} {
		v := Check(tc.cmd, rules)
		got := Suggest(tc.cmd, v, rules)
		if len(tc.want) == 0 && got != "" {
			t.Errorf("%q (%v): suggestion %q for an allowed command", tc.cmd, v.Decision, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q: suggestion lacks %q:\n%s", tc.cmd, w, got)
			}
		}
	}
	// A user rule is explained as the user's own.
	r2 := rules
	r2.Deny = []string{"touch *"}
	v := Check("touch x", r2)
	if got := Suggest("touch x", v, r2); !strings.Contains(got, `the user's own rule "touch *"`) {
		t.Errorf("user rule: %s", got)
	}
	// A request to leave the sandbox says what enables it.
	v.Reasons = append(v.Reasons, UnsandboxedReason(false, Span{Start: 0, End: 7}))
	if got := Suggest("touch x", v, r2); !strings.Contains(got, "sandbox.allow_unsandboxed") {
		t.Errorf("unsandboxed: %s", got)
	}
}

// Floor findings say so on the Reason itself.
func TestReasonFloor(t *testing.T) {
	v := Check("rm -rf /", Rules{Workspace: "/work/ws", Home: "/home/u"})
	floor := false
	for _, r := range v.Reasons {
		floor = floor || r.Floor
	}
	if !floor {
		t.Errorf("no floor reason: %+v", v.Reasons)
	}
	if v := Check("rm -rf build", Rules{Workspace: "/work/ws"}); len(v.Reasons) > 0 && v.Reasons[0].Floor {
		t.Errorf("a workspace delete is marked floor: %+v", v.Reasons)
	}
}
