package policy

import (
	"strings"
	"testing"
)

// TestPollingHint: the polling hint is for a loop that sleeps and checks
// again, wherever the check sits in the loop; a single wait is not
// polling.
func TestPollingHint(t *testing.T) {
	rules := Rules{Workspace: "/ws", Home: "/home/u"}
	for _, tc := range []struct {
		cmd     string
		polling bool
	}{
		{"sleep 2; echo done", false},
		{"sleep 5 && curl -s localhost:8080", false},
		{"make build; sleep 3; ls out", false},
		{"while ! curl -s localhost:8080; do sleep 1; done", true},
		{"until test -f out/ready; do sleep 2; done", true},
		{"for i in 1 2 3 4 5; do sleep 2; curl -s localhost:8080 && break; done", true},
		{"for i in $(seq 30); do if grep -q ok log.txt; then break; fi; sleep 1; done", true},
		{"bash -c 'while true; do sleep 5; date; done'", true},
		{"while read -r l; do echo \"$l\"; done < list.txt", false},
		{"for f in *.png; do optipng \"$f\"; done; sleep 2", false},
	} {
		v := Check(tc.cmd, rules)
		got := false
		for _, w := range v.Warnings {
			if strings.Contains(w, "polling") {
				got = true
			}
		}
		if got != tc.polling {
			t.Errorf("%q: polling hint %v, want %v (warnings %q)", tc.cmd, got, tc.polling, v.Warnings)
		}
	}
}
