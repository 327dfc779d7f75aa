//go:build linux

package shellguard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
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
