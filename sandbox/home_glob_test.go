package sandbox

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestGlobListedAgreesWithGlob: the allowlist's patterns, expanded from
// directory listings read once each, match what filepath.Glob finds, on
// a scratch home with toolchain trees, hidden names, a symlinked and a
// dangling entry, a file where a directory is expected, for every default
// pattern and some malformed ones; each directory is listed at most once,
// and one is listed only for an element with a pattern.
func TestGlobListedAgreesWithGlob(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".pyenv/versions/3.12.1/bin", ".pyenv/versions/3.12.1/lib", ".pyenv/versions/2.7.18/include",
		".pyenv/versions/.hidden/bin", ".nvm/versions/node/v22.1.0/bin", ".nvm/versions/node/v22.1.0/share",
		".sdkman/candidates/java/21-tem/conf", ".sdkman/candidates/maven/3.9/lib", ".ssh"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".ssh/id_ed25519.pub", ".ssh/id_ed25519", ".pyenv/versions/3.11.7", ".sdkman/candidates/java/21-tem/release"} {
		if err := os.WriteFile(filepath.Join(home, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink(filepath.Join(home, ".pyenv/versions/3.12.1"), filepath.Join(home, ".pyenv/versions/3.12"))
	os.Symlink(filepath.Join(home, "nowhere"), filepath.Join(home, ".ssh/gone.pub"))
	reads := map[string]int{}
	listed := map[string][]string{}
	list := func(dir string) []string {
		if names, ok := listed[dir]; ok {
			return names
		}
		reads[dir]++
		var names []string
		if es, err := os.ReadDir(dir); err == nil {
			for _, e := range es {
				names = append(names, e.Name())
			}
		}
		listed[dir] = names
		return names
	}
	lexists := func(p string) bool { _, err := os.Lstat(p); return err == nil }
	patterns := append(slices.Clone(DefaultHomeAllow), "*", ".*/*", "[", ".pyenv/versions/[", ".pyenv/versions/3.1?.*/b*n", `.ssh/id_ed25519\.pub`, ".ssh/gone.pub", ".pyenv/versions/3.11.7/bin")
	for _, pat := range patterns {
		want, _ := filepath.Glob(filepath.Join(home, pat))
		got := globListed(home, pat, list, lexists)
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: listed %q, Glob %q", pat, got, want)
		}
	}
	// A literal element is looked up, not listed: for the toolchain
	// pattern only the versions directory is read, not HOME, .pyenv or
	// each version.
	clear(reads)
	clear(listed)
	if got := globListed(home, ".pyenv/versions/*/bin", list, lexists); len(got) != 3 {
		t.Errorf("the toolchain pattern found %q", got) // 3.12.1, 3.12 (the link), .hidden
	}
	if want := map[string]int{filepath.Join(home, ".pyenv/versions"): 1}; !maps.Equal(reads, want) {
		t.Errorf("the toolchain pattern read %v, want %v", reads, want)
	}
}
