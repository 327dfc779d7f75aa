//go:build unix

package runner

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal and sets cmd up to run on it in a new
// session with the terminal as its controlling tty. The session leader is
// also the leader of a new process group, so the group kill still applies.
// It returns the master side (pollable, so closing it unblocks a reader and
// writes may have deadlines) and the slave side, which the caller closes
// after starting cmd.
func openPTY(cmd *exec.Cmd, rows, cols uint16) (master, slave *os.File, err error) {
	m, s, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	// pty.Open used m.Fd(), which leaves the descriptor in blocking mode
	// and outside the poller; make a pollable copy.
	fd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	m.Close()
	if err == nil {
		err = unix.SetNonblock(fd, true)
		if err != nil {
			unix.Close(fd)
		}
	}
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	master = os.NewFile(uintptr(fd), "/dev/ptmx")
	if rows == 0 {
		rows = 24
	}
	if cols == 0 {
		cols = 120
	}
	if err := pty.Setsize(s, &pty.Winsize{Rows: rows, Cols: cols}); err != nil {
		master.Close()
		s.Close()
		return nil, nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s, s, s
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// setsid(2) also makes a new process group; setpgid would then fail.
	cmd.SysProcAttr.Setpgid = false
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setctty = true
	cmd.SysProcAttr.Ctty = 0 // the child's stdin
	return master, s, nil
}
