//go:build linux

package sandbox

// The warm pool's security invariant: a command run by a warm helper sees
// exactly what a cold start sees (credentials, capabilities, seccomp,
// mounts, Landlock, uid/gid maps, environment, rlimits, descriptors), and
// both pass the layer tests. Every probe runs only after assertActive
// proved the sandbox in force on the path under test.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellguard/shellguard/internal/runner"
	"golang.org/x/sys/unix"
)

// waitReady waits until the pool holds a warm helper for its current key
// (false when it has no key yet or gave up warming).
func (p *Pool) waitReady(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		n, proto, failed, closed := len(p.warm), p.proto, p.failed, p.closed
		p.mu.Unlock()
		if proto == nil || failed || closed {
			return false
		}
		if n > 0 {
			return true
		}
		time.Sleep(2 * time.Millisecond)
	}
	return false
}

// runPooled runs script through f.pool: by a warm helper when one is
// ready (f.lastWarm says whether it was), else cold. stdin is /dev/null
// and stdout and stderr share one pipe, as in f.run.
func (f *fixture) runPooled(t *testing.T, ctx context.Context, spec Spec, script string, env []string, dir string) result {
	t.Helper()
	f.pool.waitReady(20 * time.Second)
	cmd, h, err := f.pool.Command(ctx, spec, script, env, dir)
	if err != nil {
		t.Fatalf("Pool.Command: %v", err)
	}
	f.lastWarm = h.Warm()
	if f.reviewer != nil {
		h.OnReview(f.reviewer)
	}
	if !f.lastWarm {
		f.pool.mu.Lock()
		t.Logf("cold start: %s (warming error: %v)", f.pool.lastMiss, f.pool.lastWarmErr)
		f.pool.mu.Unlock()
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	drained := make(chan struct{})
	go func() { io.Copy(&buf, r); close(drained) }()
	start := time.Now()
	if h.Warm() {
		null, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		err = h.Send(null, w, w)
		null.Close()
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			h.Close()
			t.Fatalf("Send: %v", err)
		}
	} else {
		cmd.Stdout, cmd.Stderr = w, w
		if err := cmd.Start(); err != nil {
			t.Fatalf("start: %v", err)
		}
	}
	w.Close()
	h.Started()
	stop := context.AfterFunc(ctx, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	a, aerr := h.Applied()
	if a.Warm != f.lastWarm {
		t.Errorf("Applied.Warm %v for a warm start %v", a.Warm, f.lastWarm)
	}
	f.helperPid = cmd.Process.Pid
	// As the runner does: a warm helper stays after its report until
	// Close has released it (through the pool), so it is waited for
	// after Close.
	if h.Warm() || f.onEnded != nil {
		code, ok := h.Ended()
		if f.onEnded != nil {
			f.onEnded(code, ok)
		}
	}
	var werr error
	if !h.Warm() {
		werr = cmd.Wait()
	}
	select {
	case <-drained:
	case <-time.After(5 * time.Second):
		r.Close()
		<-drained
	}
	r.Close()
	h.Close()
	if h.Warm() {
		werr = cmd.Wait()
	}
	stop()
	res := result{out: buf.String(), applied: a, err: aerr, duration: time.Since(start)}
	res.code = cmd.ProcessState.ExitCode()
	if werr != nil && res.code == 0 {
		res.code = -1
	}
	return res
}

// warmPool gives f a pool of size n whose helpers fit spec, and waits for
// one to be ready.
func warmPool(t *testing.T, f *fixture, spec Spec, n int) *Pool {
	t.Helper()
	p := NewPool(n)
	t.Cleanup(func() { p.Close() })
	f.pool = p
	f.run(t, spec, "true", 20*time.Second) // cold: it sets the pool's target
	if f.lastWarm {
		t.Fatalf("the first command of a new pool ran warm")
	}
	if !p.waitReady(20 * time.Second) {
		t.Fatalf("no warm helper became ready")
	}
	return p
}

// invariantProbe prints what a command can observe of its confinement;
// a cold and a warm start must print the same. bash's descriptors are
// listed through a file, not a pipe: in "ls /proc/$$/fd | awk" bash may
// still hold the pipe's read end when ls looks (seen under load).
const invariantProbe = `echo "ppid $PPID (pids count the helper's threads)"; pwd
grep -E '^(Cap[A-Za-z]+|NoNewPrivs|Seccomp|Seccomp_filters|Uid|Gid|Groups):' /proc/self/status
echo --- maps; cat /proc/self/uid_map /proc/self/gid_map; id
echo --- mountinfo; cut -d' ' -f3- /proc/self/mountinfo
echo --- env; env | LC_ALL=C sort
echo --- ulimit; ulimit -a
echo --- fds; ls -l /proc/$$/fd > {ws}/pool-fds; awk 'NR > 1 {print $9, $10, $11}' {ws}/pool-fds; rm -f {ws}/pool-fds; ls /proc/self/fd
echo --- landlock
if ( : > {out}/pool-probe ) 2>/dev/null; then echo outside-write-ALLOWED; else echo outside-write-denied; fi
if ( echo x > {ws}/pool-probe ) 2>/dev/null; then echo inside-write-ok; rm -f {ws}/pool-probe; else echo inside-write-FAILED; fi
echo --- seccomp
SGTEST_TOOL=syscalls "$SGTEST_BIN"
perl -e 'if (socket(S, 40, 1, 0)) { print "vsock=CREATED\n" } else { print "vsock=refused\n" }'
echo --- signals; grep -E '^Sig(Blk|Ign|Cgt)' /proc/self/status
echo --- end`

// normalise removes what differs between any two runs, cold or warm: the
// device numbers of per-run tmpfs/devpts/proc mounts and pipe inodes.
var (
	anonDev  = regexp.MustCompile(`(?m)^0:[0-9]+ `)
	pipeIno  = regexp.MustCompile(`(pipe|socket):\[[0-9]+\]`)
	lsDate   = regexp.MustCompile(`(?m)^([0-9]+) -> `)
	probeEnv = regexp.MustCompile(`(?m)^SGTEST_BIN=.*$`)
)

func normalise(s string) string {
	// The order of the /dev binds is not fixed even between two cold
	// runs (privateDev); the set of mounts is what is compared.
	if i := strings.Index(s, "--- mountinfo\n"); i >= 0 {
		if j := strings.Index(s[i:], "--- env\n"); j >= 0 {
			lines := strings.Split(strings.TrimSuffix(s[i+14:i+j], "\n"), "\n")
			for k := range lines {
				lines[k] = anonDev.ReplaceAllString(lines[k], "0:N ")
			}
			sort.Strings(lines)
			s = s[:i+14] + strings.Join(lines, "\n") + "\n" + s[i+j:]
		}
	}
	s = anonDev.ReplaceAllString(s, "0:N ")
	s = pipeIno.ReplaceAllString(s, "$1:[N]")
	s = lsDate.ReplaceAllString(s, "$1 -> ")
	return probeEnv.ReplaceAllString(s, "SGTEST_BIN=…")
}

func layersOf(a Applied) string {
	var b strings.Builder
	for _, l := range a.Layers {
		b.WriteString(l.Name + ": " + l.Detail + "\n")
	}
	for _, m := range a.Missing {
		b.WriteString("MISSING " + m.Name + ": " + m.Reason + "\n")
	}
	b.WriteString("network " + a.Network + ", init " + a.Init + "\n")
	return b.String()
}

// TestPoolInvariant: the same probe, run cold and warm, prints the same.
func TestPoolInvariant(t *testing.T) {
	for _, c := range []struct {
		name    string
		session bool
		network bool
	}{{"per-run-tmp", false, false}, {"session-tmp", true, false}, {"network", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			spec := Spec{Network: c.network}
			if c.session {
				st, err := NewSessionTmp()
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				spec.SessionTmp = st.Dir()
			}
			sub := filepath.Join(f.ws, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			f.cwd = sub
			coldA := f.assertActive(t, spec)
			need(t, coldA, LayerUserNS, LayerMountNS, LayerPidNS)
			probe := strings.NewReplacer("{out}", f.outside, "{ws}", f.ws).Replace(invariantProbe)
			cold := f.run(t, spec, probe, 30*time.Second)

			p := warmPool(t, f, spec, 1)
			warmA := f.assertActive(t, spec)
			if !f.lastWarm {
				t.Fatalf("assertActive did not run warm")
			}
			p.waitReady(20 * time.Second)
			warm := f.run(t, spec, probe, 30*time.Second)
			if !f.lastWarm {
				t.Fatalf("the probe did not run warm")
			}
			if hits, _ := p.Stats(); hits < 2 {
				t.Fatalf("pool hits %d, want 2", hits)
			}
			for _, r := range []result{cold, warm} {
				if r.err != nil || r.code != 0 {
					t.Fatalf("probe failed: code %d, %v\n%s", r.code, r.err, r.out)
				}
				for _, bad := range []string{"outside-write-ALLOWED", "inside-write-FAILED", "vsock=CREATED", "unshare=OK", "mount=OK"} {
					if strings.Contains(r.out, bad) {
						t.Fatalf("probe: %s\n%s", bad, r.out)
					}
				}
				if !strings.Contains(r.out, "--- end") || !strings.Contains(r.out, "NoNewPrivs:\t1") {
					t.Fatalf("probe incomplete:\n%s", r.out)
				}
			}
			if testing.Verbose() {
				t.Logf("warm probe:\n%s", warm.out)
			}
			if a, b := normalise(cold.out), normalise(warm.out); a != b {
				t.Errorf("a warm start sees something else than a cold one:\n%s", lineDiff(a, b))
			}
			if a, b := layersOf(coldA), layersOf(warmA); a != b {
				t.Errorf("layers differ:\ncold:\n%s\nwarm:\n%s", a, b)
			}
			f.canaryIntact(t)
		})
	}
}

func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out.WriteString("cold: " + x + "\nwarm: " + y + "\n")
		}
	}
	return out.String()
}

// TestPoolLayers runs the write-outside fixtures, the seccomp probes and
// the inherited-descriptor check through warm helpers.
func TestPoolLayers(t *testing.T) {
	f := newFixture(t)
	need(t, f.assertActive(t, Spec{}), LayerUserNS, LayerMountNS, LayerPidNS)
	warmPool(t, f, Spec{}, 2)
	f.assertActive(t, Spec{})
	if !f.lastWarm {
		t.Fatal("not warm")
	}
	for _, c := range outsideWrites {
		t.Run(c.name, func(t *testing.T) {
			r := f.run(t, Spec{}, strings.ReplaceAll(c.script, "{out}", f.outside), 20*time.Second)
			if !f.lastWarm {
				t.Fatalf("ran cold")
			}
			f.canaryIntact(t)
			if r.err != nil {
				t.Fatalf("applied: %v", r.err)
			}
		})
	}
	// A descriptor the caller leaks (not close-on-exec) after the helper
	// was warmed never reached it; one leaked before was closed by it.
	wfd, err := unix.Open(f.canary, unix.O_WRONLY|unix.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(wfd)
	wfd = high(t, wfd)
	r := f.run(t, Spec{}, `{ echo pwned >&`+strconv.Itoa(wfd)+`; } 2>/dev/null && echo WRITABLE; ls /proc/self/fd`, 20*time.Second)
	if !f.lastWarm || strings.Contains(r.out, "WRITABLE") {
		t.Fatalf("warm %v: %s", f.lastWarm, r.out)
	}
	f.canaryIntact(t)
	// The timeout kills the whole tree of a warm start.
	start := time.Now()
	r = f.run(t, Spec{}, `sleep 300 & sleep 300; echo survived`, 2*time.Second)
	if !f.lastWarm || strings.Contains(r.out, "survived") || time.Since(start) > 15*time.Second {
		t.Fatalf("warm %v, %v: %s", f.lastWarm, time.Since(start), r.out)
	}
}

// children returns the pids of this process's children.
func childPids(t *testing.T) []string {
	t.Helper()
	var out []string
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, tk := range tasks {
		b, _ := os.ReadFile("/proc/self/task/" + tk.Name() + "/children")
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

// TestPoolCloseLeavesNothing: Close ends every warm helper and every
// helper being warmed, and releases their .git views.
func TestPoolCloseLeavesNothing(t *testing.T) {
	f := newFixture(t)
	need(t, f.assertActive(t, Spec{}), LayerUserNS, LayerMountNS, LayerPidNS)
	gd := filepath.Join(f.ws, ".git")
	for _, d := range []string{"objects", "refs/heads"} {
		os.MkdirAll(filepath.Join(gd, d), 0o755)
	}
	os.WriteFile(filepath.Join(gd, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(gd, "config"), []byte("[core]\n\tbare = false\n"), 0o644)
	before := len(childPids(t))
	p := warmPool(t, f, Spec{}, 2)
	r := f.run(t, Spec{}, "cat .git/HEAD", 20*time.Second)
	if !f.lastWarm || !strings.Contains(r.out, "refs/heads/main") {
		t.Fatalf("warm %v: %q", f.lastWarm, r.out)
	}
	// Let the refill start (maybe not finish) before closing.
	time.Sleep(5 * time.Millisecond)
	if n := len(childPids(t)); n <= before {
		t.Fatalf("no warm helper running (children %d, before %d)", n, before)
	}
	p.Close()
	if n := len(childPids(t)); n != before {
		t.Fatalf("%d children after Close, %d before: %v", n, before, childPids(t))
	}
	// Views stay for reuse, but none may still be held.
	ents, _ := os.ReadDir(gd)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), gitViewPrefix) && strings.HasSuffix(e.Name(), ".lock") {
			fd, err := unix.Open(filepath.Join(gd, e.Name()), unix.O_RDWR|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
			unix.Close(fd)
			if err != nil {
				t.Fatalf(".git view still held after Close: %s", e.Name())
			}
		}
	}
	// A closed pool starts everything cold.
	r = f.run(t, Spec{}, "true", 20*time.Second)
	if f.lastWarm || r.code != 0 {
		t.Fatalf("closed pool: warm %v code %d", f.lastWarm, r.code)
	}
}

// TestWarmHelperLingersAlone: after a warm command's report, its helper
// stays, alone (what the command left running in the background has been
// killed and reaped), until the pool releases it after Close, well
// before releaseWait.
func TestWarmHelperLingersAlone(t *testing.T) {
	f := newFixture(t)
	need(t, f.assertActive(t, Spec{}), LayerUserNS, LayerPidNS)
	warmPool(t, f, Spec{}, 2)
	var alive bool
	var children string
	var reported time.Time
	f.onEnded = func(code int, ok bool) {
		if !ok || code != 3 {
			t.Errorf("Ended: code %d ok %v, want 3 true", code, ok)
		}
		reported = time.Now()
		// A helper that did not stay has exited by now; this one waits
		// for Close (after this), so it must be there, sleeping, not a
		// zombie.
		time.Sleep(100 * time.Millisecond)
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", f.helperPid))
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && i+2 < len(st) {
			alive = st[i+2] == 'S' || st[i+2] == 'R'
		}
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", f.helperPid))
		for _, tk := range tasks {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", f.helperPid, tk.Name()))
			children += string(b)
		}
	}
	r := f.run(t, Spec{}, "sleep 300 & sleep 300 & exit 3", 20*time.Second)
	if !f.lastWarm {
		t.Fatal("the command did not run warm")
	}
	if r.code != 3 {
		t.Fatalf("exit code %d, want 3", r.code)
	}
	if !alive {
		t.Error("the helper did not stay after its report")
	}
	if strings.TrimSpace(children) != "" {
		t.Errorf("the helper still had children after its report: %q", children)
	}
	if d := time.Since(reported); d >= releaseWait {
		t.Errorf("the helper ended %v after its report: not released by the pool", d)
	}
}

// TestPoolRevalidates: a helper whose .git view is stale, or whose key no
// longer matches the call (a protected path appeared, another network
// setting), is not used.
func TestPoolRevalidates(t *testing.T) {
	f := newFixture(t)
	need(t, f.assertActive(t, Spec{}), LayerUserNS, LayerMountNS, LayerPidNS)
	gd := filepath.Join(f.ws, ".git")
	os.MkdirAll(filepath.Join(gd, "objects"), 0o755)
	os.WriteFile(filepath.Join(gd, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	warmPool(t, f, Spec{}, 1)

	// The user's git replaces HEAD while the helper waits.
	tmp := filepath.Join(gd, "HEAD.lock")
	os.WriteFile(tmp, []byte("ref: refs/heads/other\n"), 0o644)
	if err := os.Rename(tmp, filepath.Join(gd, "HEAD")); err != nil {
		t.Fatal(err)
	}
	r := f.run(t, Spec{}, "cat .git/HEAD", 20*time.Second)
	if f.lastWarm || !strings.Contains(r.out, "refs/heads/other") {
		t.Fatalf("stale .git view used: warm %v, %q", f.lastWarm, r.out)
	}
	f.pool.waitReady(20 * time.Second)
	r = f.run(t, Spec{}, "cat .git/HEAD", 20*time.Second)
	if !f.lastWarm || !strings.Contains(r.out, "refs/heads/other") {
		t.Fatalf("refilled helper: warm %v, %q", f.lastWarm, r.out)
	}

	// A protected file appears: it must be read-only as in a cold start.
	f.pool.waitReady(20 * time.Second)
	envrc := filepath.Join(f.ws, ".envrc")
	os.WriteFile(envrc, []byte("# user's\n"), 0o644)
	f.run(t, Spec{}, "echo pwned >> .envrc", 20*time.Second)
	if f.lastWarm {
		t.Fatalf("a helper warmed before .envrc existed ran the command")
	}
	if b, _ := os.ReadFile(envrc); string(b) != "# user's\n" {
		t.Fatalf(".envrc changed: %q", b)
	}

	// Another network setting: cold.
	f.pool.waitReady(20 * time.Second)
	f.run(t, Spec{Network: true}, "true", 20*time.Second)
	if f.lastWarm {
		t.Fatalf("a helper without network served a --network call")
	}
	// A cwd outside the workspace: cold.
	f.pool.waitReady(20 * time.Second)
	f.cwd = f.outside
	f.run(t, Spec{Network: true}, "true", 20*time.Second)
	if f.lastWarm {
		t.Fatalf("a cwd outside the workspace ran warm")
	}
}

// poolSubreaperTool runs in a process of its own that is a child
// subreaper, as the MCP server is: runs of the runner end (and clean up
// the processes re-parented to it) while the pool warms helpers, and no
// helper may be taken for an escaped process and killed.
func poolSubreaperTool() int {
	if err := runner.EnableSubreaper(); err != nil {
		fmt.Println("subreaper:", err)
		return 1
	}
	ws := os.Getenv("SGTEST_WS")
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + ws, "LANG=C.UTF-8"}
	spec := Spec{Workspace: ws, Home: ws}
	p := NewPool(2)
	defer p.Close()
	warm := 0
	for i := 0; i < 40; i++ {
		cmd, h, err := p.Command(context.Background(), spec, "true", env, ws)
		if err != nil {
			fmt.Println("Command:", err)
			return 1
		}
		if h.Warm() {
			warm++
			cmd.Process.Kill() // not run: only the pool's helpers matter here
			cmd.Wait()
			runner.Forget(cmd.Process.Pid)
			h.Close()
		} else {
			h.Close()
		}
		// A run whose clean-up looks for escaped processes among this
		// process's children.
		if _, err := runner.Run(context.Background(), runner.Options{Script: "true", Dir: ws, Env: env}); err != nil {
			fmt.Println("runner:", err)
			return 1
		}
		time.Sleep(3 * time.Millisecond)
	}
	p.mu.Lock()
	werr, failures := p.lastWarmErr, p.failures
	p.mu.Unlock()
	fmt.Printf("warm %d, warm-start failures %d (%v)\n", warm, failures, werr)
	if werr != nil || warm == 0 {
		return 1
	}
	return 0
}

// TestPoolUnderSubreaper: see poolSubreaperTool.
func TestPoolUnderSubreaper(t *testing.T) {
	f := newFixture(t)
	need(t, f.assertActive(t, Spec{}), LayerUserNS, LayerMountNS, LayerPidNS)
	cmd := exec.Command(testBinary(t))
	cmd.Env = append(os.Environ(), "SGTEST_TOOL=pool-subreaper", "SGTEST_WS="+f.ws)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	t.Logf("%s", out)
}
