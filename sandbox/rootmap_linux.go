//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/shellguard/shellguard/internal/steptime"
	"golang.org/x/sys/unix"
)

// RootMapID is the uid and gid a command of root runs as: high in the
// 32-bit range, above the ranges distributions hand out to users, systemd
// and container subuids.
const RootMapID = 0x7FFF0000

// securebits (linux/securebits.h).
const (
	secbitNoSetuidFixup = 1 << 2
	secbitKeepCaps      = 1 << 4
)

// rootMapFD is the first descriptor of the helper's idmapped trees
// (3 is the report channel, 4 the warm pool's call channel).
const rootMapFD = 5

// rootMapSpec is what the helper gets (helperSpec.RootMap): Paths[i] is a
// detached idmapped copy of that host directory at descriptor
// rootMapFD+i, to be attached where the helper would bind the directory.
// The user namespace maps 0 to 0 (the helper sets up as root) and
// HostID to HostID, the uid the helper becomes before bash.
type rootMapSpec struct {
	HostID int      `json:"host_id"`
	Paths  []string `json:"paths"`
	// Parents are ancestors of Paths that other users cannot search
	// (mode without o+x): read-only idmapped copies at
	// rootMapFD+len(Paths)+j, so that the command reaches the writable
	// roots below them and reads there what root could.
	Parents []string `json:"parents,omitempty"`
	// Err: the parent could not build them; the command then runs with
	// root mapped to root and the layer is reported missing.
	Err string `json:"err,omitempty"`
}

// holderArg is the argument of the process that only holds a user
// namespace whose root is RootMapID (its descriptor is the idmapping of
// the trees).
const holderArg = "userns-holder"

var rootMapNS struct {
	once sync.Once
	fd   int
	err  error
}

// rootMapUserNS returns a descriptor of a user namespace mapping 0 to
// RootMapID and RootMapID to 0 (uids and gids), made once per process.
// Through a mount idmapped with it, a file root owns on disk is
// RootMapID's, and what the command (RootMapID) creates is root's on
// disk; what the helper, still root, creates there (mount points) is
// RootMapID's on disk. It is made thus: a child of ours is
// started in a new user namespace with that mapping, we open its
// namespace and let it exit.
func rootMapUserNS() (int, error) {
	rootMapNS.once.Do(func() {
		// Traced, the child stops at its exec before it runs anything:
		// the namespace is all that is wanted of it. Where tracing is
		// refused (Yama ptrace_scope 3, a seccomp profile), it runs
		// until it is killed.
		for _, trace := range []bool{true, false} {
			rootMapNS.fd, rootMapNS.err = rootMapHolderNS(trace)
			if rootMapNS.err == nil {
				return
			}
		}
	})
	return rootMapNS.fd, rootMapNS.err
}

func rootMapHolderNS(trace bool) (int, error) {
	cmd := exec.Command("/proc/self/exe", helperArg, holderArg)
	cmd.Args[0] = "shellguard-userns"
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: RootMapID, Size: 1}, {ContainerID: RootMapID, HostID: 0, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: 0, HostID: RootMapID, Size: 1}, {ContainerID: RootMapID, HostID: 0, Size: 1}},
		GidMappingsEnableSetgroups: false,
		Pdeathsig:                  syscall.SIGKILL,
		Ptrace:                     trace,
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return -1, err
	}
	if err := cmd.Start(); err != nil {
		in.Close()
		return -1, fmt.Errorf("a user namespace for the idmapping: %w", err)
	}
	fd, err := unix.Open("/proc/"+strconv.Itoa(cmd.Process.Pid)+"/ns/user", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	// The namespace is ours now: the child need not start up to exit by
	// itself (a whole second start of this program, on the critical path
	// of a cold run). It is killed and reaped aside.
	cmd.Process.Kill()
	in.Close()
	go cmd.Wait()
	return fd, err
}

// Prewarm starts, in the background, the part of the first sandboxed
// command's set-up that does not depend on the command, so that it runs
// while the caller is still loading its configuration and checking the
// command: the search for the cgroup a run's cgroup is made in (v2, else
// the v1 memory controller; once per process) and the HOME allowlist's
// entries for this process's HOME and PATH (taken by the first command
// whose are the same). It does nothing with the sandbox off.
//
// The user namespace of the idmapped writable roots (as root) is not
// made here: it takes a child process, a fork of this one and an exec,
// and made beside the configuration's loading it made a cold launch
// about 2 ms slower on two cores than made in its turn (see
// docs/performance.md, seventh pass).
func Prewarm(spec Spec) {
	if spec.Mode == Off {
		return
	}
	go func() {
		if _, err := baseCgroup(); err != nil {
			baseCgroupV1()
		}
	}()
	prewarmHome(spec)
}

// rootMapHolder is that child: it holds the namespace until its stdin
// closes.
func rootMapHolder() int {
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// prepareRootMap builds the idmapped trees of dirs (the host directories
// the helper makes writable) and returns the spec and the files to pass
// at rootMapFD and up. On any failure it returns a spec with Err and no
// files: root then stays root, and the layer is reported missing.
func prepareRootMap(dirs []string) (*rootMapSpec, []*os.File) {
	rs := &rootMapSpec{HostID: RootMapID}
	nsfd, err := rootMapUserNS()
	steptime.Mark("sb.rootmap-userns")
	if err != nil {
		rs.Err = err.Error()
		return rs, nil
	}
	var files []*os.File
	fail := func(err error) (*rootMapSpec, []*os.File) {
		for _, f := range files {
			f.Close()
		}
		return &rootMapSpec{HostID: RootMapID, Err: err.Error()}, nil
	}
	parents := unsearchableParents(dirs)
	for i, d := range append(append([]string{}, dirs...), parents...) {
		fd, err := unix.OpenTree(unix.AT_FDCWD, d, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW)
		if err != nil {
			return fail(fmt.Errorf("open_tree %s: %w", d, err))
		}
		f := os.NewFile(uintptr(fd), "idmapped "+d)
		files = append(files, f)
		attr := uint64(unix.MOUNT_ATTR_IDMAP)
		if i >= len(dirs) {
			attr |= unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV
		}
		err = unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: attr, Userns_fd: uint64(nsfd)})
		if err != nil {
			return fail(fmt.Errorf("idmapped mount of %s: %w", d, err))
		}
	}
	rs.Paths, rs.Parents = dirs, parents
	return rs, files
}

// unsearchableParents returns, for each dir, its topmost ancestor that
// other users cannot search (no o+x): the command, no longer root, could
// not reach the writable root below it.
func unsearchableParents(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		p := "/"
		for _, c := range strings.Split(strings.Trim(filepath.Dir(d), "/"), "/") {
			if c == "" {
				break
			}
			p = filepath.Join(p, c)
			var st unix.Stat_t
			if unix.Stat(p, &st) != nil || st.Mode&0o001 != 0 {
				continue
			}
			covered := false
			for _, o := range out {
				covered = covered || under(p, o)
			}
			if !covered {
				out = append(out, p)
			}
			break
		}
	}
	return out
}

// rootMapDirs are the host directories a helper makes writable, each of
// which needs an idmapped tree: the writable roots except those the
// private /tmp, /dev/shm and $TMPDIR replace, the session's tmp and shm,
// and the overlay's run directory.
func rootMapDirs(hs *helperSpec) []string {
	replaced := map[string]bool{"/tmp": true, "/dev/shm": true}
	if hs.IPC.TmpDir != "" {
		replaced[hs.IPC.TmpDir] = true
		if r := realpath(hs.IPC.TmpDir); r != "" {
			replaced[r] = true
		}
	}
	var dirs []string
	for _, w := range hs.Writable {
		if !replaced[w] {
			dirs = append(dirs, w)
		}
	}
	if hs.IPC.Session != "" {
		for _, k := range []string{"tmp", "shm"} {
			if fi, err := os.Lstat(filepath.Join(hs.IPC.Session, k)); err == nil && fi.IsDir() {
				dirs = append(dirs, filepath.Join(hs.IPC.Session, k))
			}
		}
	}
	// Not the overlay's upper directory: the overlay writes it with
	// the helper's credentials (root of the namespace).
	return dirs
}

// rootMapTake attaches the idmapped tree of the host directory src at
// target (once: a tree attached is used up) and reports whether there was
// one; false: the caller binds src as usual.
func (h *helper) rootMapTake(src, target string) (bool, error) {
	rm := h.hs.RootMap
	if rm == nil || rm.Err != "" {
		return false, nil
	}
	for i, p := range rm.Paths {
		if p != src || h.rootMapUsed[i] {
			continue
		}
		if h.rootMapUsed == nil {
			h.rootMapUsed = map[int]bool{}
		}
		h.rootMapUsed[i] = true
		err := unix.MoveMount(rootMapFD+i, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH)
		unix.Close(rootMapFD + i)
		if err != nil {
			err = fmt.Errorf("attach idmapped %s: %w", src, err)
			h.rootMapErr = errors.Join(h.rootMapErr, err)
		}
		return true, err
	}
	return false, nil
}

// rootMapParents attaches the read-only idmapped copies of the
// ancestors other users cannot search, first of all mounts (HOME's
// tmpfs and the private /tmp then cover them as they cover the host's).
func (h *helper) rootMapParents() {
	rm := h.hs.RootMap
	if rm == nil || rm.Err != "" || len(rm.Parents) == 0 {
		return
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		h.rootMapErr = errors.Join(h.rootMapErr, fmt.Errorf("make / private: %w", err))
		return
	}
	for j, p := range rm.Parents {
		fd := rootMapFD + len(rm.Paths) + j
		err := unix.MoveMount(fd, "", unix.AT_FDCWD, p, unix.MOVE_MOUNT_F_EMPTY_PATH)
		unix.Close(fd)
		if err != nil {
			h.rootMapErr = errors.Join(h.rootMapErr, fmt.Errorf("attach idmapped %s: %w", p, err))
		}
	}
}

// rootMapPasswd binds copies of /etc/passwd and /etc/group with an entry
// for RootMapID over the originals (programs such as ssh refuse to run
// for a uid without one). The copies live on the scratch tmpfs.
func rootMapPasswd(id int, home string) error {
	ids := strconv.Itoa(id)
	if home == "" {
		home = "/"
	}
	for _, e := range []struct{ name, line string }{
		{"passwd", "shellguard:x:" + ids + ":" + ids + ":shellguard sandbox:" + home + ":/bin/sh\n"},
		{"group", "shellguard:x:" + ids + ":\n"},
	} {
		target := realpath("/etc/" + e.name)
		if target == "" {
			continue
		}
		old, err := os.ReadFile(target)
		if err != nil {
			return err
		}
		if bytes.Contains(old, []byte(":x:"+ids+":")) {
			continue
		}
		if len(old) > 0 && old[len(old)-1] != '\n' {
			old = append(old, '\n')
		}
		tfd, err := scratchFile(append(old, e.line...), 0o644)
		if err != nil {
			return err
		}
		err = unix.MoveMount(tfd, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH)
		unix.Close(tfd)
		if err != nil {
			return fmt.Errorf("%s: %w", target, err)
		}
	}
	return nil
}

// rootMapSwitch makes every thread of the helper the sandbox's
// unprivileged user (ns uid and gid RootMapID = host RootMapID) just
// before the capabilities are dropped, keeping them for that (the
// helper did its set-up as root of the namespace, which is root of the
// host). HOME's tmpfs, which the helper filled, is given to that user.
func (h *helper) rootMapSwitch() {
	rm := h.hs.RootMap
	if rm == nil {
		return
	}
	if rm.Err != "" {
		h.miss(LayerRootMap, errors.New(rm.Err), "Linux 5.12+ with idmapped mounts on the file systems of the writable roots (ext4, xfs, btrfs; tmpfs from 6.3)")
		return
	}
	if h.rootMapErr != nil {
		h.miss(LayerRootMap, h.rootMapErr, "")
		return
	}
	id := rm.HostID
	if home := h.hs.FS.Home; home != "" && h.applied.Has(LayerHome) {
		if err := chownTmpfs(home, h.homeMade, id); err != nil {
			h.miss(LayerRootMap, fmt.Errorf("HOME for uid %d: %w", id, err), "")
			return
		}
	}
	if err := rootMapPasswd(id, h.hs.FS.Home); err != nil {
		h.miss(LayerRootMap, fmt.Errorf("passwd entry for uid %d: %w", id, err), "")
		return
	}
	// Keep the capabilities across the uid change (dropCaps, next,
	// needs CAP_SETPCAP for the bounding set).
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, secbitNoSetuidFixup|secbitKeepCaps, 0, 0, 0); err != nil {
		h.miss(LayerRootMap, fmt.Errorf("securebits: %w", err), "")
		return
	}
	// Go applies these to every thread of the process.
	if err := syscall.Setgroups(nil); err != nil {
		h.miss(LayerRootMap, fmt.Errorf("setgroups: %w", err), "")
		return
	}
	if err := syscall.Setresgid(id, id, id); err != nil {
		h.miss(LayerRootMap, fmt.Errorf("setresgid: %w", err), "")
		return
	}
	if err := syscall.Setresuid(id, id, id); err != nil {
		h.miss(LayerRootMap, fmt.Errorf("setresuid: %w", err), "")
		return
	}
	d := fmt.Sprintf("root of the host runs the command as uid %d (inside and on the host); writable roots idmapped (%d)", id, len(rm.Paths))
	if len(rm.Parents) > 0 {
		d += "; read-only idmapped, as other users cannot search them: " + strings.Join(rm.Parents, " ")
	}
	h.ok(LayerRootMap, d)
}

// chownTmpfs gives home and what isolate made under it on the tmpfs
// (made: not the trees put back, nor what is mounted there since) to id,
// lifting the mount's read-only flag meanwhile.
func chownTmpfs(home string, made []string, id int) error {
	var rs unix.Stat_t
	if err := unix.Lstat(home, &rs); err != nil {
		return err
	}
	if err := mountAttr(home, false, 0, unix.MOUNT_ATTR_RDONLY); err != nil {
		return err
	}
	defer mountAttr(home, false, unix.MOUNT_ATTR_RDONLY, 0)
	if err := unix.Lchown(home, id, id); err != nil {
		return err
	}
	for _, p := range made {
		if p == home || !under(p, home) {
			continue
		}
		var st unix.Stat_t
		if unix.Lstat(p, &st) != nil || st.Dev != rs.Dev {
			continue // a mount point since
		}
		if err := unix.Lchown(p, id, id); err != nil {
			return err
		}
	}
	return nil
}

// closeRootMap closes the parent's copies of the idmapped trees.
func (h *Handle) closeRootMap() {
	for _, f := range h.rm {
		f.Close()
	}
	h.rm = nil
}
