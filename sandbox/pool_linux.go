//go:build linux

package sandbox

// The warm pool. A warm helper is started exactly as a cold one (Command:
// the same clone flags, uid/gid maps, cgroup, spec JSON, .git view) and
// applies every layer the same way, in the same order, then reports them
// on fd 3 as a cold helper does just before bash. Instead of running bash
// it then blocks on fd 4 until the parent sends the one command it will
// run (awaitCall): script, environment, working directory, and the
// command's stdin, stdout and stderr as descriptors. It makes them 0, 1
// and 2, changes into the directory and runs bash exactly like a cold
// helper (go-init as pid 1, or bash as init). A helper serves one command
// and exits with bash's status.
//
// What the warm part depends on is the key: the resolved helper spec
// (workspace, writable roots, read-only and masked paths, HOME allowlist,
// the session's private /tmp, network, limits, bash), whether each path
// that is protected only when it exists does exist, and the cgroup's CPU
// bound. A call whose key differs from the pool's starts cold and retargets
// the pool. The .git view (git_linux.go) is a snapshot taken when the
// helper was warmed: a helper whose snapshot no longer matches the real
// .git is discarded at take time, and no helper is warmed while git has
// rebase/sequencer state that the view would hide from the user.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shellguard/shellguard/internal/runner"
	"github.com/shellguard/shellguard/internal/steptime"
	"golang.org/x/sys/unix"
)

// DefaultPool is the number of warm helpers a Pool keeps when its size is 0.
const DefaultPool = 2

// warmArg is the extra argument of a warm helper.
const warmArg = "warm"

// markerVar tags the processes of a run (internal/runner.MarkerVar): a warm
// helper carries a marker of its own, so that no run's clean-up takes it
// for one of its escaped processes.
const markerVar = "SHELLGUARD_RUN"

// poolCall is what a warm helper receives: the per-call part.
type poolCall struct {
	Script string   `json:"script"`
	Env    []string `json:"env"`
	Dir    string   `json:"dir"`
}

// Pool keeps warm sandbox helpers for one long-lived caller (a session).
// It is safe for concurrent use. The zero value is not usable; a nil
// *Pool is, and always starts cold.
type Pool struct {
	size   int
	marker string

	mu       sync.Mutex
	key      string
	proto    *poolProto
	warm     []*warmHelper
	filling  bool // a goroutine is warming helpers
	failed   bool // warming failed for this key: stop trying until it changes
	failures int  // warm starts failed in a row
	closed   bool
	bg       sync.WaitGroup

	hits, misses int
	lastMiss     string // why the last call started cold (for tests)
	lastWarmErr  error  // why warming failed
}

// poolProto is what warm helpers are started from.
type poolProto struct {
	spec Spec
	env  []string // the call's environment without the run marker
	ws   string
	hs   []byte // the key's helper spec (JSON, without the .git view)
}

type warmHelper struct {
	key string
	cmd *exec.Cmd
	h   *Handle // h.ctl: our end of the control channel
	git string  // fingerprint of .git when it was warmed
}

// NewPool returns a pool of size warm helpers (0: DefaultPool); nil when
// size is negative (no pool: every command starts cold).
func NewPool(size int) *Pool {
	if size < 0 {
		return nil
	}
	if size == 0 {
		size = DefaultPool
	}
	longLived.Store(true) // a long-lived process: see realpath
	var b [8]byte
	rand.Read(b[:])
	return &Pool{size: size, marker: "pool-" + hex.EncodeToString(b[:])}
}

// Command is Command, served by a warm helper when one fits: the returned
// *exec.Cmd has then already been started (Handle.Warm reports true) and
// runs the script once the caller hands it its stdin, stdout and stderr
// with Handle.Send. Otherwise (no pool, no warm helper ready, or a request
// the warm ones do not fit) it is an unstarted cold command, as from
// Command. Either way the pool prepares helpers for the next calls in the
// background; a call never waits for one.
func (p *Pool) Command(ctx context.Context, spec Spec, script string, env []string, dir string) (*exec.Cmd, *Handle, error) {
	w, hs := p.take(spec, env, dir)
	steptime.Mark("pool.take")
	if w != nil {
		w.h.call = &poolCall{Script: script, Dir: realpath(dir),
			Env: netEnv(goProxyEnv(withCacheEnv(env, cacheDirOf(spec, env), hs.Writable, hs.Workspace), env, hs.FS.Home), spec)}
		w.h.applied.Warm = true
		// The post-run workspace search starts from now (and from what
		// exists now), not from when the helper was warmed.
		w.h.ws = prepareWSGuard(hs.Workspace, w.h.git != nil)
		w.h.postTimeout = spec.PostRunTimeout
		w.h.grantNet(spec.NetGrants)
		// Its replacement is warmed once the command has ended: warming
		// takes a few milliseconds of CPU, which the command would lose
		// on a machine with few cores (take leaves it to us). The helper
		// itself is released then too.
		w.h.done = p.refill
		return w.cmd, w.h, nil
	}
	return Command(ctx, spec, script, env, dir)
}

// Warm reports whether the command was started by the pool (then call
// Send instead of starting it).
func (h *Handle) Warm() bool { return h != nil && h.call != nil }

// Send hands the warm helper its command and the command's stdin, stdout
// and stderr (the helper makes them its 0, 1 and 2; the caller closes its
// copies afterwards as after a Start).
// The channel stays open for the helper's report of how the command
// ended (Ended, ctl_linux.go).
func (h *Handle) Send(stdin, stdout, stderr *os.File) error {
	if h.call == nil || h.ctl == nil {
		return errors.New("sandbox: not a warm helper")
	}
	if h.sent {
		return errors.New("sandbox: warm helper: command already sent")
	}
	h.sent = true
	b := wireAppend(nil, h.call)
	rc, err := h.ctl.SyscallConn()
	if err != nil {
		return err
	}
	rights := unix.UnixRights(int(stdin.Fd()), int(stdout.Fd()), int(stderr.Fd()))
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for len(b) > 0 {
			chunk := b
			if len(chunk) > 16<<10 {
				chunk = chunk[:16<<10]
			}
			var n int
			if rights != nil {
				// The descriptors go with the first bytes.
				n, werr = unix.SendmsgN(int(fd), chunk, rights, nil, 0)
			} else {
				n, werr = unix.Write(int(fd), chunk)
			}
			switch {
			case werr == unix.EAGAIN:
				return false // wait until writable
			case werr == unix.EINTR:
				continue
			case werr != nil:
				return true
			}
			rights = nil
			b = b[n:]
		}
		// The helper reads the call to its end.
		werr = unix.Shutdown(int(fd), unix.SHUT_WR)
		return true
	})
	if err == nil {
		err = werr
	}
	if err != nil {
		return fmt.Errorf("sandbox: warm helper: %w", err)
	}
	steptime.Mark("pool.sent")
	return nil
}

// Close kills every warm helper, waits for them and for the helpers being
// warmed, and releases what each held (its .git view, cgroup, supervisor).
// Commands already handed out are not affected. Safe to call more than once.
func (p *Pool) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	p.closed = true
	ws := p.warm
	p.warm = nil
	p.mu.Unlock()
	for _, w := range ws {
		p.kill(w)
	}
	p.bg.Wait()
	return nil
}

// Stats returns how many calls a warm helper served and how many started
// cold.
func (p *Pool) Stats() (hits, misses int) {
	if p == nil {
		return 0, 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hits, p.misses
}

// Ready returns how many warm helpers are ready now.
func (p *Pool) Ready() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.warm)
}

// poolSpec resolves the helper spec a helper started for dir would get,
// as Command does, without its side effects on .git.
func poolSpec(spec Spec, env []string, dir string) (*helperSpec, error) {
	hs, err := resolve(spec, env, dir)
	if err != nil {
		return nil, err
	}
	hs.Bash = lookBash(env)
	hs.IPC = ipcSpecOf(spec, env, dir)
	hs.UserNS, hs.NSReason = nsAllowed()
	if hs.UserNS && !spec.Network {
		hs.NetNS = true
	}
	return hs, nil
}

// keyOf is the part of a helper spec a warm helper depends on, plus the
// existence of the paths that are protected only when they exist.
func keyOf(spec Spec, hs *helperSpec) (string, []byte) {
	c := *hs
	c.FS.Git, c.FS.GitErr = nil, ""
	b := wireAppend(nil, &c)
	// Built in one buffer: the helper spec is kilobytes, and adding to a
	// string copies it again for every path.
	k := make([]byte, 0, len(b)+64+16*(len(hs.ReadOnly)+len(hs.Masked)))
	k = append(k, b...)
	k = append(k, "\x00cpu="...)
	k = strconv.AppendInt(k, spec.Limits.CPUPercent, 10)
	k = append(k, 0)
	for _, p := range append(append(append([]string{}, hs.ReadOnly...), hs.Masked...), filepath.Join(hs.Workspace, ".git")) {
		var st unix.Stat_t
		switch err := unix.Lstat(p, &st); {
		case err != nil:
			k = append(k, '-')
		case st.Mode&unix.S_IFMT == unix.S_IFLNK:
			l, _ := os.Readlink(p)
			k = append(k, 'l')
			k = append(k, l...)
		default:
			k = strconv.AppendUint(k, uint64(st.Mode&unix.S_IFMT), 8)
		}
		k = append(k, 0)
	}
	return string(k), b
}

// take returns a warm helper that fits the call, or nil; either way it
// makes the pool prepare helpers for calls like this one.
func (p *Pool) take(spec Spec, env []string, dir string) (*warmHelper, *helperSpec) {
	// Only the modes whose helpers are known to keep nothing per call
	// in the warm part are served warm. Strict runs start cold: the
	// overlay would otherwise sit over the workspace, and its upper
	// directory wait, between calls (so do review runs, for the same
	// overlay).
	if p == nil || (spec.Mode != Auto && spec.Mode != Required) || spec.Review || spec.Workspace == "" {
		return nil, nil
	}
	hs, err := poolSpec(spec, env, spec.Workspace)
	if err != nil || !hs.UserNS || gitBusy(hs.Workspace) {
		return nil, nil // cold: it reports the error or runs without namespaces
	}
	if rd := realpath(dir); rd == "" || !under(rd, hs.Workspace) {
		return nil, nil // only a cwd inside the workspace is known to be visible
	}
	key, hsJSON := keyOf(spec, hs)
	// The helper's own environment (its /proc/1/environ inside) is the
	// one it was warmed with: only a call with that environment fits.
	env = withoutVar(env, markerVar)
	key += "\x00env\x00" + strings.Join(env, "\x00")
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastMiss = ""
	if p.closed {
		p.lastMiss = "closed"
		return nil, nil
	}
	if key != p.key {
		// Retarget: helpers warmed for something else are of no use.
		old := p.warm
		p.warm = nil
		p.key, p.failed, p.failures = key, false, 0
		p.proto = &poolProto{spec: spec, env: env, ws: hs.Workspace, hs: hsJSON}
		for _, w := range old {
			p.discardLocked(w)
		}
		p.lastMiss = "the key changed"
		p.misses++
		p.fillLocked()
		return nil, nil
	}
	var got *warmHelper
	for len(p.warm) > 0 && got == nil {
		w := p.warm[0]
		p.warm = p.warm[1:]
		switch {
		case !alive(w.h.ctl):
			p.lastMiss = "a warm helper had died"
			p.discardLocked(w)
		case w.git != gitFingerprint(hs.Workspace):
			p.lastMiss = "the .git view was stale"
			p.discardLocked(w) // the .git view is a stale snapshot
		default:
			got = w
		}
	}
	if got == nil {
		if len(p.warm) == 0 && p.lastMiss == "" {
			p.lastMiss = "no warm helper ready"
		}
		p.misses++
		p.fillLocked()
	} else {
		p.hits++ // refilled when its command ends (Handle.done)
	}
	return got, hs
}

// refillDelay is how long after a warm command has ended its helper is
// released and its replacement starts to be warmed: the caller is then
// still delivering the command's
// result (the runner closes the launch before the result is final; the
// MCP server still writes its answer), and on a machine with few cores
// a helper's start-up (a fork of this process, which also holds
// syscall.ForkLock, then namespaces and mounts), and the teardown of the
// released helper's namespaces, would share the CPU with that.
const refillDelay = 3 * time.Millisecond

// refill warms helpers again after a warm command has ended, and
// releases its helper (release, nil: none to release) first: the
// helper's exit tears its namespaces down, which is done after the
// result too.
func (p *Pool) refill(release func()) {
	if release == nil {
		release = func() {}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		release()
		return
	}
	p.bg.Add(1)
	time.AfterFunc(refillDelay, func() {
		defer p.bg.Done()
		release()
		p.mu.Lock()
		p.fillLocked()
		p.mu.Unlock()
	})
}

// fillLocked makes sure helpers are being warmed, in the background and
// one at a time (each takes a few milliseconds of CPU that a command
// running meanwhile should not lose to several at once), until the pool
// holds size of them.
func (p *Pool) fillLocked() {
	if p.closed || p.failed || p.proto == nil || p.filling || len(p.warm) >= p.size {
		return
	}
	p.filling = true
	p.bg.Add(1)
	go p.fill()
}

func (p *Pool) fill() {
	defer p.bg.Done()
	p.mu.Lock()
	for !p.closed && !p.failed && p.proto != nil && len(p.warm) < p.size {
		key, pr := p.key, p.proto
		p.mu.Unlock()
		w, err := p.start(key, pr)
		p.mu.Lock()
		switch {
		case err != nil:
			if p.key == key {
				// A helper that could not be warmed (the cold path
				// says why): after a few in a row, stop trying until
				// the key changes.
				p.lastWarmErr = err
				p.failures++
				p.failed = p.failures >= 3
			}
		case p.closed || p.key != key:
			p.mu.Unlock()
			p.kill(w)
			p.mu.Lock()
		default:
			p.warm = append(p.warm, w)
			p.failures = 0
		}
	}
	p.filling = false
	p.mu.Unlock()
}

// start starts one warm helper and waits until it has applied every layer.
func (p *Pool) start(key string, pr *poolProto) (*warmHelper, error) {
	if gitBusy(pr.ws) {
		return nil, errors.New("git has state the view would hide")
	}
	env := append(append([]string{}, pr.env...), markerVar+"="+p.marker)
	cmd, h, err := Command(context.Background(), pr.spec, "", env, pr.ws)
	if err != nil {
		return nil, err
	}
	// The post-run workspace search belongs to the call (set at take
	// time): run for a helper that is discarded unused, a search from
	// now would take files the user creates meanwhile for the sandbox's.
	h.ws.close()
	h.ws = nil
	// The helper that will run must be the one the key describes.
	var hs helperSpec
	if len(cmd.Args) != 4 || wireDecode(cmd.Args[2], &hs) != nil {
		h.Close()
		return nil, errors.New("unexpected helper command")
	}
	hs.FS.Git, hs.FS.GitErr = nil, ""
	hs.RootMap = nil // follows from the rest (rootmap_linux.go)
	hs.Timing = 0    // where step marks go (SHELLGUARD_TIMING)
	hs.CgroupV1 = "" // the helper's own run cgroup (cgroup_linux.go)
	if b := wireAppend(nil, &hs); string(b) != string(pr.hs) {
		h.Close()
		return nil, errors.New("helper spec differs from the pool's")
	}
	// The command will arrive on the control channel (fd 4).
	if h.ctl == nil || len(cmd.ExtraFiles) < ctlFD-2 || cmd.ExtraFiles[ctlFD-3] != h.ctlChild {
		h.Close()
		return nil, errors.New("unexpected helper descriptors")
	}
	cmd.Args = append(cmd.Args, warmArg)
	git := gitFingerprint(pr.ws)
	// As a leader of the runner: with a child subreaper, a clean-up
	// after some run would otherwise take a helper still being set up
	// (its environment not yet its own) for an escaped process.
	if err := runner.StartTracked(cmd); err != nil {
		h.Close()
		return nil, err
	}
	h.Started()
	w := &warmHelper{key: key, cmd: cmd, h: h, git: git}
	if _, err := h.Applied(); err != nil {
		p.kill(w)
		return nil, err
	}
	return w, nil
}

// discardLocked kills w in the background.
func (p *Pool) discardLocked(w *warmHelper) {
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		p.kill(w)
	}()
}

// kill ends an unused warm helper and releases what it held.
func (p *Pool) kill(w *warmHelper) {
	w.h.closeCtl()
	w.cmd.Process.Kill()
	w.cmd.Wait()
	runner.Forget(w.cmd.Process.Pid)
	w.h.Close()
}

// alive reports whether the helper still holds its end of the channel
// (and has said nothing on it).
func alive(f *os.File) bool {
	if f == nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	rc.Control(func(fd uintptr) {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN | unix.POLLRDHUP}}
		n, err := unix.Poll(pfd, 0)
		ok = err == nil && n == 0
	})
	return ok
}

// gitBusy reports whether ws/.git holds rebase, sequencer or bisect state
// that a .git view moves out of the user's sight while the helper waits.
func gitBusy(ws string) bool {
	for d := range gitStateDirs {
		if _, err := os.Lstat(filepath.Join(ws, ".git", d)); err == nil {
			return true
		}
	}
	return false
}

// gitFingerprint identifies the state of ws/.git that a view snapshots:
// every entry but the views, with its type, inode, size and mtime.
func gitFingerprint(ws string) string {
	gd := filepath.Join(ws, ".git")
	var st unix.Stat_t
	if unix.Lstat(gd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return ""
	}
	names, err := readNames(gd)
	if err != nil {
		return "?"
	}
	var b []byte
	for _, n := range names {
		if len(n) >= len(gitViewPrefix) && n[:len(gitViewPrefix)] == gitViewPrefix {
			continue
		}
		if unix.Lstat(gd+"/"+n, &st) != nil {
			return "?"
		}
		b = fmt.Appendf(b, "%s %o %d %d %d.%d\n", n, st.Mode, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec)
	}
	return string(b)
}

func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

func withoutVar(env []string, key string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if len(kv) > len(key) && kv[:len(key)] == key && kv[len(key)] == '=' {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// awaitCall is the warm helper's side: it reads the call from fd 4 (to its
// end: the parent shuts it down for writing after sending; the channel
// stays open for the report of how bash ended), makes the three descriptors
// that came with it 0, 1 and 2, and changes into the call's directory
// (the workspace when that is not reachable, as for a cold start).
func awaitCall(ws string) (*poolCall, error) {
	data, fds, err := recvAll(64<<20, 3, func(p, oob []byte) (n, oobn int, err error) {
		n, oobn, _, _, err = unix.Recvmsg(ctlFD, p, oob, unix.MSG_CMSG_CLOEXEC)
		return n, oobn, err
	})
	if err != nil {
		return nil, err
	}
	var c poolCall
	if len(fds) != 3 || wireDecode(string(data), &c) != nil {
		closeAll(fds)
		return nil, errors.New("no command received")
	}
	for i, fd := range fds {
		if err := unix.Dup3(fd, i, 0); err != nil {
			return nil, err
		}
	}
	closeAll(fds)
	if c.Dir == "" || unix.Chdir(c.Dir) != nil {
		unix.Chdir(ws)
	}
	return &c, nil
}
