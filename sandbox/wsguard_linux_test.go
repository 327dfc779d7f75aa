//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	g := prepareWSGuard(ws, "git")
	gitfile := []byte("gitdir: /tmp/elsewhere\n")
	for _, p := range []string{"src/pkg/.git", "node_modules/left-pad/.git", "target/debug/.git"} {
		if err := os.WriteFile(filepath.Join(ws, p), gitfile, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	warns := g.finish()
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
