package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/shellguard/shellguard/internal/testenv"
)

func taskOpts(t *testing.T, script string) Options {
	return Options{Script: script, Dir: t.TempDir(), Env: testEnv(t), Timeout: 60 * time.Second}
}

func newTable(t *testing.T, o TableOptions) *Table {
	tb := NewTable(o)
	t.Cleanup(func() { tb.Close() })
	return tb
}

// eventually polls cond every 10 ms for up to 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func noProcesses(t *testing.T, args ...string) {
	t.Helper()
	eventually(t, "no process "+strings.Join(args, " "), func() bool { return testenv.ProcessesWithArgs(args...) == nil })
}

func TestTaskStatusAndKill(t *testing.T) {
	tb := newTable(t, TableOptions{})
	task, err := tb.Start(taskOpts(t, "echo hi; echo oops >&2; exec sleep 7501"))
	if err != nil {
		t.Fatal(err)
	}
	if task.ID() != "t1" || task.Process().Pid() <= 0 {
		t.Fatalf("id %q pid %d", task.ID(), task.Process().Pid())
	}
	eventually(t, "output", func() bool { st := task.Status(ReadOptions{}); return st.Stdout == "hi\n" && st.Stderr == "oops\n" })
	st := task.Status(ReadOptions{})
	if !st.Running || st.ExitCode != nil || st.EndedBy != "" || st.Uptime <= 0 || st.WaitingForInput {
		t.Fatalf("running status: %+v", st)
	}
	st = task.Kill()
	if st.Running || st.ExitCode == nil || st.EndedBy != EndedSIGTERM || st.Stdout != "hi\n" {
		t.Fatalf("killed status: %+v", st)
	}
	noProcesses(t, "sleep", "7501")
	if got, err := tb.Get("t1"); err != nil || got != task {
		t.Fatalf("Get: %v", err)
	}
	if _, err := tb.Get("t9"); !errors.Is(err, ErrNoTask) {
		t.Fatalf("Get(t9): %v", err)
	}
}

func TestTaskKillNeedsSIGKILL(t *testing.T) {
	tb := newTable(t, TableOptions{})
	o := taskOpts(t, "trap '' TERM; echo ready; sleep 7502; sleep 7502")
	o.Grace = 200 * time.Millisecond
	task, err := tb.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "ready", func() bool { return task.Status(ReadOptions{}).Stdout == "ready\n" })
	start := time.Now()
	st := task.Kill()
	if st.EndedBy != EndedSIGKILL || time.Since(start) > 3*time.Second {
		t.Fatalf("status %+v after %v", st, time.Since(start))
	}
	noProcesses(t, "sleep", "7502")
}

// TestTaskKillSIGTERMSeenLate: a leader that SIGTERM ended is "sigterm" even
// when the grace period passed before its end was observed (a loaded machine
// schedules the reaper late; a 1 ns grace makes that certain here). The wait
// status says which signal ended it, not the clock.
func TestTaskKillSIGTERMSeenLate(t *testing.T) {
	tb := newTable(t, TableOptions{})
	o := taskOpts(t, "echo ready; exec sleep 7503")
	o.Grace = time.Nanosecond
	task, err := tb.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "ready", func() bool { return task.Status(ReadOptions{}).Stdout == "ready\n" })
	if st := task.Kill(); st.Running || st.EndedBy != EndedSIGTERM {
		t.Fatalf("ended by %q (exit %v), want sigterm", st.EndedBy, deref(st.ExitCode))
	}
	noProcesses(t, "sleep", "7503")
}

func TestTaskExitsByItself(t *testing.T) {
	tb := newTable(t, TableOptions{})
	task, err := tb.Start(taskOpts(t, "sleep 0.2; echo done; exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	st := task.Wait(context.Background(), 50*time.Millisecond, ReadOptions{})
	if !st.Running {
		t.Fatalf("finished too early: %+v", st)
	}
	st = task.Wait(context.Background(), 10*time.Second, ReadOptions{})
	if st.Running || st.ExitCode == nil || *st.ExitCode != 3 || st.EndedBy != EndedExit || st.Stdout != "done\n" {
		t.Fatalf("%+v", st)
	}
	if err := task.WriteStdin("late"); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("WriteStdin after exit: %v", err)
	}
	if tb.Running() != 0 {
		t.Fatalf("running count %d", tb.Running())
	}
}

func TestTaskKillReachesGrandchildrenAndSetsid(t *testing.T) {
	tb := newTable(t, TableOptions{})
	task, err := tb.Start(taskOpts(t, `sleep 7503 & setsid sleep 7504 & bash -c '(sleep 7505 &) ; sleep 7506' & echo started; wait`))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "all started", func() bool {
		for _, n := range []string{"7503", "7504", "7505", "7506"} {
			if testenv.ProcessesWithArgs("sleep", n) == nil {
				return false
			}
		}
		return true
	})
	task.Kill()
	for _, n := range []string{"7503", "7504", "7505", "7506"} {
		noProcesses(t, "sleep", n)
	}
}

func TestTaskStdinCat(t *testing.T) {
	tb := newTable(t, TableOptions{})
	task, err := tb.Start(taskOpts(t, "cat"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"hello", "wörld"} {
		if err := task.WriteStdin(l); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "echo from cat", func() bool { return task.Status(ReadOptions{}).Stdout == "hello\nwörld\n" })
	task.Kill()
}

func TestTaskStdinPythonREPL(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.SkipOrFail(t, "python3: %v", err)
	}
	tb := newTable(t, TableOptions{})
	task, err := tb.Start(taskOpts(t, "python3 -i -q"))
	if err != nil {
		t.Fatal(err)
	}
	if err := task.WriteStdin("x = 6 * 7"); err != nil {
		t.Fatal(err)
	}
	if err := task.WriteStdin("print('answer', x)"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "answer", func() bool { return task.Status(ReadOptions{}).Stdout == "answer 42\n" })
	task.WriteStdin("exit(5)")
	st := task.Wait(context.Background(), 10*time.Second, ReadOptions{})
	if st.ExitCode == nil || *st.ExitCode != 5 || !strings.Contains(st.Stderr, ">>> ") {
		t.Fatalf("%+v", st)
	}
}

func TestTaskPTYPython(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.SkipOrFail(t, "python3: %v", err)
	}
	tb := newTable(t, TableOptions{})
	o := taskOpts(t, "python3 -q")
	o.PTY = true
	// The interactive interpreter keeps its history in HOME: a scratch
	// one, not the user's.
	env := o.Env[:0:0]
	for _, kv := range o.Env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "PYTHON_HISTORY=") {
			env = append(env, kv)
		}
	}
	o.Env = append(env, "HOME="+t.TempDir())
	task, err := tb.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "prompt", func() bool { return strings.HasSuffix(task.Status(ReadOptions{}).Stdout, ">>> ") })
	eventually(t, "waiting for input at the prompt", func() bool { return task.Status(ReadOptions{}).WaitingForInput })
	if err := task.WriteStdin("import os, sys; print(os.isatty(0), 6 * 7)"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "answer", func() bool { return strings.Contains(task.Status(ReadOptions{}).Stdout, "True 42\n") })
	st := task.Status(ReadOptions{})
	if strings.ContainsAny(st.Stdout, "\r\x1b") || st.Stderr != "" || !st.PTY {
		t.Fatalf("terminal output not cleaned: %q %q", st.Stdout, st.Stderr)
	}
	// The echoed input is shown as a terminal shows it.
	if !strings.Contains(st.Stdout, ">>> import os, sys; print(os.isatty(0), 6 * 7)\nTrue 42\n") {
		t.Fatalf("stdout %q", st.Stdout)
	}
	task.WriteStdin("exit(0)")
	st = task.Wait(context.Background(), 10*time.Second, ReadOptions{})
	if st.Running || *st.ExitCode != 0 {
		t.Fatalf("%+v", st)
	}
}

func TestTaskWaitingForInput(t *testing.T) {
	tb := newTable(t, TableOptions{})
	task, err := tb.Start(taskOpts(t, "echo ask; read x; echo got $x; exec sleep 7507"))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "waiting_for_input", func() bool { return task.Status(ReadOptions{}).WaitingForInput })
	if err := task.WriteStdin("abc"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "input consumed", func() bool {
		st := task.Status(ReadOptions{})
		return !st.WaitingForInput && st.Stdout == "ask\ngot abc\n"
	})
	// sleeping is not reading stdin
	time.Sleep(50 * time.Millisecond)
	if task.Status(ReadOptions{}).WaitingForInput {
		t.Fatal("waiting_for_input while sleeping")
	}
	task.Kill()
}

func TestTaskReadNew(t *testing.T) {
	tb := newTable(t, TableOptions{})
	task, err := tb.Start(taskOpts(t, "echo a; echo A >&2; read x; echo b; sleep 7508"))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "first output", func() bool { st := task.Status(ReadOptions{}); return st.Stdout == "a\n" && st.Stderr == "A\n" })
	st := task.Status(ReadOptions{Mode: ReadNew})
	if st.Stdout != "a\n" || st.Stderr != "A\n" || st.Next != (Cursor{2, 2}) {
		t.Fatalf("%+v", st)
	}
	if st := task.Status(ReadOptions{Mode: ReadNew}); st.Stdout != "" || st.Stderr != "" {
		t.Fatalf("read again: %+v", st)
	}
	task.WriteStdin("go")
	eventually(t, "b", func() bool { return task.Status(ReadOptions{}).Stdout == "a\nb\n" })
	if st := task.Status(ReadOptions{Mode: ReadSince, Since: Cursor{1, 0}}); st.Stdout != "\nb\n" || st.Stderr != "A\n" {
		t.Fatalf("since: %+v", st)
	}
	if st := task.Status(ReadOptions{Mode: ReadNew}); st.Stdout != "b\n" || st.Stderr != "" {
		t.Fatalf("new: %+v", st)
	}
	task.Kill()
}

func TestTaskRingBounds(t *testing.T) {
	tb := newTable(t, TableOptions{MaxLines: 100, MaxBytes: 1000})
	task, err := tb.Start(taskOpts(t, "seq 1 1000; seq 1 100 >&2"))
	if err != nil {
		t.Fatal(err)
	}
	st := task.Wait(context.Background(), 10*time.Second, ReadOptions{})
	var want strings.Builder
	for i := 901; i <= 1000; i++ {
		fmt.Fprintln(&want, i)
	}
	// 100 lines of 901..1000 are 400 bytes: within both bounds.
	total := 0
	for i := 1; i <= 1000; i++ {
		total += len(strconv.Itoa(i)) + 1
	}
	if st.Stdout != want.String() || st.StdoutDropped != int64(total-want.Len()) || st.StderrDropped != 0 {
		t.Fatalf("stdout %d bytes, dropped %d: %q", len(st.Stdout), st.StdoutDropped, st.Stdout[:min(len(st.Stdout), 40)])
	}

	tb2 := newTable(t, TableOptions{MaxBytes: 100})
	task, err = tb2.Start(taskOpts(t, "seq 100000 100100"))
	if err != nil {
		t.Fatal(err)
	}
	st = task.Wait(context.Background(), 10*time.Second, ReadOptions{})
	if len(st.Stdout) > 100 || !strings.HasSuffix(st.Stdout, "100100\n") || !strings.HasPrefix(st.Stdout, "1000") || st.StdoutDropped != int64(101*7-len(st.Stdout)) {
		t.Fatalf("%d %q", st.StdoutDropped, st.Stdout)
	}
}

func TestTaskStreamMatchingLinesInOrder(t *testing.T) {
	tb := newTable(t, TableOptions{})
	// Start with a line on stdin to subscribe before any output.
	task, err := tb.Start(taskOpts(t, "read x; seq 1 200000; echo tail7 >&2"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []Line
	sub, err := task.Subscribe(SubscribeOptions{Pattern: `7$`}, func(l Line) {
		mu.Lock()
		got = append(got, l)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	var all int
	subAll, _ := task.Subscribe(SubscribeOptions{}, func(Line) { all++ })
	start := time.Now()
	task.WriteStdin("go")
	<-sub.Done()
	<-subAll.Done()
	elapsed := time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	// Lines of one stream arrive in order; the two streams interleave.
	want := 0
	var stderr []Line
	for _, l := range got {
		if l.Stream == "stderr" {
			stderr = append(stderr, l)
			continue
		}
		n := want*10 + 7
		if l.Text != strconv.Itoa(n) || l.Dropped != 0 {
			t.Fatalf("stdout line %d: got %+v, want %d", want, l, n)
		}
		want++
	}
	if want != 20000 || len(stderr) != 1 || stderr[0].Text != "tail7" {
		t.Fatalf("%d stdout lines, want 20000; stderr %+v", want, stderr)
	}
	if all != 200001 {
		t.Fatalf("unfiltered subscriber got %d lines", all)
	}
	t.Logf("200000 lines streamed in %v (%.0f lines/s)", elapsed, 200000/elapsed.Seconds())
	if _, err := task.Subscribe(SubscribeOptions{Pattern: "("}, func(Line) {}); err == nil {
		t.Fatal("bad pattern accepted")
	}
}

func TestTaskStreamReplayAndCancel(t *testing.T) {
	tb := newTable(t, TableOptions{})
	task, err := tb.Start(taskOpts(t, "echo one; echo two; read x; echo three; read y"))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "two lines", func() bool { return task.Status(ReadOptions{}).Stdout == "one\ntwo\n" })
	lines := make(chan string, 10)
	sub, err := task.Subscribe(SubscribeOptions{Replay: true, Pattern: "^t"}, func(l Line) { lines <- l.Text })
	if err != nil {
		t.Fatal(err)
	}
	if l := <-lines; l != "two" {
		t.Fatalf("replayed %q", l)
	}
	task.WriteStdin("")
	if l := <-lines; l != "three" {
		t.Fatalf("got %q", l)
	}
	sub.Cancel()
	<-sub.Done()
	task.Kill()
}

func TestTaskLimit(t *testing.T) {
	tb := newTable(t, TableOptions{MaxTasks: 3})
	var tasks []*Task
	for i := 0; i < 3; i++ {
		task, err := tb.Start(taskOpts(t, "sleep 7509"))
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, task)
	}
	_, err := tb.Start(taskOpts(t, "sleep 7509"))
	if !errors.Is(err, ErrTooManyTasks) || !strings.Contains(err.Error(), "3 tasks are running") {
		t.Fatalf("4th task: %v", err)
	}
	tasks[0].Kill()
	if _, err := tb.Start(taskOpts(t, "sleep 7509")); err != nil {
		t.Fatalf("after a kill: %v", err)
	}
	tb.Close()
	noProcesses(t, "sleep", "7509")
	if _, err := tb.Start(taskOpts(t, "true")); !errors.Is(err, ErrTableClosed) {
		t.Fatalf("after Close: %v", err)
	}
	for _, task := range tb.List() {
		if st := task.Status(ReadOptions{}); st.Running || (st.EndedBy != EndedSessionClosed && task != tasks[0]) {
			t.Fatalf("%+v", st)
		}
	}
}

func TestTaskRetention(t *testing.T) {
	tb := newTable(t, TableOptions{Retain: 100 * time.Millisecond, MaxFinished: 2})
	for i := 0; i < 4; i++ {
		task, err := tb.Start(taskOpts(t, "true"))
		if err != nil {
			t.Fatal(err)
		}
		<-task.Done()
	}
	if n := len(tb.List()); n != 2 {
		t.Fatalf("%d finished tasks kept, want 2", n)
	}
	time.Sleep(150 * time.Millisecond)
	if n := len(tb.List()); n != 0 {
		t.Fatalf("%d finished tasks kept after Retain", n)
	}
}

func TestTaskUnlistedAdopt(t *testing.T) {
	tb := newTable(t, TableOptions{MaxTasks: 1})
	fg, err := tb.StartUnlisted(taskOpts(t, "echo fg; sleep 7510"))
	if err != nil {
		t.Fatal(err)
	}
	if fg.ID() != "" || len(tb.List()) != 0 {
		t.Fatal("unlisted task is listed")
	}
	if err := fg.WriteStdin("x"); !errors.Is(err, ErrNoStdin) {
		t.Fatalf("foreground stdin: %v", err)
	}
	other, err := tb.Start(taskOpts(t, "sleep 7510"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Adopt(fg); !errors.Is(err, ErrTooManyTasks) {
		t.Fatalf("adopt into a full table: %v", err)
	}
	other.Kill()
	if err := tb.Adopt(fg); err != nil || fg.ID() != "t2" {
		t.Fatalf("adopt: %v %q", err, fg.ID())
	}
	tb.Close()
	noProcesses(t, "sleep", "7510")
}

func TestTaskManyConcurrentNoLeaks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	fds := testenv.OpenFDs()
	tb := NewTable(TableOptions{MaxTasks: 100})
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			task, err := tb.Start(taskOpts(t, fmt.Sprintf("sleep 76%02d & sleep 76%02d", i, i)))
			if err != nil {
				errs <- err
				return
			}
			time.Sleep(50 * time.Millisecond)
			st := task.Kill()
			if st.Running || st.EndedBy != EndedSIGTERM {
				errs <- fmt.Errorf("%+v", st)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, err := tb.Start(taskOpts(t, "true")); err != nil {
		t.Errorf("after killing all: %v", err)
	}
	tb.Close()
	for i := 0; i < 100; i++ {
		noProcesses(t, "sleep", fmt.Sprintf("76%02d", i))
	}
	if err := testenv.CheckFDs(fds); err != nil {
		t.Error(err)
	}
}

func TestTermFilter(t *testing.T) {
	tests := []struct{ in, lines, pending string }{
		{"hello\r\nworld", "hello\n", "world"},
		{"10%\r50%\r100%\r\n", "100%\n", ""},
		{"\x1b[1;32mgreen\x1b[0m text\r\n", "green text\n", ""},
		{"abcdef\rXY\x1b[K\r\n", "XY\n", ""},
		{"ab\bc\r\n", "ac\n", ""},
		{"\x1b]0;title\x07>>> ", "", ">>> "},
		{"\x1b[?2004h>>> \x1b[?2004l\r", "", ">>> "},
		{"日本\xe8", "", "日本"},
	}
	for _, tt := range tests {
		var out strings.Builder
		f := &termFilter{emit: func(b []byte) { out.Write(b) }}
		// byte at a time and all at once must agree
		for i := 0; i < len(tt.in); i++ {
			f.write([]byte{tt.in[i]})
		}
		if out.String() != tt.lines || f.pending() != tt.pending {
			t.Errorf("%q: lines %q pending %q, want %q %q", tt.in, out.String(), f.pending(), tt.lines, tt.pending)
		}
	}
	var out strings.Builder
	f := &termFilter{emit: func(b []byte) { out.Write(b) }}
	f.write([]byte("日本\xe8"))
	f.write([]byte("\xaa\x9e\r\n"))
	if out.String() != "日本語\n" {
		t.Errorf("split rune: %q", out.String())
	}
}

func TestRing(t *testing.T) {
	r := ring{maxBytes: 10, maxLines: 2}
	r.write([]byte("a\nbb\nccc\n"))
	if d, drop := r.since(0); string(d) != "bb\nccc\n" || drop != 2 {
		t.Fatalf("%q %d", d, drop)
	}
	r.write([]byte("0123456789AB"))
	if d, drop := r.since(0); string(d) != "23456789AB" || drop != 11 {
		t.Fatalf("%q %d", d, drop)
	}
	if d, drop := r.since(r.end()); d != nil || drop != 0 {
		t.Fatalf("%q %d", d, drop)
	}
}

func TestTaskStdinBlocked(t *testing.T) {
	tb := newTable(t, TableOptions{})
	task, err := tb.Start(taskOpts(t, "exec sleep 7511"))
	if err != nil {
		t.Fatal(err)
	}
	task.stdinT = 100 * time.Millisecond
	big := strings.Repeat("x", 1<<20) // larger than any pipe buffer
	if err := task.WriteStdin(big); !errors.Is(err, ErrStdinBlocked) {
		t.Fatalf("write to a task that does not read: %v", err)
	}
	task.Kill()
	noProcesses(t, "sleep", "7511")
}

func TestTaskStreamPaced(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.SkipOrFail(t, "python3: %v", err)
	}
	tb := newTable(t, TableOptions{})
	// 10 000 lines per second for 2 s, in bursts of 100 every 10 ms.
	script := `python3 -c '
import sys, time
start = time.monotonic()
for i in range(200):
    sys.stdout.write("".join("line %d\n" % (i*100+j) for j in range(100)))
    sys.stdout.flush()
    time.sleep(max(0, start + (i+1)/100 - time.monotonic()))
'`
	task, err := tb.Start(taskOpts(t, script))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	sub, err := task.Subscribe(SubscribeOptions{Pattern: `^line \d*[05]$`, Replay: true}, func(l Line) { got = append(got, l.Text) })
	if err != nil {
		t.Fatal(err)
	}
	<-sub.Done()
	if len(got) != 4000 {
		t.Fatalf("%d lines, want 4000", len(got))
	}
	for i, l := range got {
		if want := fmt.Sprintf("line %d", i*5); l != want {
			t.Fatalf("line %d: %q, want %q", i, l, want)
		}
	}
}

func TestTaskPTYKill(t *testing.T) {
	tb := newTable(t, TableOptions{})
	o := taskOpts(t, "sleep 7512 & sleep 7513")
	o.PTY = true
	task, err := tb.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "started", func() bool { return testenv.ProcessesWithArgs("sleep", "7513") != nil })
	if st := task.Kill(); st.EndedBy != EndedSIGTERM {
		t.Fatalf("%+v", st)
	}
	noProcesses(t, "sleep", "7512")
	noProcesses(t, "sleep", "7513")
}

// TestWaitingForInputIsReadingStdin: a process asleep in select or poll
// waits for input only when its stdin is in the set it waits to read; a
// server polling its sockets, or select used as a sleep, does not.
func TestWaitingForInputIsReadingStdin(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("no perl")
	}
	for _, tc := range []struct {
		name, script string
		waiting      bool
	}{
		{"select on stdin", `exec perl -e '$r = ""; vec($r, 0, 1) = 1; select($r, undef, undef, 30)'`, true},
		{"select as a sleep", `exec perl -e 'select(undef, undef, undef, 30)'`, false},
		{"select on a socket", `exec perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0") or die; $r = ""; vec($r, fileno($s), 1) = 1; select($r, undef, undef, 30)'`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := newTable(t, TableOptions{})
			task, err := tb.Start(taskOpts(t, tc.script))
			if err != nil {
				t.Fatal(err)
			}
			defer task.Kill()
			// Wait until perl sleeps in its select.
			eventually(t, "asleep in select", func() bool {
				b, err := os.ReadFile(fmt.Sprintf("/proc/%d/syscall", task.Status(ReadOptions{}).Pid))
				f := strings.Fields(string(b))
				if err != nil || len(f) == 0 {
					return false
				}
				nr, err := strconv.ParseInt(f[0], 10, 64)
				return err == nil && isPollSyscall(nr)
			})
			if got := task.Status(ReadOptions{}).WaitingForInput; got != tc.waiting {
				t.Errorf("waiting_for_input %v, want %v", got, tc.waiting)
			}
		})
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
