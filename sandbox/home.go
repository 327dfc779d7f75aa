package sandbox

import (
	"bufio"
	"path/filepath"
	"strings"

	"github.com/shellguard/shellguard/internal/lazyre"
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
	// included), tasks and CPU, and kills the whole tree.
	LayerCgroup = "cgroup"
)

// DefaultHomeAllow is what the sandbox brings back into the otherwise empty
// HOME, read-only ("~/" relative; shell globs in the last element). Git
// configuration files are generated copies with credentials removed.
// Directories on PATH that lie in HOME are added too.
var DefaultHomeAllow = []string{
	// git and ssh: identity and host configuration, never keys or tokens.
	".gitconfig", ".config/git/config", ".config/git/ignore", ".config/git/attributes",
	".gitignore_global", ".ssh/*.pub", ".ssh/config", ".ssh/known_hosts", ".ssh/known_hosts2",
	// Language toolchains and their download caches.
	"go/pkg/mod", "sdk", ".cache/pip", ".npm/_cacache", ".cache/yarn", ".cargo/registry",
	".cargo/git", ".cargo/bin", ".rustup", ".m2/repository", ".gradle/caches", ".gradle/wrapper",
	".local/bin", ".local/lib", ".nvm", ".pyenv", ".rbenv", ".sdkman/candidates", ".deno", ".bun/bin",
	".local/share/pnpm/store",
}

// DefaultSecretRoots are directories hidden like HOME (an empty tmpfs with
// only the workspace and writable roots under them bound back): other
// users' homes, root's home, private TLS keys.
var DefaultSecretRoots = []string{"/home", "/root", "/etc/ssl/private", "/var/lib/docker", "/var/lib/containers"}

// gitconfigFiles are the allowlist entries that are filtered copies, not binds.
var gitconfigFiles = map[string]bool{".gitconfig": true, ".config/git/config": true}

var (
	reSecretKey = lazyre.New(`(?i)(token|passw|secret|extraheader|oauth|apikey|api-key|api_key|bearer|cookie)`)
	// http(s) URLs with any userinfo (https://TOKEN@host), any URL with
	// user:password; ssh://git@host is kept.
	reUserinfo = lazyre.New(`(?i)https?://[^/@\s"]+@|://[^/@\s":]*:[^/@\s"]*@`)
)

// FilterGitConfig returns a git config file's text without what can carry
// a credential or pull in another file: [credential] sections, keys whose
// names look like tokens, passwords or extra headers (http.extraHeader,
// http.<url>.extraheader, github.token …), [url "…"] sections and remote
// URLs with userinfo (https://user:token@host), and include/includeIf
// sections (the included files are not in the sandbox). Everything else
// (user.*, core.*, aliases, url rewrites without userinfo) is kept, so git
// inside behaves like the user's git minus the secrets. The second result
// lists what was dropped, as section.key names.
func FilterGitConfig(text string) (string, []string) {
	var out strings.Builder
	var dropped []string
	section, sub := "", ""
	dropSection := false
	skipCont := false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if skipCont {
			skipCont = strings.HasSuffix(line, `\`)
			continue
		}
		trim := strings.TrimSpace(line)
		rest := trim
		if strings.HasPrefix(trim, "[") {
			end := strings.Index(trim, "]")
			if end < 0 {
				// Malformed header: drop it and the section that follows.
				dropSection = true
				dropped = append(dropped, "malformed section header")
				continue
			}
			hdr := trim[1:end]
			rest = strings.TrimSpace(trim[end+1:])
			section, sub = parseSectionHeader(hdr)
			ls := strings.ToLower(section)
			dropSection = ls == "credential" || ls == "include" || ls == "includeif" ||
				reUserinfo.MatchString(sub) || reSecretKey.MatchString(sub)
			if dropSection {
				dropped = append(dropped, ls+sectionSuffix(sub))
				continue
			}
			out.WriteString("[" + hdr + "]\n")
			if rest == "" {
				continue
			}
		}
		if dropSection {
			skipCont = strings.HasSuffix(line, `\`)
			continue
		}
		if rest == "" || rest[0] == '#' || rest[0] == ';' {
			out.WriteString(line + "\n")
			continue
		}
		key, val, _ := strings.Cut(rest, "=")
		key = strings.TrimSpace(key)
		if reSecretKey.MatchString(key) || reUserinfo.MatchString(val) {
			dropped = append(dropped, strings.ToLower(section)+sectionSuffix(sub)+"."+strings.ToLower(key))
			skipCont = strings.HasSuffix(line, `\`)
			continue
		}
		out.WriteString(rest + "\n")
	}
	return out.String(), dropped
}

func sectionSuffix(sub string) string {
	if sub == "" {
		return ""
	}
	if reUserinfo.MatchString(sub) {
		return ".<url with userinfo>"
	}
	return "." + sub
}

// parseSectionHeader splits `remote "origin"` or `branch.main` into the
// section and subsection.
func parseSectionHeader(hdr string) (string, string) {
	hdr = strings.TrimSpace(hdr)
	if i := strings.IndexAny(hdr, " \t"); i >= 0 {
		sub := strings.TrimSpace(hdr[i:])
		sub = strings.TrimSuffix(strings.TrimPrefix(sub, `"`), `"`)
		return hdr[:i], sub
	}
	if sec, sub, ok := strings.Cut(hdr, "."); ok {
		return sec, sub
	}
	return hdr, ""
}

// homeEntries expands the allowlist against home: absolute paths of what
// exists (globs in the last element), plus PATH directories inside home.
func homeEntries(home string, allow []string, path string, exists func(string) bool) []string {
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
			m, _ := filepath.Glob(p)
			for _, x := range m {
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
