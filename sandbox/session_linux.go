//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
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
		if err := privateDevpts(); err != nil {
			h.miss(LayerSession, fmt.Errorf("private devpts: %w", err), "a kernel with devpts newinstance support")
			return
		}
		detail += "; private /dev/pts"
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
