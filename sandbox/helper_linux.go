//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/shellguard/shellguard/internal/seccompbpf"
	"github.com/shellguard/shellguard/internal/steptime"
	"golang.org/x/sys/unix"
)

// helperExit is the exit status of a helper that refused to run bash.
const helperExit = 125

// Main runs the sandbox helper when os.Args[1] is the hidden helper
// argument, and never returns in that case (it execs bash or exits).
// Otherwise it returns at once. Call it first in main() and in TestMain.
func Main() {
	if !IsHelper(os.Args) {
		return
	}
	if link, ok := joinLink(os.Args); ok {
		// Stands for a helper started in the session's network
		// namespace (sessionnet_linux.go).
		os.Exit(joinMain(link))
	}
	switch {
	case len(os.Args) == 3 && os.Args[2] == netHolderArg:
		os.Exit(netHolderMain())
	case len(os.Args) == 3 && os.Args[2] == holderArg:
		// Holds a user namespace for idmapped mounts (rootmap_linux.go).
		os.Exit(rootMapHolder())
	case len(os.Args) == 4:
		os.Exit(helperMain(os.Args[2], os.Args[3], false))
	case len(os.Args) == 5 && os.Args[4] == warmArg:
		// A warm helper of a Pool: the command arrives later (pool_linux.go).
		os.Exit(helperMain(os.Args[2], "", true))
	}
	fmt.Fprintln(os.Stderr, "shellguard: bad sandbox helper invocation")
	os.Exit(helperExit)
}

// helper accumulates what was applied.
type helper struct {
	hs      helperSpec
	applied Applied
	// homeMade: what isolate created on HOME's tmpfs (chownTmpfs).
	homeMade []string
	ipc      ipcState // ipc_linux.go
	// rootMapUsed: idmapped trees attached; rootMapErr: attaching one
	// failed (rootmap_linux.go).
	rootMapUsed map[int]bool
	rootMapErr  error
	// netProxy: the proxy's listener was handed out (net_linux.go), at
	// proxyAddr.
	netProxy  bool
	proxyAddr string
	// mountsPrivate: the mount namespace no longer propagates to the
	// host's (mounts).
	mountsPrivate bool
}

func (h *helper) ok(name, detail string) {
	h.applied.Layers = append(h.applied.Layers, Layer{Name: name, Detail: detail})
}

func (h *helper) miss(name string, err error, fix string) {
	reason := ""
	if err != nil {
		reason = err.Error()
	}
	h.applied.Missing = append(h.applied.Missing, Layer{Name: name, Reason: reason, Fix: fix})
}

// report writes the report to fd 3 (which is close-on-exec).
func report(rep helperReport) {
	f := os.NewFile(3, "sandbox-report")
	if f == nil {
		return
	}
	f.Write(wireAppend(nil, &rep))
	f.Close()
}

// helperMain applies every layer, reports them on fd 3, then runs
// `bash -p -c script`. A warm helper (warm) then waits on fd 4 for its one
// command: script, environment, working directory and stdin, stdout and
// stderr (awaitCall, pool_linux.go), and runs it exactly as a cold helper
// runs the script of its argv.
func helperMain(specJSON, script string, warm bool) int {
	t0 := steptime.Now()
	// Everything below runs on one OS thread: capabilities and the
	// bounding set are per thread, and this thread execs bash.
	runtime.LockOSThread()
	// Not dumpable: the command, same uid, cannot read this process's
	// memory or environment through /proc (pid 1 of its pid namespace
	// as go-init). bash, exec'd, is dumpable again.
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	unix.CloseOnExec(3)
	ppid := os.Getppid()

	h := &helper{}
	if err := wireDecode(specJSON, &h.hs); err != nil {
		report(helperReport{Fatal: true, Error: "bad spec: " + err.Error()})
		return helperExit
	}
	hs := &h.hs
	if hs.Timing != 0 {
		steptime.Adopt(hs.Timing, "helper")
		steptime.MarkAt("h.main", t0)
		steptime.Mark("h.spec")
	}
	h.applied = Applied{Mode: hs.Mode, Platform: "linux", Workspace: hs.Workspace, Writable: hs.Writable}
	if hs.CgroupV1 != "" {
		// Before anything is started: every process of the run is in it.
		if err := joinCgroupV1(hs.CgroupV1); err != nil {
			h.miss(LayerCgroup, err, "")
		}
	}

	h.closeInherited()
	steptime.Mark("h.fds")
	h.rlimits()
	steptime.Mark("h.rlimits")
	h.namespaces()
	steptime.Mark("h.namespaces")
	// go-init's signal handling starts a runtime thread: a cold helper
	// sets it up meanwhile, off the way to bash (a warm one while it
	// waits, below).
	var early chan chan os.Signal
	if !warm && h.applied.Has(LayerPidNS) && !hs.BashInit {
		early = make(chan chan os.Signal, 1)
		go func() { early <- initSignals() }()
	}
	mountsOK := h.hs.UserNS
	h.rootMapParents()   // rootmap_linux.go: as root only
	h.overlayWorkspace() // overlay_linux.go: Strict mode only
	if mountsOK {
		h.privateIPC() // before the writable roots are bound (ipc_linux.go)
		steptime.Mark("h.ipc")
		h.mounts()
		h.session() // session_linux.go
		steptime.Mark("h.session")
		// The cwd still points into the old (now read-only) mount:
		// resolve it again through the new mounts.
		// If it is hidden now, start in the workspace rather than keep a
		// handle on the hidden directory.
		if wd, err := os.Getwd(); err != nil || unix.Chdir(wd) != nil {
			unix.Chdir(hs.Workspace)
		}
		steptime.Mark("h.chdir")
	}
	if hs.NetNS {
		err := loopbackUp()
		if err != nil {
			h.miss(LayerLoopback, err, "")
		} else {
			h.ok(LayerLoopback, "lo up, 127.0.0.1 only")
		}
		h.proxyListener(err == nil) // net_linux.go: allowlist mode
		steptime.Mark("h.proxy")
		h.dnsStub(err == nil) // dns_linux.go: off and allowlist
		steptime.Mark("h.dns")
	}
	if !mountsOK {
		h.session()
	}
	steptime.Mark("h.loopback")
	h.rootMapSwitch() // rootmap_linux.go: as root only
	h.dropCaps()
	keepParentDeath(ppid) // the uid switch cleared it (lifetime_linux.go)
	steptime.Mark("h.caps")
	h.landlock()
	steptime.Mark("h.landlock")
	h.seccomp()
	steptime.Mark("h.seccomp")
	h.ipcReport() // ipc_linux.go: needs the seccomp outcome

	switch {
	case hs.Network:
		h.applied.Network = "host"
	case hs.NetNS && h.applied.Has(LayerNetNS) && h.netProxy:
		h.applied.Network = NetAllowlist
	case hs.NetNS && h.applied.Has(LayerNetNS):
		h.applied.Network = "none"
	case h.applied.Has(LayerLandlockNet) && h.applied.Has(LayerSeccomp):
		h.applied.Network = "none"
	case h.applied.Has(LayerLandlockNet):
		h.applied.Network = "partial"
	default:
		h.applied.Network = "host"
	}

	pidns := h.applied.Has(LayerPidNS)
	if pidns {
		if hs.BashInit {
			h.applied.Init = "bash"
		} else {
			h.applied.Init = "go-init"
		}
	}
	if hs.Review && !h.applied.Has(LayerOverlay) {
		// Nothing of a review run may land unseen: without the overlay
		// the command would write the workspace itself.
		report(helperReport{Applied: h.applied, Fatal: true, Error: "the copy-on-write workspace a review needs is missing"})
		fmt.Fprintln(os.Stderr, "shellguard: the command was not run: a review needs the copy-on-write workspace, and "+(&LayerError{Missing: h.applied.Missing}).Error())
		return helperExit
	}
	if hs.Mode.Requires() && len(h.applied.Missing) > 0 {
		report(helperReport{Applied: h.applied, Fatal: true, Error: "required layer missing"})
		fmt.Fprintln(os.Stderr, (&LayerError{Missing: h.applied.Missing}).Error())
		return helperExit
	}
	report(helperReport{Applied: h.applied})
	steptime.Mark("h.report")

	env := os.Environ()
	var sigs chan os.Signal
	if warm {
		if pidns && !hs.BashInit {
			// go-init's signal handling is set up while the helper
			// waits, not on the command's time (a signal thread starts);
			// what arrives before the command is dropped.
			sigs = initSignals()
		}
		// The decoder's first use faults its code in: done now, not on
		// the command's time.
		var warmUp poolCall
		wireDecode(string(wireAppend(nil, &poolCall{Env: []string{""}})), &warmUp)
		c, err := awaitCall(hs.Workspace)
		if err != nil {
			fmt.Fprintf(os.Stderr, "shellguard: warm helper: %v\n", err)
			return helperExit
		}
		script, env = c.Script, c.Env
		steptime.Mark("h.call")
		for len(sigs) > 0 {
			<-sigs
		}
	}
	env = h.proxyEnv(env) // net_linux.go
	argv := []string{"bash", "-p", "-c", script}
	if pidns && !hs.BashInit {
		if early != nil {
			sigs = <-early
		}
		if sigs == nil {
			sigs = initSignals()
		}
		return initMain(hs.Bash, argv, env, sigs, warm)
	}
	err := syscall.Exec(hs.Bash, argv, env)
	fmt.Fprintf(os.Stderr, "shellguard: exec %s: %v\n", hs.Bash, err)
	return 127
}

func (h *helper) rlimits() {
	l := h.hs.Limits
	type rl struct {
		name string
		res  int
		v    int64
	}
	var done []string
	var errs []string
	for _, r := range []rl{
		{"nproc", unix.RLIMIT_NPROC, l.Procs},
		{"data", unix.RLIMIT_DATA, l.DataBytes},
		{"as", unix.RLIMIT_AS, l.ASBytes},
		{"fsize", unix.RLIMIT_FSIZE, l.FileBytes},
		{"cpu", unix.RLIMIT_CPU, l.CPUSecs},
		{"nofile", unix.RLIMIT_NOFILE, l.OpenFiles},
		{"core", unix.RLIMIT_CORE, l.CoreBytes},
	} {
		if r.v == Inherit {
			continue
		}
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(r.res, &cur); err != nil {
			errs = append(errs, r.name+": "+err.Error())
			continue
		}
		want := uint64(unix.RLIM_INFINITY)
		if r.v >= 0 {
			want = uint64(r.v)
		}
		if want > cur.Max {
			want = cur.Max // never raise: only lower
		}
		lim := syscall.Rlimit{Cur: want, Max: want}
		if err := syscall.Setrlimit(r.res, &lim); err != nil {
			errs = append(errs, r.name+": "+err.Error())
			continue
		}
		if want == uint64(unix.RLIM_INFINITY) {
			done = append(done, r.name+"=unlimited")
		} else {
			done = append(done, fmt.Sprintf("%s=%d", r.name, want))
		}
	}
	if os.Getuid() == 0 {
		done = append(done, "(uid 0 is exempt from nproc)")
	}
	if len(errs) > 0 {
		h.miss(LayerRlimits, errors.New(strings.Join(errs, "; ")), "")
		return
	}
	h.ok(LayerRlimits, strings.Join(done, " "))
}

// namespaces records the namespaces the clone created (verified from the
// kernel's view of ourselves, not assumed from the request).
func (h *helper) namespaces() {
	fix := "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces>0, kernel.apparmor_restrict_unprivileged_userns=0) or run outside a container that forbids unshare"
	if !h.hs.UserNS {
		why := h.hs.NSReason
		if why == "" {
			why = "not requested"
		}
		for _, n := range []string{LayerUserNS, LayerMountNS, LayerPidNS} {
			h.miss(n, errors.New(why), fix)
		}
		if !h.hs.Network {
			h.miss(LayerNetNS, errors.New(why), fix)
		}
		for _, n := range []string{LayerReadOnlyRoot, LayerReadOnlyPaths, LayerMasks, LayerProc, LayerHome, LayerGit} {
			h.miss(n, errors.New("needs the mount namespace"), fix)
		}
		return
	}
	// uid_map with one line means we are in a user namespace we own.
	if b, err := os.ReadFile("/proc/self/uid_map"); err == nil && !strings.Contains(string(b), "4294967295") {
		h.ok(LayerUserNS, "uid "+strings.Join(strings.Fields(string(b)), " "))
	} else {
		h.miss(LayerUserNS, errors.New("not in a new user namespace"), fix)
	}
	h.ok(LayerMountNS, "private mount namespace")
	if os.Getpid() == 1 {
		h.ok(LayerPidNS, "own pid namespace, pid 1")
	} else {
		h.miss(LayerPidNS, fmt.Errorf("pid is %d, not 1", os.Getpid()), fix)
	}
	if h.hs.NetNS && h.hs.SharedNet {
		h.ok(LayerNetNS, "the session's network namespace (loopback only, shared by the session's commands)")
	} else if h.hs.NetNS {
		h.ok(LayerNetNS, "own network namespace (loopback only)")
	}
}

// mountAttr sets/clears mount attributes on path (recursively or not),
// with a MS_REMOUNT fallback for kernels without mount_setattr.
func mountAttr(path string, recursive bool, set, clr uint64) error {
	flags := uint(unix.AT_SYMLINK_NOFOLLOW)
	if recursive {
		flags |= unix.AT_RECURSIVE
	}
	err := unix.MountSetattr(unix.AT_FDCWD, path, flags, &unix.MountAttr{Attr_set: set, Attr_clr: clr})
	if err == unix.ENOSYS && !recursive {
		var mf uintptr = unix.MS_BIND | unix.MS_REMOUNT
		if set&unix.MOUNT_ATTR_RDONLY != 0 {
			mf |= unix.MS_RDONLY
		}
		if set&unix.MOUNT_ATTR_NOSUID != 0 {
			mf |= unix.MS_NOSUID
		}
		if set&unix.MOUNT_ATTR_NODEV != 0 {
			mf |= unix.MS_NODEV
		}
		if set&unix.MOUNT_ATTR_NOEXEC != 0 {
			mf |= unix.MS_NOEXEC
		}
		return unix.Mount("", path, "", mf, "")
	}
	return err
}

func (h *helper) mounts() {
	hs := &h.hs
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		h.miss(LayerReadOnlyRoot, fmt.Errorf("make / private: %w", err), "")
		h.miss(LayerMasks, errors.New("mount namespace unusable"), "")
		return
	}
	h.mountsPrivate = true
	steptime.Mark("h.private")
	// 0. HOME and the other secret roots by allowlist (home_linux.go).
	h.isolateRoots()
	steptime.Mark("h.home")
	// 1. Everything read-only: chmod, chown, utime, unlink and writes fail
	//    with EROFS outside the writable roots (Landlock covers neither
	//    chmod nor chown nor utime).
	roErr := mountAttr("/", true, unix.MOUNT_ATTR_RDONLY, 0)
	steptime.Mark("h.roroot")
	// 2. Writable roots: a bind of each onto itself, made writable again.
	var rwErrs []string
	if roErr == nil {
		for _, w := range hs.Writable {
			if took, err := h.rootMapTake(w, w); took {
				// As root: an idmapped copy (rootmap_linux.go).
				if err != nil {
					rwErrs = append(rwErrs, w+": "+err.Error())
				}
				continue
			}
			if err := unix.Mount(w, w, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				rwErrs = append(rwErrs, w+": "+err.Error())
				continue
			}
			if err := mountAttr(w, false, 0, unix.MOUNT_ATTR_RDONLY); err != nil {
				rwErrs = append(rwErrs, w+": "+err.Error())
			}
		}
	}
	// 3. Read-only paths inside writable roots. .git itself becomes a
	//    mount point so it cannot be renamed away and rebuilt.
	steptime.Mark("h.rwbinds")
	var roPaths []string
	var roErrs []string
	if roErr == nil {
		gitDir := filepath.Join(hs.Workspace, ".git")
		viewOK := h.gitLayer(gitDir)
		steptime.Mark("h.git")
		if fi, err := os.Lstat(gitDir); !viewOK && err == nil && fi.IsDir() {
			if err := unix.Mount(gitDir, gitDir, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				roErrs = append(roErrs, gitDir+": "+err.Error())
			}
			hooks := filepath.Join(gitDir, "hooks")
			if _, err := os.Lstat(hooks); errors.Is(err, os.ErrNotExist) {
				os.Mkdir(hooks, 0o755) // so that it can be protected
			}
		}
		for _, p := range hs.ReadOnly {
			if viewOK && under(p, gitDir) {
				continue // the view protects .git as a whole
			}
			fi, err := os.Lstat(p)
			if err != nil || fi.Mode()&os.ModeSymlink != 0 {
				continue // absent, or a symlink (its target is checked on its own)
			}
			if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
				roErrs = append(roErrs, p+": "+err.Error())
				continue
			}
			if err := mountAttr(p, true, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, 0); err != nil {
				roErrs = append(roErrs, p+": "+err.Error())
				continue
			}
			roPaths = append(roPaths, strings.TrimPrefix(p, hs.Workspace+"/"))
		}
	}
	steptime.Mark("h.ropaths")
	switch {
	case roErr != nil:
		h.miss(LayerReadOnlyRoot, fmt.Errorf("mount_setattr(/, RDONLY): %w", roErr), "a kernel with mount_setattr (5.12+)")
		h.miss(LayerReadOnlyPaths, errors.New("needs the read-only root"), "")
	case len(rwErrs) > 0:
		h.miss(LayerReadOnlyRoot, errors.New("writable roots: "+strings.Join(rwErrs, "; ")), "")
	default:
		h.ok(LayerReadOnlyRoot, "everything read-only except "+strings.Join(hs.Writable, " "))
	}
	if roErr == nil {
		if len(roErrs) > 0 {
			h.miss(LayerReadOnlyPaths, errors.New(strings.Join(roErrs, "; ")), "")
		} else {
			h.ok(LayerReadOnlyPaths, strings.Join(roPaths, " "))
		}
	}
	// 4. Secrets: an empty mode-000 tmpfs over directories, /dev/null
	//    (nodev: opening it fails) over files.
	var masked []string
	var maskErrs []string
	for _, p := range hs.Masked {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			err = unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=000,size=4k,nr_inodes=2")
		} else {
			err = unix.Mount("/dev/null", p, "", unix.MS_BIND, "")
			if err == nil {
				err = mountAttr(p, false, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC, 0)
			}
		}
		if err != nil {
			maskErrs = append(maskErrs, p+": "+err.Error())
			continue
		}
		masked = append(masked, p)
	}
	if len(maskErrs) > 0 {
		h.miss(LayerMasks, errors.New(strings.Join(maskErrs, "; ")), "")
	} else {
		d := fmt.Sprintf("%d masked", len(masked))
		if len(masked) > 0 {
			d += ": " + strings.Join(masked, " ")
		}
		h.ok(LayerMasks, d)
	}
	steptime.Mark("h.masks")
	// 5. A fresh /proc for the new pid namespace.
	if os.Getpid() == 1 {
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			h.miss(LayerProc, fmt.Errorf("mount proc: %w", err), "run outside a container that masks parts of /proc")
		} else {
			h.ok(LayerProc, "fresh /proc of the pid namespace")
		}
	}
	steptime.Mark("h.proc")
}

func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// dropCaps empties the bounding, ambient, inheritable, permitted and
// effective sets of this thread, so that bash — even as uid 0 of the user
// namespace — has no capability after exec.
func (h *helper) dropCaps() {
	var hdr = unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		h.miss(LayerCaps, err, "")
		return
	}
	had := data[0].Permitted|data[1].Permitted|data[0].Effective|data[1].Effective != 0
	bset := "bounding set kept (no CAP_SETPCAP)"
	if had {
		for c := 0; c < 64; c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
				if err == unix.EINVAL {
					break
				}
				h.miss(LayerCaps, fmt.Errorf("PR_CAPBSET_DROP %d: %w", c, err), "")
				return
			}
		}
		bset = "bounding set empty"
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		h.miss(LayerCaps, fmt.Errorf("clear ambient: %w", err), "")
		return
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		h.miss(LayerCaps, fmt.Errorf("capset: %w", err), "")
		return
	}
	// The other threads of this process too (session_linux.go).
	if err := dropCapsAllThreads(); err != nil {
		h.miss(LayerCaps, err, "")
		return
	}
	h.ok(LayerCaps, "all capabilities dropped on every thread, "+bset)
}

var landlockConfigs = []landlock.Config{landlock.V1, landlock.V1, landlock.V2, landlock.V3, landlock.V4,
	landlock.V5, landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

func (h *helper) landlock() {
	hs := &h.hs
	fix := "a kernel with Landlock enabled (CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= boot parameter); ABI 4+ for TCP, 6+ for scopes"
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		if err == nil {
			//lint:ignore ST1005 Landlock is a name
			err = errors.New("Landlock ABI 0")
		}
		h.miss(LayerLandlockFS, fmt.Errorf("landlock unavailable: %w", err), fix)
		if !hs.Network && !hs.NetNS {
			h.miss(LayerLandlockNet, errors.New("landlock unavailable"), fix)
		}
		h.miss(LayerLandlockScope, errors.New("landlock unavailable"), fix)
		return
	}
	v := abi
	if v >= len(landlockConfigs) {
		v = len(landlockConfigs) - 1
	}
	cfg := landlockConfigs[v]
	wantNet := !hs.Network && !hs.NetNS // a netns already isolates; keep loopback usable
	if !wantNet {
		cfg.HandledAccessNet = 0
	} else {
		// UDP (ABI 10) is left to seccomp so that DNS-less UDP to
		// loopback behaves the same on every kernel.
		cfg.HandledAccessNet &= llsys.AccessNetBindTCP | llsys.AccessNetConnectTCP
	}
	fsAll := uint64(cfg.HandledAccessFS)
	ro := fsAll & (llsys.AccessFSReadFile | llsys.AccessFSReadDir | llsys.AccessFSExecute)
	dev := fsAll & (llsys.AccessFSReadFile | llsys.AccessFSWriteFile | llsys.AccessFSTruncate | llsys.AccessFSIoctlDev)
	rules := []pathRule{{ro, []string{"/"}}, {fsAll, hs.Writable},
		{dev, []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"}},
		{dev | (fsAll & llsys.AccessFSReadDir), []string{"/dev/pts"}},
	}
	if err := restrictThread(fsAll, uint64(cfg.HandledAccessNet), uint64(cfg.Scoped), rules); err != nil {
		h.miss(LayerLandlockFS, err, fix)
		if wantNet {
			h.miss(LayerLandlockNet, err, fix)
		}
		h.miss(LayerLandlockScope, err, fix)
		return
	}
	h.ok(LayerLandlockFS, fmt.Sprintf("ABI %d: read everywhere, write only %s", abi, strings.Join(hs.Writable, " ")))
	if wantNet {
		if cfg.HandledAccessNet != 0 {
			h.ok(LayerLandlockNet, "TCP bind and connect denied")
		} else {
			//lint:ignore ST1005 Landlock is a name
			h.miss(LayerLandlockNet, fmt.Errorf("Landlock ABI %d has no network rules", abi), "Linux 6.7+ (Landlock ABI 4)")
		}
	}
	if cfg.Scoped != 0 {
		h.ok(LayerLandlockScope, "signals and abstract unix sockets scoped to the sandbox")
	} else {
		//lint:ignore ST1005 Landlock is a name
		h.miss(LayerLandlockScope, fmt.Errorf("Landlock ABI %d has no scopes", abi), "Linux 6.12+ (Landlock ABI 6)")
	}
	h.ok(LayerNoNewPrivs, "set by landlock_restrict_self")
}

type pathRule struct {
	access uint64
	paths  []string
}

// restrictThread enforces a Landlock ruleset on the calling thread only
// (this thread execs bash, which inherits the domain; the helper's other
// Go threads never run untrusted code). It avoids the all-threads dance,
// which needs a /proc of our own pid namespace.
func restrictThread(fs, net, scoped uint64, rules []pathRule) error {
	attr := llsys.RulesetAttr{HandledAccessFS: fs, HandledAccessNet: net, Scoped: scoped}
	fd, err := llsys.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	defer unix.Close(fd)
	const fileRights = llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile |
		llsys.AccessFSTruncate | llsys.AccessFSIoctlDev
	for _, r := range rules {
		for _, p := range r.paths {
			pfd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
			if err != nil {
				continue // missing: nothing to allow
			}
			access := r.access
			var st unix.Stat_t
			if unix.Fstat(pfd, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
				access &= fileRights
			}
			err = llsys.LandlockAddPathBeneathRule(fd, &llsys.PathBeneathAttr{AllowedAccess: access, ParentFd: pfd}, 0)
			unix.Close(pfd)
			if err != nil {
				return fmt.Errorf("landlock_add_rule %s: %w", p, err)
			}
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(NO_NEW_PRIVS): %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, 0); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

func (h *helper) seccomp() {
	hs := &h.hs
	prog, err := seccompbpf.Build(seccompbpf.Options{DenyInetDatagram: !hs.Network && !hs.NetNS, RestrictFamilies: true})
	if err == nil {
		err = seccompbpf.Install(prog)
	}
	if err != nil {
		h.miss(LayerSeccomp, err, "a kernel with CONFIG_SECCOMP_FILTER")
		if !h.applied.Has(LayerNoNewPrivs) {
			if e := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); e == nil {
				h.ok(LayerNoNewPrivs, "prctl")
			} else {
				h.miss(LayerNoNewPrivs, e, "")
			}
		}
		return
	}
	h.ok(LayerSeccomp, fmt.Sprintf("%d rules, %d instructions, foreign ABIs killed", len(prog.Rules), len(prog.Insns)))
	h.ipc.families = true
	h.unixConnect() // unixconnect_linux.go
	if !h.applied.Has(LayerNoNewPrivs) {
		h.ok(LayerNoNewPrivs, "prctl")
	}
}

// initSignals catches the signals go-init forwards (see initMain).
func initSignals() chan os.Signal {
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	return sigs
}

// initMain is pid 1 of the pid namespace: it starts bash, forwards the
// usual termination signals to every process of the namespace, reaps
// orphans, and as soon as bash exits, kills and reaps whatever is left in
// the namespace, reports bash's status to the parent (reportEnded) and
// exits with it.
//
// A warm helper (linger) then stays, alone in its namespaces, until the
// parent releases it (awaitRelease): its exit tears the namespaces down,
// a few milliseconds of the kernel's time that would otherwise compete
// with the parent delivering the result.
func initMain(bash string, argv, env []string, sigs chan os.Signal, linger bool) int {
	pid, err := syscall.ForkExec(bash, argv, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{0, 1, 2},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "shellguard: exec %s: %v\n", bash, err)
		return 127
	}
	steptime.Mark("h.init-forked")
	var ended atomic.Bool
	watchParent(&ended) // lifetime_linux.go
	go func() {
		for s := range sigs {
			syscall.Kill(-1, s.(syscall.Signal)) // everyone in the namespace but us
		}
	}()
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 1
		}
		if wpid != pid {
			continue
		}
		steptime.Mark("h.bash-exited")
		code := 1
		switch {
		case ws.Exited():
			code = ws.ExitStatus()
		case ws.Signaled():
			code = 128 + int(ws.Signal())
		default:
			continue // stopped or continued: not the end
		}
		ended.Store(true)
		reportEnded(code) // ctl_linux.go
		if linger {
			awaitRelease(releaseWait)
		}
		return code
	}
}
