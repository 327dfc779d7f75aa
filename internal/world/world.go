// Package world holds what the machine is made of, as the stages that
// judge a command see it: which paths are system directories, harmless
// devices, credential stores, startup files and registry configuration,
// which paths are the floor no command may destroy, which hosts are cloud
// metadata endpoints or this machine, and which names hold secrets. Each
// table is written once, here: effects and policy read the same one, so
// they cannot disagree about a path. It is internal for the reason
// internal/progs gives: the stages share one table instead of exporting
// helpers to each other.
//
// The package is pure: it never looks at the real file system; paths are
// absolute and clean, and the workspace and home directory are given.
package world

import (
	"net/netip"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Options says where a command runs.
type Options struct {
	// Workspace is the starting directory (default "/workspace").
	Workspace string
	// Home is $HOME (default "/home/user").
	Home string
}

// Class names what a path is, for the policy.
type Class uint8

const (
	ClassOther       Class = iota // nothing special
	ClassWorkspace                // inside the workspace
	ClassTemp                     // /tmp, /var/tmp, /dev/shm
	ClassCredential               // a credential store or secret
	ClassPersistence              // a file whose change makes code run later
	ClassRegistry                 // registry, index or toolchain configuration
	ClassRepoGit                  // the workspace repository's own .git
	ClassOtherGit                 // another repository's .git
	ClassSystem                   // a system directory
	ClassDevice                   // a device other than the harmless ones
	ClassHome                     // the home directory itself or a file in it
)

var classNames = [...]string{"other", "workspace", "temp", "credential", "persistence", "registry-config", "repo-git",
	"other-git", "system", "device", "home"}

func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return "class"
}

// Resource is the classification of a path.
type Resource struct {
	Class Class
	// What says what the resource is ("~/.ssh/id_rsa: SSH key").
	What string
}

// Classify names the sensitive resource an absolute clean path is. The
// most specific class wins: a credential or startup file inside the
// workspace is still a credential or startup file.
func Classify(p string, o Options) Resource {
	if o.Workspace == "" {
		o.Workspace = "/workspace"
	}
	if o.Home == "" {
		o.Home = "/home/user"
	}
	if p == "" {
		return Resource{}
	}
	if w := credential(p, o); w != "" {
		return Resource{ClassCredential, w}
	}
	if w := persistence(p, o); w != "" {
		return Resource{ClassPersistence, w}
	}
	if w := registry(p, o); w != "" {
		return Resource{ClassRegistry, w}
	}
	if g := gitDir(p); g != "" {
		// only the workspace's own .git is the repository's; a .git
		// deeper in the workspace belongs to another repository
		if g == path.Join(o.Workspace, ".git") {
			return Resource{ClassRepoGit, "the repository's .git"}
		}
		return Resource{ClassOtherGit, "another repository's " + g}
	}
	if Within(p, o.Workspace) {
		return Resource{ClassWorkspace, "workspace"}
	}
	if strings.HasPrefix(p, "/dev/") {
		if SafeDevice(p) {
			return Resource{ClassOther, "harmless device"}
		}
		return Resource{ClassDevice, "device " + p}
	}
	if Within(p, "/tmp") || Within(p, "/var/tmp") || Within(p, "/dev/shm") {
		return Resource{ClassTemp, "temporary files"}
	}
	if Within(p, o.Home) {
		return Resource{ClassHome, "home"}
	}
	if SystemPath(p) {
		return Resource{ClassSystem, "system location " + p}
	}
	return Resource{}
}

// ClassifyPattern classifies the files a name pattern selects in dir
// (find -name '.*shrc', locate id_rsa, a glob .env*): the pattern with
// its wildcards removed, then the sensitive names it matches.
func ClassifyPattern(dir, pattern string, o Options) Resource {
	for _, c := range []Class{ClassCredential, ClassPersistence, ClassRegistry} {
		if r := ClassifyPatternAs(dir, pattern, c, o); r.Class == c {
			return r
		}
	}
	return Resource{}
}

// ClassifyPatternAs reports whether the files a name pattern selects in
// dir include one of class want.
func ClassifyPatternAs(dir, pattern string, want Class, o Options) Resource {
	if pattern == "" {
		return Resource{}
	}
	base := path.Base(pattern)
	lit := strings.NewReplacer("*", "", "?", "", "[", "", "]", "").Replace(base)
	if lit != "" && lit != "." {
		if r := Classify(path.Join(dir, lit), o); r.Class == want {
			return r
		}
	}
	// only a pattern that names its files ('.*shrc', 'id_*'), not one
	// that selects an extension ('*.xml'), is matched against the names
	if !strings.ContainsAny(base, "*?[") || strings.ContainsAny(base[:1], "*?[") {
		return Resource{}
	}
	for _, n := range secretNames {
		if ok, _ := path.Match(base, n); ok {
			if r := Classify(path.Join(dir, n), o); r.Class == want {
				return r
			}
		}
	}
	for _, list := range [][]string{rcHome, credHome, registryHome} {
		for _, n := range list {
			nb := path.Base(n)
			if ok, _ := path.Match(base, nb); ok && nb != "bin" {
				h := o.Home
				if h == "" {
					h = "/home/user"
				}
				if r := Classify(path.Join(h, n), o); r.Class == want {
					return r
				}
			}
		}
	}
	return Resource{}
}

// secretNames are file names that are secrets wherever they are.
var secretNames = []string{"id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", ".env", ".env.local", ".env.production",
	"credentials", "credentials.json", ".netrc", ".pgpass", ".git-credentials", "service-account.json", "secrets.yaml",
	"secrets.json", "privkey.pem", "key.pem"}

// Within reports whether p is dir or below it.
func Within(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

var systemDirs = []string{"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/sys",
	"/proc", "/dev", "/var", "/opt", "/root", "/srv", "/snap", "/run", "/System", "/Library", "/Applications",
	"/private", "/mnt", "/media", "/home", "/Users", "/nix"}

// SystemDirs yields the system directories (/etc, /usr, /var …), not /
// itself.
func SystemDirs(yield func(string) bool) {
	for _, d := range systemDirs {
		if !yield(d) {
			return
		}
	}
}

// SystemPath reports / and the system directories.
func SystemPath(p string) bool {
	if p == "/" {
		return true
	}
	for _, d := range systemDirs {
		if Within(p, d) {
			return true
		}
	}
	return false
}

// FloorPath reports the paths whose destruction wrecks the machine
// whatever the workspace is: /, the system directories and their direct
// children (/etc, /usr/lib, /var/log …), and the home directory itself.
func FloorPath(p string, o Options) bool {
	if p == "/" {
		return true
	}
	if o.Home != "" && p == path.Clean(o.Home) {
		return true
	}
	for _, d := range systemDirs {
		if p == d {
			return true
		}
		if Within(p, d) && strings.Count(p[len(d):], "/") <= 1 && d != "/home" && d != "/Users" && d != "/mnt" && d != "/media" && d != "/tmp" {
			return true
		}
	}
	return false
}

var safeDevices = map[string]bool{"/dev/null": true, "/dev/zero": true, "/dev/random": true, "/dev/urandom": true,
	"/dev/stdin": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true, "/dev/full": true}

// SafeDevice reports the devices any program may use.
func SafeDevice(p string) bool {
	return safeDevices[p] || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/dev/pts/") || Within(p, "/dev/shm") ||
		strings.HasPrefix(p, "/proc/self/fd/") || p == "/proc/self/fd"
}

func gitDir(p string) string {
	if k := strings.Index(p, "/.git/"); k >= 0 {
		return p[:k+5]
	}
	if strings.HasSuffix(p, "/.git") {
		return p
	}
	return ""
}

// homeRel returns p relative to a home directory (the user's, another
// user's or root's), and ok.
func homeRel(p string, o Options) (string, bool) {
	if Within(p, o.Home) {
		return strings.TrimPrefix(strings.TrimPrefix(p, o.Home), "/"), true
	}
	for _, h := range []string{"/home/", "/Users/"} {
		if strings.HasPrefix(p, h) {
			parts := strings.SplitN(p[len(h):], "/", 2)
			if len(parts) == 2 {
				return parts[1], true
			}
			return "", true
		}
	}
	if p == "/root" {
		return "", true
	}
	if strings.HasPrefix(p, "/root/") {
		return p[len("/root/"):], true
	}
	return "", false
}

// credential stores relative to a home directory (a prefix matches the
// directory and everything in it)
var credHome = []string{".aws", ".netrc", ".git-credentials", ".docker/config.json", ".kube", ".config/gh",
	".gnupg", ".npmrc", ".pypirc", ".password-store", ".config/gcloud", ".azure", ".vault-token",
	".terraform.d/credentials.tfrc.json", ".cargo/credentials", ".cargo/credentials.toml", ".config/hub",
	".gem/credentials", ".m2/settings-security.xml", ".pgpass", ".my.cnf", ".local/share/keyrings",
	"Library/Keychains", ".config/op", ".op", ".bash_history", ".zsh_history", ".psql_history", ".mysql_history",
	".python_history", ".node_repl_history", ".sqlite_history", ".rediscli_history", ".lesshst", ".config/rclone",
	".s3cfg", ".boto", ".ansible/vault_pass", ".config/doctl", ".fly", ".config/heroku", ".heroku", ".electrum",
	".bitcoin", ".ethereum/keystore", ".config/solana", ".config/Exodus", "Library/Application Support/Exodus", ".huggingface/token",
	".cache/huggingface/token", ".config/huggingface", ".config/sops", ".config/age", ".age", ".config/git/credentials",
	".config/gitlab", ".config/glab-cli", ".config/netlify", ".config/vercel", ".vercel", ".wrangler",
	".config/configstore", ".config/firebase", ".config/stripe", ".oci", ".ovh.conf", ".config/hcloud", ".doppler",
	".config/doppler", ".ngrok2", ".config/ngrok", ".config/tailscale", ".pulumi/credentials.json", ".databrickscfg",
	".snowsql/config", ".dbt/profiles.yml", ".config/clickhouse", ".mongorc.js", ".irb_history", ".config/joplin",
	".local/share/password-store", ".config/keybase", ".mozilla", ".config/google-chrome", ".config/chromium",
	".config/BraveSoftware", ".config/microsoft-edge", "Library/Application Support/Google/Chrome",
	"Library/Application Support/Firefox", "Library/Cookies", "snap/firefox", "snap/chromium", ".thunderbird",
	".config/Signal", ".config/Slack", ".config/discord", ".local/share/TelegramDesktop", ".wallet", ".config/filezilla",
	".config/remmina", ".ssh"}

// Holds names a credential store that lies inside directory dir (~,
// ~/.config, ~/.local/share): reading dir as a tree reads it.
func Holds(dir string, o Options) Resource {
	if o.Home == "" {
		o.Home = "/home/user"
	}
	if !Within(o.Home, dir) && !Within(dir, o.Home) {
		return Resource{}
	}
	for _, c := range credHome {
		if p := path.Join(o.Home, c); p != dir && Within(p, dir) {
			return Resource{ClassCredential, "~/" + c}
		}
	}
	return Resource{}
}

// credHashes are the system's password hash files; credCluster its
// cluster admin credentials.
var (
	credHashes  = []string{"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/master.passwd", "/etc/security/opasswd"}
	credCluster = []string{"/etc/kubernetes/admin.conf", "/etc/rancher/k3s/k3s.yaml", "/var/lib/kubelet/kubeconfig"}
	// credTrees hold nothing but credentials.
	credTrees = []string{"/etc/ssl/private", "/etc/pki/tls/private", "/etc/letsencrypt/live", "/etc/letsencrypt/archive",
		"/etc/kubernetes/pki", "/var/run/secrets", "/run/secrets"}
	// sshKeys are the usual names of private keys in ~/.ssh.
	sshKeys = []string{"id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "id_ecdsa_sk", "id_ed25519_sk"}
)

// GlobCredential reports a credential among the paths an absolute glob
// (wildcards in any of its parts) can select, by bash's rules: a wildcard
// does not match the leading dot of a name. It tries the credential files
// and trees at fixed places of the system, the process environments in
// /proc, the stores under home (o.Home) and the usual key names in
// ~/.ssh. A glob that goes below one of them is judged by a name it
// selects there (~/.aws/* by ~/.aws/x, ~/.gnupg/*.conf by
// ~/.gnupg/x.conf, which is public).
func GlobCredential(glob string, o Options) Resource {
	if !path.IsAbs(glob) || !strings.ContainsAny(glob, "*?[") {
		return Resource{}
	}
	cands := slices.Concat(credHashes, credCluster, credTrees, []string{"/proc/self/environ", "/proc/1/environ", "/proc/kcore"})
	if o.Home != "" {
		for _, c := range credHome {
			cands = append(cands, path.Join(o.Home, c))
		}
		for _, k := range sshKeys {
			cands = append(cands, path.Join(o.Home, ".ssh", k))
		}
	}
	g := strings.Split(path.Clean(glob), "/")
	for _, c := range cands {
		cp := strings.Split(c, "/")
		if !globPrefix(g, cp) {
			continue
		}
		sel := c
		for _, part := range g[len(cp):] {
			sel = path.Join(sel, globName(part))
		}
		if r := Classify(sel, o); r.Class == ClassCredential {
			return r
		}
	}
	return Resource{}
}

// globName returns a name the glob part pat selects: each wildcard
// matched by an x, a bracket by its first character.
func globName(pat string) string {
	var b strings.Builder
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '*', '?':
			b.WriteByte('x')
		case '[':
			j := i + 1
			if j < len(pat) && (pat[j] == '!' || pat[j] == '^') {
				j++
			}
			end := strings.IndexByte(pat[j:], ']')
			if end <= 0 || pat[i+1] == '!' || pat[i+1] == '^' {
				b.WriteByte('x') // a negated or open class: some other byte
			} else {
				b.WriteByte(pat[j])
			}
			if end >= 0 {
				i = j + end
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// globPrefix reports whether the parts of a glob select the path of
// parts p, or a path below it (more parts in the glob).
func globPrefix(g, p []string) bool {
	if len(g) < len(p) {
		return false
	}
	for i, name := range p {
		pat := g[i]
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(pat, ".") {
			return false // a wildcard does not select a dot file
		}
		if ok, err := path.Match(pat, name); err != nil || !ok {
			return false
		}
	}
	return true
}

// public parts of credential stores
var credPublic = map[string]bool{"known_hosts": true, "known_hosts.old": true, "config": true, "authorized_keys": true,
	"authorized_keys2": true, "environment": false}

func credential(p string, o Options) string {
	b := path.Base(p)
	if rel, ok := homeRel(p, o); ok && rel != "" {
		if rel == ".ssh" {
			return "~/.ssh (SSH keys)"
		}
		if strings.HasPrefix(rel, ".ssh/") {
			if strings.HasSuffix(b, ".pub") || credPublic[b] {
				return ""
			}
			return "~/" + rel + " (SSH key)"
		}
		if strings.HasPrefix(rel, ".gnupg/") && (strings.HasSuffix(b, ".conf") || b == "pubring.kbx" || b == "trustdb.gpg") {
			return ""
		}
		if rel == ".kube/cache" || strings.HasPrefix(rel, ".kube/cache/") {
			return ""
		}
		for _, c := range credHome {
			if rel == c || strings.HasPrefix(rel, c+"/") {
				return "~/" + rel
			}
		}
		// XDG: any tool's token or credentials file in config/data dirs
		if strings.HasPrefix(rel, ".config/") || strings.HasPrefix(rel, ".local/share/") || strings.HasPrefix(rel, ".") {
			if strings.Contains(b, "token") && !strings.HasSuffix(b, ".go") && !strings.HasSuffix(b, ".py") && !strings.HasSuffix(b, ".js") ||
				b == "auth.json" || b == "secrets.json" || b == "secrets.yaml" || b == "secrets.yml" || b == "keys.txt" || b == "hosts.yml" && strings.Contains(rel, "gh") {
				return "~/" + rel
			}
		}
	}
	lb := strings.ToLower(b)
	if strings.Contains(lb, "credentials") || strings.Contains(lb, "credential.") {
		return p + " (credentials)"
	}
	switch {
	case slices.Contains(credHashes, p):
		return p + " (password hashes)"
	case Within(p, "/etc/sudoers") || Within(p, "/etc/sudoers.d"):
		return ""
	case strings.HasPrefix(p, "/etc/ssh/ssh_host_") && !strings.HasSuffix(p, ".pub"):
		return p + " (SSH host key)"
	case Within(p, "/etc/ssl/private") || Within(p, "/etc/pki/tls/private") || Within(p, "/etc/letsencrypt/live") || Within(p, "/etc/letsencrypt/archive"):
		return p + " (TLS private keys)"
	case slices.Contains(credCluster, p) || Within(p, "/etc/kubernetes/pki"):
		return p + " (cluster admin credentials)"
	case strings.HasPrefix(p, "/proc/") && (b == "environ" || b == "mem"):
		return p + " (process memory or environment)"
	case p == "/proc/kcore" || Within(p, "/var/run/secrets") || Within(p, "/run/secrets"):
		return p
	case Within(p, "/var/lib/docker/containers") && b == "config.v2.json":
		return p
	}
	// secret files anywhere (also in the workspace): .env, private keys
	if dotEnv(b) {
		return p + " (environment secrets)"
	}
	if strings.HasPrefix(b, "id_rsa") || strings.HasPrefix(b, "id_ed25519") || strings.HasPrefix(b, "id_ecdsa") || strings.HasPrefix(b, "id_dsa") {
		if !strings.HasSuffix(b, ".pub") {
			return p + " (private key)"
		}
	}
	switch {
	case strings.HasSuffix(lb, ".key") && !strings.HasSuffix(lb, ".pub.key") && !strings.HasSuffix(lb, "public.key"),
		strings.HasSuffix(lb, ".p12"), strings.HasSuffix(lb, ".pfx"), strings.HasSuffix(lb, ".jks"), strings.HasSuffix(lb, ".keystore"),
		lb == ".vault-token", lb == ".netrc", lb == ".pgpass", lb == ".git-credentials", lb == "service-account.json",
		strings.HasPrefix(lb, "service-account") && strings.HasSuffix(lb, ".json"), lb == "secrets.yml" || lb == "secrets.yaml" || lb == "secrets.json",
		strings.HasSuffix(lb, "-key.pem") || strings.HasSuffix(lb, "_key.pem") || lb == "key.pem" || lb == "privkey.pem" || strings.HasSuffix(lb, ".private.pem"):
		return p + " (secret file)"
	}
	return ""
}

// dotEnv reports .env files that hold values (.env, .env.local,
// .env.production …), not the committed templates.
func dotEnv(b string) bool {
	if b == ".env" || b == ".envrc" {
		return true
	}
	if !strings.HasPrefix(b, ".env.") && !strings.HasSuffix(b, ".env") {
		return false
	}
	for _, t := range []string{"example", "sample", "template", "dist", "defaults", "schema", "tpl", "test.example"} {
		if strings.HasSuffix(b, "."+t) || strings.Contains(b, "."+t+".") {
			return false
		}
	}
	return strings.HasPrefix(b, ".env.")
}

var rcHome = []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zprofile",
	".zshenv", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".mkshrc", ".inputrc", ".bash_aliases",
	".bash_functions", ".bashrc.d", ".zshrc.d", ".profile.d", ".config/fish", ".xinitrc", ".xprofile", ".xsession",
	".xsessionrc", ".gitconfig", ".config/git/config", ".config/git/attributes", ".config/git/hooks", ".ssh/config",
	".ssh/rc", ".ssh/environment", ".vimrc", ".exrc", ".vim/plugin", ".config/nvim", ".tmux.conf", ".screenrc",
	".config/environment.d", ".config/autostart", ".config/systemd", ".config/upstart",
	"Library/LaunchAgents", ".pam_environment", ".emacs", ".emacs.d/init.el", ".config/starship.toml", ".direnvrc",
	".config/direnv", ".gdbinit", ".lldbinit", ".pythonrc", ".pythonstartup", ".irbrc", ".pryrc", ".psqlrc", ".sqliterc",
	".curlrc", ".wgetrc", ".lessfilter", ".lesskey", ".config/zsh", ".oh-my-zsh/custom", ".config/powershell",
	".local/share/applications", ".config/containers/systemd"}

func persistence(p string, o Options) string {
	b := path.Base(p)
	if rel, ok := homeRel(p, o); ok && rel != "" {
		for _, r := range rcHome {
			if rel == r || strings.HasPrefix(rel, r+"/") {
				return "startup file ~/" + rel
			}
		}
		if strings.HasPrefix(rel, ".ssh/authorized_keys") {
			return "SSH authorized_keys"
		}
	}
	if strings.HasSuffix(p, "/.ssh/authorized_keys") || strings.HasSuffix(p, "/.ssh/authorized_keys2") {
		return "SSH authorized_keys"
	}
	// python start-up hooks wherever they are
	if strings.HasSuffix(b, ".pth") || b == "sitecustomize.py" || b == "usercustomize.py" {
		return "python start-up hook " + b
	}
	switch {
	case p == "/etc/profile" || Within(p, "/etc/profile.d") || p == "/etc/bash.bashrc" || p == "/etc/bashrc" ||
		p == "/etc/environment" || Within(p, "/etc/environment.d") || Within(p, "/etc/zsh") || p == "/etc/zshrc" ||
		p == "/etc/zprofile" || p == "/etc/zshenv" || p == "/etc/ld.so.preload" || Within(p, "/etc/ld.so.conf.d") ||
		p == "/etc/ld.so.conf" || Within(p, "/etc/fish") || p == "/etc/inputrc" || Within(p, "/etc/security/pam_env.conf") ||
		Within(p, "/etc/pam.d") || Within(p, "/etc/update-motd.d") || Within(p, "/etc/X11/Xsession.d") || Within(p, "/etc/xdg/autostart"):
		return "system-wide startup file " + p
	case Within(p, "/etc/cron.d") || p == "/etc/crontab" || Within(p, "/var/spool/cron") || strings.HasPrefix(p, "/etc/cron.") ||
		Within(p, "/var/spool/at") || Within(p, "/etc/anacrontab"):
		return "cron table " + p
	case Within(p, "/etc/systemd") || Within(p, "/lib/systemd") || Within(p, "/usr/lib/systemd") || Within(p, "/run/systemd/system") ||
		Within(p, "/Library/LaunchAgents") || Within(p, "/Library/LaunchDaemons") || Within(p, "/etc/init.d") ||
		p == "/etc/rc.local" || Within(p, "/etc/init") || Within(p, "/etc/udev/rules.d") || Within(p, "/usr/lib/udev/rules.d"):
		return "service or autostart definition " + p
	case Within(p, "/etc/sudoers") || Within(p, "/etc/sudoers.d"):
		return "sudoers " + p
	case Within(p, "/etc/gitconfig"):
		return "system git configuration"
	}
	return ""
}

var registryHome = []string{".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".config/pip", ".pip", ".config/go/env",
	".gemrc", ".cargo/config", ".cargo/config.toml", ".m2/settings.xml", ".gradle/gradle.properties", ".gradle/init.d",
	".condarc", ".bundle/config", ".config/uv", ".nuget/NuGet/NuGet.Config", ".config/NuGet", ".config/containers/registries.conf",
	".docker/daemon.json", ".config/pnpm", ".bunfig.toml", ".deno", ".composer/config.json", ".config/composer",
	".cabal/config", ".stack/config.yaml", ".opam/config", ".sbt/repositories", ".ivy2", ".config/nix", ".nix-channels",
	".Rprofile", ".julia/config", ".config/helm/repositories.yaml", ".terraformrc"}

func registry(p string, o Options) string {
	if rel, ok := homeRel(p, o); ok && rel != "" {
		for _, r := range registryHome {
			if rel == r || strings.HasPrefix(rel, r+"/") {
				return "registry or toolchain configuration ~/" + rel
			}
		}
	}
	switch {
	case p == "/etc/pip.conf" || p == "/etc/npmrc" || Within(p, "/etc/apt/sources.list") || Within(p, "/etc/apt/sources.list.d") ||
		Within(p, "/etc/apt/trusted.gpg.d") || Within(p, "/etc/apt/keyrings") || Within(p, "/etc/yum.repos.d") ||
		Within(p, "/etc/zypp/repos.d") || p == "/etc/pacman.conf" || Within(p, "/etc/apk/repositories") ||
		Within(p, "/etc/containers/registries.conf") || p == "/etc/docker/daemon.json" || Within(p, "/etc/nix") ||
		Within(p, "/usr/lib/node_modules/npm/npmrc") || p == "/etc/gemrc" || Within(p, "/etc/hosts") || p == "/etc/resolv.conf":
		return "registry or resolver configuration " + p
	}
	return ""
}

// ---- network destinations ----

// HostOf returns the host of a URL, user@host, host:path or host:port
// ("" when there is none).
func HostOf(dest string) string {
	d := dest
	scheme := false
	if k := strings.Index(d, "://"); k >= 0 {
		d = d[k+3:]
		scheme = true
	}
	if k := strings.IndexAny(d, "/?#"); k >= 0 {
		d = d[:k]
	}
	if !scheme && strings.HasPrefix(d, ":") {
		// ":8080/users" and ":/users": the HTTP clients' shorthand for
		// localhost (httpie, xh, curlie)
		return "localhost"
	}
	if k := strings.LastIndexByte(d, '@'); k >= 0 {
		d = d[k+1:]
	}
	if strings.HasPrefix(d, "[") {
		if k := strings.IndexByte(d, ']'); k > 0 {
			return strings.ToLower(d[1:k])
		}
		return strings.ToLower(d)
	}
	if strings.Count(d, ":") == 1 {
		d = d[:strings.IndexByte(d, ':')]
	}
	return strings.ToLower(strings.TrimSuffix(d, "."))
}

// parseIPv4 parses an IPv4 address the way inet_aton does: one to four
// parts, each decimal, hex (0x) or octal (leading 0).
func parseIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) < 1 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base := 10
		q := p
		if strings.HasPrefix(q, "0x") || strings.HasPrefix(q, "0X") {
			base, q = 16, q[2:]
		} else if len(q) > 1 && q[0] == '0' {
			base, q = 8, q[1:]
		}
		if q == "" {
			vals[i] = 0
			continue
		}
		v, err := strconv.ParseUint(q, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	switch len(vals) {
	case 1:
		n = vals[0]
	case 2:
		if vals[0] > 255 || vals[1] > 0xffffff {
			return netip.Addr{}, false
		}
		n = vals[0]<<24 | vals[1]
	case 3:
		if vals[0] > 255 || vals[1] > 255 || vals[2] > 0xffff {
			return netip.Addr{}, false
		}
		n = vals[0]<<24 | vals[1]<<16 | vals[2]
	case 4:
		for _, v := range vals {
			if v > 255 {
				return netip.Addr{}, false
			}
		}
		n = vals[0]<<24 | vals[1]<<16 | vals[2]<<8 | vals[3]
	}
	if n > 0xffffffff {
		return netip.Addr{}, false
	}
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// hostAddr parses host as an IP address in any spelling.
func hostAddr(host string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap(), true
	}
	if a, ok := parseIPv4(host); ok {
		return a, true
	}
	return netip.Addr{}, false
}

var metadataNames = []string{"metadata.google.internal", "metadata.goog", "metadata", "instance-data",
	"instance-data.ec2.internal", "metadata.azure.internal", "metadata.tencentyun.com", "metadata.packet.net"}

// MetadataHost reports cloud metadata endpoints in any address form:
// 169.254.0.0/16 written in decimal, hex or octal, IPv6-mapped, AWS's
// fd00:ec2::254, Alibaba's 100.100.100.200, and the metadata host names.
func MetadataHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	for _, n := range metadataNames {
		if h == n {
			return true
		}
	}
	a, ok := hostAddr(h)
	if !ok {
		return false
	}
	if a.Is4() {
		b := a.As4()
		return b[0] == 169 && b[1] == 254 || a == netip.AddrFrom4([4]byte{100, 100, 100, 200})
	}
	return a == netip.MustParseAddr("fd00:ec2::254")
}

// Loopback reports destinations on this machine.
func Loopback(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	a, ok := hostAddr(h)
	if !ok {
		return false
	}
	return a.IsLoopback() || a.IsUnspecified()
}

// ---- names of secrets ----

// secretWords are the words of variable and setting names that hold
// secrets (AWS_SECRET_ACCESS_KEY, GH_TOKEN, //registry/:_authToken).
var secretWords = []string{"key", "secret", "token", "passw", "credential", "auth", "private", "session", "cookie"}

// secretVars are well-known variables that hold credentials under a
// name without a secret word.
var secretVars = []string{"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "GH_TOKEN", "GITLAB_TOKEN",
	"NPM_TOKEN", "PYPI_TOKEN", "TWINE_PASSWORD", "CARGO_REGISTRY_TOKEN", "HF_TOKEN", "OPENAI_API_KEY",
	"ANTHROPIC_API_KEY", "AZURE_CLIENT_SECRET", "ARM_CLIENT_SECRET", "DATABASE_URL", "REDIS_URL", "MONGODB_URI",
	"PGPASSWORD", "MYSQL_PWD", "VAULT_TOKEN", "CI_JOB_TOKEN", "DOCKER_PASSWORD", "SLACK_WEBHOOK_URL",
	"DIGITALOCEAN_ACCESS_TOKEN", "HEROKU_API_KEY", "STRIPE_API_KEY", "SENTRY_DSN", "TF_VAR_"}

// SecretName reports a variable or setting name that holds a secret.
// A name ending in "*" stands for every name it starts: AWS_* holds
// AWS_SECRET_ACCESS_KEY, GO* holds none.
func SecretName(n string) bool {
	if pre, ok := strings.CutSuffix(n, "*"); ok {
		up := strings.ToUpper(pre)
		for _, v := range secretVars {
			if strings.HasPrefix(v, up) || strings.HasPrefix(up, v) {
				return true
			}
		}
		n = pre
	}
	l := strings.ToLower(n)
	for _, w := range secretWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}
