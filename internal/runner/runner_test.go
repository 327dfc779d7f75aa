package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"go.uber.org/goleak"

	"github.com/shellguard/shellguard/internal/testenv"
)

func TestMain(m *testing.M) {
	if err := EnableSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "subreaper:", err)
		os.Exit(1)
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goroutines leaked:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func testEnv(t *testing.T) []string {
	env, _ := BuildEnv(os.Environ(), EnvPolicy{})
	return env
}

func run(t *testing.T, script string, mod ...func(*Options)) Result {
	t.Helper()
	o := Options{Script: script, Dir: t.TempDir(), Env: testEnv(t), Timeout: 20 * time.Second}
	for _, f := range mod {
		f(&o)
	}
	r, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("Run(%q): %v", script, err)
	}
	return r
}

func TestExitCodesAndStreams(t *testing.T) {
	tests := []struct {
		script         string
		code           int
		stdout, stderr string
	}{
		{"true", 0, "", ""},
		{"false", 1, "", ""},
		{"exit 3", 3, "", ""},
		{"definitely-not-a-command-xyz", 127, "", "definitely-not-a-command-xyz: command not found\n"},
		{"echo out; echo err >&2", 0, "out\n", "err\n"},
		{"printf 'a\\nb'; exit 1", 1, "a\nb", ""},
		{"kill -TERM $$", 128 + 15, "", ""},
		{"kill -KILL $$", 128 + 9, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			r := run(t, tt.script)
			if r.ExitCode != tt.code {
				t.Errorf("exit code %d, want %d", r.ExitCode, tt.code)
			}
			if r.Stdout.Text != tt.stdout {
				t.Errorf("stdout %q, want %q", r.Stdout.Text, tt.stdout)
			}
			if tt.stderr != "" && !strings.HasSuffix(r.Stderr.Text, tt.stderr) {
				t.Errorf("stderr %q, want suffix %q", r.Stderr.Text, tt.stderr)
			}
			if tt.stderr == "" && r.Stderr.Text != "" {
				t.Errorf("unexpected stderr %q", r.Stderr.Text)
			}
			if r.TimedOut || r.Stopped != NotStopped {
				t.Errorf("stopped: %v", r.Stopped)
			}
		})
	}
}

func TestStdinIsClosed(t *testing.T) {
	start := time.Now()
	r := run(t, "cat; read x; echo rc=$?")
	if r.Stdout.Text != "rc=1\n" {
		t.Fatalf("stdout %q", r.Stdout.Text)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cat waited for input for %v", d)
	}
}

func TestMissingCwd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nope")
	_, err := Run(context.Background(), Options{Script: "true", Dir: dir})
	if !errors.Is(err, ErrBadCwd) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("err = %v", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	_, err = Run(context.Background(), Options{Script: "true", Dir: file})
	if !errors.Is(err, ErrBadCwd) || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("err = %v", err)
	}
}

func TestEnvironment(t *testing.T) {
	parent := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		"AWS_SECRET_ACCESS_KEY=aws-secret-value", "GITHUB_TOKEN=ghp-value-123", "MY_PASSWORD=hunter22",
		"DB_PASSWD=passwd-value", "API_AUTH=auth-value", "SSH_PRIVATE=private-value", "X_CREDENTIALS=cred-value",
		"OPENAI_API_KEY=sk-value", "EDITOR=vim", "BASH_ENV=/tmp/evil", "BASH_FUNC_ls%%=() { echo hijacked; }",
		"TERM=xterm-256color", "PAGER=less",
	}
	env, dropped := BuildEnv(parent, EnvPolicy{})
	r := run(t, "env | sort; ls / >/dev/null && echo ls-ok", func(o *Options) { o.Env = env })
	out := r.Stdout.Text
	for _, gone := range []string{"aws-secret-value", "ghp-value", "hunter22", "passwd-value", "auth-value", "private-value", "cred-value", "sk-value", "EDITOR", "BASH_ENV", "hijacked"} {
		if strings.Contains(out, gone) {
			t.Errorf("%q reached the command:\n%s", gone, out)
		}
	}
	for _, want := range []string{"HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TERM=dumb", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "NO_COLOR=1", "ls-ok"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q missing:\n%s", want, out)
		}
	}
	if len(dropped) != 8 {
		t.Errorf("dropped secret values %q", dropped)
	}
	// An explicit allow wins over the secret-name rule; extra scrub names apply.
	env, _ = BuildEnv([]string{"GITHUB_TOKEN=x-allowed", "EDITOR=vim", "SESSION_ID=s1"}, EnvPolicy{Allow: []string{"GITHUB_TOKEN", "EDITOR", "SESSION_ID"}, Scrub: []string{"session"}})
	got := strings.Join(env, " ")
	if !strings.Contains(got, "GITHUB_TOKEN=x-allowed") || !strings.Contains(got, "EDITOR=vim") {
		t.Errorf("allow-list ignored: %s", got)
	}
	if !strings.Contains(got, "SESSION_ID") {
		t.Errorf("explicit allow should beat a scrub pattern: %s", got)
	}
	env, _ = BuildEnv([]string{"SESSION_ID=s1"}, EnvPolicy{Scrub: []string{"session"}})
	if strings.Contains(strings.Join(env, " "), "SESSION_ID") {
		t.Errorf("scrub pattern ignored: %v", env)
	}
}

// A variable exported with bash's function syntax, BASH_ENV and SHELLOPTS
// are ignored by bash -p even if they reach it.
func TestBashPrivilegedMode(t *testing.T) {
	dir := t.TempDir()
	rc := filepath.Join(dir, "rc")
	os.WriteFile(rc, []byte("echo sourced\n"), 0o600)
	env := append(testEnv(t), "BASH_ENV="+rc, "BASH_FUNC_ls%%=() { echo hijacked; }", "SHELLOPTS=xtrace")
	r := run(t, "ls -d /", func(o *Options) { o.Env = env })
	if r.Stdout.Text != "/\n" || r.Stderr.Text != "" {
		t.Fatalf("stdout %q stderr %q", r.Stdout.Text, r.Stderr.Text)
	}
}

func TestTruncationMarker(t *testing.T) {
	r := run(t, "seq 1 100000", func(o *Options) { o.MaxOutput = 1000 })
	if !strings.HasPrefix(r.Stdout.Text, "1\n2\n3\n") || !strings.HasSuffix(r.Stdout.Text, "99999\n100000\n") {
		t.Fatalf("head/tail wrong: %q…", r.Stdout.Text[:40])
	}
	if r.Stdout.Dropped <= 0 || !strings.Contains(r.Stdout.Text, fmt.Sprintf("[... %d bytes dropped ...]", r.Stdout.Dropped)) {
		t.Fatalf("marker missing or wrong: dropped=%d", r.Stdout.Dropped)
	}
	if len(r.Stdout.Text) > 1100 {
		t.Fatalf("kept %d bytes for a 1000-byte cap", len(r.Stdout.Text))
	}
}

func TestUTF8AndBinaryOutput(t *testing.T) {
	r := run(t, `for i in $(seq 1 3000); do printf 'é€𝄞'; done; printf '\xff\xfe\n' >&2`, func(o *Options) { o.MaxOutput = 1001 })
	if !utf8.ValidString(r.Stdout.Text) || strings.ContainsRune(r.Stdout.Text, utf8.RuneError) {
		t.Fatalf("cut split a character: %q", r.Stdout.Text)
	}
	if !utf8.ValidString(r.Stderr.Text) || !strings.Contains(r.Stderr.Text, "\uFFFD") {
		t.Fatalf("invalid UTF-8 not replaced: %q", r.Stderr.Text)
	}
	r = run(t, "head -c 20000 /dev/urandom")
	if !r.Stdout.Binary || !strings.Contains(r.Stdout.Text, "binary output: 20000 bytes") {
		t.Fatalf("binary not summarised: %q", r.Stdout.Text)
	}
}

// The total-output budget stops a flood at once instead of draining it
// for the whole timeout.
func TestOutputLimit(t *testing.T) {
	start := time.Now()
	r := run(t, "yes flood & yes flood >&2; wait", func(o *Options) { o.MaxTotal = 50 << 20 })
	if !r.OutputLimitExceeded || !killedCode(r.ExitCode) {
		t.Fatalf("limit not enforced: %+v", r.Stopped)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("flood ran for %v", d)
	}
	if testenv.ProcessesWithArgs("yes", "flood") != nil {
		t.Fatal("flood survived")
	}
}

// No process a command starts survives its timeout: not in the group, not
// setsid'd, not double-forked, not nohup'ed, not ignoring SIGTERM.
func TestTimeoutKillsEverything(t *testing.T) {
	tests := []struct {
		name   string
		script string
		sleeps []int
	}{
		{"setsid", "setsid sleep 7301 & sleep 7302", []int{7301, 7302}},
		{"double-fork", "(sleep 7303 &) ; sleep 7304", []int{7303, 7304}},
		{"nohup", "nohup sleep 7305 >/dev/null 2>&1 & sleep 7306", []int{7305, 7306}},
		{"trap-term", "(trap '' TERM; sleep 7307) & sleep 7308", []int{7307, 7308}},
		{"setsid-fork", "setsid bash -c '(sleep 7309 &); sleep 7310' & sleep 7311", []int{7309, 7310, 7311}},
		{"pipe-holder", "setsid sleep 7312 & echo started; sleep 7313", []int{7312, 7313}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			r := run(t, tt.script, func(o *Options) { o.Timeout = 500 * time.Millisecond; o.Grace = 300 * time.Millisecond })
			if !r.TimedOut || !killedCode(r.ExitCode) {
				t.Fatalf("timed_out=%v exit=%d", r.TimedOut, r.ExitCode)
			}
			if d := time.Since(start); d > 4*time.Second {
				t.Fatalf("took %v", d)
			}
			for _, n := range tt.sleeps {
				if pids := testenv.ProcessesWithArgs("sleep", fmt.Sprint(n)); pids != nil {
					t.Errorf("sleep %d survived: %v", n, pids)
				}
			}
		})
	}
}

// Background children left behind by a command that exits normally are
// ended too, and the run does not wait for them.
func TestNormalExitKillsLeftovers(t *testing.T) {
	start := time.Now()
	r := run(t, "setsid sleep 7321 & (sleep 7322 &); sleep 7323 & echo done")
	if r.Stdout.Text != "done\n" || r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("waited %v for leftovers", d)
	}
	for n := 7321; n <= 7323; n++ {
		if pids := testenv.ProcessesWithArgs("sleep", fmt.Sprint(n)); pids != nil {
			t.Errorf("sleep %d survived: %v", n, pids)
		}
	}
}

// Without the subreaper, escapees are found by their marker in /proc.
func TestEscapeesWithoutSubreaper(t *testing.T) {
	subreaper.Store(false)
	defer subreaper.Store(true)
	r := run(t, "setsid sleep 7331 & (nohup sleep 7332 >/dev/null 2>&1 &); echo ok")
	if r.Stdout.Text != "ok\n" {
		t.Fatalf("%q", r.Stdout.Text)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		a, b := testenv.ProcessesWithArgs("sleep", "7331"), testenv.ProcessesWithArgs("sleep", "7332")
		if a == nil && b == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("escapees survived: %v %v", a, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	// Cancelled once the command has written its line (not after a fixed
	// pause: on a loaded machine bash may not have started by then).
	seen := &lineSignal{want: "before\n", c: make(chan struct{})}
	cancelled := make(chan time.Time, 1)
	go func() {
		select {
		case <-seen.c:
		case <-time.After(30 * time.Second):
		}
		cancelled <- time.Now()
		cancel()
	}()
	r, err := Run(ctx, Options{Script: "echo before; sleep 7341", Dir: t.TempDir(), Env: testEnv(t), Grace: 200 * time.Millisecond, Stdout: seen})
	start := <-cancelled
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if r.Stdout.Text != "before\n" || !killedCode(r.ExitCode) || r.TimedOut {
		t.Fatalf("%+v", r)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("cancel took %v", d)
	}
	if testenv.ProcessesWithArgs("sleep", "7341") != nil {
		t.Fatal("survived cancel")
	}
}

// Many concurrent runs leave nothing behind (checked in TestMain too).
func TestConcurrentRuns(t *testing.T) {
	errs := make(chan error, 40)
	for i := 0; i < 40; i++ {
		go func(i int) {
			r, err := Run(context.Background(), Options{Script: fmt.Sprintf("echo %d; (setsid sleep 735%d &)", i, i%10), Dir: t.TempDir(), Env: testEnv(t)})
			if err == nil && r.Stdout.Text != fmt.Sprintf("%d\n", i) {
				err = fmt.Errorf("run %d: stdout %q", i, r.Stdout.Text)
			}
			errs <- err
		}(i)
	}
	for i := 0; i < 40; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	time.Sleep(100 * time.Millisecond)
	for i := 0; i < 10; i++ {
		if pids := testenv.ProcessesWithArgs("sleep", fmt.Sprintf("735%d", i)); pids != nil {
			t.Errorf("sleep 735%d survived: %v", i, pids)
		}
	}
}

func TestLiveTee(t *testing.T) {
	var out, errb strings.Builder
	r := run(t, "echo a; echo b >&2", func(o *Options) { o.Stdout = &lockedWriter{w: &out}; o.Stderr = &lockedWriter{w: &errb} })
	if out.String() != "a\n" || errb.String() != "b\n" || r.Stdout.Text != "a\n" {
		t.Fatalf("tee %q %q", out.String(), errb.String())
	}
}

type lockedWriter struct{ w *strings.Builder }

func (l *lockedWriter) Write(p []byte) (int, error) { return l.w.Write(p) }

// Runs of every kind leave no file descriptor open (goroutines are checked
// for the whole package in TestMain).
func TestNoFDLeaks(t *testing.T) {
	run(t, "true") // warm up lazily opened descriptors
	before := testenv.OpenFDs()
	for _, script := range []string{"true", "exit 3", "echo x; echo y >&2", "setsid sleep 7361 & echo", "seq 1 100000", "kill -9 $$"} {
		run(t, script, func(o *Options) { o.MaxOutput = 100 })
	}
	run(t, "sleep 7362", func(o *Options) { o.Timeout = 200 * time.Millisecond; o.Grace = 100 * time.Millisecond })
	Run(context.Background(), Options{Script: "true", Dir: "/nonexistent-dir-xyz"})
	if err := testenv.CheckFDs(before); err != nil {
		t.Fatal(err)
	}
}

// killedCode reports whether code is what a shell killed by the runner
// exits with: 128+SIGTERM, or 128+SIGKILL when it needed that.
func killedCode(code int) bool { return code == 143 || code == 137 }

// failingLauncher starts bash but reports that its set-up failed, as a
// sandbox helper that could not apply the sandbox does: the command never
// ran.
type failingLauncher struct{}

func (failingLauncher) Command(script string, env []string, dir string) (Launch, error) {
	cmd := exec.Command("sleep", "30")
	cmd.Env, cmd.Dir = env, dir
	return Launch{Cmd: cmd, Report: func() (any, error) { return nil, errors.New("set-up failed") }}, nil
}

// TestLauncherFailureIsNotRun: when the launcher reports a failure, the
// result says the command did not run, and a task has no exit code.
func TestLauncherFailureIsNotRun(t *testing.T) {
	r, _ := Run(context.Background(), Options{Launcher: failingLauncher{}, Script: "true", Dir: t.TempDir(), Env: testEnv(t), Timeout: 20 * time.Second})
	if r.Err == nil || !r.NotRun {
		t.Fatalf("Err %v, NotRun %v: want the launcher's error and NotRun", r.Err, r.NotRun)
	}
	tb := NewTable(TableOptions{})
	defer tb.Close()
	task, err := tb.Start(Options{Launcher: failingLauncher{}, Script: "true", Dir: t.TempDir(), Env: testEnv(t), Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	<-task.Done()
	if st := task.Status(ReadOptions{}); st.ExitCode != nil {
		t.Fatalf("a task that never ran has exit code %d", *st.ExitCode)
	}
}

// lingeringLauncher's leader reports the command's end (code 5) at once
// and then stays, having let go of the output, as a warm sandbox helper
// does until it is released.
type lingeringLauncher struct{}

func (lingeringLauncher) Command(script string, env []string, dir string) (Launch, error) {
	cmd := exec.Command("sh", "-c", "exec >&- 2>&-; exec sleep 30")
	cmd.Env, cmd.Dir = env, dir
	return Launch{Cmd: cmd, Ended: func() (int, bool) { return 5, true }, Contained: func() bool { return true }}, nil
}

// TestLeaderLingersAfterEnded: a leader that reported the command's end
// gives the result at once, is not killed on the result's way, and is
// killed once it outlives endedGrace.
func TestLeaderLingersAfterEnded(t *testing.T) {
	old := endedGrace
	endedGrace = 2 * time.Second
	defer func() { endedGrace = old }()
	p, err := Start(Options{Launcher: lingeringLauncher{}, Script: "true", Dir: t.TempDir(), Env: testEnv(t), Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if r := p.Result(); r.ExitCode != 5 {
		t.Fatalf("exit code %d, want the reported 5", r.ExitCode)
	}
	select {
	case <-p.Reaped():
		t.Fatal("the leader was ended on the result's way")
	case <-time.After(200 * time.Millisecond):
	}
	select {
	case <-p.Reaped():
	case <-time.After(20 * time.Second):
		t.Fatal("a leader outliving endedGrace was not killed")
	}
}

// slowWriter takes each write after a pause, as a tee on a loaded
// machine can (a progress writer, a redactor on a busy core).
type slowWriter struct{ pause time.Duration }

func (w slowWriter) Write(b []byte) (int, error) {
	time.Sleep(w.pause)
	return len(b), nil
}

// TestSlowTeeKeepsTheEnd: after the command has exited, a tee that takes
// longer than the drain's stall window for one chunk is still making
// progress: the rest of the pipe is read, and the output keeps its end.
func TestSlowTeeKeepsTheEnd(t *testing.T) {
	r := run(t, `seq 1 60000; echo the-end`, func(o *Options) { o.Stdout = slowWriter{1200 * time.Millisecond} })
	if !strings.HasSuffix(r.Stdout.Text, "the-end\n") {
		t.Errorf("the output lost its end behind a slow tee: ends %q", r.Stdout.Text[max(0, len(r.Stdout.Text)-40):])
	}
}

// lineSignal closes c once what was written to it holds want.
type lineSignal struct {
	mu   sync.Mutex
	buf  []byte
	want string
	c    chan struct{}
	done bool
}

func (w *lineSignal) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if !w.done && strings.Contains(string(w.buf), w.want) {
		w.done = true
		close(w.c)
	}
	return len(p), nil
}
