package seccompbpf

import (
	"syscall"

	"golang.org/x/sys/unix"
)

func table() sysTable {
	t := baseTable(unix.AUDIT_ARCH_X86_64)
	t.x32 = true
	e := syscall.EPERM
	t.deny = append(t.deny,
		denyEntry{"iopl", unix.SYS_IOPL, e},
		denyEntry{"ioperm", unix.SYS_IOPERM, e},
		denyEntry{"uselib", unix.SYS_USELIB, e},
		denyEntry{"_sysctl", unix.SYS__SYSCTL, e},
		denyEntry{"create_module", unix.SYS_CREATE_MODULE, e},
		denyEntry{"get_kernel_syms", unix.SYS_GET_KERNEL_SYMS, e},
		denyEntry{"query_module", unix.SYS_QUERY_MODULE, e},
	)
	return t
}
