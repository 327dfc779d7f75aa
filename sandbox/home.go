package sandbox

import (
	"path/filepath"
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
func homeEntries(home string, allow []string, path string, exists, lexists func(string) bool, list func(string) []string) []string {
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
			for _, x := range globListed(home, a, list, lexists) {
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

// globListed expands the shell pattern rel (slash-separated, relative to
// dir) as filepath.Glob(filepath.Join(dir, rel)) does, from the listings
// list gives: an element with a pattern matches the names of its parent's
// listing; a literal one is looked up with lexists (an lstat), which
// finds the same name without reading the directory.
func globListed(dir, rel string, list func(string) []string, lexists func(string) bool) []string {
	dirs := []string{dir}
	for _, elem := range strings.Split(rel, "/") {
		if elem == "" || elem == "." {
			continue
		}
		var next []string
		literal := !strings.ContainsAny(elem, `*?[\`)
		for _, d := range dirs {
			if literal {
				if p := filepath.Join(d, elem); lexists(p) {
					next = append(next, p)
				}
				continue
			}
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
