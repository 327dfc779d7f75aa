package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/internal/world"
)

// OSResolver follows symlinks on the real file system. Paths that do not
// exist yet are resolved through their longest existing parent.
type OSResolver struct{}

func (OSResolver) EvalSymlinks(p string) (string, error) { return filepath.EvalSymlinks(p) }

// resolve follows symlinks of an absolute, clean path with the rules'
// Resolver, through its longest existing prefix.
func (e *evaluator) resolve(p string) string {
	if e.rules.Resolver == nil || p == "" || !path.IsAbs(p) {
		return p
	}
	if r, ok := e.resolved[p]; ok {
		return r
	}
	if len(e.resolved) >= maxResolved {
		// every path costs system calls: past the bound the command
		// asks, and the rest is judged by spelling
		if !e.resolveSpent {
			e.resolveSpent = true
			e.emit(sg1016, -1, analyze.Span{Start: 0, End: len(e.res.Src)},
				fmt.Sprintf("analysis stopped at its work budget (more than %d paths to resolve): the rest is judged by spelling only", maxResolved))
		}
		return p
	}
	if e.resolved == nil {
		e.resolved = map[string]string{}
	}
	r := e.resolveUncached(p)
	e.resolved[p] = r
	return r
}

// maxResolved bounds the distinct paths one check resolves on the file
// system.
const maxResolved = 4096

func (e *evaluator) resolveUncached(p string) string {
	rest := ""
	cur := p
	for i := 0; i < 64; i++ {
		if r, err := e.rules.Resolver.EvalSymlinks(cur); err == nil {
			if rest == "" {
				return path.Clean(r)
			}
			return path.Join(r, rest)
		}
		if cur == "/" || cur == "." || cur == "" {
			break
		}
		base := path.Base(cur)
		if rest == "" {
			rest = base
		} else {
			rest = base + "/" + rest
		}
		cur = path.Dir(cur)
	}
	return p
}

// abs makes p absolute against cwd; "" when it cannot be known.
func (e *evaluator) abs(p, cwd string) string {
	if p == "" {
		return ""
	}
	if strings.HasPrefix(p, "~") {
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = e.home + p[1:]
		} else {
			return ""
		}
	}
	if path.IsAbs(p) {
		p = path.Clean(p)
		if strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/") {
			return p // pseudo file systems: their links point at fds and pids
		}
		return e.resolve(p)
	}
	if cwd == "" {
		return ""
	}
	return e.resolve(path.Join(cwd, p))
}

func within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// inWorkspace reports whether p is in the workspace. A workspace that
// is "/" or a system directory confines nothing, so nothing is in it.
func (e *evaluator) inWorkspace(p string) bool {
	return !e.wsSystem && within(p, e.ws)
}

// projectParents are system directories whose direct children may be
// project directories (/opt/app, /srv/site, /home/other, /mnt/data).
var projectParents = map[string]bool{"/home": true, "/Users": true, "/mnt": true, "/media": true, "/opt": true, "/srv": true}

// systemWorkspace reports a workspace that confines nothing: "/", a
// system directory, or a direct child of one that belongs to the system
// (/usr/local, /var/lib, /etc/nginx). The home directory and what is
// under it are not system workspaces.
func systemWorkspace(ws, home string) bool {
	if ws == "/" {
		return true
	}
	if home != "" && home != "/" && within(ws, home) {
		return false
	}
	for d := range world.SystemDirs {
		if ws == d {
			return true
		}
		if within(ws, d) && strings.Count(ws[len(d):], "/") <= 1 && !projectParents[d] {
			return true
		}
	}
	return false
}

func (e *evaluator) inRoots(p string) bool {
	for _, r := range e.roots {
		if within(p, r) {
			return true
		}
	}
	return false
}

// safeDevice reports the devices any program may use, as the world
// table has them, except /dev/shm and /proc/self/fd itself, which the
// per-program checks still judge as devices (the effect rows do not).
func safeDevice(p string) bool {
	return world.SafeDevice(p) && !within(p, "/dev/shm") && p != "/proc/self/fd"
}

var blockPrefixes = []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk", "/dev/disk/",
	"/dev/mapper/", "/dev/md", "/dev/dm-", "/dev/loop", "/dev/sr", "/dev/mem", "/dev/kmem", "/dev/port", "/dev/rdisk", "/dev/disk"}

func blockDevice(p string) bool {
	for _, b := range blockPrefixes {
		if strings.HasPrefix(p, b) {
			return true
		}
	}
	return false
}

// systemPath reports paths in system locations (not under home).
func (e *evaluator) systemPath(p string) bool {
	if within(p, e.home) {
		return false
	}
	for d := range world.SystemDirs {
		if within(p, d) {
			return true
		}
	}
	return p == "/"
}

// topLevel reports "/" and the first two levels of system directories
// (/etc, /usr/local, /var/log …): deleting them wrecks the machine.
func (e *evaluator) criticalDir(p string) bool {
	if p == "/" {
		return true
	}
	if within(p, e.home) {
		return false // the home directory is handled on its own
	}
	for d := range world.SystemDirs {
		if p == d {
			return true
		}
		if within(p, d) && strings.Count(p[len(d):], "/") <= 1 && d != "/home" && d != "/Users" && d != "/mnt" && d != "/media" {
			return true
		}
	}
	return false
}

var rcFiles = []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile",
	".zshenv", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".inputrc", ".config/fish/config.fish", ".xinitrc", ".xprofile",
	".gitconfig", ".config/git/config", ".npmrc", ".pypirc", ".curlrc", ".wgetrc", ".ssh/config", ".ssh/rc", ".vimrc", ".exrc", ".tmux.conf"}

// persistenceTarget names a file or directory whose modification makes
// code run later (shell startup files, cron, services, keys, hooks).
func (e *evaluator) persistenceTarget(p string) string {
	if rel, ok := strings.CutPrefix(p, e.home+"/"); ok {
		for _, rc := range rcFiles {
			if rel == rc {
				return "shell or tool startup file ~/" + rc
			}
		}
	}
	switch {
	case within(p, path.Join(e.home, ".ssh/authorized_keys")) || strings.HasSuffix(p, "/.ssh/authorized_keys") || strings.HasSuffix(p, "/.ssh/authorized_keys2"):
		return "SSH authorized_keys"
	case p == "/etc/profile" || within(p, "/etc/profile.d") || p == "/etc/bash.bashrc" || p == "/etc/environment" ||
		p == "/etc/zshrc" || p == "/etc/zsh/zshrc" || p == "/etc/ld.so.preload" || within(p, "/etc/ld.so.conf.d"):
		return "system-wide startup file"
	case within(p, "/etc/cron.d") || within(p, "/etc/crontab") || within(p, "/var/spool/cron") || strings.HasPrefix(p, "/etc/cron."):
		return "cron table"
	case within(p, "/etc/systemd") || within(p, "/lib/systemd") || within(p, "/usr/lib/systemd") || within(p, path.Join(e.home, ".config/systemd")) ||
		within(p, path.Join(e.home, ".config/autostart")) || within(p, path.Join(e.home, "Library/LaunchAgents")) || within(p, "/Library/LaunchAgents") || within(p, "/Library/LaunchDaemons") || within(p, "/etc/init.d") || within(p, "/etc/rc.local"):
		return "service or autostart definition"
	}
	if hook, _ := gitHookOrConfig(p); hook {
		if e.inWorkspace(p) {
			return ""
		}
		return "git hook"
	}
	return ""
}

// gitHookOrConfig reports whether p is in the hooks directory of a
// repository's .git, or is its config file: the repository's own, or
// that of one nested in it (.git/modules/NAME/…, .git/worktrees/NAME/…,
// to any depth; a submodule's NAME may hold slashes, so any hooks
// directory or config file below modules/ or worktrees/ counts).
func gitHookOrConfig(p string) (hook, config bool) {
	i := strings.Index(p, "/.git/")
	if i < 0 {
		return strings.HasSuffix(p, "/.git/hooks"), false
	}
	r := p[i+len("/.git/"):]
	hook = r == "hooks" || strings.HasPrefix(r, "hooks/")
	config = r == "config"
	if strings.HasPrefix(r, "modules/") || strings.HasPrefix(r, "worktrees/") {
		hook = hook || strings.Contains(r, "/hooks/") || strings.HasSuffix(r, "/hooks")
		config = config || strings.HasSuffix(r, "/config")
	}
	return hook, config
}

// credentialPath reports a credential store or secret outside the
// workspace, by world's one table (key files, token stores, browser
// profiles, /etc/shadow, /proc/*/environ, another user's home): touching
// one is denied. A secret file of the workspace (.env) is not a store;
// reading it is asked about (SG4001). Inside the workspace only what
// lies in a hidden directory is a store (a workspace that is home keeps
// ~/.ssh and ~/.aws stores).
func (e *evaluator) credentialPath(p string) string {
	if p == "" {
		return ""
	}
	if e.inWorkspace(p) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, e.ws), "/")
		if !strings.HasPrefix(rel, ".") || !strings.Contains(rel, "/") && rel != ".ssh" && rel != ".gnupg" && rel != ".aws" {
			return ""
		}
	}
	if r := world.Classify(p, e.classOpts()); r.Class == world.ClassCredential {
		return r.What
	}
	return ""
}

// secretFile reports a name that usually holds a secret wherever it is
// (.env, a private key, credentials.json): only relevant when it leaves
// the machine.
func secretFile(p string) bool { return unknownSecretName(p) }

// globBase returns the directory part of a glob pattern before the first
// pattern character, and whether the pattern is directly in that directory
// (a "*" right below it).
func globBase(p string) (dir string, direct bool) {
	i := strings.IndexAny(p, "*?[")
	if i < 0 {
		return p, false
	}
	dir = p[:i]
	if j := strings.LastIndexByte(dir, '/'); j >= 0 {
		dir = dir[:j]
		if dir == "" {
			dir = "/"
		}
	} else {
		dir = "."
	}
	rest := p[len(strings.TrimSuffix(dir, "/")):]
	rest = strings.TrimPrefix(rest, "/")
	direct = !strings.Contains(rest, "/")
	return dir, direct
}
