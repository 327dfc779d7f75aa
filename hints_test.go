package shellguard

import (
	"slices"
	"testing"

	"github.com/shellguard/shellguard/sandbox"
)

// A command that fails to resolve or reach a host while the network is
// off gets a hint saying so; other failures, successes and runs with the
// network do not.
func TestNetworkOffHint(t *testing.T) {
	code := func(n int) *int { return &n }
	none := &sandbox.Applied{Network: "none"}
	host := &sandbox.Applied{Network: "host"}
	for _, tc := range []struct {
		name   string
		res    Result
		expect bool
	}{
		{"curl", Result{Sandbox: none, ExitCode: code(6), Stderr: "curl: (6) Could not resolve host: example.com\n"}, true},
		{"git", Result{Sandbox: none, ExitCode: code(128), Stderr: "fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com\n"}, true},
		{"ssh", Result{Sandbox: none, ExitCode: code(255), Stderr: "ssh: Could not resolve hostname example.com: Temporary failure in name resolution\r\n"}, true},
		{"go", Result{Sandbox: none, ExitCode: code(1), Stderr: "go: example.com/m@v1.0.0: Get \"https://proxy.golang.org/...\": dial tcp: lookup proxy.golang.org on 127.0.0.53:53: dial udp 127.0.0.53:53: connect: network is unreachable\n"}, true},
		{"go no such host", Result{Sandbox: none, ExitCode: code(1), Stdout: "dial tcp: lookup api.example.com: no such host\n"}, true},
		{"npm", Result{Sandbox: none, ExitCode: code(1), Stderr: "npm error code EAI_AGAIN\nnpm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org\n"}, true},
		{"python", Result{Sandbox: none, ExitCode: code(1), Stderr: "socket.gaierror: [Errno -3] Temporary failure in name resolution\n"}, true},
		{"pip", Result{Sandbox: none, ExitCode: code(1), Stderr: "Failed to establish a new connection: [Errno -2] Name or service not known\n"}, true},
		{"musl wget", Result{Sandbox: none, ExitCode: code(1), Stderr: "wget: bad address 'example.com'\nwget: unable to resolve host address 'example.com'\n"}, true},
		{"network on", Result{Sandbox: host, ExitCode: code(6), Stderr: "curl: (6) Could not resolve host: example.com\n"}, false},
		{"no sandbox", Result{ExitCode: code(6), Stderr: "curl: (6) Could not resolve host: example.com\n"}, false},
		{"succeeded", Result{Sandbox: none, ExitCode: code(0), Stdout: "grep found: no such host\n"}, false},
		{"other failure", Result{Sandbox: none, ExitCode: code(1), Stderr: "error: cannot find module\n"}, false},
		{"not ended", Result{Sandbox: none, Stderr: "Could not resolve host: x\n"}, false},
	} {
		res := tc.res
		hintNetwork(&res)
		if got := slices.Contains(res.SandboxWarnings, networkOffHint); got != tc.expect {
			t.Errorf("%s: hint=%v, want %v", tc.name, got, tc.expect)
		}
	}
}
