//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A session directory whose lock no process holds (its process was
// killed) is removed; an open session's, or a fresh one without a lock,
// is not.
func TestRemoveStaleSessions(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	live, err := NewSessionTmp()
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	dead, err := NewSessionTmp()
	if err != nil {
		t.Fatal(err)
	}
	// As if its process had died: the lock goes, the directory stays.
	dead.lock.Close()
	deadDir := dead.dir
	os.WriteFile(filepath.Join(deadDir, "tmp", "left"), []byte("x"), 0o600)
	os.Chmod(filepath.Join(deadDir, "tmp"), 0) // a command may chmod 000
	old := filepath.Join(sessionsParent(), "s-old")
	young := filepath.Join(sessionsParent(), "s-young")
	for _, d := range []string{old, young} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * staleAge)
	os.Chtimes(old, past, past)
	if n := RemoveStaleSessions(); n != 2 {
		t.Errorf("removed %d, want 2", n)
	}
	for d, want := range map[string]bool{live.dir: true, deadDir: false, old: false, young: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists=%v, want %v", d, err == nil, want)
		}
	}
}

// TestSessionSweepRace: a server starting (RemoveStaleSessions) while
// another makes a session never takes the new session for a dead one. The
// lock file used to appear before it was locked, and a sweep in that
// window took the lock and removed the directory being made (seen under
// load: "session tmp: mkdir …/tmp: no such file or directory").
func TestSessionSweepRace(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	stop := make(chan struct{})
	swept := make(chan struct{})
	go func() {
		defer close(swept)
		for {
			select {
			case <-stop:
				return
			default:
				RemoveStaleSessions()
			}
		}
	}()
	errs := make(chan error, 4)
	done := make(chan struct{})
	for w := 0; w < 4; w++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 300; i++ {
				s, err := NewSessionTmp()
				if err != nil {
					errs <- err
					return
				}
				if _, err := os.Stat(filepath.Join(s.Dir(), "tmp")); err != nil {
					errs <- err
					return
				}
				s.Close()
			}
		}()
	}
	for w := 0; w < 4; w++ {
		<-done
	}
	close(stop)
	<-swept
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
