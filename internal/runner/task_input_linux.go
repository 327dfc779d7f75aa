package runner

import (
	"encoding/binary"
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
	root := p.cmd.Process.Pid
	if p.launch.Tree != nil {
		if t := p.launch.Tree(); t > 0 {
			root = t
		}
	}
	queue := []int{root}
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

// StdinPending returns how many bytes written to the command's stdin pipe
// (Options.StdinPipe) it has not read yet; 0 without a pipe, and under a
// PTY (whose input queue is the terminal's, not readable from the master).
func (p *Process) StdinPending() int {
	if p.stdin == nil || p.opts.PTY {
		return 0
	}
	rc, err := p.stdin.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	rc.Control(func(fd uintptr) {
		// FIONREAD (TIOCINQ) on either end of a pipe: the bytes in it.
		if v, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ); err == nil {
			n = v
		}
	})
	return n
}

func blockedOnInput(pid int, target string) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	fdIs := func(fd uint64) bool {
		l, err := os.Readlink(dir + "/fd/" + strconv.FormatUint(fd, 10))
		return err == nil && l == target
	}
	if b, err := os.ReadFile(dir + "/syscall"); err == nil {
		f := strings.Fields(string(b))
		if len(f) < 3 { // "running", or a zombie
			return false
		}
		nr, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return false
		}
		var args [2]uint64
		for i := range args {
			if args[i], err = strconv.ParseUint(strings.TrimPrefix(f[1+i], "0x"), 16, 64); err != nil {
				return false
			}
		}
		switch {
		case isReadSyscall(nr):
			return fdIs(args[0])
		case isPollSyscall(nr):
			// Waiting in poll or select is waiting for input only when
			// fd 0 is among what it waits to read (a server polls its
			// sockets, not its stdin).
			return fdIs(0) && pollsStdin(dir, nr, args)
		}
		return false
	}
	// /proc/PID/syscall needs ptrace access; the wait channel does not.
	w, err := os.ReadFile(dir + "/wchan")
	if err != nil {
		return false
	}
	// Without the syscall's arguments a wait in poll or select cannot
	// be told from a server's: only a read counts.
	switch string(w) {
	case "pipe_read", "pipe_wait", "pipe_wait_readable", "n_tty_read", "wait_woken":
		return fdIs(0)
	}
	return false
}

// pollsStdin reads the poll set (poll, ppoll: an array of struct pollfd
// at args[0], args[1] entries) or the read set (select, pselect6: nfds in
// args[0], the fd_set at args[1]) of a process asleep in that call from
// /proc/PID/mem, and reports whether fd 0 is in it for reading.
func pollsStdin(dir string, nr int64, args [2]uint64) bool {
	mem, err := os.Open(dir + "/mem")
	if err != nil {
		return false
	}
	defer mem.Close()
	if isSelectSyscall(nr) {
		if args[0] < 1 || args[1] == 0 {
			return false
		}
		var b [1]byte
		if _, err := mem.ReadAt(b[:], int64(args[1])); err != nil {
			return false
		}
		return b[0]&1 != 0
	}
	n := min(args[1], 4096)
	if n == 0 || args[0] == 0 {
		return false
	}
	buf := make([]byte, 8*n) // struct pollfd: int fd; short events, revents
	if _, err := mem.ReadAt(buf, int64(args[0])); err != nil {
		return false
	}
	for i := uint64(0); i < n; i++ {
		e := buf[8*i:]
		fd := int32(binary.NativeEndian.Uint32(e))
		events := binary.NativeEndian.Uint16(e[4:])
		if fd == 0 && events&(unix.POLLIN|unix.POLLPRI|0x40 /* POLLRDNORM */) != 0 {
			return true
		}
	}
	return false
}

func isReadSyscall(nr int64) bool {
	return nr == unix.SYS_READ || nr == unix.SYS_READV || nr == unix.SYS_PREAD64
}

func isPollSyscall(nr int64) bool {
	return nr == unix.SYS_PSELECT6 || nr == unix.SYS_PPOLL || isLegacyPollSyscall(nr)
}

// isSelectSyscall: select and pselect6 (nfds, readfds, …); the others of
// isPollSyscall are poll and ppoll (fds, nfds, …).
func isSelectSyscall(nr int64) bool {
	return nr == unix.SYS_PSELECT6 || isLegacySelectSyscall(nr)
}
