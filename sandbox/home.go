package sandbox

import (
	"path/filepath"
	"sort"
	"strings"
)

// Layer names of the file-system allowlists (applied inside the mount
// step, after the mount namespace).
const (
	// LayerHome: HOME and the other secret-bearing roots are empty
	// tmpfs mounts with only the allowlisted entries bound back.
	LayerHome = "home-allowlist"
	// LayerGit: .git is read-only except what git writes for commits,
	// fetches, merges and rebases; gitfiles and commondir cannot be
	// created; workspace git config writes go through a broker.
	LayerGit = "git"
	// LayerCgroup: a cgroup v2 per run bounds memory (shmem and memfd
	// included), tasks and CPU, and kills the whole tree; without v2, a
	// cgroup v1 memory cgroup bounds the tree's memory only.
	LayerCgroup = "cgroup"
)

// DefaultHomeAllow is what the sandbox brings back into the otherwise empty
// HOME, read-only ("~/" relative; shell globs in any element). Git
// configuration files are generated copies filtered by an allowlist of
// keys. Directories on PATH that lie in HOME are added too.
//
// A toolchain manager's tree is never brought back whole: a prefix holds
// the toolchain's own configuration beside its programs (an nvm node's
// etc/npmrc and .npmrc, a pyenv Python's pip.conf, a Maven's
// conf/settings.xml with server passwords), so only the parts programs
// run from come back: bin, lib, include, share, libexec and the
// manager's own scripts and version file. Caches, stores and the Go, Rust
// and Deno installations hold no configuration of their own.
var DefaultHomeAllow = []string{
	// git and ssh: identity and host configuration, never keys or tokens.
	".gitconfig", ".config/git/config", ".config/git/ignore", ".config/git/attributes",
	".gitignore_global", ".ssh/*.pub", ".ssh/config", ".ssh/known_hosts", ".ssh/known_hosts2",
	// Download caches and content stores.
	"go/pkg/mod", ".cache/pip", ".npm/_cacache", ".cache/yarn", ".cargo/registry", ".cargo/git",
	".m2/repository", ".gradle/caches", ".gradle/wrapper", ".local/share/pnpm/store",
	// Toolchains: where programs run from.
	"sdk", ".cargo/bin", ".rustup", ".local/bin", ".local/lib", ".deno", ".bun/bin",
	".nvm/nvm.sh", ".nvm/versions/*/*/bin", ".nvm/versions/*/*/lib", ".nvm/versions/*/*/include", ".nvm/versions/*/*/share",
	".pyenv/bin", ".pyenv/libexec", ".pyenv/shims", ".pyenv/plugins", ".pyenv/version",
	".pyenv/versions/*/bin", ".pyenv/versions/*/lib", ".pyenv/versions/*/include", ".pyenv/versions/*/share",
	".rbenv/bin", ".rbenv/libexec", ".rbenv/shims", ".rbenv/version",
	".rbenv/versions/*/bin", ".rbenv/versions/*/lib", ".rbenv/versions/*/include", ".rbenv/versions/*/share",
	".sdkman/candidates/*/*/bin", ".sdkman/candidates/*/*/lib", ".sdkman/candidates/*/*/boot",
	".sdkman/candidates/*/*/include", ".sdkman/candidates/*/*/jmods", ".sdkman/candidates/*/*/release",
	// A JDK reads its security and logging settings from conf/; Maven's
	// conf/ holds settings.xml and is not brought back.
	".sdkman/candidates/java/*/conf",
}

// DefaultSecretRoots are directories hidden like HOME (an empty tmpfs with
// only the workspace and writable roots under them bound back): other
// users' homes, root's home, private TLS keys.
var DefaultSecretRoots = []string{"/home", "/root", "/etc/ssl/private", "/var/lib/docker", "/var/lib/containers"}

// gitconfigFiles are the allowlist entries that are filtered copies, not binds.
var gitconfigFiles = map[string]bool{".gitconfig": true, ".config/git/config": true}

// homeEntries expands the allowlist against home: absolute paths of what
// exists (globs in the last element), plus PATH directories inside home.
//
// list returns the names in a directory (nil when it cannot be read); the
// caller keeps its answers for the call, so that the patterns sharing a
// directory (.pyenv/versions/*/bin, …/lib, …/include) read it once.
func homeEntries(home string, allow []string, path string, exists func(string) bool, list func(string) []string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		p = filepath.Clean(p)
		if p == home || !under(p, home) || seen[p] || gitconfigFiles[strings.TrimPrefix(p, home+"/")] {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	for _, a := range allow {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "~"), "/")
		if a == "" || strings.Contains(a, "..") {
			continue
		}
		p := filepath.Join(home, a)
		if strings.ContainsAny(a, "*?[") {
			for _, x := range globListed(home, a, list) {
				add(x)
			}
			continue
		}
		if exists(p) {
			add(p)
		}
	}
	for _, d := range filepath.SplitList(path) {
		if filepath.IsAbs(d) && under(filepath.Clean(d), home) && exists(d) {
			add(d)
		}
	}
	// An entry inside another comes along with it: one mount fewer.
	kept := out[:0]
	for _, p := range out {
		inner := false
		for _, q := range out {
			if q != p && under(p, q) {
				inner = true
			}
		}
		if !inner {
			kept = append(kept, p)
		}
	}
	return kept
}

// wholeDirs replaces, bottom up, the entries of kept that are all of a
// directory's entries with the directory itself: one bind instead of
// several (a pyenv version's bin, include, lib and share are the whole
// version, and nine versions the whole versions directory), exposing the
// same names as the entries did when they were listed. A directory is
// taken whole only if list reads it, it is not empty, and each of its
// entries is in kept and is not a symbolic link (a link inside a bind
// would resolve where the entry's own bind did not); never home itself.
// list returns a directory's entries (false when it cannot be read).
func wholeDirs(home string, kept []string, list func(string) ([]dirName, bool)) []string {
	set := make(map[string]bool, len(kept))
	for _, p := range kept {
		set[p] = true
	}
	tried := map[string]bool{}
	for changed := true; changed; {
		changed = false
		parents := map[string]bool{}
		for p := range set {
			if d := filepath.Dir(p); d != home && under(d, home) && !tried[d] {
				parents[d] = true
			}
		}
		for d := range parents {
			tried[d] = true
			ents, ok := list(d)
			if !ok || len(ents) == 0 {
				continue
			}
			all := true
			for _, e := range ents {
				if e.link || !set[filepath.Join(d, e.name)] {
					all = false
					break
				}
			}
			if !all {
				continue
			}
			for _, e := range ents {
				delete(set, filepath.Join(d, e.name))
			}
			set[d] = true
			changed = true
		}
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// dirName is an entry of a directory listing.
type dirName struct {
	name string
	link bool // a symbolic link
}

// globListed expands the shell pattern rel (slash-separated, relative to
// dir) as filepath.Glob(filepath.Join(dir, rel)) does, from the listings
// list gives: an element matches the names of its parent's listing.
func globListed(dir, rel string, list func(string) []string) []string {
	dirs := []string{dir}
	for _, elem := range strings.Split(rel, "/") {
		if elem == "" || elem == "." {
			continue
		}
		var next []string
		for _, d := range dirs {
			for _, n := range list(d) {
				if ok, err := filepath.Match(elem, n); err != nil {
					return nil // a malformed pattern matches nothing, as in Glob
				} else if ok {
					next = append(next, filepath.Join(d, n))
				}
			}
		}
		if dirs = next; len(dirs) == 0 {
			return nil
		}
	}
	return dirs
}
