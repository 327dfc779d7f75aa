package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shellguard/shellguard"
)

// `run --json` prints the one Result shape (docs/result.schema.json) for
// every outcome: a run, a refusal, a failure to start, no sandbox.
func TestRunJSONMatchesSchema(t *testing.T) {
	rs, err := shellguard.ResultSchema().Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		chk  func(map[string]any) bool
	}{
		{"run", []string{"--", "echo hi"}, func(m map[string]any) bool { return m["exit_code"] == 0.0 }},
		{"refused", []string{"--", "sudo rm -rf /"}, func(m map[string]any) bool {
			return m["exit_code"] == nil && m["decision"] == "deny" && m["error"] != nil
		}},
		{"bad cwd", []string{"--cwd", "nope", "--", "true"}, nil},
		{"sandbox off", []string{"--sandbox", "off", "--", "true"}, func(m map[string]any) bool {
			w, _ := m["sandbox_warnings"].([]any)
			return len(w) > 0
		}},
		{"killed", []string{"--timeout", "0.3", "--", "sleep 7502"}, func(m map[string]any) bool {
			return m["timed_out"] == true && (m["exit_code"] == 143.0 || m["exit_code"] == 137.0)
		}},
	} {
		_, out, errs := cli(t, append([]string{"run", "--json", "--workspace", ws}, tc.args...)...)
		if strings.TrimSpace(out) == "" {
			if tc.chk == nil {
				continue // an argument error: nothing printed, exit 2
			}
			t.Fatalf("%s: no output; stderr %s", tc.name, errs)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, out)
		}
		if err := rs.Validate(m); err != nil {
			t.Errorf("%s: does not match the schema: %v\n%s", tc.name, err, out)
		}
		if tc.chk != nil && !tc.chk(m) {
			t.Errorf("%s: %s", tc.name, out)
		}
	}
}
