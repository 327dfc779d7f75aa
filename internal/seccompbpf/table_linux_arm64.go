package seccompbpf

import "golang.org/x/sys/unix"

func table() sysTable { return baseTable(unix.AUDIT_ARCH_AARCH64) }
