package runner

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// WaitingForInput reports whether a process of the command's tree is
// blocked reading the command's stdin pipe or terminal (Options.StdinPipe
// or Options.PTY): it is asleep in read(2) or readv(2) on a descriptor
// linking to that pipe or terminal, or in select/poll with its fd 0 on it.
// It reads /proc/PID/syscall and falls back to /proc/PID/wchan when that
// is not readable. It is a snapshot: the answer may be stale by the time
// the caller acts on it.
func (p *Process) WaitingForInput() bool {
	if p.stdinID == "" {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
	}
	seen := map[int]bool{}
	queue := []int{p.cmd.Process.Pid}
	for len(queue) > 0 && len(seen) < 4096 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		if blockedOnInput(pid, p.stdinID) {
			return true
		}
		queue = append(queue, children(pid)...)
	}
	return false
}

func blockedOnInput(pid int, target string) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	fdIs := func(fd uint64) bool {
		l, err := os.Readlink(dir + "/fd/" + strconv.FormatUint(fd, 10))
		return err == nil && l == target
	}
	if b, err := os.ReadFile(dir + "/syscall"); err == nil {
		f := strings.Fields(string(b))
		if len(f) < 2 { // "running", or a zombie
			return false
		}
		nr, err1 := strconv.ParseInt(f[0], 10, 64)
		arg0, err2 := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if isReadSyscall(nr) {
			return fdIs(arg0)
		}
		if isPollSyscall(nr) {
			return fdIs(0)
		}
		return false
	}
	// /proc/PID/syscall needs ptrace access; the wait channel does not.
	w, err := os.ReadFile(dir + "/wchan")
	if err != nil {
		return false
	}
	switch string(w) {
	case "pipe_read", "pipe_wait", "pipe_wait_readable", "n_tty_read", "wait_woken",
		"do_select", "do_sys_poll", "core_sys_select":
		return fdIs(0)
	}
	return false
}

func isReadSyscall(nr int64) bool {
	return nr == unix.SYS_READ || nr == unix.SYS_READV || nr == unix.SYS_PREAD64
}

func isPollSyscall(nr int64) bool {
	return nr == unix.SYS_PSELECT6 || nr == unix.SYS_PPOLL || isLegacyPollSyscall(nr)
}
