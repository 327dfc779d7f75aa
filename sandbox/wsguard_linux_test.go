//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWSGuardSkipsDependencyTrees: the post-run search removes a gitfile
// the run wrote in the project's own directories, and does not walk
// installed dependencies or tagged caches (which is what keeps a call in
// a project with a node_modules tree cheap).
func TestWSGuardSkipsDependencyTrees(t *testing.T) {
	ws := t.TempDir()
	for _, d := range []string{"src/pkg", "node_modules/left-pad", "target/debug"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(ws, "target", "CACHEDIR.TAG"), []byte("Signature: 8a477f597d28d172789f06886806bc55\n"), 0o644)
	time.Sleep(20 * time.Millisecond) // the trees are older than the run
	g := prepareWSGuard(ws, false)
	gitfile := []byte("gitdir: /tmp/elsewhere\n")
	for _, p := range []string{"src/pkg/.git", "node_modules/left-pad/.git", "target/debug/.git"} {
		if err := os.WriteFile(filepath.Join(ws, p), gitfile, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	warns := g.finishAll()
	if _, err := os.Lstat(filepath.Join(ws, "src/pkg/.git")); !os.IsNotExist(err) {
		t.Errorf("the gitfile in src/pkg survived the search (%v); warnings %q", err, warns)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "src/pkg/.git") {
		t.Errorf("warnings = %q, want one about src/pkg/.git", warns)
	}
	for _, p := range []string{"node_modules/left-pad/.git", "target/debug/.git"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err != nil {
			t.Errorf("%s: the search entered a skipped tree (%v)", p, err)
		}
	}
}

// TestWSGuardRemembersDirectories: in a long-lived process the post-run
// search reads only the directories whose entries changed since the last
// search, and still finds a gitfile created deep down, a remembered
// gitfile whose content was rewritten in place, and one created in a
// directory that changed just before the last search (where directory
// times come from a coarse clock, only wsRacyWindow keeps that one from
// being missed; kernels with fine-grained times find it either way).
func TestWSGuardRemembersDirectories(t *testing.T) {
	old := longLived.Load()
	longLived.Store(true)
	t.Cleanup(func() { longLived.Store(old) })
	ws := t.TempDir()
	for _, d := range []string{"a/b/c", "a/d", "e"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitfile := []byte("gitdir: ../../elsewhere\n")
	oldGitfile := filepath.Join(ws, "a/d/.git")
	if err := os.WriteFile(oldGitfile, gitfile, 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wsRacyWindow + 50*time.Millisecond) // the tree is settled
	search := func() (warns []string, read int64) {
		time.Sleep(20 * time.Millisecond) // a run starts after the last search
		g := prepareWSGuard(ws, false)
		before := wsDirsRead.Load()
		warns = g.finishAll()
		return warns, wsDirsRead.Load() - before
	}
	if warns, read := search(); len(warns) != 0 || read != 6 {
		t.Fatalf("first search: %q, %d directories read, want none and 6", warns, read)
	}
	if warns, read := search(); len(warns) != 0 || read != 0 {
		t.Fatalf("second search: %q, %d directories read, want none and 0", warns, read)
	}

	// A gitfile written deep down: only its directory is read again.
	g := prepareWSGuard(ws, false)
	deep := filepath.Join(ws, "a/b/c/.git")
	if err := os.WriteFile(deep, gitfile, 0o644); err != nil {
		t.Fatal(err)
	}
	before := wsDirsRead.Load()
	warns := g.finishAll()
	if _, err := os.Lstat(deep); !os.IsNotExist(err) || len(warns) != 1 {
		t.Fatalf("the new gitfile in a/b/c survived (%v); warnings %q", err, warns)
	}
	if read := wsDirsRead.Load() - before; read != 1 {
		t.Errorf("%d directories read, want only a/b/c", read)
	}

	// A remembered gitfile rewritten in place (its directory's times do
	// not move) is still checked.
	g = prepareWSGuard(ws, false)
	if err := os.WriteFile(oldGitfile, []byte("gitdir: /somewhere/else\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	warns = g.finishAll()
	if _, err := os.Lstat(oldGitfile); !os.IsNotExist(err) || len(warns) != 1 {
		t.Fatalf("the rewritten gitfile in a/d survived (%v); warnings %q", err, warns)
	}

	// A directory changed just before a search is not remembered: a
	// gitfile created right after that search, within the same clock
	// tick, is found by the next one.
	g = prepareWSGuard(ws, false)
	os.Mkdir(filepath.Join(ws, "e/f"), 0o755)
	g.finishAll()
	g = prepareWSGuard(ws, false)
	quick := filepath.Join(ws, "e/f/.git")
	os.WriteFile(quick, gitfile, 0o644)
	warns = g.finishAll()
	if _, err := os.Lstat(quick); !os.IsNotExist(err) || len(warns) != 1 {
		t.Fatalf("the gitfile in e/f survived (%v); warnings %q", err, warns)
	}
}

// finishAll runs the guard's two finishers, as Handle.Close would.
func (g *wsGuard) finishAll() []string {
	fc := &finishCtx{deadline: time.Now().Add(time.Minute)}
	defer g.close()
	return append(g.finishProtected(fc), g.finishSearch(fc)...)
}
