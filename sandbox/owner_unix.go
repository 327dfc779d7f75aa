//go:build unix

package sandbox

import (
	"io/fs"
	"syscall"
)

// ownerUID returns the uid that owns the file fi describes.
func ownerUID(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
