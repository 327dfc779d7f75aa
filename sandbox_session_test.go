//go:build linux

package shellguard

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
	"github.com/shellguard/shellguard/sandbox/netproxy"
	"go.uber.org/goleak"
)

func sandboxGuard(t *testing.T) (*Guard, string) {
	t.Helper()
	scratch, err := os.MkdirTemp("/var/tmp", "sg-session-test-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	ws := filepath.Join(scratch, "ws")
	os.Mkdir(ws, 0o755)
	approve := func(context.Context, Request, policy.Verdict) (bool, error) { return true, nil }
	g, err := New(Config{Workspace: ws, Sandbox: &sandbox.Spec{}, Approver: approve, Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + scratch}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, ws
}

func needIPC(t *testing.T, a *sandbox.Applied) {
	t.Helper()
	if a == nil || !a.Has(sandbox.LayerIPC) || !a.Has(sandbox.LayerSession) {
		if os.Getenv("SHELLGUARD_STRICT_TESTS") == "1" {
			t.Fatalf("session/ipc layers missing: %v", a)
		}
		t.Skipf("session/ipc layers missing: %v", a)
	}
}

// TestSessionTmpAcrossCalls: /tmp written by one call of a session is
// there in its next call (also through a second session sharing it, as
// the MCP server's foreground runs do), not in another session or a
// plain Guard.Run, and is removed when the session closes.
func TestSessionTmpAcrossCalls(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // connect supervisors end with their runs
	g, _ := sandboxGuard(t)
	ctx := context.Background()
	s := g.NewSession(SessionOptions{})
	r, err := s.Run(ctx, Request{Command: "echo remembered > /tmp/note; echo shm > /dev/shm/note"})
	if err != nil {
		t.Fatal(err)
	}
	needIPC(t, r.Sandbox)
	r, err = s.Run(ctx, Request{Command: "cat /tmp/note /dev/shm/note"})
	if err != nil || !strings.Contains(r.Stdout, "remembered") || !strings.Contains(r.Stdout, "shm") {
		t.Fatalf("second call of the session: %q %q %v", r.Stdout, r.Stderr, err)
	}
	fg := g.NewSession(SessionOptions{BlockingBudget: -1, TmpOf: s})
	if r, err := fg.Run(ctx, Request{Command: "cat /tmp/note"}); err != nil || !strings.Contains(r.Stdout, "remembered") {
		t.Fatalf("session sharing the tmp: %q %v", r.Stdout, err)
	}
	other := g.NewSession(SessionOptions{})
	if r, _ := other.Run(ctx, Request{Command: "cat /tmp/note"}); strings.Contains(r.Stdout, "remembered") {
		t.Fatal("another session saw the note")
	}
	if r, _ := g.Run(ctx, Request{Command: "cat /tmp/note"}); strings.Contains(r.Stdout, "remembered") {
		t.Fatal("Guard.Run saw the note")
	}
	dir := s.tmp.Dir()
	if _, err := os.Stat(filepath.Join(dir, "tmp", "note")); err != nil {
		t.Fatalf("note not in the session dir: %v", err)
	}
	fg.Close()
	s.Close()
	other.Close()
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("the session's /tmp outlived the session")
	}
}

// TestSandboxedPTYTask: an interactive task still gets its own terminal
// (prompt, input, echo) inside the sandbox, and it is the only terminal
// the task can reach.
func TestSandboxedPTYTask(t *testing.T) {
	g, _ := sandboxGuard(t)
	task, err := g.NewSession(SessionOptions{}).Start(context.Background(), Request{Command: `[ -t 0 ] && echo IS-TTY; ls /dev/pts | tr '\n' ' '; echo; read -p 'name? ' n; echo "hello $n"`}, TaskOptions{PTY: true})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(task.Status(ReadOptions{}).Stdout, "name? ") {
		if time.Now().After(deadline) {
			t.Fatalf("no prompt: %+v", task.Status(ReadOptions{}))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := task.WriteStdin("bob"); err != nil {
		t.Fatal(err)
	}
	st := task.Wait(context.Background(), 10*time.Second, ReadOptions{})
	if st.ExitCode == nil || *st.ExitCode != 0 || !strings.Contains(st.Stdout, "IS-TTY") || !strings.Contains(st.Stdout, "hello bob") {
		t.Fatalf("pty task: %q %+v", st.Stdout, st)
	}
	// Only the private devpts's ptmx: the host's terminals are not there.
	lines := strings.Split(st.Stdout, "\n")
	if len(lines) < 2 || strings.TrimSpace(lines[1]) != "ptmx" {
		t.Fatalf("/dev/pts inside: %q", st.Stdout)
	}
}

// TestSessionNetworkAcrossCalls: a server a session's background task
// starts on loopback answers the session's next calls, cold and warm
// (the pool's helpers are in the session's namespace too), and no other
// session's; closing the session ends it.
func TestSessionNetworkAcrossCalls(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("SHELLGUARD_STRICT_TESTS") == "1" {
			t.Fatal("curl not installed")
		}
		t.Skip("curl not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	scratch, err := os.MkdirTemp("/var/tmp", "sg-session-net-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	ws := filepath.Join(scratch, "ws")
	os.Mkdir(ws, 0o755)
	approve := func(context.Context, Request, policy.Verdict) (bool, error) { return true, nil }
	// The test binary's directory is on PATH: the sandbox keeps PATH's
	// directories visible.
	path := filepath.Dir(exe) + ":" + os.Getenv("PATH")
	g, err := New(Config{Workspace: ws, Sandbox: &sandbox.Spec{}, Approver: approve, Environ: []string{"PATH=" + path, "HOME=" + scratch}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx := context.Background()
	s := g.NewSession(SessionOptions{})
	defer s.Close()
	if r, err := s.Run(ctx, Request{Command: "true"}); err != nil || r.Sandbox == nil || !r.Sandbox.Has(sandbox.LayerNetNS) {
		if os.Getenv("SHELLGUARD_STRICT_TESTS") == "1" {
			t.Fatalf("no network namespace: %v %v", r.Sandbox, err)
		}
		t.Skipf("no network namespace: %v %v", r.Sandbox, err)
	} else if d := r.Sandbox.String(); !strings.Contains(d, "session") {
		t.Logf("sandbox: %s", d)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	server, err := s.Start(ctx, Request{Command: "SGTEST_TOOL=listen SGTEST_PORT=" + port + " " + filepath.Base(exe)}, TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(server.Status(ReadOptions{}).Stdout, "LISTENING") {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start: %+v", server.Status(ReadOptions{}))
		}
		time.Sleep(50 * time.Millisecond)
	}
	client := "curl -sS -m 10 http://127.0.0.1:" + port + "/ || echo NO-CONNECTION"
	for i := range 4 {
		r, err := s.Run(ctx, Request{Command: client})
		if err != nil || !strings.Contains(r.Stdout, "hello from the dev server") {
			t.Fatalf("call %d of the session: %q %q %v", i, r.Stdout, r.Stderr, err)
		}
	}
	if hits, _ := s.pool.Stats(); hits == 0 {
		t.Errorf("no call came from the warm pool: the test did not cover its helpers")
	}
	other := g.NewSession(SessionOptions{})
	defer other.Close()
	if r, _ := other.Run(ctx, Request{Command: client}); !strings.Contains(r.Stdout, "NO-CONNECTION") {
		t.Fatalf("another session reached the server: %q", r.Stdout)
	}
	if r, _ := g.Run(ctx, Request{Command: client}); !strings.Contains(r.Stdout, "NO-CONNECTION") {
		t.Fatalf("Guard.Run reached the server: %q", r.Stdout)
	}
	s.Close()
	if r := server.Wait(ctx, 20*time.Second, ReadOptions{}); r.ExitCode == nil {
		t.Fatal("the server outlived its session by 20 s")
	}
}

// TestRequestNarrowsNetwork: a request may narrow the configured network
// (allowlist to off: no proxy, loopback only), never widen it.
func TestRequestNarrowsNetwork(t *testing.T) {
	scratch, err := os.MkdirTemp("/var/tmp", "sg-net-mode-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	p := netproxy.New(netproxy.Options{})
	defer p.Close()
	g, err := New(Config{Workspace: scratch, Sandbox: &sandbox.Spec{Proxy: p}, Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + scratch}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx := context.Background()
	r, err := g.Run(ctx, Request{Command: `echo "P=$HTTP_PROXY"`})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sandbox == nil || r.Sandbox.Network != sandbox.NetAllowlist {
		if os.Getenv("SHELLGUARD_STRICT_TESTS") == "1" {
			t.Fatalf("no allowlist network: %v", r.Sandbox)
		}
		t.Skipf("no allowlist network: %v", r.Sandbox)
	}
	if !strings.Contains(r.Stdout, "P=http://127.0.0.1:") {
		t.Fatalf("configured allowlist: %q", r.Stdout)
	}
	r, err = g.Run(ctx, Request{Command: `echo "P=$HTTP_PROXY"`, Network: "off"})
	if err != nil || strings.TrimSpace(r.Stdout) != "P=" || r.Sandbox.Network != "none" {
		t.Fatalf("narrowed to off: %q %v %v", r.Stdout, r.Sandbox, err)
	}
	_, err = g.Run(ctx, Request{Command: "true", Network: "on"})
	var le *LimitError
	if !errors.As(err, &le) || le.Field != "network" || !strings.Contains(le.Reason, "wider than the configured allowlist") {
		t.Fatalf("widened to on: %v", err)
	}
}
