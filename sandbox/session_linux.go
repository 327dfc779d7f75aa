//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// The session layer: bash runs in a session of its own with no
// controlling terminal (the parent starts the helper with setsid, as
// `bwrap --new-session` does), and /dev/pts is a private devpts instance,
// so neither the caller's terminal nor any other terminal of the host can
// be opened, read, written or re-configured (stty, TIOCSPGRP). TIOCSTI
// and TIOCLINUX are refused by seccomp on any descriptor. A background
// task's terminal is created by shellguard outside and passed in as
// stdin/stdout/stderr: it is the command's own terminal and stays usable
// through those descriptors.

// closeInherited marks every descriptor from 3 up close-on-exec, so that
// nothing the caller leaked (a file opened for writing outside, a
// connected socket, a directory) reaches bash. The only descriptor
// shellguard passes on purpose is the report channel (3), which is
// close-on-exec already.
func (h *helper) closeInherited() {
	err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	how := "close_range"
	if err != nil {
		// Kernels before 5.11: set the flag one descriptor at a time.
		how = "fcntl"
		err = cloexecEach()
	}
	if err != nil {
		h.miss(LayerFDs, err, "Linux 5.11+ (close_range)")
		return
	}
	h.ok(LayerFDs, "every inherited descriptor >= 3 closed at exec ("+how+")")
}

func cloexecEach() error {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && err != unix.EBADF {
			return fmt.Errorf("fcntl(%d, FD_CLOEXEC): %w", fd, err)
		}
	}
	return nil
}

// session checks that the helper leads a session of its own without a
// controlling terminal, and mounts a private devpts over /dev/pts (with
// /dev/ptmx pointing into it) when the mount namespace is available.
func (h *helper) session() {
	sid, _ := unix.Getsid(0)
	if sid != unix.Getpid() {
		h.miss(LayerSession, fmt.Errorf("not a session leader (sid %d)", sid), "")
		return
	}
	detail := "own session, no controlling terminal"
	if fd, err := unix.Open("/dev/tty", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0); err == nil {
		unix.Close(fd)
		// Only a task started on a pty of its own has a controlling
		// terminal: the one on its stdin, which shellguard created.
		if tsid, err := unix.IoctlGetInt(0, unix.TIOCGSID); err != nil || tsid != sid {
			h.miss(LayerSession, errors.New("a controlling terminal other than stdin's is reachable"), "")
			return
		}
		detail = "own session, controlling terminal: the task's own pty"
	}
	if h.hs.UserNS {
		// As root, the host's devices and /proc/sys belong to the uid
		// the command runs as: hide the devices and make /proc/sys
		// read-only, so Landlock is not the only barrier. For another
		// uid their owner (root) is one already, and a private devpts
		// is all that is needed.
		if os.Getuid() == 0 {
			if err := privateDev(); err != nil {
				h.miss(LayerSession, fmt.Errorf("private /dev: %w", err), "a kernel with devpts newinstance support")
				return
			}
			detail += "; private /dev (null zero full random urandom tty, own devpts, private shm)"
			if os.Getpid() == 1 {
				if err := readOnlyProc(); err != nil {
					h.miss(LayerSession, err, "")
					return
				}
				detail += "; /proc/sys read-only"
			}
		} else {
			if err := privateDevpts(); err != nil {
				h.miss(LayerSession, fmt.Errorf("private devpts: %w", err), "a kernel with devpts newinstance support")
				return
			}
			detail += "; private /dev/pts"
		}
	} else {
		h.miss(LayerSession, errors.New("host /dev/pts reachable: needs the mount namespace"), "")
		return
	}
	h.ok(LayerSession, detail)
}

func privateDevpts() error {
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC,
		"newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return err
	}
	// /dev/ptmx must allocate in the new instance.
	if err := unix.Mount("/dev/pts/ptmx", "/dev/ptmx", "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind /dev/pts/ptmx: %w", err)
	}
	return nil
}

// devNodes are the device nodes a command gets; every other device of the
// host (disks, /dev/mem, /dev/kmsg, /dev/kvm, input devices ...) does not
// exist in the sandbox, whatever the uid and whatever Landlock allows.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// privateDev replaces /dev with a small tmpfs: the nodes above (bound
// from the host), a private devpts instance with /dev/ptmx pointing into
// it, the private /dev/shm, and the fd/stdin/stdout/stderr links.
func privateDev() error {
	held := map[string]int{}
	defer func() {
		for _, fd := range held {
			unix.Close(fd)
		}
	}()
	for _, n := range append(append([]string{}, devNodes...), "shm") {
		fd, err := unix.Open("/dev/"+n, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			if n == "shm" || n == "tty" {
				continue
			}
			return fmt.Errorf("/dev/%s: %w", n, err)
		}
		held[n] = fd
	}
	if err := unix.Mount("tmpfs", "/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "mode=0755,size=64k,nr_inodes=64"); err != nil {
		return fmt.Errorf("tmpfs on /dev: %w", err)
	}
	for n, fd := range held {
		p := "/dev/" + n
		if n == "shm" {
			if err := os.Mkdir(p, 0o1777); err != nil {
				return err
			}
		} else if err := os.WriteFile(p, nil, 0o666); err != nil {
			return err
		}
		if err := unix.Mount(fmt.Sprintf("/proc/self/fd/%d", fd), p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
	}
	if err := os.Mkdir("/dev/pts", 0o755); err != nil {
		return err
	}
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC,
		"newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return fmt.Errorf("devpts: %w", err)
	}
	for link, target := range map[string]string{"ptmx": "pts/ptmx", "fd": "/proc/self/fd",
		"stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, "/dev/"+link); err != nil {
			return err
		}
	}
	return mountAttr("/dev", false, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC, 0)
}

// readOnlyProc makes the kernel's tunables and triggers in the fresh
// /proc read-only, so that uid 0 (which owns them) is not stopped by
// Landlock alone.
func readOnlyProc() error {
	for _, p := range []string{"/proc/sys", "/proc/sysrq-trigger"} {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
		if err := mountAttr(p, false, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC, 0); err != nil {
			return fmt.Errorf("read-only %s: %w", p, err)
		}
	}
	return nil
}

// dropCapsAllThreads empties the permitted, effective and inheritable sets
// (and so the ambient set, which the kernel keeps within both) of every
// thread of the helper, not only of the one that execs bash: no thread of
// a process the command can reach (the helper stays as init) keeps a
// capability of the namespace. One call: psx signals every thread.
func dropCapsAllThreads() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if _, _, e := psx.Syscall3(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		return fmt.Errorf("capset on every thread: %w", e)
	}
	return nil
}
