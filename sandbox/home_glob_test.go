package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestGlobListedAgreesWithGlob: the allowlist's patterns, expanded from
// directory listings read once each, match what filepath.Glob finds, on
// a scratch home with toolchain trees, hidden names, a symlinked and a
// dangling entry, a file where a directory is expected, for every default
// pattern and some malformed ones; and each directory is listed once.
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
	patterns := append(slices.Clone(DefaultHomeAllow), "*", ".*/*", "[", ".pyenv/versions/[", ".pyenv/versions/3.1?.*/b*n", `.ssh/id_ed25519\.pub`, ".ssh/gone.pub", ".pyenv/versions/3.11.7/bin")
	for _, pat := range patterns {
		want, _ := filepath.Glob(filepath.Join(home, pat))
		got := globListed(home, pat, list)
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: listed %q, Glob %q", pat, got, want)
		}
	}
	if got := globListed(home, ".pyenv/versions/*/bin", list); len(got) != 3 {
		t.Errorf("the toolchain pattern found %q", got) // 3.12.1, 3.12 (the link), .hidden
	}
}

// TestWholeDirs: a directory replaces its entries only when they are all
// of its entries, none a symbolic link, bottom up, and never HOME itself.
func TestWholeDirs(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{
		".pyenv/versions/3.12.1/bin", ".pyenv/versions/3.12.1/lib", ".pyenv/versions/3.12.1/include", ".pyenv/versions/3.12.1/share",
		".pyenv/versions/2.7.18/bin", ".pyenv/versions/2.7.18/lib",
		".pyenv/versions/3.9.0/lib", ".pyenv/versions/3.9.0/share",
		".nvm/versions/node/v22/bin", ".nvm/versions/node/v22/lib", ".nvm/alias",
		"only/a/b", "empty/d",
	} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A credential file beside a version's parts keeps it in parts.
	os.WriteFile(filepath.Join(home, ".pyenv/versions/2.7.18/pip.conf"), []byte("[global]\n"), 0o600)
	os.WriteFile(filepath.Join(home, ".nvm/nvm.sh"), nil, 0o644)
	// A link among the parts keeps them in parts.
	os.Symlink("/nowhere", filepath.Join(home, ".pyenv/versions/3.9.0/bin"))
	j := func(ps ...string) []string {
		var out []string
		for _, p := range ps {
			out = append(out, filepath.Join(home, p))
		}
		return out
	}
	kept := j(".pyenv/versions/3.12.1/bin", ".pyenv/versions/3.12.1/lib", ".pyenv/versions/3.12.1/include", ".pyenv/versions/3.12.1/share",
		".pyenv/versions/2.7.18/bin", ".pyenv/versions/2.7.18/lib",
		".pyenv/versions/3.9.0/bin", ".pyenv/versions/3.9.0/lib", ".pyenv/versions/3.9.0/share",
		".nvm/versions/node/v22/bin", ".nvm/versions/node/v22/lib", ".nvm/nvm.sh",
		"only/a/b", "empty/d")
	reads := map[string]int{}
	list := func(dir string) ([]dirName, bool) {
		reads[dir]++
		ents, err := os.ReadDir(dir)
		var out []dirName
		for _, e := range ents {
			out = append(out, dirName{name: e.Name(), link: e.Type()&fs.ModeSymlink != 0})
		}
		return out, err == nil
	}
	got := wholeDirs(home, kept, list)
	want := j(".nvm/nvm.sh", ".nvm/versions",
		".pyenv/versions/2.7.18/bin", ".pyenv/versions/2.7.18/lib",
		".pyenv/versions/3.12.1",
		".pyenv/versions/3.9.0/bin", ".pyenv/versions/3.9.0/lib", ".pyenv/versions/3.9.0/share",
		"empty", "only")
	if !slices.Equal(got, want) {
		t.Errorf("wholeDirs:\n got %q\nwant %q", got, want)
	}
	for d, n := range reads {
		if n != 1 {
			t.Errorf("%s read %d times", d, n)
		}
	}
	// HOME whose every entry is kept stays in entries.
	small := t.TempDir()
	os.Mkdir(filepath.Join(small, "bin"), 0o755)
	if got := wholeDirs(small, []string{filepath.Join(small, "bin")}, list); !slices.Equal(got, []string{filepath.Join(small, "bin")}) {
		t.Errorf("HOME itself was taken whole: %q", got)
	}
}
