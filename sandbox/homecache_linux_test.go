//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// resetHomeCache forgets homeCache (and closes its watch).
func resetHomeCache() {
	homeCache.Lock()
	homeCache.w.close()
	homeCache.key, homeCache.w, homeCache.valid, homeCache.fs, homeCache.hits = "", nil, false, fsSpec{}, 0
	homeCache.Unlock()
}

func homeCacheHits() int {
	homeCache.Lock()
	defer homeCache.Unlock()
	return homeCache.hits
}

// TestHomeCacheFollowsChanges: in a long-lived process, HOME's answer
// after each change below (entries appearing and going under patterns
// and PATH, git config content, links whose targets move, a secret root
// appearing) is the one a fresh resolution finds, on the first call after
// the change and on the next ones; and with nothing changing, answers are
// served from the cache.
func TestHomeCacheFollowsChanges(t *testing.T) {
	oldLong := longLived.Load()
	longLived.Store(true)
	resetHomeCache()
	defer func() { longLived.Store(oldLong); resetHomeCache() }()

	home, outside, secret, trees := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	oldRoots := secretRoots
	secretRoots = []string{secret, filepath.Join(outside, "later-root")}
	defer func() { secretRoots = oldRoots }()
	allow := append(append([]string{}, DefaultHomeAllow...), "extra")
	path := filepath.Join(home, "bin") + ":/usr/bin:/bin"
	j := func(parts ...string) string { return filepath.Join(parts...) }
	mkdir := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string) {
		t.Helper()
		for i := range 3 {
			var got, want fsSpec
			resolveHomeOnce(&got, home, allow, path)
			resolveHome(&want, home, allow, path)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, call %d:\n got %+v\nwant %+v", step, i+1, got, want)
			}
			// A caller's appends do not reach the kept answer.
			got.SecretRoots = append(got.SecretRoots, "/appended")
			if len(got.HomeEntries) > 0 {
				got.HomeEntries[0] = "/overwritten"
			}
		}
	}
	check("empty HOME")
	steps := []struct {
		name string
		do   func()
	}{
		{"a git config appears", func() { write(j(home, ".gitconfig"), "[user]\n\tname = A\n") }},
		{"its content changes (same size)", func() { write(j(home, ".gitconfig"), "[user]\n\tname = B\n") }},
		{"a token enters it", func() { write(j(home, ".gitconfig"), "[user]\n\tname = B\n[github]\n\ttoken = x\n") }},
		{"a deep allowlisted directory", func() { mkdir(j(home, ".pyenv", "versions", "3.12.1", "bin")) }},
		{"another version under the pattern", func() { mkdir(j(home, ".pyenv", "versions", "3.13.0", "lib")) }},
		{"a version goes", func() { os.RemoveAll(j(home, ".pyenv", "versions", "3.12.1")) }},
		{"an entry allowlisted by the caller", func() { write(j(home, "extra"), "x") }},
		{"a PATH directory in HOME", func() { mkdir(j(home, "bin")) }},
		{"a link to a directory outside", func() {
			mkdir(j(outside, "tools"))
			mkdir(j(home, ".local"))
			if err := os.Symlink(j(outside, "tools"), j(home, ".local", "bin")); err != nil {
				t.Fatal(err)
			}
		}},
		{"the link's target moves away", func() { os.Rename(j(outside, "tools"), j(outside, "tools-moved")) }},
		{"and comes back", func() { os.Rename(j(outside, "tools-moved"), j(outside, "tools")) }},
		{"the git config becomes a link to a file outside", func() {
			write(j(outside, "gitconfig"), "[user]\n\tname = C\n")
			os.Remove(j(home, ".gitconfig"))
			if err := os.Symlink(j(outside, "gitconfig"), j(home, ".gitconfig")); err != nil {
				t.Fatal(err)
			}
		}},
		{"the file outside changes", func() { write(j(outside, "gitconfig"), "[user]\n\tname = D\n[credential]\n\thelper = x\n") }},
		{"a secret root appears", func() { mkdir(j(outside, "later-root")) }},
		{"an allowlisted entry is renamed away", func() { os.Rename(j(home, "extra"), j(home, "extra-old")) }},
		{"a linked directory with nothing allowlisted in it yet", func() {
			os.RemoveAll(j(home, ".pyenv"))
			mkdir(j(trees, "py", "pyenv", "versions"))
			mkdir(j(trees, "py-next", "pyenv", "versions", "3.11.0", "bin"))
			if err := os.Symlink(j(trees, "py", "pyenv"), j(home, ".pyenv")); err != nil {
				t.Fatal(err)
			}
		}},
		{"another tree is moved in above the link's target", func() {
			os.Rename(j(trees, "py"), j(trees, "py-old"))
			os.Rename(j(trees, "py-next"), j(trees, "py"))
		}},
	}
	for _, s := range steps {
		s.do()
		check(s.name)
	}

	// Nothing changes now: the answer comes from the cache (another
	// process may touch a directory above the scratch ones meanwhile,
	// so a few tries).
	before := homeCacheHits()
	for i := 0; i < 200 && homeCacheHits() == before; i++ {
		check("nothing changed")
		time.Sleep(time.Millisecond)
	}
	if homeCacheHits() == before {
		t.Fatal("no answer was served from the cache")
	}
}
