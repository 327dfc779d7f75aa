package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/sandbox"
	"github.com/shellguard/shellguard/sandbox/netproxy"
)

func TestParseInput(t *testing.T) {
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, "sub"), 0o755)
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(ws, "escape"))
	set := settings{Workspace: ws, DefaultTimeout: 120 * time.Second, MaxTimeout: 600 * time.Second}
	for _, tc := range []struct {
		args string
		err  string // substring of the error; "" = valid
		chk  func(*input) bool
	}{
		{`{"command":"ls"}`, "", func(in *input) bool { return in.Command == "ls" && in.Timeout == 0 }},
		{`{"command":"ls","timeout":"120"}`, "", func(in *input) bool { return in.Timeout == 120*time.Second }},
		{`{"command":"ls","timeout":" 2.5 "}`, "", func(in *input) bool { return in.Timeout == 2500*time.Millisecond }},
		{`{"command":"ls","timeout":600}`, "", func(in *input) bool { return in.Timeout == 600*time.Second }},
		{`{"command":"ls","timeout":601}`, "timeout: 601 is out of range: give seconds above 0, at most 600", nil},
		{`{"command":"ls","timeout":1800}`, "timeout: 1800 is out of range: give seconds above 0, at most 600", nil},
		{`{"command":"ls","timeout":99999}`, "timeout: 99999 is out of range", nil},
		{`{"command":"ls","timeout":0}`, "timeout: 0 is out of range: give seconds above 0, at most 600", nil},
		{`{"command":"ls","timeout":-3}`, "timeout: -3 is out of range", nil},
		{`{"command":"ls","timeout":0.5}`, "", func(in *input) bool { return in.Timeout == 500*time.Millisecond }},
		{`{"command":"ls","timeout":"NaN"}`, "timeout: must be a number", nil},
		{`{"command":"ls","timeout":true}`, "timeout: must be a number of seconds, got a boolean", nil},
		{`{"command":"ls","run_in_background":"TRUE"}`, "", func(in *input) bool { return in.RunInBackground }},
		{`{"command":"ls","run_in_background":"no"}`, "", func(in *input) bool { return !in.RunInBackground }},
		{`{"command":"ls","run_in_background":2}`, "run_in_background: must be a boolean", nil},
		{`{"command":"ls","timeout":null,"cwd":null}`, "", nil},
		{`{"command":"ls","cwd":"sub"}`, "", func(in *input) bool { return in.Cwd == filepath.Join(ws, "sub") }},
		{`{"command":"ls","cwd":"escape"}`, "cwd: \"escape\" is outside the workspace", nil},
		{`{"command":"ls","cwd":"../"}`, "outside the workspace", nil},
		{`{"command":"ls","cwd":"nope"}`, "does not exist", nil},
		{`{"command":"a\u0000b"}`, "command: contains a NUL byte", nil},
		{`{"command":"ls","Command":"x"}`, `"Command": unknown field`, nil},
		{`{"command":"   "}`, "command: empty", nil},
		{`null`, "no arguments", nil},
		{`"ls"`, "must be a JSON object", nil},
		{`{"task_id":"t1"}`, "", func(in *input) bool { return in.TaskID == "t1" }},
		{`{"task_id":"t1","kill":"true","wait":true}`, "kill: cannot be combined", nil},
		{`{"task_id":"t1","wait":true,"stream":true}`, "wait: cannot be combined", nil},
		{`{"task_id":"t1","stdin_text":"y\n","wait":"1"}`, "", func(in *input) bool { return *in.StdinText == "y\n" && in.Wait }},
		{`{"task_id":"t1","stream_pattern":"^x"}`, "", func(in *input) bool { return in.Stream && in.StreamPattern.MatchString("xy") }},
		{`{"task_id":"t1","stream":false,"stream_pattern":"^x"}`, "stream_pattern: given with stream: false", nil},
		{`{"task_id":"t1","run_in_background":true}`, "run_in_background: given with task_id", nil},
		{`{"task_id":"t1","cwd":"sub"}`, "cwd: given with task_id", nil},
		{`{"stdin_text":"x"}`, "stdin_text: needs task_id", nil},
		{`{"command":"ls","wait":true}`, "wait: needs task_id", nil},
		{`{"command":"ls","run_in_background":true,"stream":true}`, "stream: start the task", nil},
		{`{"command":"ls","description":"` + strings.Repeat("d", 5000) + `"}`, "description: 5000 bytes", nil},
		{`{"task_id":"*"}`, "", func(in *input) bool { return in.TaskID == "*" }},
		{`{"task_id":"*","kill":true}`, `task_id: "*" lists the tasks`, nil},
		{`{"task_id":"*","wait":true}`, `task_id: "*" lists the tasks`, nil},
	} {
		in, err := parseInput([]byte(tc.args), set)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.args, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.args, err, tc.err)
		case tc.err == "" && tc.chk != nil && !tc.chk(in):
			t.Errorf("%s: parsed %+v", tc.args, in)
		}
	}
}

// The unknown-field error lists the fields the schema offers, not the
// ones the configuration hides.
func TestUnknownFieldHidesHiddenFields(t *testing.T) {
	set := settings{Workspace: t.TempDir(), DefaultTimeout: time.Minute, MaxTimeout: time.Hour}
	_, err := parseInput([]byte(`{"command":"ls","bogus":1}`), set)
	if err == nil || !strings.Contains(err.Error(), "task_id") || strings.Contains(err.Error(), "dangerously_disable_sandbox") {
		t.Errorf("hidden: %v", err)
	}
	set.DisableSandbox = true
	_, err = parseInput([]byte(`{"command":"ls","bogus":1}`), set)
	if err == nil || !strings.Contains(err.Error(), "dangerously_disable_sandbox") {
		t.Errorf("offered: %v", err)
	}
}

func TestDescribe(t *testing.T) {
	d := describe(settings{Workspace: "/ws", DefaultTimeout: 120 * time.Second, MaxTimeout: 600 * time.Second, MaxOutput: 64 << 10,
		SandboxLayers: []string{"namespaces", "landlock"}, WritableRoots: []string{"/ws", "/tmp"},
		BlockingBudget: 50 * time.Second, AlwaysDenied: []string{"sudo"}})
	for _, want := range []string{"120 s by default, at most 600 s", "32 KiB", "Sandbox: namespaces, landlock", "Writable: /ws, /tmp",
		"Network: off", "Always denied: sudo", "run_in_background", "after 50 s", "approval"} {
		if !strings.Contains(d, want) {
			t.Errorf("description lacks %q:\n%s", want, d)
		}
	}
	s := settings{Workspace: "/ws", Network: "allowlist", SandboxLayers: []string{"namespaces"}}
	if d := describe(s); !strings.Contains(d, "HTTP_PROXY") || !strings.Contains(d, "sandbox.network_allow") {
		t.Errorf("allowlist mode not described:\n%s", d)
	}
	if len(d) > 1500 {
		t.Errorf("description is %d bytes", len(d))
	}
}

// A call narrows the network, never widens it; without a sandbox there
// is nothing to narrow.
func TestParseInputNetwork(t *testing.T) {
	ws := t.TempDir()
	spec := sandbox.Spec{Proxy: netproxy.New(netproxy.Options{})}
	defer spec.Proxy.Close()
	sandboxed := settings{Workspace: ws, DefaultTimeout: time.Minute, MaxTimeout: time.Hour, Network: "allowlist", SandboxLayers: []string{"userns"},
		netModes: spec.NetModes(), narrowNet: spec.WithNetModeName}
	bare := settings{Workspace: ws, DefaultTimeout: time.Minute, MaxTimeout: time.Hour, Network: "on"}
	for _, tc := range []struct {
		set  settings
		args string
		want string // the parsed mode, or "error: substring"
	}{
		{sandboxed, `{"command":"ls","network":"off"}`, "off"},
		{sandboxed, `{"command":"ls","network":" ALLOWLIST "}`, "allowlist"},
		{sandboxed, `{"command":"ls","network":"none"}`, "off"},
		{sandboxed, `{"command":"ls"}`, ""},
		{sandboxed, `{"command":"ls","network":"on"}`, "error: invalid input: network: give one of off, allowlist (the configured mode is allowlist; a call may only narrow it)"},
		{sandboxed, `{"command":"ls","network":"wide"}`, "error: invalid input: network: give one of off, allowlist"},
		{sandboxed, `{"command":"ls","network":true}`, "error: invalid input: network:"},
		{bare, `{"command":"ls","network":"off"}`, "error: invalid input: network: there is no sandbox here"},
	} {
		in, err := parseInput([]byte(tc.args), tc.set)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = in.Network
		}
		if !strings.HasPrefix(got, tc.want) || (tc.want == "" && got != "") {
			t.Errorf("%s: got %q, want %q", tc.args, got, tc.want)
		}
	}
	if p := inputSchema(sandboxed).Properties["network"]; p == nil || len(p.Enum) != 2 {
		t.Errorf("the schema offers network as %+v under allowlist", p)
	}
	if p := inputSchema(bare).Properties["network"]; p != nil {
		t.Errorf("the schema offers network without a sandbox: %+v", p)
	}
}
