//go:build linux && amd64

package runner

import "golang.org/x/sys/unix"

func isLegacyPollSyscall(nr int64) bool {
	return nr == unix.SYS_SELECT || nr == unix.SYS_POLL
}

func isLegacySelectSyscall(nr int64) bool { return nr == unix.SYS_SELECT }
