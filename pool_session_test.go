//go:build linux

package shellguard

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/sandbox"
	"go.uber.org/goleak"
)

// waitWarm waits until the session's pool has served a call warm or has a
// helper ready, so that the next Run is a warm one.
func waitWarm(t *testing.T, s *Session) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		s.tmpMu.Lock()
		p := s.pool
		s.tmpMu.Unlock()
		if p != nil && p.Ready() > 0 {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatal("no warm helper became ready")
}

// TestSessionWarmPool: from its second sandboxed command on, a session
// runs commands in warm helpers; output, exit codes, the private /tmp of
// the session, stdin of a task and the timeout behave as in a cold start,
// and Close leaves no helper behind.
func TestSessionWarmPool(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g, ws := sandboxGuard(t)
	ctx := context.Background()
	s := g.NewSession(SessionOptions{})
	r, err := s.Run(ctx, Request{Command: "echo one > /tmp/note"})
	if err != nil || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("first: %+v %v", r, err)
	}
	needIPC(t, r.Sandbox)
	s.Run(ctx, Request{Command: "true"}) // the second one makes the pool
	waitWarm(t, s)
	r, err = s.Run(ctx, Request{Command: "cat /tmp/note; pwd; echo err >&2; exit 3", Cwd: "."})
	if err != nil || r.ExitCode == nil || *r.ExitCode != 3 || r.Stdout != "one\n"+ws+"\n" || r.Stderr != "err\n" {
		t.Fatalf("warm run: %+v %v", r, err)
	}
	if hits, _ := s.pool.Stats(); hits != 1 {
		t.Fatalf("pool hits %d, want 1", hits)
	}
	if r.Sandbox == nil || !r.Sandbox.Warm || !r.Sandbox.Has("seccomp") || !r.Sandbox.Has("landlock-fs") {
		t.Fatalf("warm run reports no layers: %v", r.Sandbox)
	}

	// A task's stdin pipe reaches a warm helper's bash.
	waitWarm(t, s)
	task, err := s.Start(ctx, Request{Command: `read -r line; echo "got $line"`}, TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := task.WriteStdin("hello"); err != nil {
		t.Fatal(err)
	}
	st := task.Wait(ctx, 10*time.Second, ReadOptions{})
	if !strings.Contains(st.Stdout, "got hello") {
		t.Fatalf("task: %+v", st)
	}
	if hits, _ := s.pool.Stats(); hits != 2 {
		t.Fatalf("pool hits %d, want 2", hits)
	}

	// The timeout ends the whole tree of a warm start.
	waitWarm(t, s)
	start := time.Now()
	r, _ = s.Run(ctx, Request{Command: "sleep 300 & sleep 300", Timeout: time.Second})
	if !r.TimedOut || time.Since(start) > 10*time.Second {
		t.Fatalf("timeout: %+v after %v", r, time.Since(start))
	}
	if hits, _ := s.pool.Stats(); hits != 3 {
		t.Fatalf("pool hits %d, want 3", hits)
	}
	before := countChildren()
	if before == 0 {
		t.Fatal("no warm helper is a child of this process")
	}
	s.Close()
	if n := countChildren(); n != 0 {
		t.Fatalf("%d children left after Close", n)
	}
}

func countChildren() int {
	n := 0
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, tk := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + tk.Name() + "/children")
		for _, f := range strings.Fields(string(b)) {
			if _, err := strconv.Atoi(f); err == nil {
				n++
			}
		}
	}
	return n
}

// BenchmarkSessionRunTrue compares, side by side, `true` run by
// exec.Command("bash", "-c", "true") with Session.Run in the sandbox,
// warm (a helper is ready when the call arrives, as between an agent's
// calls: the wait for the refill is not timed), cold (sandbox.pool 0),
// and with the sandbox off (the rest of the pipeline: policy, runner,
// output, redaction).
//
//	go test -run '^$' -bench SessionRunTrue -count 5 .
func BenchmarkSessionRunTrue(b *testing.B) {
	b.Run("bash", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("bash", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range []struct {
		name string
		pool int
		mode sandbox.Mode
	}{{"session-warm", 0, sandbox.Auto}, {"session-cold", -1, sandbox.Auto}, {"session-nosandbox", -1, sandbox.Off}} {
		b.Run(c.name, func(b *testing.B) {
			scratch, err := os.MkdirTemp("/var/tmp", "sg-bench-")
			if err != nil {
				b.Skip(err)
			}
			defer os.RemoveAll(scratch)
			g, err := New(Config{Workspace: scratch, Sandbox: &sandbox.Spec{Pool: c.pool, Mode: c.mode}, Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + scratch}})
			if err != nil {
				b.Fatal(err)
			}
			defer g.Close()
			s := g.NewSession(SessionOptions{})
			ctx := context.Background()
			run := func() {
				r, err := s.Run(ctx, Request{Command: "true"})
				if err != nil || r.ExitCode == nil || *r.ExitCode != 0 {
					b.Fatalf("%+v %v", r, err)
				}
			}
			run()
			run()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if c.pool >= 0 {
					b.StopTimer()
					deadline := time.Now().Add(10 * time.Second)
					for s.pool.Ready() < sandbox.DefaultPool {
						if time.Now().After(deadline) {
							b.Fatal("the pool did not fill up (it is not used while SHELLGUARD_TIMING records step marks)")
						}
						time.Sleep(100 * time.Microsecond)
					}
					b.StartTimer()
				}
				run()
			}
			b.StopTimer()
			if c.pool >= 0 {
				if hits, misses := s.pool.Stats(); hits < b.N {
					b.Fatalf("%d warm, %d cold", hits, misses)
				}
			}
		})
	}
}
