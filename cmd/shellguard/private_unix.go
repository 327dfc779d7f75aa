//go:build unix

package main

import (
	"fmt"
	"io/fs"
)

// checkPrivate refuses a secret file that the group or others may read or
// write.
func checkPrivate(st fs.FileInfo) error {
	if m := st.Mode().Perm(); m&0o077 != 0 {
		return fmt.Errorf("can be read or written by others (mode %04o): run chmod 600 on it", m)
	}
	return nil
}
