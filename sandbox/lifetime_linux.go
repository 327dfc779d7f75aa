//go:build linux

package sandbox

// Nothing outlives the process that started it. Two mechanisms, because
// the parent-death signal alone is not enough: Linux clears it when the
// helper switches uid (rootmap_linux.go), and it is tied to the parent's
// thread that forked, not to the parent process.
//
//   - The helper sets PR_SET_PDEATHSIG again once its credentials are
//     final, and exits if its parent has already gone.
//   - go-init, pid 1 of the command's pid namespace, watches its end of
//     the control channel (ctl_linux.go): the parent holds the other end
//     until the command has ended, so a hang-up before that means the
//     parent process is gone (the kernel closed its descriptors). go-init
//     then kills every process of the namespace and exits.

import (
	"os"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// keepParentDeath sets the parent-death signal of the calling process to
// SIGKILL and exits if the parent it was started by (ppid, as read at
// start; 0 in a new pid namespace, where it cannot be read) has gone
// already.
func keepParentDeath(ppid int) {
	unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0)
	if ppid != 0 && os.Getppid() != ppid {
		os.Exit(128 + int(syscall.SIGKILL))
	}
}

// watchParent ends the pid namespace when the parent hangs up the
// control channel before ended is set.
func watchParent(ended *atomic.Bool) {
	go func() {
		fds := []unix.PollFd{{Fd: ctlFD}} // no events: only hang-up and error are reported
		for {
			_, err := unix.Poll(fds, -1)
			if err == unix.EINTR {
				continue
			}
			if err != nil || fds[0].Revents&unix.POLLNVAL != 0 {
				return // no channel to watch
			}
			if fds[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0 {
				break
			}
		}
		if ended.Load() {
			return
		}
		syscall.Kill(-1, syscall.SIGKILL) // everyone in the namespace but us
		os.Exit(128 + int(syscall.SIGKILL))
	}()
}
