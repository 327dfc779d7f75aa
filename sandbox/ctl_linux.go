//go:build linux

package sandbox

// The control channel: the helper's fd 4, a unix stream socket whose other
// end the parent keeps (Handle.ctl). It carries, in order:
//
//   - to a warm helper (pool_linux.go): its one command and the command's
//     stdin, stdout and stderr, after which the parent shuts its side down
//     for writing (the helper reads to EOF);
//   - from the helper's go-init, once bash has exited and every other
//     process of the pid namespace has been killed and reaped: bash's
//     status, one line. The parent then knows how the command ended
//     without waiting for the helper's own exit, whose namespace teardown
//     (mounts, network namespace) takes about a millisecond more.
//
// A helper that ends any other way (killed, bash as init, no pid
// namespace, a refused layer) closes the channel without a status: the
// parent then takes the status from the helper's exit, as before.

import (
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/shellguard/shellguard/internal/steptime"
	"golang.org/x/sys/unix"
)

// ctlFD is the helper's end of the control channel.
const ctlFD = 4

// ctlChannel makes the control channel: the parent's end (non-blocking,
// served by the runtime's poller, so that closing it wakes a reader) and
// the helper's.
func ctlChannel() (parent, child *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "sandbox-ctl"), os.NewFile(uintptr(fds[1]), "sandbox-ctl"), nil
}

// Ended blocks until the helper reports how bash ended, or until it closes
// the control channel without a report. ok is true only in the first
// case: every process of the command has then ended and been reaped, and
// code is bash's exit status (128+n for a death by signal n), while the
// helper itself may still be exiting. With ok false, wait for the helper
// and take its status. Call it once, after the command was started (or,
// warm, sent).
func (h *Handle) Ended() (code int, ok bool) {
	if h == nil || h.ctl == nil {
		return 0, false
	}
	var line []byte
	var b [32]byte
	for len(line) < 16 {
		n, err := h.ctl.Read(b[:])
		line = append(line, b[:n]...)
		if err != nil || (len(line) > 0 && line[len(line)-1] == '\n') {
			break
		}
	}
	if len(line) < 2 || line[len(line)-1] != '\n' {
		return 0, false
	}
	code, err := strconv.Atoi(string(line[:len(line)-1]))
	if err != nil {
		return 0, false
	}
	steptime.Mark("sb.ended")
	h.mu.Lock()
	h.ended = true
	h.mu.Unlock()
	return code, true
}

// Reaped tells the handle that the helper has been waited for after Ended
// reported: what must outlive the helper's own exit (the run's cgroup,
// which cannot be removed while the helper is in it) is released now.
func (h *Handle) Reaped() {
	if h == nil {
		return
	}
	h.mu.Lock()
	cg := h.cgLate
	h.cgLate = nil
	h.reaped = true
	h.mu.Unlock()
	if cg != nil {
		cg.close()
	}
}

// closeCtl closes both ends of the control channel this process holds.
func (h *Handle) closeCtl() {
	for _, f := range []**os.File{&h.ctl, &h.ctlChild} {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
	}
}

// releaseWait bounds how long a warm helper waits, after reporting, for
// the parent to release it (awaitRelease). The pool releases it a few
// milliseconds after the command's end; a parent that has gone hangs up
// at once.
const releaseWait = 2 * time.Second

// awaitRelease returns when the parent hangs up the control channel (it
// releases the helper, or it has gone) or after d.
func awaitRelease(d time.Duration) {
	deadline := time.Now().Add(d)
	fds := []unix.PollFd{{Fd: ctlFD}} // no events: only hang-up and error are reported
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		n, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil, n > 0:
			return
		}
	}
}

// reportEnded is go-init's last step once bash has exited with code: it
// kills every other process of the pid namespace and reaps them all (the
// kernel would kill them when go-init exits, but the parent is told the
// command has ended before that), lets go of the command's stdin, stdout
// and stderr (so that the parent's readers see the end of the output
// without waiting for go-init's exit), then sends code on the control
// channel.
func reportEnded(code int) {
	syscall.Kill(-1, syscall.SIGKILL) // everyone in the namespace but us
	for {
		_, err := syscall.Wait4(-1, nil, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			break // ECHILD: none left
		}
	}
	for fd := 0; fd < 3; fd++ {
		unix.Close(fd)
	}
	msg := strconv.AppendInt(nil, int64(code), 10)
	for {
		// MSG_NOSIGNAL: a parent that has gone gets no answer, and
		// go-init no SIGPIPE.
		_, err := unix.SendmsgN(ctlFD, append(msg, '\n'), nil, nil, unix.MSG_NOSIGNAL)
		if err != unix.EINTR {
			break
		}
	}
}
