package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// FuzzParseInput: whatever arguments a client sends, parsing never panics
// and either fails with a message or yields an input within its bounds.
func FuzzParseInput(f *testing.F) {
	for _, s := range []string{
		`{"command":"ls -la"}`,
		`{"command":"sleep 1","timeout":"120","run_in_background":"true"}`,
		`{"task_id":"t1","stdin_text":"hello\n","wait":true,"timeout":5}`,
		`{"task_id":"t1","stream":"true","stream_pattern":"(err|warn)"}`,
		`{"command":"x","cwd":"../../etc","timeout":-3}`,
		`{"command":"\xff\xfe","kill":"yes"}`,
		`[1,2,3]`, `null`, `{"command":{"a":1}}`, `{"timeout":1e400}`,
	} {
		f.Add([]byte(s))
	}
	set := settings{Workspace: "/work/ws", DefaultTimeout: 120 * time.Second, MaxTimeout: 600 * time.Second}
	f.Fuzz(func(t *testing.T, raw []byte) {
		in, err := parseInput(json.RawMessage(raw), set)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		if in == nil {
			t.Fatal("nil input without an error")
		}
		if in.Timeout < 0 || in.Timeout > set.MaxTimeout {
			t.Fatalf("timeout %v outside [0, %v]", in.Timeout, set.MaxTimeout)
		}
		if in.Cwd != "" && !strings.HasPrefix(in.Cwd, "/") {
			t.Fatalf("cwd %q is not absolute", in.Cwd)
		}
	})
}
