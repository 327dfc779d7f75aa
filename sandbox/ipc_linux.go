//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// The ipc layer cuts the channels to the user's session that are not files
// of the workspace: the host /tmp (X11 and other sockets, files of other
// programs), /dev/shm, /run (the user's runtime directory, D-Bus, the
// container daemons' sockets), System V IPC and POSIX message queues (an
// IPC namespace), socket families other than unix, inet, inet6 and
// netlink route (seccomp), and unix sockets outside the writable roots
// (a connect supervisor, unixconnect_linux.go).

// ipcSpec is what the helper needs for the private directories.
type ipcSpec struct {
	// Session is a SessionTmp directory (tmp/ and shm/); "" = tmpfs per run.
	Session string `json:"session,omitempty"`
	// TmpDir is the real path of $TMPDIR when it is set and exists; it
	// shows the private /tmp as well.
	TmpDir string `json:"tmpdir,omitempty"`
	// Keep are directories that must stay visible (workspace, home, cwd,
	// PATH) even when they lie under a hidden directory.
	Keep []string `json:"keep,omitempty"`
}

func ipcSpecOf(spec Spec, env []string, dir string) ipcSpec {
	is := ipcSpec{Session: spec.SessionTmp}
	home := spec.Home
	if home == "" {
		home, _ = envGet(env, "HOME")
	}
	if t, ok := envGet(env, "TMPDIR"); ok {
		is.TmpDir = realpath(t)
	}
	keep := []string{spec.Workspace, dir, home}
	if path, ok := envGet(env, "PATH"); ok {
		keep = append(keep, filepath.SplitList(path)...) // programs stay runnable (read-only)
	}
	seen := make(map[string]bool, len(keep))
	for _, p := range keep {
		if seen[p] {
			continue // PATH often names a directory twice
		}
		seen[p] = true
		if r := realpath(p); r != "" && (r == p || !seen[r]) {
			seen[r] = true
			is.Keep = append(is.Keep, r)
		}
	}
	return is
}

// privateIPC replaces /tmp, $TMPDIR and /dev/shm with private
// directories and /run (and a real /var/run) with an empty tmpfs, then
// binds back what must stay visible under them: the writable roots, the
// workspace, home and cwd, and the file /etc/resolv.conf points to when
// it lives in /run. It runs before mounts() binds the writable roots.
func (h *helper) privateIPC() {
	h.ipc.done = false
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		h.ipc.err = fmt.Errorf("make / private: %w", err)
		return
	}
	is := h.hs.IPC
	type target struct {
		path string
		kind string // "tmp", "shm", "tmpdir", "run"
	}
	targets := []target{{"/tmp", "tmp"}, {"/dev/shm", "shm"}, {"/run", "run"}}
	if fi, err := os.Lstat("/var/run"); err == nil && fi.IsDir() {
		targets = append(targets, target{"/var/run", "run"})
	}
	if is.TmpDir != "" && is.TmpDir != "/tmp" && is.TmpDir != "/dev/shm" && is.TmpDir != "/" {
		targets = append(targets, target{is.TmpDir, "tmpdir"})
	}
	sort.Slice(targets, func(i, j int) bool { return targets[i].path < targets[j].path })
	hidden := func(p string) bool {
		for _, t := range targets {
			if under(p, t.path) {
				return true
			}
		}
		return false
	}
	isTarget := func(p string) bool {
		for _, t := range targets {
			if p == t.path {
				return true
			}
		}
		return false
	}
	// What to bring back, opened now while the host paths are visible.
	var keep []string
	for _, p := range append(append([]string{}, h.hs.Writable...), is.Keep...) {
		if p != "" && hidden(p) && !isTarget(p) {
			keep = append(keep, p)
		}
	}
	var files []string
	if r := realpath("/etc/resolv.conf"); r != "" && hidden(r) {
		files = append(files, r) // DNS with systemd-resolved
	}
	sort.Strings(keep)
	type held struct {
		path string
		fd   int
		dir  bool
	}
	var hold []held
	defer func() {
		for _, k := range hold {
			unix.Close(k.fd)
		}
	}()
	openHeld := func(p string, dir bool) error {
		for _, k := range hold {
			if under(p, k.path) && k.dir {
				return nil // inside one already kept (binds are recursive)
			}
		}
		fl := unix.O_PATH | unix.O_CLOEXEC | unix.O_NOFOLLOW
		if dir {
			fl |= unix.O_DIRECTORY
		}
		fd, err := unix.Open(p, fl, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		hold = append(hold, held{p, fd, dir})
		return nil
	}
	for _, p := range keep {
		if err := openHeld(p, true); err != nil {
			h.ipc.err = err
			return
		}
	}
	for _, p := range files {
		openHeld(p, false) // best effort: DNS may just not resolve
	}
	var sessFD = -1
	if is.Session != "" {
		fd, err := unix.Open(is.Session, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_DIRECTORY, 0)
		if err != nil {
			h.ipc.err = fmt.Errorf("session tmp: %w", err)
			return
		}
		defer unix.Close(fd)
		sessFD = fd
	}
	const tmpfsFlags = unix.MS_NOSUID | unix.MS_NODEV
	for _, t := range targets {
		if err := mkdirIn(t.path); err != nil {
			h.ipc.err = err
			return
		}
		var err error
		switch {
		case t.kind == "run":
			err = unix.Mount("tmpfs", t.path, "tmpfs", tmpfsFlags|unix.MS_NOEXEC, "mode=0755,size=64k,nr_inodes=64")
		case t.kind == "tmpdir":
			err = unix.Mount("/tmp", t.path, "", unix.MS_BIND, "")
		case sessFD >= 0:
			var took bool
			if took, err = h.rootMapTake(filepath.Join(is.Session, t.kind), t.path); took {
				break // as root: an idmapped copy (rootmap_linux.go)
			}
			err = unix.Mount(fmt.Sprintf("/proc/self/fd/%d/%s", sessFD, t.kind), t.path, "", unix.MS_BIND, "")
			if err == nil {
				err = mountAttr(t.path, false, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, 0)
			}
		default:
			err = unix.Mount("tmpfs", t.path, "tmpfs", tmpfsFlags, "mode=1777")
		}
		if err != nil {
			h.ipc.err = fmt.Errorf("private %s: %w", t.path, err)
			return
		}
	}
	for _, k := range hold {
		if err := mkdirIn(filepath.Dir(k.path)); err != nil {
			h.ipc.err = err
			return
		}
		if k.dir {
			err := mkdirIn(k.path)
			if err == nil {
				err = unix.Mount(fmt.Sprintf("/proc/self/fd/%d", k.fd), k.path, "", unix.MS_BIND|unix.MS_REC, "")
			}
			if err != nil {
				h.ipc.err = fmt.Errorf("keep %s: %w", k.path, err)
				return
			}
			continue
		}
		if f, err := os.OpenFile(k.path, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.Close()
			if unix.Mount(fmt.Sprintf("/proc/self/fd/%d", k.fd), k.path, "", unix.MS_BIND, "") == nil {
				mountAttr(k.path, false, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, 0)
			}
		}
	}
	h.ipc.done = true
	h.ipc.session = is.Session != ""
}

// mkdirIn creates p and its parents (in the private trees being built).
func mkdirIn(p string) error {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return nil
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		return fmt.Errorf("mkdir %s: %w", p, err)
	}
	return nil
}

// ipcState is what privateIPC and the socket rules achieved.
type ipcState struct {
	done, session bool
	err           error
	families      bool   // seccomp family allowlist installed
	unix          string // unix connect supervision: "supervised", or why not
	unixErr       error
}

// ipcReport records the ipc layer: whole only when every part holds.
func (h *helper) ipcReport() {
	var parts, gaps []string
	switch {
	case !h.hs.UserNS:
		gaps = append(gaps, "host /tmp, /dev/shm and /run visible (needs the mount namespace)")
	case !h.ipc.done:
		gaps = append(gaps, "private /tmp: "+errString(h.ipc.err))
	case h.ipc.session:
		parts = append(parts, "private /tmp and /dev/shm of the session, /run hidden, IPC namespace")
	default:
		parts = append(parts, "private /tmp and /dev/shm per run, /run hidden, IPC namespace")
	}
	if h.ipc.families {
		parts = append(parts, "sockets: unix stream/seqpacket, inet, inet6, netlink route only")
	} else {
		gaps = append(gaps, "socket families not filtered")
	}
	if h.ipc.unix != "" {
		parts = append(parts, h.ipc.unix)
	} else {
		gaps = append(gaps, "unix connect not supervised: "+errString(h.ipc.unixErr))
	}
	if len(gaps) > 0 {
		h.miss(LayerIPC, errors.New(strings.Join(gaps, "; ")+" (applied: "+strings.Join(parts, "; ")+")"),
			"Linux 5.9+ with user namespaces (seccomp user notification, pidfd_getfd)")
		return
	}
	h.ok(LayerIPC, strings.Join(parts, "; "))
}

func errString(err error) string {
	if err == nil {
		return "not applied"
	}
	return err.Error()
}
