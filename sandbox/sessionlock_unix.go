//go:build unix

package sandbox

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

const sessionLockName = ".lock"

// lockSession creates dir's lock file and holds an exclusive flock on it
// until the returned file is closed (or the process ends). The file is
// locked under a name of its own and only then renamed to the lock's: a
// sweep of another process (RemoveStaleSessions) never finds the lock
// unlocked, which it would take for a dead session's (and remove the
// directory being made), nor takes it first.
func lockSession(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, ".locking-")
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, sessionLockName)); err != nil {
		f.Close()
		os.Remove(f.Name())
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
