package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// SessionTmp is the private temporary directory of one session: inside
// the sandbox its tmp/ is /tmp (and $TMPDIR) and its shm/ is /dev/shm, so
// that files a command leaves in /tmp are there for the next command of
// the same session and for no one else. Set Spec.SessionTmp to Dir() and
// Close it when the session ends. Without one, each run gets an empty
// /tmp and /dev/shm that vanish with it.
//
// A session directory holds a lock (its file .lock, flocked for as long
// as the session is open) that dies with the process holding it: a
// directory whose lock can be taken belongs to a process that is gone,
// and RemoveStaleSessions removes it.
type SessionTmp struct {
	dir  string
	lock *os.File
}

func sessionsParent() string {
	return filepath.Join(os.TempDir(), "shellguard-sessions-"+strconv.Itoa(os.Getuid()))
}

// NewSessionTmp creates a session directory (mode 0700, owned by the
// caller) under a per-uid parent in os.TempDir() that must be a real
// directory of ours with mode 0700. The first call of a process removes
// the directories of dead processes first (RemoveStaleSessions).
func NewSessionTmp() (*SessionTmp, error) {
	parent := sessionsParent()
	if err := os.Mkdir(parent, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("sandbox: session tmp: %w", err)
	}
	if err := ownDir(parent); err != nil {
		return nil, err
	}
	sweepOnce.Do(func() { RemoveStaleSessions() })
	dir, err := os.MkdirTemp(parent, "s-") // mkdir(2): never follows a planted link
	if err != nil {
		return nil, fmt.Errorf("sandbox: session tmp: %w", err)
	}
	lock, err := lockSession(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox: session tmp: %w", err)
	}
	for _, sub := range []string{"tmp", "shm"} {
		p := filepath.Join(dir, sub)
		if err := os.Mkdir(p, 0o700); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("sandbox: session tmp: %w", err)
		}
		os.Chmod(p, 0o1777) // only the uid can reach it through the 0700 parents
	}
	return &SessionTmp{dir: dir, lock: lock}, nil
}

var sweepOnce sync.Once

// staleAge is how long a session directory without a lock file (one
// being made, or made before locks) is left alone.
const staleAge = time.Minute

// RemoveStaleSessions removes the session directories of processes that
// have ended without closing them (killed): those whose lock no process
// holds, and those older than a minute that have no lock file. It
// returns how many it removed. A server calls it at start-up.
func RemoveStaleSessions() int {
	parent := sessionsParent()
	if ownDir(parent) != nil {
		return 0
	}
	dirs, _ := filepath.Glob(filepath.Join(parent, "s-*"))
	n := 0
	for _, dir := range dirs {
		fi, err := os.Lstat(dir)
		if err != nil || !fi.IsDir() {
			continue
		}
		lock, held := sessionLocked(dir)
		if held || (lock == nil && time.Since(fi.ModTime()) < staleAge) {
			continue
		}
		if (&SessionTmp{dir: dir}).Close() == nil {
			n++
		}
		if lock != nil {
			lock.Close()
		}
	}
	return n
}

// ownDir refuses p unless it is a directory (not a symlink) owned by us
// that no one else can enter.
func ownDir(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return fmt.Errorf("sandbox: session tmp: %w", err)
	}
	uid, ok := ownerUID(fi)
	if !fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0 || !ok || uid != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("sandbox: session tmp: %s is not a private directory of uid %d (mode %v); refusing it", p, os.Getuid(), fi.Mode())
	}
	return nil
}

// Dir is the session directory (for Spec.SessionTmp); "" for nil.
func (s *SessionTmp) Dir() string {
	if s == nil {
		return ""
	}
	return s.dir
}

// Close removes the session directory and everything in it.
func (s *SessionTmp) Close() error {
	if s == nil || s.dir == "" {
		return nil
	}
	// Make every directory writable again (a command may chmod 000).
	filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Type()&fs.ModeSymlink == 0 {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	err := os.RemoveAll(s.dir)
	s.dir = ""
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
	return err
}
