//go:build linux

package seccompbpf

import (
	"fmt"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

const retUserNotif uint32 = 0x7fc00000

// BuildConnectNotify assembles a filter that hands every connect(2) of
// the native ABI to a supervisor (SECCOMP_RET_USER_NOTIF) and allows
// everything else (the deny-list filter stacked with it does the rest).
func BuildConnectNotify() (*Program, error) {
	t := table()
	if t.arch == 0 {
		return nil, ErrUnsupportedArch
	}
	insns := append(prologue(t.arch),
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: t.connect, SkipTrue: 1},
		bpf.RetConstant{Val: retUserNotif},
		bpf.RetConstant{Val: retAllow},
	)
	raw, err := bpf.Assemble(insns)
	if err != nil {
		return nil, fmt.Errorf("seccompbpf: assemble: %w", err)
	}
	return &Program{Insns: raw, Rules: []Rule{{Name: "connect", Note: "supervised (user notification)"}}}, nil
}

// InstallListener loads p on the calling thread only (no TSYNC: the
// thread that execs carries it) and returns the notification listener
// (close-on-exec). No-new-privs must already be set.
func InstallListener(p *Program) (int, error) {
	filter := make([]unix.SockFilter, len(p.Insns))
	for i, in := range p.Insns {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	// WAIT_KILLABLE_RECV (Linux 5.19): once the supervisor has received a
	// notification, only a fatal signal interrupts the waiting task. The
	// supervisor acts for the task (it connects the task's own socket);
	// without the flag a handled signal arriving between that act and the
	// reply makes the task see EINTR (or restart the call) for a connect
	// that was made.
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_NEW_LISTENER|unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, uintptr(unsafe.Pointer(&prog)))
	if errno == unix.EINVAL {
		return -1, fmt.Errorf("seccompbpf: seccomp(NEW_LISTENER|WAIT_KILLABLE_RECV): %w (Linux 5.19 or later is needed)", errno)
	}
	if errno != 0 {
		return -1, fmt.Errorf("seccompbpf: seccomp(NEW_LISTENER): %w", errno)
	}
	fd := int(r)
	unix.CloseOnExec(fd)
	return fd, nil
}

// BuildRefuseUnixSocket assembles the fallback used when the connect
// supervisor cannot be installed: socket(AF_UNIX, ...) fails with EACCES
// (seccomp cannot see the family of the descriptor connect(2) gets, so
// the only sound refusal is at creation; socketpair keeps working).
func BuildRefuseUnixSocket() (*Program, error) {
	t := table()
	if t.arch == 0 {
		return nil, ErrUnsupportedArch
	}
	insns := append(prologue(t.arch),
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: t.socket, SkipTrue: 3},
		bpf.LoadAbsolute{Off: argLow(0), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: afUnix, SkipTrue: 1},
		bpf.RetConstant{Val: retErrno | uint32(13)}, // EACCES
		bpf.RetConstant{Val: retAllow},
	)
	raw, err := bpf.Assemble(insns)
	if err != nil {
		return nil, err
	}
	return &Program{Insns: raw, Rules: []Rule{{Name: "socket", Note: "AF_UNIX refused (no connect supervisor)"}}}, nil
}
