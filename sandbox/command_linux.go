//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shellguard/shellguard/internal/steptime"
	"github.com/shellguard/shellguard/sandbox/netproxy"
	"golang.org/x/sys/unix"
)

// helperSpec is what the parent sends the helper (argv[2], JSON): the Spec
// with every default resolved, plus the namespaces the clone created.
type helperSpec struct {
	Mode      Mode     `json:"mode"`
	Bash      string   `json:"bash"`
	Workspace string   `json:"ws"`
	Writable  []string `json:"rw"`
	ReadOnly  []string `json:"ro"`
	Masked    []string `json:"mask"`
	Network   bool     `json:"net"`
	Proxy     bool     `json:"proxy"` // allowlist mode (net_linux.go)
	Limits    Limits   `json:"limits"`
	UserNS    bool     `json:"userns"`
	NetNS     bool     `json:"netns"`
	// SharedNet: the network namespace is the session's (started by its
	// holder, sessionnet_linux.go), not the helper's own.
	SharedNet bool    `json:"shared_net,omitempty"`
	BashInit  bool    `json:"bash_init"`
	IPC       ipcSpec `json:"ipc"` // ipc_linux.go
	// NSReason says why namespaces were not requested.
	NSReason string `json:"ns_reason,omitempty"`
	// CgroupV1 is the run's cgroup v1 memory cgroup, which the helper
	// joins before anything else ("" with cgroup v2 or none).
	CgroupV1 string `json:"cgroup_v1,omitempty"`
	// FS: HOME allowlist, secret roots, .git (home_linux.go, git_linux.go).
	FS fsSpec `json:"fs"`
	// Timing is the descriptor of the steptime file the helper records
	// its steps into (0: none).
	Timing int `json:"timing,omitempty"`
	// Overlay: the copy-on-write workspace of Strict mode and of a
	// review (overlay_linux.go).
	Overlay *overlaySpec `json:"overlay,omitempty"`
	// Review: the overlay is required (Spec.Review).
	Review bool `json:"review,omitempty"`
	// RootMap: as root, the idmapped writable roots and the uid the
	// command runs as (rootmap_linux.go).
	RootMap *rootMapSpec `json:"rootmap,omitempty"`
}

// helperReport is what the helper writes to fd 3 just before exec.
type helperReport struct {
	Applied Applied `json:"applied"`
	Fatal   bool    `json:"fatal,omitempty"`
	Error   string  `json:"error,omitempty"`
}

// Handle connects a started command to the helper's report.
type Handle struct {
	mode Mode
	// v1Join: the started helper, which Started moves into the run's
	// cgroup v1 (the helper checks, and joins itself if it is not in
	// it yet).
	v1Join   *exec.Cmd
	r, w     *os.File
	userns   bool
	once     sync.Once
	applied  Applied
	err      error
	off      bool
	offApply Applied
	sup      *supervisor // unix connect supervisor (unixconnect_linux.go)
	// git is the .git view to move back after the run (git_linux.go);
	// post is filled in by Close and shared with the reported Applied.
	git *gitState
	ws  *wsGuard
	ov  *overlayState // Strict mode's upper directory (overlay_linux.go)
	// reviewer sees a review run's changes at Close (OnReview).
	reviewer func([]Change) ([]string, error)
	review   bool
	// postTimeout bounds the post-run steps (Spec.PostRunTimeout).
	postTimeout time.Duration
	rm          []*os.File // the idmapped trees passed to the helper (rootmap_linux.go)
	post        *PostRun
	// cg is the run's cgroup (nil: cgErr says why there is none).
	cg    *runCgroup
	cgErr error
	// ctl is the parent's end of the control channel and ctlChild the
	// helper's, closed here once it has started (ctl_linux.go).
	ctl, ctlChild *os.File
	// ended: the helper reported bash's status before exiting; reaped:
	// it has been waited for since; cgLate: the cgroup to remove then.
	mu     sync.Mutex
	ended  bool
	reaped bool
	cgLate *runCgroup
	// call is the command of a warm helper, sent on ctl (pool_linux.go).
	call *poolCall
	sent bool
	// done is called once at the end of Close (the pool warms the
	// replacement of a warm helper then). A warm helper stays after its
	// report until the parent hangs up the control channel (awaitRelease):
	// Close then leaves ctl open and hands done the release, which the
	// pool calls once the result is out.
	done func(release func())
	// proxy serves the command's listener (netAtt) in allowlist mode;
	// netUse gets its records at Close (net_linux.go).
	proxy *netproxy.Proxy
	// netGrants are the spec's NetGrants, allowed on netAtt only.
	netGrants []string
	netAtt    *netproxy.Attached
	netUse    *NetUse
	// netAsk is asked about refused hosts while the command runs
	// (OnNetAsk); netAsked are the answers, host:port -> allowed.
	netAsk   func(ctx context.Context, hostport string) bool
	netMu    sync.Mutex
	netAsked map[string]bool
	// netWait holds the proxy's listener and the DNS stub's sockets
	// until the command first uses one (netwait_linux.go).
	netWait *netWait
	// dns answers the command's name lookups (dns_linux.go).
	dns    *dnsServe
	dnsUse *NetUse // where the stub's unknown names go (closeDNS)
	// link is the join process's channel to the session's holder, and
	// tree delivers the pid of the helper the holder started
	// (sessionnet_linux.go); treePid caches it.
	link    *os.File
	tree    <-chan int
	treeMu  sync.Mutex
	treePid int
}

// nsDisabled caches "user namespaces cannot be created here" after a
// failed start (see StartFailed). 0 = unknown/yes, 1 = refused.
var nsDisabled atomic.Int32
var nsDisabledReason atomic.Value // string

// Command builds an unstarted *exec.Cmd that runs `bash -p -c script` under
// spec with env (already scrubbed; cache variables are added here) in dir.
//
// The caller sets Stdin/Stdout/Stderr, starts the command, then calls
// h.Started() (which closes the parent's end of the report pipe), and later
// h.Applied() to learn what was enforced. If Start fails, call
// h.StartFailed(err): when it returns true, call Command again (Auto mode
// fell back to running without namespaces). Always call h.Close().
func Command(ctx context.Context, spec Spec, script string, env []string, dir string) (*exec.Cmd, *Handle, error) {
	RefuseIfHelper()
	bash := lookBash(env)
	if spec.Mode == Off && spec.Review {
		return nil, nil, errors.New("sandbox: a review needs the copy-on-write workspace, and the sandbox is off")
	}
	if spec.Mode == Off {
		cmd := exec.CommandContext(ctx, bash, "-p", "-c", script)
		cmd.Env = env
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		return cmd, &Handle{mode: Off, off: true, offApply: Applied{Mode: Off, Platform: "linux", Network: "host"}}, nil
	}
	steptime.Mark("sb.begin")
	hs, err := resolve(spec, env, dir)
	if err != nil {
		return nil, nil, err
	}
	hs.Bash = bash
	hs.Review = spec.Review
	hs.IPC = ipcSpecOf(spec, env, dir)
	steptime.Mark("sb.resolve")

	// Namespaces: all or nothing (the mount namespace needs the user
	// namespace when unprivileged, and the masks need the mount namespace).
	flags := uintptr(0)
	hs.UserNS, hs.NSReason = nsAllowed()
	if hs.UserNS {
		flags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
		if !spec.Network {
			flags |= syscall.CLONE_NEWNET
			hs.NetNS = true
		}
	}
	// The session's network namespace: its holder starts the helper
	// (sessionnet_linux.go); without one, a namespace of its own.
	var holder *netHolder
	if hs.SharedNet && hs.NetNS {
		holder, _ = spec.SessionNet.holder()
	}
	hs.SharedNet = holder != nil
	var gst *gitState
	if hs.UserNS {
		if hs.FS.Git, gst, err = prepareGit(hs.Workspace, env); err != nil {
			// Reported as a missing git layer (Required mode refuses).
			hs.FS.GitErr = "preparing the .git view: " + err.Error()
		}
	}
	steptime.Mark("sb.git")
	var ovs *overlayState
	if hs.UserNS && (spec.Mode == Strict || spec.Review) {
		if hs.Overlay, ovs, err = prepareOverlay(hs.Workspace); err != nil {
			// Reported as a missing overlay layer: Strict refuses.
			hs.Overlay = &overlaySpec{Err: "preparing the overlay: " + err.Error()}
		}
	}
	var rmFiles []*os.File
	if hs.UserNS && os.Getuid() == 0 {
		steptime.Mark("sb.overlay")
		hs.RootMap, rmFiles = prepareRootMap(rootMapDirs(hs))
		steptime.Mark("sb.rootmap")
		if hs.RootMap.Err == "" && hs.Overlay != nil && hs.Overlay.Err == "" {
			// The overlay's root shows the upper directory's owner: the
			// command's, as the idmapped workspace would.
			if err := os.Lchown(hs.Overlay.Upper, hs.RootMap.HostID, hs.RootMap.HostID); err != nil {
				hs.Overlay.Err = "preparing the overlay: " + err.Error()
			}
		}
	}
	closeFiles := func() {
		for _, f := range rmFiles {
			f.Close()
		}
	}
	// The step marks of the helper go to the CLI's file, passed as the
	// last descriptor: after fd 4 (a warm helper's call channel) and the
	// idmapped trees.
	var timing *os.File
	if timing = steptime.File(); timing != nil {
		hs.Timing = 5 + len(rmFiles)
	}
	// A cgroup per run where the host has one (cgroup_linux.go): a v2
	// cgroup the helper starts in, or a v1 memory cgroup it joins first.
	rc, cgErr := newRunCgroup(hs.Limits, int(spec.Limits.CPUPercent))
	if rc != nil && rc.v1 {
		hs.CgroupV1 = rc.dir
	}
	steptime.Mark("sb.cgroup")
	js := wireAppend(nil, hs)
	if bytes.IndexByte(js, 0) >= 0 {
		ovs.discard()
		closeFiles()
		rc.close()
		return nil, nil, errors.New("sandbox: a path or setting holds a NUL byte")
	}
	steptime.Mark("sb.spec")
	r, w, err := reportChannel()
	if err != nil {
		ovs.discard()
		closeFiles()
		rc.close()
		return nil, nil, err
	}
	ctl, ctlChild, err := ctlChannel()
	if err != nil {
		r.Close()
		w.Close()
		ovs.discard()
		closeFiles()
		rc.close()
		return nil, nil, err
	}
	cmd := exec.CommandContext(ctx, helperFor(hs.Writable), helperArg, string(js), script)
	cmd.Args[0] = "shellguard-sandbox"
	cmd.Env = withCacheEnv(env, cacheDirOf(spec, env), hs.Writable, hs.Workspace)
	cmd.Env = goProxyEnv(cmd.Env, env, hs.FS.Home)
	cmd.Env = netEnv(cmd.Env, spec)
	cmd.Dir = dir
	// fd 3: the report; fd 4: the control channel (ctl_linux.go); fd 5
	// and up: the idmapped trees (rootmap_linux.go), then the marks.
	cmd.ExtraFiles = []*os.File{w, ctlChild}
	cmd.ExtraFiles = append(cmd.ExtraFiles, rmFiles...)
	if timing != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, timing)
	}
	// A session of its own: no controlling terminal (session_linux.go).
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if hs.UserNS {
		uid, gid := os.Getuid(), os.Getgid()
		attr.Cloneflags = flags
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		if hs.RootMap != nil && hs.RootMap.Err == "" {
			// Root sets up, then becomes RootMapID (rootmap_linux.go);
			// setgroups lets it drop root's supplementary groups.
			id := hs.RootMap.HostID
			attr.UidMappings = append(attr.UidMappings, syscall.SysProcIDMap{ContainerID: id, HostID: id, Size: 1})
			attr.GidMappings = append(attr.GidMappings, syscall.SysProcIDMap{ContainerID: id, HostID: id, Size: 1})
			attr.GidMappingsEnableSetgroups = true
		}
		// Keep the capabilities of the new user namespace across the
		// exec of the helper even when our uid inside is not 0; the
		// helper drops them all before bash starts.
		attr.AmbientCaps = []uintptr{capSetPCap, capNetAdmin, capSysAdmin, capNetBindService}
		if hs.Overlay != nil && hs.Overlay.Err == "" {
			// The overlay does its work (its work/ directory of mode
			// 000, copy-ups keeping owner and mode) with the mounting
			// helper's credentials, kept for the mount's life: they
			// need these, over the namespace's own uid only.
			attr.AmbientCaps = append(attr.AmbientCaps, overlayCaps...)
		}
	}
	if rc != nil && !rc.v1 {
		attr.UseCgroupFD = true
		attr.CgroupFD = rc.fd
	}
	var link *os.File
	var tree <-chan int
	if holder != nil {
		// The holder clones the helper into the session's user and
		// network namespaces; this process starts the join process that
		// stands for it (its link is the last descriptor).
		cg := -1
		if attr.UseCgroupFD {
			cg = attr.CgroupFD
		}
		link, tree, err = holder.launch(flags&^(syscall.CLONE_NEWUSER|syscall.CLONE_NEWNET), attr.AmbientCaps, cg)
		if err != nil {
			r.Close()
			w.Close()
			ctl.Close()
			ctlChild.Close()
			ovs.discard()
			closeFiles()
			rc.close()
			return nil, nil, err
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, link)
		cmd.Args[0] = joinName + ":" + strconv.Itoa(2+len(cmd.ExtraFiles))
		attr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	}
	cmd.SysProcAttr = attr
	steptime.Mark("sb.cgroup")
	ws := prepareWSGuard(hs.Workspace, gst != nil)
	steptime.Mark("sb.wsguard")
	var v1Join *exec.Cmd
	if rc != nil && rc.v1 && holder == nil {
		v1Join = cmd
	}
	return cmd, &Handle{mode: spec.Mode, v1Join: v1Join, r: r, w: w, ctl: ctl, ctlChild: ctlChild, userns: hs.UserNS, git: gst, ov: ovs, review: spec.Review, rm: rmFiles, post: &PostRun{}, cg: rc, cgErr: cgErr,
		ws: ws, proxy: spec.Proxy, netGrants: spec.NetGrants, postTimeout: spec.PostRunTimeout, link: link, tree: tree}, nil
}

const (
	capSetPCap = 8
	// capNetBindService: the DNS stub's port 53 (dns_linux.go).
	capNetBindService = 10
	capNetAdmin       = 12
	capSysAdmin       = 21
)

// nsAllowed says whether to request namespaces, from cheap static checks
// (the sysctls, read at most once a second) and the cached result of a
// failed start.
func nsAllowed() (bool, string) {
	if nsDisabled.Load() == 1 {
		s, _ := nsDisabledReason.Load().(string)
		return false, s
	}
	nsSysctl.Lock()
	defer nsSysctl.Unlock()
	if now := time.Now(); now.Sub(nsSysctl.at) > time.Second {
		nsSysctl.ok, nsSysctl.why = nsAllowedNow()
		nsSysctl.at = now
	}
	return nsSysctl.ok, nsSysctl.why
}

var nsSysctl struct {
	sync.Mutex
	at  time.Time
	ok  bool
	why string
}

func nsAllowedNow() (bool, string) {
	if b, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil && strings.TrimSpace(string(b)) == "0" {
		return false, "user.max_user_namespaces is 0"
	}
	if os.Getuid() != 0 {
		if b, err := os.ReadFile("/proc/sys/kernel/unprivileged_userns_clone"); err == nil && strings.TrimSpace(string(b)) == "0" {
			return false, "kernel.unprivileged_userns_clone is 0"
		}
	}
	return true, ""
}

// Started closes the parent's copy of the report pipe's write end. Call it
// right after a successful cmd.Start.
func (h *Handle) Started() {
	if c := h.v1Join; c != nil {
		h.v1Join = nil
		if c.Process != nil && h.cg != nil {
			// While the helper starts up: it would otherwise do this
			// itself, on the way to bash (cgroup.procs takes the
			// kernel's thread-group lock).
			joinCgroupV1Pid(h.cg.dir, c.Process.Pid)
		}
	}
	if h.w != nil {
		h.w.Close()
		h.w = nil
	}
	if h.ctlChild != nil {
		h.ctlChild.Close()
		h.ctlChild = nil
	}
	if h.link != nil {
		h.link.Close()
		h.link = nil
	}
	h.closeRootMap()
}

// Tree returns the pid the command's processes descend from: the helper
// the session's holder started, or 0 when that is the started process
// itself (or not known yet).
func (h *Handle) Tree() int {
	if h == nil || h.tree == nil {
		return 0
	}
	h.treeMu.Lock()
	defer h.treeMu.Unlock()
	if h.treePid == 0 {
		select {
		case pid := <-h.tree:
			h.treePid = pid
		case <-time.After(time.Second):
		}
	}
	return h.treePid
}

// StartFailed tells the handle that cmd.Start failed with err. In Auto
// mode, when namespaces were requested and the kernel refused them, it
// remembers that for this process and returns true: build the command
// again with Command and start that one.
func (h *Handle) StartFailed(err error) bool {
	hadCgroup := h.cg != nil
	h.Close()
	if hadCgroup {
		// Starting inside the run's cgroup failed: run without cgroups
		// from now on (the result says why) rather than not at all.
		disableCgroups(fmt.Errorf("starting a command in its cgroup failed: %w", err))
		return true
	}
	if h.off || !h.userns || h.mode != Auto {
		return false
	}
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) ||
		errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EUSERS) {
		nsDisabledReason.Store("creating a user namespace failed: " + err.Error())
		nsDisabled.Store(1)
		return true
	}
	return false
}

// Applied waits for the helper's report (it arrives just before bash
// starts, or when the helper exits) and returns what was enforced. In
// Required mode a missing layer gives a *LayerError (errors.Is
// ErrLayerMissing) and nothing ran.
func (h *Handle) Applied() (Applied, error) {
	if h.off {
		return h.offApply, nil
	}
	h.once.Do(func() {
		h.Started()
		if h.r == nil {
			h.err = ErrNoReport
			return
		}
		b, sup, nfd, err := readReport(h.r)
		steptime.Mark("sb.report")
		h.sup = sup
		h.r.Close()
		h.r = nil
		if err != nil {
			nfd.close()
			h.err = fmt.Errorf("sandbox: reading report: %w", err)
			return
		}
		if len(b) == 0 {
			nfd.close()
			h.err = ErrNoReport
			return
		}
		var rep helperReport
		if err := wireDecode(string(b), &rep); err != nil {
			nfd.close()
			h.err = fmt.Errorf("sandbox: bad report: %w", err)
			return
		}
		h.applied = rep.Applied
		h.applied.Post = h.post
		h.prepareNet(nfd) // netwait_linux.go: served once the command uses them
		if h.ov != nil {
			h.ov.mounted = h.applied.Has(LayerOverlay)
		}
		// A v1 cgroup the helper could not join is in Missing (with why).
		joinFailed := slices.ContainsFunc(h.applied.Missing, func(l Layer) bool { return l.Name == LayerCgroup })
		if h.cg != nil && !joinFailed {
			h.applied.Layers = append(h.applied.Layers, Layer{Name: LayerCgroup, Detail: h.cg.detail})
		} else if h.cg == nil && h.cgErr != nil {
			h.applied.Unavailable = append(h.applied.Unavailable, Layer{Name: LayerCgroup, Reason: h.cgErr.Error(), Fix: cgroupFix})
		}
		if rep.Fatal {
			if len(rep.Applied.Missing) > 0 {
				h.err = &LayerError{Missing: rep.Applied.Missing}
			} else if rep.Error == ErrNoMain.Error() {
				h.err = ErrNoMain
			} else {
				h.err = fmt.Errorf("sandbox: helper failed: %s", rep.Error)
			}
		}
	})
	return h.applied, h.err
}

// Close releases the report channel, stops the unix connect supervisor
// (which otherwise ends by itself when every process of the run has
// exited) and, once every process of the command is gone, moves what git
// wrote in the .git view back (see PostRun). Call it after the command
// has been waited for. Safe to call more than once.
func (h *Handle) Close() error {
	var release func()
	if h.done != nil && h.ctl != nil {
		ctl := h.ctl
		h.ctl = nil
		release = func() { ctl.Close() }
	}
	h.closeCtl()
	h.closeNetWait()
	h.closeNet()
	h.closeDNS() // after the proxy's refusals are in (noteUnknown)
	if h.link != nil {
		h.link.Close()
		h.link = nil
	}
	if h.sup != nil {
		h.sup.Stop()
		h.sup = nil
	}
	h.closeRootMap()
	if h.cg != nil {
		h.mu.Lock()
		if h.ended && !h.reaped {
			// The helper reported and may still be exiting inside it.
			h.cgLate, h.cg = h.cg, nil
		}
		h.mu.Unlock()
		if h.cg != nil {
			h.cg.close()
			h.cg = nil
		}
	}
	// Every step outside the sandbox on what the command left, under
	// one deadline (finish_linux.go).
	h.runFinishers()
	steptime.Mark("sb.finish")
	if h.w != nil {
		h.w.Close()
		h.w = nil
	}
	if h.r != nil {
		h.r.Close()
		h.r = nil
	}
	if done := h.done; done != nil {
		h.done = nil
		done(release)
	}
	return nil
}

// lookBash finds bash on the PATH of env, else /bin/bash.
func lookBash(env []string) string {
	if p, ok := envGet(env, "PATH"); ok {
		for _, d := range filepath.SplitList(p) {
			if !filepath.IsAbs(d) {
				continue
			}
			c := filepath.Join(d, "bash")
			if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return c
			}
		}
	}
	return "/bin/bash"
}

// realpath resolves symlinks of an absolute path; "" if it does not exist.
// The kernel resolves it: an O_PATH descriptor, then its /proc/self/fd
// link (three system calls, where walking it took one lstat per
// component and many allocations); filepath.EvalSymlinks where /proc is
// not there.
//
// In a process that keeps a Pool (a long-lived one), a directory's
// resolution is remembered with the directory's device and inode: while p
// still leads to that same directory (one stat) the answer is the same,
// since a directory has one name on its mount; anything else resolves
// again. A warm call's fit check resolves some twenty paths. A process
// that runs one command (the CLI) would only pay for remembering.
func realpath(p string) string {
	if p == "" || !filepath.IsAbs(p) {
		return ""
	}
	if !longLived.Load() {
		return resolvePath(p)
	}
	var st unix.Stat_t
	if unix.Stat(p, &st) != nil {
		return ""
	}
	dir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	if dir {
		realpaths.Lock()
		e, ok := realpaths.m[p]
		realpaths.Unlock()
		if ok && e.dev == st.Dev && e.ino == st.Ino {
			return e.r
		}
	}
	r := resolvePath(p)
	if dir && r != "" && unix.Stat(r, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		realpaths.Lock()
		if realpaths.m == nil || len(realpaths.m) >= 1024 {
			realpaths.m = map[string]realpathEntry{}
		}
		realpaths.m[p] = realpathEntry{r: r, dev: st.Dev, ino: st.Ino}
		realpaths.Unlock()
	}
	return r
}

// longLived is set by NewPool: this process keeps warm helpers, and runs
// many commands, so remembering what one command's checks found pays.
var longLived atomic.Bool

// realpaths remembers the resolution of directories (realpath).
var realpaths struct {
	sync.Mutex
	m map[string]realpathEntry
}

type realpathEntry struct {
	r        string
	dev, ino uint64
}

// resolvePath resolves every symlink of the absolute path p.
func resolvePath(p string) string {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	var buf [unix.PathMax]byte
	n, err := unix.Readlink("/proc/self/fd/"+strconv.Itoa(fd), buf[:])
	unix.Close(fd)
	if err == nil && n > 0 && n < len(buf) && buf[0] == '/' && !bytes.HasSuffix(buf[:n], []byte(" (deleted)")) {
		return string(buf[:n])
	}
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return r
}

// DefaultCacheDir is where caches go when Spec.CacheDir is empty:
// $XDG_CACHE_HOME/shellguard, else ~/.cache/shellguard when it exists,
// else $TMPDIR/shellguard-cache-UID (shellguard never creates directories
// in HOME on its own).
func DefaultCacheDir(env []string) string {
	if x, ok := envGet(env, "XDG_CACHE_HOME"); ok && filepath.IsAbs(x) {
		return filepath.Join(x, "shellguard")
	}
	if h, ok := envGet(env, "HOME"); ok && filepath.IsAbs(h) {
		c := filepath.Join(h, ".cache", "shellguard")
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			return c
		}
	}
	t, _ := envGet(env, "TMPDIR")
	if !filepath.IsAbs(t) {
		t = "/tmp"
	}
	return filepath.Join(t, "shellguard-cache-"+strconv.Itoa(os.Getuid()))
}

func cacheDirOf(spec Spec, env []string) string {
	if spec.CacheDir != "" {
		return spec.CacheDir
	}
	return DefaultCacheDir(env)
}

// resolve fills in every default of spec.
func resolve(spec Spec, env []string, dir string) (*helperSpec, error) {
	hs := &helperSpec{Mode: spec.Mode, Network: spec.Network, Proxy: !spec.Network && spec.Proxy != nil, BashInit: spec.BashAsInit,
		SharedNet: !spec.Network && spec.SessionNet != nil}
	ws := spec.Workspace
	if ws == "" {
		ws = dir
	}
	if ws == "" {
		var err error
		if ws, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	ws, err := filepath.Abs(ws)
	if err != nil {
		return nil, err
	}
	if hs.Workspace = realpath(ws); hs.Workspace == "" {
		return nil, fmt.Errorf("sandbox: workspace %s does not exist", ws)
	}
	home := spec.Home
	if home == "" {
		home, _ = envGet(env, "HOME")
	}
	if home != "" {
		if r := realpath(home); r != "" {
			home = r
		}
	}
	cache := cacheDirOf(spec, env)
	if err := prepareCache(cache, hs.Workspace); err != nil {
		return nil, err
	}
	tmpdir, _ := envGet(env, "TMPDIR")
	// Of the cache directory, only this workspace's part is writable.
	wsCache := ""
	if cache != "" {
		wsCache = wsCacheDir(cache, hs.Workspace)
	}
	roots := []string{hs.Workspace, "/tmp", "/dev/shm", tmpdir, wsCache}
	roots = append(roots, spec.WritableRoots...)
	seen := map[string]bool{}
	for _, r := range roots {
		if rp := realpath(r); rp != "" && !seen[rp] {
			if fi, err := os.Stat(rp); err == nil && fi.IsDir() {
				seen[rp] = true
				hs.Writable = append(hs.Writable, rp)
			}
		}
	}
	sort.Strings(hs.Writable) // parents before children
	for _, p := range append(append([]string{}, DefaultReadOnlyPaths...), spec.ReadOnlyPaths...) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(hs.Workspace, p)
		}
		hs.ReadOnly = append(hs.ReadOnly, filepath.Clean(p))
	}
	for _, p := range spec.MaskedPaths {
		if e := expandHome(p, home); e != "" && filepath.IsAbs(e) {
			hs.Masked = append(hs.Masked, e)
		}
	}
	path, _ := envGet(env, "PATH")
	resolveHomeOnce(&hs.FS, home, append(append([]string{}, DefaultHomeAllow...), spec.HomeAllow...), path)
	hideCache(&hs.FS, realpath(cache), hs.Writable)
	hs.Limits = resolveLimits(spec.Limits)
	return hs, nil
}

// DefaultLimits returns the limits used for zero fields of Limits.
func DefaultLimits() Limits {
	procs := int64(256 * runtime.NumCPU())
	if procs < 2048 {
		procs = 2048
	}
	data := totalRAM() / 2
	const gib = 1 << 30
	if data < 2*gib {
		data = 2 * gib
	}
	if data > 8*gib {
		data = 8 * gib
	}
	return Limits{
		Procs:     procs,
		DataBytes: data,
		ASBytes:   Inherit,
		FileBytes: 8 * gib,
		CPUSecs:   3600,
		OpenFiles: Inherit,
		CoreBytes: 0,
	}
}

func resolveLimits(l Limits) Limits {
	d := DefaultLimits()
	pick := func(v, def int64) int64 {
		if v == 0 {
			return def
		}
		return v
	}
	return Limits{
		Procs:     pick(l.Procs, d.Procs),
		DataBytes: pick(l.DataBytes, d.DataBytes),
		ASBytes:   pick(l.ASBytes, d.ASBytes),
		FileBytes: pick(l.FileBytes, d.FileBytes),
		CPUSecs:   pick(l.CPUSecs, d.CPUSecs),
		OpenFiles: pick(l.OpenFiles, d.OpenFiles),
		CoreBytes: l.CoreBytes, // zero means no core dumps
	}
}

func totalRAM() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 8 << 30
	}
	return int64(si.Totalram) * int64(si.Unit)
}

// Contained reports whether the command ran in a pid namespace of its own
// whose pid 1 was the helper: once the helper has been reaped, the kernel
// has ended every process of the command. False before Applied has read
// the report.
func (h *Handle) Contained() bool {
	return !h.off && h.err == nil && h.applied.Has(LayerPidNS)
}
