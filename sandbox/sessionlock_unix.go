//go:build unix

package sandbox

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

const sessionLockName = ".lock"

// lockSession creates dir's lock file and holds an exclusive flock on it
// until the returned file is closed (or the process ends).
func lockSession(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, sessionLockName), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// sessionLocked reports whether a live process holds dir's lock. When it
// does not, lock is dir's lock file, now locked by the caller (nil when
// dir has none).
func sessionLocked(dir string) (lock *os.File, held bool) {
	f, err := os.OpenFile(filepath.Join(dir, sessionLockName), os.O_RDWR|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, false
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, true
	}
	return f, false
}
