package shellguard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/shellguard/shellguard/internal/testenv"
)

func taskGuard(t *testing.T, cfg Config) *Guard {
	t.Helper()
	if cfg.Workspace == "" {
		cfg.Workspace = t.TempDir()
	}
	if cfg.Environ == nil {
		cfg.Environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func gone(t *testing.T, args ...string) {
	t.Helper()
	waitFor(t, "no process "+strings.Join(args, " "), func() bool { return testenv.ProcessesWithArgs(args...) == nil })
}

func TestTaskStatusJSON(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := taskGuard(t, Config{})
	s := g.NewSession(SessionOptions{})
	task, err := s.Start(context.Background(), Request{Command: "echo hi; sleep 7701"}, TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	started := task.Status(ReadOptions{}).Task
	if started.ID != "t1" || started.Pid <= 0 || time.Since(started.StartedAt) > 5*time.Second {
		t.Fatalf("%+v", started)
	}
	waitFor(t, "output", func() bool { return task.Status(ReadOptions{}).Stdout == "hi\n" })
	b, _ := json.Marshal(task.Status(ReadOptions{}))
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"command", "cwd", "decision", "reasons", "warnings", "stdout", "stderr", "exit_code", "duration",
		"stdout_dropped_bytes", "stderr_dropped_bytes", "timed_out", "task"} {
		if _, ok := m[k]; !ok {
			t.Errorf("status JSON lacks %q: %s", k, b)
		}
	}
	tm, _ := m["task"].(map[string]any)
	for _, k := range []string{"id", "pid", "started_at", "running", "waiting_for_input", "ended_by"} {
		if _, ok := tm[k]; !ok {
			t.Errorf("status JSON lacks task.%q: %s", k, b)
		}
	}
	if m["exit_code"] != nil || tm["running"] != true || tm["ended_by"] != "" {
		t.Errorf("running status: %s", b)
	}
	st := task.Kill()
	b, _ = json.Marshal(st)
	if st.Task.Running || exitOf(st) != 143 || st.Task.EndedBy != "sigterm" || !bytes.Contains(b, []byte(`"ended_by":"sigterm"`)) {
		t.Errorf("killed: %s", b)
	}
	gone(t, "sleep", "7701")
	if same, err := s.Task("t1"); err != nil || same.Status(ReadOptions{}).Task.Pid != started.Pid {
		t.Errorf("lookup: %v", err)
	}
	if _, err := s.Task("nope"); !errors.Is(err, ErrNoTask) {
		t.Errorf("unknown id: %v", err)
	}
	g.Close()
}

func TestSessionRunAutoBackground(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := taskGuard(t, Config{})
	// A command that ends within the budget is a plain run. (The budget
	// is wall time: on a loaded machine starting a command can take
	// longer than 300 ms, so this part has a budget of its own.)
	quick := g.NewSession(SessionOptions{BlockingBudget: 30 * time.Second})
	res, err := quick.Run(context.Background(), Request{Command: "echo quick; exit 2"})
	if err != nil || res.Task != nil || exitOf(res) != 2 || res.Stdout != "quick\n" {
		t.Fatalf("quick run: %v %+v", err, res)
	}
	quick.Close()

	s := g.NewSession(SessionOptions{BlockingBudget: 300 * time.Millisecond})
	defer s.Close()

	var live syncBuffer
	start := time.Now()
	res, err = s.Run(context.Background(), Request{Command: "echo partial; read x < /dev/null; sleep 1.5; echo later; sleep 7702", Stdout: &live})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// Run returned at the budget, long before the command could end (it
	// sleeps 1.5 s before "later", then for hours); the bound only
	// catches a Run that waited for the command.
	if elapsed > 30*time.Second {
		t.Fatalf("Run took %v, budget 300ms", elapsed)
	}
	if res.Task == nil || !res.Task.Backgrounded || !res.Task.Running || res.Task.ID == "" || res.Task.Pid <= 0 || res.Stdout != "partial\n" || res.ExitCode != nil || res.Duration < 0.3 {
		t.Fatalf("%+v", res)
	}
	b, _ := json.Marshal(res)
	if !bytes.Contains(b, []byte(`"backgrounded":true`)) || !bytes.Contains(b, []byte(`"id":"`+res.Task.ID+`"`)) {
		t.Fatalf("json %s", b)
	}
	task, err := s.Task(res.Task.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !task.Status(ReadOptions{}).Task.Running {
		t.Fatal("backgrounded task is not running")
	}
	waitFor(t, "later output", func() bool { return task.Status(ReadOptions{}).Stdout == "partial\nlater\n" })
	if st := task.Status(ReadOptions{New: true}); st.Stdout != "later\n" {
		t.Fatalf("new output after backgrounding: %q", st.Stdout)
	}
	// Since reads past an earlier status (res: "partial\n"), and moves
	// nothing: a second read gets the same.
	for range 2 {
		if st := task.Status(ReadOptions{Since: res.Task}); st.Stdout != "later\n" {
			t.Fatalf("output since the first status: %q", st.Stdout)
		}
	}
	if live.String() != "partial\n" {
		t.Fatalf("the caller's writer got %q after it was detached", live.String())
	}
	if err := task.WriteStdin("x"); !errors.Is(err, ErrNoStdin) {
		t.Fatalf("stdin of a backgrounded run: %v", err)
	}
	s.Close()
	if st := task.Status(ReadOptions{}); st.Task.Running || st.Task.EndedBy != "session_closed" {
		t.Fatalf("after Close: %+v", st)
	}
	gone(t, "sleep", "7702")
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestSessionRunCancelAndFullTable(t *testing.T) {
	g := taskGuard(t, Config{})
	// Cancelling stops a foreground run (with a budget it cannot reach
	// first, however loaded the machine).
	c := g.NewSession(SessionOptions{BlockingBudget: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := c.Run(ctx, Request{Command: "echo a; sleep 7703", Stdout: writerFunc(func([]byte) { cancel() })})
	if !errors.Is(err, context.Canceled) || res.Task != nil || res.Stdout != "a\n" {
		t.Fatalf("%v %+v", err, res)
	}
	gone(t, "sleep", "7703")
	c.Close()

	s := g.NewSession(SessionOptions{MaxTasks: 1, BlockingBudget: 200 * time.Millisecond})
	defer s.Close()

	if _, err := s.Start(context.Background(), Request{Command: "sleep 7704"}, TaskOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Start(context.Background(), Request{Command: "sleep 7704"}, TaskOptions{}); !errors.Is(err, ErrTooManyTasks) {
		t.Fatalf("2nd task with MaxTasks 1: %v", err)
	}
	// No room to move it to the background: it blocks like Guard.Run.
	res, err = s.Run(context.Background(), Request{Command: "sleep 0.5; echo done"})
	if err != nil || res.Task != nil || res.Stdout != "done\n" || exitOf(res) != 0 {
		t.Fatalf("%v %+v", err, res)
	}
}

// TestRunningTasksBoundOverSessions: Config.MaxRunningTasks bounds the
// tasks running over every session of a Guard, so one client cannot take
// the room of the others; a finished task gives its place back, and a
// foreground run with no room to move to the background keeps blocking.
func TestRunningTasksBoundOverSessions(t *testing.T) {
	g := taskGuard(t, Config{MaxRunningTasks: 2})
	s1 := g.NewSession(SessionOptions{BlockingBudget: 200 * time.Millisecond})
	s2 := g.NewSession(SessionOptions{BlockingBudget: 200 * time.Millisecond})
	defer s1.Close()
	defer s2.Close()
	a, err := s1.Start(context.Background(), Request{Command: "sleep 7707"}, TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Start(context.Background(), Request{Command: "sleep 7707"}, TaskOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = s2.Start(context.Background(), Request{Command: "sleep 7707"}, TaskOptions{})
	if !errors.Is(err, ErrTooManyTasks) || !strings.Contains(err.Error(), "over all sessions") {
		t.Fatalf("a 3rd task over two sessions with MaxRunningTasks 2: %v", err)
	}
	res, err := s1.Run(context.Background(), Request{Command: "sleep 0.5; echo done"})
	if err != nil || res.Task != nil || res.Stdout != "done\n" {
		t.Fatalf("a foreground run with no room in the background: %v %+v", err, res)
	}
	a.Kill()
	if _, err := s2.Start(context.Background(), Request{Command: "sleep 7707"}, TaskOptions{}); err != nil {
		t.Fatalf("after a task ended: %v", err)
	}
}

func TestTaskTimeoutDefaultsToMax(t *testing.T) {
	g := taskGuard(t, Config{Timeout: 200 * time.Millisecond, MaxTimeout: time.Second})
	task, err := g.NewSession(SessionOptions{}).Start(context.Background(), Request{Command: "sleep 7705"}, TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := task.Wait(context.Background(), 500*time.Millisecond, ReadOptions{})
	if !st.Task.Running {
		t.Fatalf("a task got the default (foreground) timeout: %+v", st)
	}
	st = task.Wait(context.Background(), 10*time.Second, ReadOptions{})
	if st.Task.Running || !st.TimedOut || st.Task.EndedBy != "timeout" || st.Duration < 0.9 {
		t.Fatalf("%+v", st)
	}
}

func TestGuardCloseKillsEverySession(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := taskGuard(t, Config{})
	s1, s2 := g.NewSession(SessionOptions{}), g.NewSession(SessionOptions{})
	var tasks []*Task
	for _, s := range []*Session{s1, s2, g.NewSession(SessionOptions{})} {
		task, err := s.Start(context.Background(), Request{Command: "sleep 7706"}, TaskOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, task)
	}
	runDone := make(chan Result)
	go func() {
		res, err := s1.Run(context.Background(), Request{Command: "sleep 7707"})
		if !errors.Is(err, ErrSessionClosed) {
			t.Errorf("foreground Run during Close: %v", err)
		}
		runDone <- res
	}()
	waitFor(t, "foreground run", func() bool { return testenv.ProcessesWithArgs("sleep", "7707") != nil })
	g.Close()
	for _, task := range tasks {
		if st := task.Status(ReadOptions{}); st.Task.Running || st.Task.EndedBy != "session_closed" {
			t.Fatalf("%+v", st)
		}
	}
	if res := <-runDone; res.Task != nil || (exitOf(res) != 143 && exitOf(res) != 137) {
		t.Fatalf("foreground run after Close: %+v", res)
	}
	gone(t, "sleep", "7706")
	gone(t, "sleep", "7707")
	if _, err := s2.Start(context.Background(), Request{Command: "true"}, TaskOptions{}); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
	if _, err := g.NewSession(SessionOptions{}).Start(context.Background(), Request{Command: "true"}, TaskOptions{}); !errors.Is(err, ErrSessionClosed) {
		t.Fatalf("new session after Close: %v", err)
	}
}

func TestTaskPTYPromptAndStream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	g := taskGuard(t, Config{})
	task, err := g.NewSession(SessionOptions{}).Start(context.Background(), Request{Command: `printf '\033[1mbold\033[0m\n'; read -p 'name? ' n; echo "hello $n"; echo "bye $n"`}, TaskOptions{PTY: true})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	sub, err := task.Subscribe(SubscribeOptions{Pattern: "^(bold|hello)", Replay: true}, func(l Line) {
		mu.Lock()
		lines = append(lines, l.Stream+":"+l.Text)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "prompt and waiting_for_input", func() bool {
		st := task.Status(ReadOptions{})
		return st.Stdout == "bold\nname? " && st.Task.WaitingForInput
	})
	if err := task.WriteStdin("bob"); err != nil {
		t.Fatal(err)
	}
	st := task.Wait(context.Background(), 10*time.Second, ReadOptions{})
	if st.Stdout != "bold\nname? bob\nhello bob\nbye bob\n" || exitOf(st) != 0 || st.Task.WaitingForInput {
		t.Fatalf("%q %+v", st.Stdout, st)
	}
	<-sub.Done()
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(lines, "|") != "stdout:bold|stdout:hello bob" {
		t.Fatalf("streamed %q", lines)
	}
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }
