//go:build linux

package seccompbpf

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Install sets no_new_privs and loads p on every thread of the calling
// process (SECCOMP_FILTER_FLAG_TSYNC), so whichever thread later calls
// execve carries it. The filter is inherited by all descendants and
// cannot be removed.
func Install(p *Program) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("seccompbpf: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	filter := make([]unix.SockFilter, len(p.Insns))
	for i, in := range p.Insns {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	if errno != 0 {
		return fmt.Errorf("seccompbpf: seccomp(SET_MODE_FILTER): %w", errno)
	}
	if r != 0 {
		return fmt.Errorf("seccompbpf: seccomp TSYNC failed on thread %d", r)
	}
	return nil
}

// Available reports whether the kernel supports seccomp filters
// (prctl(PR_GET_SECCOMP) does not fail with EINVAL).
func Available() bool {
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err == nil
}
