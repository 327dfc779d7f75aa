//go:build linux && (amd64 || arm64)

package seccompbpf

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// commonDeny lists the system calls denied on every architecture.
// EPERM is what a program sees when it lacks a privilege, so tools print a
// sensible message; io_uring gets ENOSYS so libraries fall back silently.
func commonDeny() []denyEntry {
	e := syscall.EPERM
	return []denyEntry{
		{"ptrace", unix.SYS_PTRACE, e},
		{"process_vm_readv", unix.SYS_PROCESS_VM_READV, e},
		{"process_vm_writev", unix.SYS_PROCESS_VM_WRITEV, e},
		{"process_madvise", unix.SYS_PROCESS_MADVISE, e},
		{"pidfd_getfd", unix.SYS_PIDFD_GETFD, e},
		{"kcmp", unix.SYS_KCMP, e},
		{"mount", unix.SYS_MOUNT, e},
		{"umount2", unix.SYS_UMOUNT2, e},
		{"pivot_root", unix.SYS_PIVOT_ROOT, e},
		{"chroot", unix.SYS_CHROOT, e},
		{"move_mount", unix.SYS_MOVE_MOUNT, e},
		{"open_tree", unix.SYS_OPEN_TREE, e},
		{"fsopen", unix.SYS_FSOPEN, e},
		{"fsconfig", unix.SYS_FSCONFIG, e},
		{"fsmount", unix.SYS_FSMOUNT, e},
		{"fspick", unix.SYS_FSPICK, e},
		{"mount_setattr", unix.SYS_MOUNT_SETATTR, e},
		{"setns", unix.SYS_SETNS, e},
		{"kexec_load", unix.SYS_KEXEC_LOAD, e},
		{"kexec_file_load", unix.SYS_KEXEC_FILE_LOAD, e},
		{"bpf", unix.SYS_BPF, e},
		{"perf_event_open", unix.SYS_PERF_EVENT_OPEN, e},
		{"userfaultfd", unix.SYS_USERFAULTFD, e},
		{"keyctl", unix.SYS_KEYCTL, e},
		{"add_key", unix.SYS_ADD_KEY, e},
		{"request_key", unix.SYS_REQUEST_KEY, e},
		{"init_module", unix.SYS_INIT_MODULE, e},
		{"finit_module", unix.SYS_FINIT_MODULE, e},
		{"delete_module", unix.SYS_DELETE_MODULE, e},
		{"swapon", unix.SYS_SWAPON, e},
		{"swapoff", unix.SYS_SWAPOFF, e},
		{"reboot", unix.SYS_REBOOT, e},
		{"syslog", unix.SYS_SYSLOG, e},
		{"acct", unix.SYS_ACCT, e},
		{"settimeofday", unix.SYS_SETTIMEOFDAY, e},
		{"clock_settime", unix.SYS_CLOCK_SETTIME, e},
		{"clock_adjtime", unix.SYS_CLOCK_ADJTIME, e},
		{"quotactl", unix.SYS_QUOTACTL, e},
		{"quotactl_fd", unix.SYS_QUOTACTL_FD, e},
		{"lookup_dcookie", unix.SYS_LOOKUP_DCOOKIE, e},
		{"open_by_handle_at", unix.SYS_OPEN_BY_HANDLE_AT, e},
		{"fanotify_init", unix.SYS_FANOTIFY_INIT, e},
		{"vhangup", unix.SYS_VHANGUP, e},
		{"nfsservctl", unix.SYS_NFSSERVCTL, e},
		{"io_uring_setup", unix.SYS_IO_URING_SETUP, syscall.ENOSYS},
		{"io_uring_enter", unix.SYS_IO_URING_ENTER, syscall.ENOSYS},
		{"io_uring_register", unix.SYS_IO_URING_REGISTER, syscall.ENOSYS},
	}
}

func baseTable(arch uint32) sysTable {
	return sysTable{
		arch:        arch,
		clone:       unix.SYS_CLONE,
		clone3:      unix.SYS_CLONE3,
		unshare:     unix.SYS_UNSHARE,
		ioctl:       unix.SYS_IOCTL,
		personality: unix.SYS_PERSONALITY,
		socket:      unix.SYS_SOCKET,
		socketpair:  unix.SYS_SOCKETPAIR,
		connect:     unix.SYS_CONNECT,
		deny:        commonDeny(),
	}
}
