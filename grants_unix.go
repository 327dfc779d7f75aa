//go:build unix

package shellguard

import "syscall"

const nofollow = syscall.O_NOFOLLOW
