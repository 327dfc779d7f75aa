package policy

import (
	"path"
	"strconv"
	"strings"

	"github.com/shellguard/shellguard/internal/lazyre"
	"github.com/shellguard/shellguard/internal/progs"

	"github.com/shellguard/shellguard/analyze"
)

// cmdCheck carries one command through the checks.
type cmdCheck struct {
	located bool // the name's directory comes from a locator substitution
	e       *evaluator
	i       int
	c       *analyze.Command
	name    string
	args    []analyze.Arg // without the command name
}

func (k *cmdCheck) add(id string, d Decision, msg string) { k.e.add(k.i, k.c.Span, id, d, msg) }
func (k *cmdCheck) addAt(sp analyze.Span, id string, d Decision, msg string) {
	k.e.add(k.i, sp, id, d, msg)
}
func (k *cmdCheck) floor(id, msg string) { k.e.floor(k.i, k.c.Span, id, msg) }
func (k *cmdCheck) floorAt(sp analyze.Span, id, msg string) {
	k.e.floor(k.i, sp, id, msg)
}

func (k *cmdCheck) has(flags ...string) bool {
	for _, a := range k.args {
		for _, f := range flags {
			if a.Value == f {
				return true
			}
		}
	}
	return false
}

// hasShort reports a short flag letter, alone or grouped (-rf).
func (k *cmdCheck) hasShort(letter byte, long ...string) bool {
	for _, a := range k.args {
		v := a.Value
		if v == "--" {
			return false
		}
		if len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v[1:], letter) >= 0 {
			return true
		}
		for _, l := range long {
			if v == l {
				return true
			}
		}
	}
	return false
}

// operands returns the non-option arguments.
func (k *cmdCheck) operands() []analyze.Arg {
	var out []analyze.Arg
	dd := false
	for _, a := range k.args {
		if !dd && a.Value == "--" {
			dd = true
			continue
		}
		if !dd && len(a.Value) > 1 && a.Value[0] == '-' && !a.Dynamic {
			continue
		}
		out = append(out, a)
	}
	return out
}

func (k *cmdCheck) sub() (string, []analyze.Arg) {
	for i, a := range k.args {
		if !strings.HasPrefix(a.Value, "-") {
			return a.Value, k.args[i+1:]
		}
	}
	return "", nil
}

var nameAliases = map[string]string{"zf_rm": "rm", "zf_mv": "mv", "zf_ln": "ln", "zf_chmod": "chmod", "zf_chown": "chown",
	"zf_mkdir": "mkdir", "zf_rmdir": "rmdir", "gsed": "sed", "gawk": "awk", "mawk": "awk", "nawk": "awk", "gtar": "tar",
	"bsdtar": "tar", "ncat": "nc", "netcat": "nc", "nodejs": "node", "podman": "docker", "nerdctl": "docker", "oc": "kubectl",
	"tofu": "terraform", "mariadb": "mysql", "mongosh": "mongo", "grm": "rm", "gshred": "shred", "rimraf": "rm",
	"docker-compose": "docker", "sudoedit": "sudo", "machinectl": "sudo", "gpasswd": "usermod", "sqlite": "sqlite3", "pgcli": "psql", "mycli": "mysql"}

func (e *evaluator) command(i int, c *analyze.Command) {
	if len(c.Args) == 0 {
		e.assigns(i, c)
		return
	}
	// $(npm bin)/eslint: the directory is computed, the program is not
	k := &cmdCheck{e: e, i: i, c: c, name: c.Program, args: c.Args[1:], located: c.Located}
	if n, ok := nameAliases[k.name]; ok {
		k.name = n
	}
	if strings.HasPrefix(k.name, "python3.") || strings.HasPrefix(k.name, "python2.") {
		k.name = "python3"
	}
	e.assigns(i, c)
	k.obfuscation()
	if k.name == "" {
		return
	}
	k.credentials()
	k.secretVars()
	k.downloadExec()
	k.lookalikes()
	k.infraDelete()
	k.recon()
	k.secretsCLI()
	if f, ok := checks[k.name]; ok {
		f(k)
	}
	if strings.HasPrefix(k.name, "mkfs") || strings.HasPrefix(k.name, "mke2fs") || strings.HasPrefix(k.name, "mkswap") {
		k.disk()
	}
	if strings.HasPrefix(k.name, "zf_") || zshBuiltins[k.name] {
		k.add("SG3301", Deny, "zsh module builtin "+quote(k.name)+" bypasses normal command checks")
	}
	if k.runsCode() {
		k.codeRunner()
	}
	k.writes()
}

// ---- assignments and environment hijacks ----

var hijackDeny = map[string]string{
	"LD_PRELOAD": "preloads a library into every program", "LD_AUDIT": "loads an audit library into every program",
	"BASH_ENV": "makes every bash run a file first", "ENV": "makes every sh run a file first",
	"PROMPT_COMMAND": "runs code before each prompt", "IFS": "changes how words are split (obfuscation)",
	"SHELLOPTS": "changes shell options of child shells", "BASHOPTS": "changes shell options of child shells",
	"PS4": "runs code through trace prompts", "GLOBIGNORE": "changes glob results",
}

var execVars = map[string]bool{"GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_EXTERNAL_DIFF": true, "GIT_PAGER": true,
	"PAGER": true, "GIT_EDITOR": true, "EDITOR": true, "VISUAL": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true,
	"SUDO_ASKPASS": true, "GIT_PROXY_COMMAND": true, "LESSOPEN": true, "LESSCLOSE": true, "MANPAGER": true,
	"BROWSER": true, "RSYNC_RSH": true, "CVS_RSH": true, "GIT_SEQUENCE_EDITOR": true, "FCEDIT": true, "SYSTEMD_PAGER": true}

var startupVars = map[string]bool{"PYTHONSTARTUP": true, "PERL5OPT": true, "NODE_OPTIONS": true, "RUBYOPT": true,
	"JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "PYTHONINSPECT": true, "PERL5DB": true, "GIT_CONFIG_PARAMETERS": true,
	"GIT_CONFIG_GLOBAL": false, "GIT_EXEC_PATH": true, "GIT_TEMPLATE_DIR": true, "LD_LIBRARY_PATH": true, "DYLD_LIBRARY_PATH": true}

var pathVars = map[string]bool{"GIT_DIR": true, "GIT_CONFIG": true, "GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true,
	"GIT_WORK_TREE": false, "PYTHONPATH": true, "PERL5LIB": true, "RUBYLIB": true, "NODE_PATH": true, "CLASSPATH": true,
	"PYTHONHOME": true, "GEM_PATH": true, "LUA_PATH": true}

var trustedBinDirs = []string{"/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/sbin", "/usr/local/go/bin",
	"/opt/homebrew/bin", "/usr/lib/go/bin", "/snap/bin", "/usr/games"}

func (e *evaluator) assigns(i int, c *analyze.Command) {
	for _, a := range c.Assigns {
		e.assign(i, c, a)
	}
}

func (e *evaluator) assign(i int, c *analyze.Command, a analyze.Assign) {
	n := a.Name
	sp := a.Span
	val := a.Value.Value
	switch {
	case strings.HasPrefix(n, "BASH_FUNC_"):
		e.add(i, sp, "SG3402", Deny, "defines an exported function through "+n)
	case n == "LD_PRELOAD" || n == "LD_AUDIT" || strings.HasPrefix(n, "DYLD_INSERT"):
		e.add(i, sp, "SG3401", Deny, "setting "+n+" "+orDefault(hijackDeny[n], "injects a library into every program"))
	case n == "IFS":
		// IFS= read, IFS=$'\n' are everyday idioms; a non-blank
		// separator set for the whole shell hides word boundaries.
		if strings.Trim(val, " \t\n") == "" || len(c.Args) > 0 && (c.Name() == "read" || c.Name() == "mapfile" || c.Name() == "readarray") {
			return
		}
		e.add(i, sp, "SG2405", Ask, "assigning IFS="+quote(val)+" changes how words are split")
	case strings.HasPrefix(n, "GIT_CONFIG_KEY_") && (progs.GitExecKey(val) || strings.EqualFold(val, "core.hooksPath")):
		e.add(i, sp, "SG3405", Ask, n+" sets the git option "+val+" that runs a command")
	case hijackDeny[n] != "":
		e.add(i, sp, "SG3402", Deny, "setting "+n+" "+hijackDeny[n])
	case n == "PATH":
		first := strings.Split(val, ":")[0]
		if first == "" || first == "." {
			e.add(i, sp, "SG3403", Ask, "PATH starts with the current directory")
			return
		}
		if strings.HasPrefix(first, "$") {
			return
		}
		p := e.abs(first, c.Cwd)
		if p == "" {
			return
		}
		if within(p, e.ws) {
			return
		}
		for _, d := range trustedBinDirs {
			if p == d {
				return
			}
		}
		if within(p, e.home) && (strings.HasSuffix(p, "/bin") || strings.HasSuffix(p, "/.bin")) && !strings.Contains(p, "/tmp") {
			return
		}
		e.add(i, sp, "SG3403", Deny, "PATH puts "+quote(first)+" first: programs can be replaced from a directory outside the workspace")
	case pathVars[n]:
		for _, part := range strings.Split(val, ":") {
			if part == "" || strings.HasPrefix(part, "$") {
				continue
			}
			p := e.abs(part, c.Cwd)
			if p != "" && !within(p, e.ws) && !strings.HasPrefix(p, "/usr/") && p != "/dev/null" && !within(p, e.home) {
				e.add(i, sp, "SG3406", Ask, n+" points at "+quote(part)+" outside the workspace: code or configuration can be replaced")
				return
			}
		}
	case n == "LD_LIBRARY_PATH" || strings.HasPrefix(n, "DYLD_"):
		e.add(i, sp, "SG3404", Ask, "setting "+n+" changes which libraries programs load")
	case execVars[n]:
		first := strings.Fields(val + " x")[0]
		outside := false
		if strings.HasPrefix(first, "/") || strings.HasPrefix(first, "~") || strings.HasPrefix(first, ".") {
			p := e.abs(first, c.Cwd)
			outside = p != "" && !within(p, e.ws) && !strings.HasPrefix(p, "/usr/") && !strings.HasPrefix(p, "/bin/")
		}
		if outside || strings.ContainsAny(val, ";|&$`()<>") || strings.Contains(val, " -c") || progs.IsShell(path.Base(first)) {
			e.add(i, sp, "SG3405", Ask, n+" holds a command line that programs will run")
		}
	case startupVars[n]:
		if n == "NODE_OPTIONS" && !strings.Contains(val, "-r") && !strings.Contains(val, "require") && !strings.Contains(val, "import") && !strings.Contains(val, "loader") {
			return
		}
		if n == "JAVA_TOOL_OPTIONS" && !strings.Contains(val, "agent") {
			return
		}
		e.add(i, sp, "SG3406", Ask, "setting "+n+" makes an interpreter load extra code")
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// ---- obfuscation ----

var reOctal = lazyre.New(`\\[0-7]{3}`)

var decoders = map[string]bool{"base64": true, "base32": true, "xxd": true, "rev": true, "openssl": true, "gunzip": true,
	"zcat": true, "gzip": true, "bzip2": true, "xz": true, "uudecode": true, "basenc": true, "tr": true, "od": true, "perl": true, "python3": true, "python": true, "printf": true}

func (k *cmdCheck) obfuscation() {
	c := k.c
	a0 := c.Args[0]
	switch {
	case a0.Dynamic && !(c.FuncDef != "" && a0.Positional) && !k.located:
		d := Ask
		msg := "command name is computed at run time (" + quote(a0.Value) + ")"
		if k.e.substHas(a0.Subst, isDecoder) {
			d = Deny
			msg = "command name is decoded at run time"
		}
		k.addAt(a0.Span, "SG2401", d, msg)
	case len(a0.Subst) > 0 && !k.located:
		k.addAt(a0.Span, "SG2401", Ask, "command name comes from a command substitution ("+quote(a0.Value)+")")
	case a0.Glob:
		k.addAt(a0.Span, "SG2402", Deny, "command name is a glob pattern "+quote(a0.Value))
	case a0.ANSIC:
		k.addAt(a0.Span, "SG2403", Ask, "command name uses $'…' quoting")
	case a0.Brace:
		k.addAt(a0.Span, "SG2404", Ask, "command name comes from brace expansion")
	}
	for _, a := range c.Args {
		if a.IFS {
			k.addAt(a.Span, "SG2405", Deny, "word uses $IFS to hide spaces (obfuscation)")
			break
		}
	}
}

func isDecoder(c *analyze.Command) bool {
	n := c.Name()
	switch n {
	case "base64", "base32", "basenc":
		for _, a := range c.Argv[1:] {
			if a == "-d" || a == "--decode" || a == "-D" || strings.HasPrefix(a, "-") && strings.Contains(a, "d") && !strings.HasPrefix(a, "--") {
				return true
			}
		}
		return false
	case "xxd":
		for _, a := range c.Argv[1:] {
			if strings.HasPrefix(a, "-r") {
				return true
			}
		}
	case "openssl":
		return len(c.Argv) > 1 && (c.Argv[1] == "enc" || c.Argv[1] == "base64")
	case "rev", "uudecode", "gunzip", "zcat":
		return true
	case "printf":
		for _, a := range c.Argv[1:] {
			if strings.Contains(a, `\x`) || reOctal.MatchString(a) {
				return true
			}
		}
	case "echo":
		for _, a := range c.Argv[1:] {
			if a == "-e" && true {
				return true
			}
		}
	case "tr":
		return true
	}
	return false
}

// plainTool reports a value that names a well-known pager or editor
// with plain options and no shell syntax.
func plainTool(v string) bool {
	if strings.ContainsAny(v, ";|&$`()<>'\"\\!") {
		return false
	}
	f := strings.Fields(v)
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "less", "more", "cat", "delta", "diff-so-fancy", "bat", "vim", "vi", "nvim", "nano", "emacs", "code", "subl", "true", "most":
		for _, o := range f[1:] {
			if !strings.HasPrefix(o, "-") {
				return false
			}
		}
		return true
	}
	return false
}

// containsAny is a cheap filter before the slower regular expressions.
func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func (e *evaluator) substHas(idx []int, pred func(*analyze.Command) bool) bool {
	for _, j := range idx {
		if j >= 0 && j < len(e.res.Commands) && pred(e.res.Commands[j]) {
			return true
		}
	}
	return false
}

var networkCmds = map[string]bool{"curl": true, "wget": true, "nc": true, "socat": true, "telnet": true, "ssh": true,
	"scp": true, "sftp": true, "ftp": true, "http": true, "https": true, "aria2c": true, "fetch": true, "lynx": true,
	"links": true, "w3m": true, "rsync": true, "tftp": true, "lwp-download": true, "lwp-request": true, "xh": true, "httpie": true,
	"openssl": false, "ncat": true, "netcat": true, "curlie": true, "gh": false, "dig": false}

func isNetwork(c *analyze.Command) bool {
	n := c.Name()
	if nm, ok := nameAliases[n]; ok {
		n = nm
	}
	if networkCmds[n] {
		return true
	}
	for _, a := range c.Argv {
		if strings.HasPrefix(a, "/dev/tcp/") || strings.HasPrefix(a, "/dev/udp/") {
			return true
		}
	}
	for _, r := range c.Redirects {
		if strings.HasPrefix(r.Target.Value, "/dev/tcp/") || strings.HasPrefix(r.Target.Value, "/dev/udp/") {
			return true
		}
	}
	if n == "openssl" && len(c.Argv) > 1 && (c.Argv[1] == "s_client" || c.Argv[1] == "s_server") {
		return true
	}
	if n == "git" && len(c.Argv) > 1 && (c.Argv[1] == "archive" && hasArg(c.Argv, "--remote")) {
		return true
	}
	return false
}

func hasArg(argv []string, s string) bool {
	for _, a := range argv {
		if a == s || strings.HasPrefix(a, s+"=") {
			return true
		}
	}
	return false
}

// ---- code runners: shells, eval, source, interpreters ----

// runsCode reports a shell, eval, source or an interpreter: a command
// that runs program text.
func (k *cmdCheck) runsCode() bool {
	return k.c.Lang == progs.Shell || k.interpreterLang()
}

// interpreterLang reports a scripting-language interpreter (not a shell,
// awk or sed).
func (k *cmdCheck) interpreterLang() bool {
	l := k.c.Lang
	return l != "" && l != progs.Shell && l != progs.Awk && l != progs.Sed
}

// upstream returns the commands that feed command i through pipelines.
// Commands in substitutions of an upstream command (cat <(curl …) | sh)
// count as upstream too.
func (e *evaluator) upstream(c *analyze.Command) []*analyze.Command {
	var out []*analyze.Command
	seen := map[*analyze.Command]bool{}
	var addSubst func(o *analyze.Command)
	addSubst = func(o *analyze.Command) {
		if seen[o] {
			return
		}
		seen[o] = true
		out = append(out, o)
		for _, a := range o.Args {
			for _, j := range a.Subst {
				if j >= 0 && j < len(e.res.Commands) {
					addSubst(e.res.Commands[j])
				}
			}
		}
		for _, r := range o.Redirects {
			for _, j := range r.Target.Subst {
				if j >= 0 && j < len(e.res.Commands) {
					addSubst(e.res.Commands[j])
				}
			}
		}
	}
	for _, p := range c.Pipes {
		for _, o := range e.res.Commands {
			for _, q := range o.Pipes {
				if q.ID == p.ID && q.Stage < p.Stage {
					addSubst(o)
					break
				}
			}
		}
	}
	return out
}

func anyOf(cs []*analyze.Command, pred func(*analyze.Command) bool) bool {
	for _, c := range cs {
		if pred(c) {
			return true
		}
	}
	return false
}

func (k *cmdCheck) codeRunner() {
	e := k.e
	// program text from a pipe
	if k.c.StdinPipe && k.c.StdinCode {
		up := e.upstream(k.c)
		switch {
		case anyOf(up, isNetwork):
			k.floor("SG2301", "output of a network download is executed by "+quote(k.name))
		case anyOf(up, isDecoder):
			k.add("SG2306", Deny, "decoded or transformed text is executed by "+quote(k.name))
		default:
			// literal echo/printf text piped into a shell is analysed as
			// code (analyze follows it); anything else piped into a
			// program that runs it asks.
			piped := false
			for _, cd := range k.c.Code {
				piped = piped || cd.Piped
			}
			if !piped {
				k.add("SG2304", Ask, "text from a pipe is executed as a program by "+quote(k.name))
			}
		}
	}
	// program text from redirected stdin: bash < <(curl …), source
	// /dev/stdin <<< "$(curl …)", sh < downloaded.sh
	if k.c.StdinCode {
		for _, r := range k.c.Redirects {
			if r.Write || r.Op == "<&" || r.Op == ">&" {
				continue
			}
			var subs []*analyze.Command
			for _, j := range r.Target.Subst {
				if j >= 0 && j < len(e.res.Commands) {
					subs = append(subs, e.res.Commands[j])
				}
			}
			switch {
			case anyOf(subs, isNetwork):
				k.floorAt(r.Span, "SG2302", "downloaded content is executed by "+quote(k.name))
			case anyOf(subs, isDecoder):
				k.addAt(r.Span, "SG2306", Deny, "decoded text is executed by "+quote(k.name))
			case r.Op == "<" && !r.Target.ProcSubst && e.downloaded[e.abs(r.Target.Value, r.Cwd)]:
				k.addAt(r.Span, "SG2303", Deny, "runs a file downloaded earlier in the same command")
			}
		}
	}
	// program text from substitutions: bash <(curl …), sh -c "$(curl …)",
	// eval "$(…)", source <(…)
	for _, a := range k.args {
		if len(a.Subst) == 0 && !a.Dynamic {
			continue
		}
		if !k.isCodeArg(a) {
			continue
		}
		var subs []*analyze.Command
		for _, j := range a.Subst {
			if j >= 0 && j < len(e.res.Commands) {
				subs = append(subs, e.res.Commands[j])
			}
		}
		switch {
		case anyOf(subs, isNetwork):
			k.floorAt(a.Span, "SG2302", "downloaded content is executed by "+quote(k.name))
		case anyOf(subs, isDecoder):
			k.addAt(a.Span, "SG2306", Deny, "decoded text is executed by "+quote(k.name))
		case len(subs) > 0 && allEnvInit(subs):
			// eval "$(ssh-agent -s)", eval "$(direnv hook bash)": tools
			// that print shell setup for the current shell
		case a.Dynamic && !(k.c.FuncDef != "" && a.Positional):
			k.addAt(a.Span, "SG2305", Ask, quote(k.name)+" runs code that is only known at run time")
		}
	}
	if k.interpreterLang() {
		k.interpreter()
	}
}

var envInitTools = map[string]bool{"ssh-agent": true, "direnv": true, "pyenv": true, "rbenv": true, "nodenv": true,
	"goenv": true, "brew": true, "starship": true, "zoxide": true, "fnm": true, "conda": true, "mise": true, "rtx": true,
	"opam": true, "dircolors": true, "keychain": true, "luarocks": true, "minikube": true, "docker-machine": true,
	"kubectl": true, "helm": true, "gh": true, "npm": true, "pip": true, "rustup": true, "volta": true, "jenv": true, "pipenv": true, "poetry": true}

func allEnvInit(cs []*analyze.Command) bool {
	for _, c := range cs {
		n := c.Name()
		if !envInitTools[n] {
			return false
		}
		if (n == "kubectl" || n == "helm" || n == "gh" || n == "npm" || n == "pip" || n == "rustup" || n == "poetry" || n == "pipenv") && !hasArg(c.Argv, "completion") && !hasArg(c.Argv, "completions") {
			return false
		}
	}
	return true
}

// isCodeArg reports whether an argument is program text or a script path.
func (k *cmdCheck) isCodeArg(a analyze.Arg) bool {
	switch {
	case k.name == "eval":
		return true
	case k.name == "source" || k.name == ".":
		return len(k.args) > 0 && k.args[0].Span == a.Span
	case k.c.Shell():
		prevC := false
		for _, x := range k.args {
			if x.Span == a.Span {
				if prevC {
					return true
				}
				return x.ProcSubst || (!strings.HasPrefix(x.Value, "-") && !prevC && x.Dynamic)
			}
			prevC = len(x.Value) > 1 && x.Value[0] == '-' && strings.ContainsRune(x.Value[1:], 'c') && !strings.HasPrefix(x.Value, "--")
			if !strings.HasPrefix(x.Value, "-") {
				return false
			}
		}
	case k.interpreterLang():
		for _, cd := range k.c.Code {
			if !cd.Stdin {
				return cd.Span == a.Span
			}
		}
		return a.ProcSubst
	}
	return false
}

var (
	reForkLoop        = lazyre.New(`(?s)(while|for\s*\(|loop|until|\bdo\b|\.times|setInterval).*fork|fork.*\b(while|until|for)\b|fork\s*\(\s*\)\s*;\s*fork\s*\(`)
	reWriteAPI        = lazyre.New(`writeFile|appendFile|open\([^)]*,\s*['"][wa+]|File\.write|File\.open\([^)]*['"][wa]|write_text|fopen\([^)]*['"][wa]|file_put_contents|>>\s*\$|print\s*\{?\s*\$fh|IO\.write`)
	reSensitiveInCode = lazyre.New(`\.bashrc|\.zshrc|\.profile|\.bash_profile|authorized_keys|crontab|/etc/|\.ssh/|systemd/|LaunchAgents|\.git/hooks`)
	reRevShell        = lazyre.New(`(?s)socket.*connect.*(dup2|subprocess|pty\.spawn|/bin/(ba)?sh|exec|spawn|popen|system)|(TCPSocket|fsockopen|Socket\.new|net\.connect|new\s+Socket|IO::Socket|/inet/tcp).*(/bin/(ba)?sh|exec|spawn|popen|system|dup)`)
	reRmAPI           = lazyre.New(`rmtree|rm_rf|rm_r\b|rmSync|rmdirSync|remove_dir_all|rimraf|FileUtils\.rm|unlinkSync|os\.remove|os\.unlink|os\.rmdir|shutil\.move|File\.delete|Files\.delete|deleteRecursively|\bunlink\b|rmdir\s*\(`)
	reCredInCode      = lazyre.New(`\.ssh/(id_|\*)|~/\.ssh\b|\.aws/credentials|\.netrc|\.git-credentials|\.docker/config\.json|\.kube/config|/etc/shadow|/environ\b|\.gnupg|\.config/gh/hosts|\.password-store|Cookies|Login Data|logins\.json|key4\.db`)
	reRootOrHome      = lazyre.New(`\(\s*['"]/['"]|['"]~|homedir|Dir\.home|expanduser|HOME|['"]/(etc|usr|bin|var|boot|lib|opt|root|home|sys)\b|os\.homedir|Path\.home|getenv\(\s*['"]HOME|\$ENV\{HOME\}|ENV\[.HOME.\]`)
	reDecodeExec      = lazyre.New(`(?s)(b64decode|base64|fromCharCode|decode\(|unhexlify|codecs\.decode|pack\(|Buffer\.from).*(exec|eval|system|popen|spawn)|(exec|eval)(\s*\(|\s+).*(b64decode|base64|decode|fromCharCode|Buffer\.from|pack\()`)
	reEnvDumpCode     = lazyre.New(`dict\(\s*os\.environ\s*\)|os\.environ\.(items|keys|values)\(|print\(\s*os\.environ\s*\)|json\.dumps\(\s*(dict\()?os\.environ|console\.log\(\s*process\.env\s*\)|JSON\.stringify\(\s*process\.env\s*\)|Object\.(entries|keys)\(\s*process\.env|\bENV\.(to_h|each|inspect)|p\s+ENV\b|%ENV`)
	reSecretInCode    = lazyre.New(`(?i)(environ(\.get)?\s*[\(\[]\s*['"]|process\.env\.|process\.env\[\s*['"]|ENV\[\s*['"]|\$ENV\{|getenv\(\s*['"])[A-Z0-9_]*(KEY|SECRET|TOKEN|PASSW|CREDENTIAL|PRIVATE)`)
	reNetAPI          = lazyre.New(`socket\.create_connection|\.connect\(|urlopen|urllib|requests\.(get|post|put)|http\.client|httpx|fetch\(|https?\.get|https?\.request|Net::HTTP|LWP|open-uri|URI\.open|HTTP::Tiny|curl_exec|file_get_contents\(\s*['"]https?:|socket\.socket|IO::Socket|TCPSocket`)
	reExecAPI         = lazyre.New(`\bexec\s*\(|\beval\s*[\(\s]|\bsystem\s*\(|subprocess|popen|spawn|execSync|child_process|os\.system|Function\(`)
	reReadAPI         = lazyre.New(`open\(|readFile|File\.read|os\.environ|process\.env|ENV\[|\$ENV\{|getenv|read_text`)
)

func (k *cmdCheck) interpreter() {
	for _, cd := range k.c.Code {
		k.interpreterCode(cd)
	}
}

func (k *cmdCheck) interpreterCode(cd analyze.Code) {
	code := cd.Text
	if strings.Contains(code, "fork") && reForkLoop.MatchString(code) {
		k.floorAt(cd.Span, "SG2503", "interpreter code forks in a loop: fork bomb")
	}
	if reWriteAPI.MatchString(code) && reSensitiveInCode.MatchString(code) {
		k.addAt(cd.Span, "SG2801", Deny, "interpreter code writes a startup file, key file or system file")
	}
	if containsAny(code, "socket", "Socket", "fsockopen", "net.connect", "/inet/") && reRevShell.MatchString(code) {
		k.addAt(cd.Span, "SG2504", Deny, "interpreter code connects a socket to a shell: reverse shell")
	}
	if reRmAPI.MatchString(code) {
		if reRootOrHome.MatchString(code) {
			k.addAt(cd.Span, "SG2501", Deny, "interpreter code deletes files outside the workspace (root, home or system)")
		}
	}
	if loc := reCredInCode.FindStringIndex(code); loc != nil {
		k.addAt(cd.Span, "SG2601", Deny, "interpreter code touches credentials ("+quote(code[loc[0]:loc[1]])+")")
	}
	if containsAny(code, "exec", "eval", "system", "popen", "spawn") && reDecodeExec.MatchString(code) {
		k.addAt(cd.Span, "SG2306", Deny, "interpreter code executes decoded data")
	}
	if reEnvDumpCode.MatchString(code) {
		k.addAt(cd.Span, "SG2604", Ask, "interpreter code prints the whole environment (may hold secrets)")
	}
	if reNetAPI.MatchString(code) && reSecretInCode.MatchString(code) {
		k.addAt(cd.Span, "SG2704", Deny, "interpreter code sends a secret variable over the network")
	}
	if reNetAPI.MatchString(code) && reExecAPI.MatchString(code) {
		k.addAt(cd.Span, "SG2302", Deny, "interpreter code downloads and executes code")
	} else if reNetAPI.MatchString(code) && reReadAPI.MatchString(code) && !localURL(code) && !strings.Contains(code, "localhost") {
		k.addAt(cd.Span, "SG2702", Ask, "interpreter code reads local data and talks to the network")
	}
	// shell commands the code runs literally are analysed as commands
	switch cd.Exec {
	case analyze.ExecComputed:
		k.addAt(cd.Span, "SG2502", Ask, "interpreter code runs shell commands built at run time")
	case analyze.ExecOpaque:
		k.addAt(cd.Span, "SG2502", Ask, "interpreter code runs commands that cannot be read statically")
	}
}

// ---- credentials, secrets, exfiltration ----

var metadataOnly = map[string]bool{"ls": true, "stat": true, "test": true, "[": true, "du": true, "find": true,
	"realpath": true, "readlink": true, "basename": true, "dirname": true, "mkdir": true, "touch": false, "cd": true}

// broadReads flags commands that read, copy or archive the whole home
// directory or file system, and searches for key files outside the
// workspace.
func (k *cmdCheck) broadReads() {
	switch k.name {
	case "grep", "rg", "ag", "ack", "tar", "zip", "cp", "rsync", "scp", "7z", "cpio", "du":
	case "find":
		for i, a := range k.args {
			if (a.Value == "-name" || a.Value == "-iname" || a.Value == "-path") && i+1 < len(k.args) {
				n := strings.ToLower(k.args[i+1].Value)
				if strings.Contains(n, "id_rsa") || strings.Contains(n, "id_ed25519") || strings.Contains(n, ".pem") || strings.Contains(n, "credentials") ||
					strings.Contains(n, ".env") || strings.Contains(n, "wallet") || strings.Contains(n, ".kdbx") || strings.Contains(n, "secret") || strings.Contains(n, ".key") {
					for _, r := range k.args[:i] {
						if strings.HasPrefix(r.Value, "-") {
							break
						}
						if p := k.e.abs(r.Value, k.c.Cwd); p != "" && !within(p, k.e.ws) {
							k.addAt(k.args[i+1].Span, "SG2601", Ask, "searches for key or credential files outside the workspace")
							return
						}
					}
				}
			}
		}
		return
	default:
		return
	}
	if k.name == "du" {
		return
	}
	recursive := k.name == "tar" || k.name == "zip" || k.name == "7z" || k.name == "cpio" || k.name == "rg" || k.name == "ag" || k.name == "ack" ||
		k.hasShort('r', "--recursive") || k.hasShort('R') || k.hasShort('a', "--archive")
	if !recursive {
		return
	}
	for _, a := range k.operands() {
		p := k.e.abs(a.Value, k.c.Cwd)
		if p == "" || within(p, k.e.ws) {
			continue
		}
		if p == k.e.home || p == "/" {
			k.addAt(a.Span, "SG2601", Ask, quote(k.name)+" reads every file under "+quote(a.Value)+", including secrets")
			return
		}
	}
}

func (k *cmdCheck) credentials() {
	k.broadReads()
	if k.c.Remote || metadataOnly[k.name] && !k.has("-exec", "-execdir", "-fprint", "-fls") {
		k.printsSecrets()
		return
	}
	e := k.e
	for _, a := range k.args {
		v := a.Value
		if v == "" {
			continue
		}
		// options like --data-binary=@file or key=value
		cands := []string{v}
		if i := strings.IndexByte(v, '@'); i >= 0 {
			cands = append(cands, v[i+1:])
		}
		if i := strings.IndexByte(v, '='); i >= 0 {
			cands = append(cands, v[i+1:])
		}
		for _, cnd := range cands {
			if !(strings.HasPrefix(cnd, "/") || strings.HasPrefix(cnd, "~") || strings.HasPrefix(cnd, ".") || strings.Contains(cnd, "/")) {
				continue
			}
			p := e.abs(cnd, k.c.Cwd)
			if strings.HasPrefix(p, "/proc/") && (strings.HasSuffix(p, "/environ")) {
				k.addAt(a.Span, "SG2602", Deny, "reads process environment "+quote(p)+" (secrets)")
				return
			}
			if what := e.credentialPath(p); what != "" {
				k.addAt(a.Span, "SG2601", Deny, "touches credentials: "+quote(what))
				return
			}
		}
	}
	for _, r := range k.c.Redirects {
		if r.Write || r.Target.Dynamic {
			continue
		}
		p := e.abs(r.Target.Value, r.Cwd)
		if r.Op == "<<" || r.Op == "<<<" || r.Op == "<<-" {
			continue
		}
		if strings.HasPrefix(p, "/proc/") && strings.HasSuffix(p, "/environ") {
			k.addAt(r.Span, "SG2602", Deny, "reads process environment "+quote(p)+" (secrets)")
			return
		}
		if what := e.credentialPath(p); what != "" {
			k.addAt(r.Span, "SG2601", Deny, "reads credentials: "+quote(what))
			return
		}
	}
	k.printsSecrets()
}

// printsSecrets flags commands whose purpose is to print secrets.
func (k *cmdCheck) printsSecrets() {
	sub, rest := k.sub()
	switch k.name {
	case "gh":
		if len(rest) > 0 && (rest[0].Value == "delete" || rest[0].Value == "delete-asset") && sub != "auth" {
			k.add("SG3205", Deny, "gh "+sub+" "+rest[0].Value+" deletes a hosted resource")
		}
		if sub == "auth" && len(rest) > 0 && (rest[0].Value == "token" || rest[0].Value == "status" && hasArgA(rest, "-t", "--show-token")) {
			k.add("SG2603", Deny, "prints a GitHub token")
		}
	case "security":
		if strings.HasPrefix(sub, "find-") && strings.HasSuffix(sub, "password") || sub == "dump-keychain" || sub == "export" {
			k.add("SG2603", Deny, "reads secrets from the keychain")
		}
	case "aws":
		if sub == "configure" && len(rest) > 0 && (rest[0].Value == "get" || rest[0].Value == "export-credentials") || sub == "sts" && len(rest) > 0 && rest[0].Value == "get-session-token" || sub == "ecr" && len(rest) > 0 && rest[0].Value == "get-login-password" {
			k.add("SG2603", Deny, "prints cloud credentials")
		}
	case "gcloud":
		if hasArgA(k.args, "print-access-token", "print-identity-token") {
			k.add("SG2603", Deny, "prints cloud credentials")
		}
	case "az":
		if hasArgA(k.args, "get-access-token") {
			k.add("SG2603", Deny, "prints cloud credentials")
		}
	case "kubectl":
		if sub == "config" && hasArgA(k.args, "--raw") {
			k.add("SG2603", Deny, "prints cluster credentials")
		}
		if sub == "get" && len(rest) > 0 && strings.HasPrefix(rest[0].Value, "secret") {
			k.add("SG2603", Ask, "reads cluster secrets")
		}
	case "git":
		if sub == "credential" && len(rest) > 0 && rest[0].Value == "fill" {
			k.add("SG2603", Deny, "asks git's credential helper for a password")
		}
	case "secret-tool", "op", "pass", "vault", "keyctl", "gopass", "bw", "lpass":
		if sub == "lookup" || sub == "read" || sub == "show" || sub == "get" || sub == "print" || sub == "item" || sub == "kv" || (k.name == "pass" && sub != "ls" && sub != "" && sub != "init") {
			k.add("SG2603", Deny, "reads a secret from a password store")
		}
	case "printenv":
		if len(k.operands()) == 0 {
			k.add("SG2604", Ask, "prints the whole environment (may hold secrets)")
		}
		for _, a := range k.operands() {
			if reSecretName.MatchString(a.Value) {
				k.addAt(a.Span, "SG2604", Ask, "prints the secret variable "+a.Value)
				break
			}
		}
	case "env":
		if len(k.args) == 0 || allOptions(k.args) {
			k.add("SG2604", Ask, "prints the whole environment (may hold secrets)")
		}
	case "export", "declare", "typeset":
		if len(k.c.Assigns) == 0 && (len(k.args) == 0 || allOptions(k.args) && hasArgA(k.args, "-p", "-x", "-px")) {
			k.add("SG2604", Ask, "prints exported variables (may hold secrets)")
		}
	case "set":
		if len(k.args) == 0 {
			k.add("SG2604", Ask, "prints every shell variable (may hold secrets)")
		}
	}
	if k.name == "gpg" || k.name == "gpg2" {
		if hasArgA(k.args, "--export-secret-keys", "--export-secret-subkeys", "--export-ssh-key") {
			k.add("SG2603", Deny, "exports private keys")
		}
	}
	if strings.HasPrefix(k.name, "docker-credential-") {
		k.add("SG2603", Deny, "reads registry credentials")
	}
}

func isEnvDump(c *analyze.Command) bool {
	n := c.Name()
	switch n {
	case "env", "printenv":
		for _, a := range c.Argv[1:] {
			if !strings.HasPrefix(a, "-") {
				return false
			}
		}
		return true
	case "set", "export", "declare":
		return len(c.Argv) == 1 || len(c.Argv) == 2 && (c.Argv[1] == "-p" || c.Argv[1] == "-x")
	}
	return false
}

func allOptions(args []analyze.Arg) bool {
	for _, a := range args {
		if !strings.HasPrefix(a.Value, "-") {
			return false
		}
	}
	return true
}

func hasArgA(args []analyze.Arg, vals ...string) bool {
	for _, a := range args {
		for _, v := range vals {
			if a.Value == v || strings.HasPrefix(a.Value, v+"=") {
				return true
			}
		}
	}
	return false
}

var reSecretName = lazyre.New(`(?i)(KEY|SECRET|TOKEN|PASSW|CREDENTIAL|AUTH|PRIVATE|SESSION|COOKIE)`)

func (k *cmdCheck) secretVars() {
	if !isNetwork(k.c) && k.name != "dig" && k.name != "nslookup" && k.name != "host" && k.name != "ping" {
		return
	}
	for i, a := range k.args {
		for _, v := range a.Vars {
			if !reSecretName.MatchString(v) {
				continue
			}
			// A token in an authentication header sent to its own
			// service (GITHUB_TOKEN to github.com) is what it is for.
			if i > 0 && isAuthFlag(k.args[i-1].Value, a.Value) && k.tokenForHost(v) {
				continue
			}
			k.addAt(a.Span, "SG2704", Deny, "sends the secret variable $"+v+" over the network")
			return
		}
	}
	for _, a := range k.args {
		for _, j := range a.Subst {
			if j >= 0 && j < len(k.e.res.Commands) {
				if sc := k.e.res.Commands[j]; k.e.readsCredentials(sc) {
					k.addAt(a.Span, "SG2707", Deny, "sends secrets or the environment over the network")
					return
				}
			}
		}
	}
	// credentials or environment fed into a network command
	if k.c.StdinPipe {
		up := k.e.upstream(k.c)
		if anyOf(up, isEnvDump) {
			k.add("SG2707", Deny, "sends the environment over the network")
		} else if anyOf(up, func(c *analyze.Command) bool { return k.e.readsCredentials(c) }) {
			k.add("SG2707", Deny, "sends credentials over the network")
		}
	}
}

func isAuthFlag(flag, val string) bool {
	if len(flag) > 2 && flag[0] == '-' && flag[1] != '-' {
		flag = "-" + flag[len(flag)-1:] // grouped short flags: -sH
	}
	switch flag {
	case "-u", "--user", "--oauth2-bearer", "--header", "-H", "--http-user", "--http-password", "--password":
		if flag == "-H" || flag == "--header" {
			l := strings.ToLower(val)
			return strings.HasPrefix(l, "authorization:") || strings.HasPrefix(l, "private-token:") || strings.HasPrefix(l, "x-api-key:") ||
				strings.HasPrefix(l, "x-auth-token:") || strings.HasPrefix(l, "api-key:")
		}
		return true
	}
	return false
}

// tokenForHost reports whether every URL of the command goes to the
// service the variable is named after.
func (k *cmdCheck) tokenForHost(v string) bool {
	parts := strings.FieldsFunc(strings.ToLower(v), func(r rune) bool { return r == '_' })
	found := false
	for _, a := range k.args {
		u := a.Value
		i := strings.Index(u, "://")
		if i < 0 {
			continue
		}
		host := u[i+3:]
		if j := strings.IndexAny(host, "/?#:"); j >= 0 {
			host = host[:j]
		}
		// the registrable name: "github" in api.github.com, never a
		// prefix of someone else's domain (github.com.evil.example)
		labels := strings.Split(host, ".")
		if len(labels) < 2 {
			return false
		}
		site := labels[len(labels)-2]
		ok := false
		for _, p := range parts {
			if len(p) >= 3 && p == site {
				ok = true
			}
		}
		if !ok {
			return false
		}
		found = true
	}
	return found
}

func (e *evaluator) readsCredentials(c *analyze.Command) bool {
	for _, a := range c.Argv[1:] {
		if secretFile(a) {
			return true
		}
		if strings.HasPrefix(a, "/") || strings.HasPrefix(a, "~") || strings.Contains(a, "/") {
			if e.credentialPath(e.abs(a, c.Cwd)) != "" || strings.HasPrefix(e.abs(a, c.Cwd), "/etc/") {
				return true
			}
		}
	}
	for _, r := range c.Redirects {
		if !r.Write && (secretFile(r.Target.Value) || e.credentialPath(e.abs(r.Target.Value, r.Cwd)) != "") {
			return true
		}
	}
	return isEnvDump(c)
}

func localURL(s string) bool {
	return strings.Contains(s, "://localhost") || strings.Contains(s, "://127.") || strings.Contains(s, "://[::1]") ||
		strings.Contains(s, "://0.0.0.0") || strings.HasPrefix(s, "localhost:") || strings.HasPrefix(s, "127.0.0.1")
}

func (k *cmdCheck) remoteTarget() bool {
	remote := false
	for _, a := range k.args {
		v := a.Value
		if strings.Contains(v, "://") || strings.Contains(v, ".") && !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "@") && !strings.HasPrefix(v, ".") && !strings.HasPrefix(v, "/") {
			if localURL(v) {
				return false
			}
			remote = true
		}
	}
	return remote
}

func (k *cmdCheck) upload(file string, sp analyze.Span) {
	e := k.e
	if file == "-" || file == "" {
		up := e.upstream(k.c)
		if anyOf(up, isEnvDump) || anyOf(up, e.readsCredentials) {
			k.addAt(sp, "SG2701", Deny, "uploads credentials or the environment")
		} else if len(up) > 0 && k.remoteTarget() {
			k.addAt(sp, "SG2702", Ask, "uploads piped data to a remote host")
		}
		return
	}
	p := e.abs(file, k.c.Cwd)
	if what := e.credentialPath(p); what != "" || secretFile(file) || p != "" && strings.HasPrefix(p, "/etc/") {
		k.addAt(sp, "SG2701", Deny, "uploads a secret or system file "+quote(file))
		return
	}
	if k.remoteTarget() {
		k.addAt(sp, "SG2702", Ask, "uploads the local file "+quote(file)+" to a remote host")
	}
}

// ---- download then execute ----

func (k *cmdCheck) downloadExec() {
	e := k.e
	c := k.c
	// record downloads
	switch k.name {
	case "curl":
		for i, a := range k.args {
			v := a.Value
			if (v == "-o" || v == "--output") && i+1 < len(k.args) {
				e.markDownload(k.args[i+1].Value, c.Cwd)
			} else if strings.HasPrefix(v, "--output=") {
				e.markDownload(strings.TrimPrefix(v, "--output="), c.Cwd)
			} else if v == "-O" || v == "--remote-name" {
				for _, u := range k.args {
					if strings.Contains(u.Value, "://") {
						e.markDownload(path.Base(u.Value), c.Cwd)
					}
				}
			}
		}
		for _, r := range c.Redirects {
			if r.Write && (r.N == "" || r.N == "1") {
				e.markDownload(r.Target.Value, r.Cwd)
			}
		}
	case "wget":
		named := false
		for i, a := range k.args {
			v := a.Value
			if (v == "-O" || v == "--output-document") && i+1 < len(k.args) {
				e.markDownload(k.args[i+1].Value, c.Cwd)
				named = true
			} else if strings.HasPrefix(v, "--output-document=") {
				e.markDownload(strings.TrimPrefix(v, "--output-document="), c.Cwd)
				named = true
			} else if strings.HasPrefix(v, "-O") && len(v) > 2 {
				e.markDownload(v[2:], c.Cwd)
				named = true
			}
		}
		if !named {
			for _, u := range k.args {
				if strings.Contains(u.Value, "://") {
					e.markDownload(path.Base(u.Value), c.Cwd)
				}
			}
		}
	}
	if len(e.downloaded) == 0 && len(e.downloadedDirs) == 0 {
		return
	}
	isDl := func(v string) bool {
		p := e.abs(v, c.Cwd)
		if p == "" {
			return false
		}
		for _, d := range e.downloadedDirs {
			if within(p, d) && p != d {
				return true
			}
		}
		return e.downloaded[p]
	}
	if isDl(c.Args[0].Value) && strings.Contains(c.Args[0].Value, "/") {
		k.add("SG2303", Deny, "runs a file downloaded earlier in the same command")
		return
	}
	if k.runsCode() && k.name != "eval" {
		for _, a := range k.args {
			if strings.HasPrefix(a.Value, "-") {
				continue
			}
			if isDl(a.Value) {
				k.add("SG2303", Deny, "runs a file downloaded earlier in the same command")
			}
			break
		}
	}
	if k.name == "chmod" {
		for _, a := range k.operands() {
			if isDl(a.Value) && strings.Contains(k.args[0].Value, "x") {
				k.add("SG2303", Ask, "makes a downloaded file executable")
			}
		}
	}
}

func (e *evaluator) markDownload(p, cwd string) {
	if a := e.abs(p, cwd); a != "" && !safeDevice(a) {
		e.downloaded[a] = true
	}
}

// ---- per-command checks ----

var checks map[string]func(*cmdCheck)

func init() {
	checks = map[string]func(*cmdCheck){
		"rm": (*cmdCheck).rm, "rmdir": (*cmdCheck).rm, "unlink": (*cmdCheck).rm, "srm": (*cmdCheck).rm,
		"shred":  (*cmdCheck).shred,
		"dd":     (*cmdCheck).dd,
		"wipefs": (*cmdCheck).disk, "fdisk": (*cmdCheck).disk, "sfdisk": (*cmdCheck).disk, "gdisk": (*cmdCheck).disk,
		"sgdisk": (*cmdCheck).disk, "cfdisk": (*cmdCheck).disk, "parted": (*cmdCheck).disk, "blkdiscard": (*cmdCheck).disk,
		"mdadm": (*cmdCheck).disk, "dmsetup": (*cmdCheck).disk, "losetup": (*cmdCheck).disk, "cryptsetup": (*cmdCheck).disk, "pvcreate": (*cmdCheck).disk, "vgremove": (*cmdCheck).disk,
		"lvremove": (*cmdCheck).disk, "zpool": (*cmdCheck).disk, "badblocks": (*cmdCheck).disk, "hdparm": (*cmdCheck).disk,
		"sudo": (*cmdCheck).priv, "su": (*cmdCheck).priv, "doas": (*cmdCheck).priv, "pkexec": (*cmdCheck).priv,
		"run0": (*cmdCheck).priv, "runuser": (*cmdCheck).priv, "sg": (*cmdCheck).priv, "newgrp": (*cmdCheck).priv,
		"setpriv": (*cmdCheck).priv, "chroot": (*cmdCheck).priv, "visudo": (*cmdCheck).priv, "passwd": (*cmdCheck).priv,
		"useradd": (*cmdCheck).priv, "userdel": (*cmdCheck).priv, "usermod": (*cmdCheck).priv, "adduser": (*cmdCheck).priv,
		"deluser": (*cmdCheck).priv, "groupadd": (*cmdCheck).priv, "chpasswd": (*cmdCheck).priv, "setcap": (*cmdCheck).priv,
		"nsenter": (*cmdCheck).priv,
		"dropdb":  (*cmdCheck).dropdb, "dropuser": (*cmdCheck).dropdb, "mysqladmin": (*cmdCheck).dropdb, "etcdctl": (*cmdCheck).dropdb,
		"nmcli": (*cmdCheck).nmcli, "date": (*cmdCheck).dateCmd, "hostname": (*cmdCheck).hostnameCmd, "ps": (*cmdCheck).psCmd,
		"echo": (*cmdCheck).echoSecret, "printf": (*cmdCheck).echoSecret, "export": (*cmdCheck).exportF, "declare": (*cmdCheck).exportF,
		"docker": (*cmdCheck).docker, "kubectl": (*cmdCheck).kubectl, "terraform": (*cmdCheck).terraform,
		"helm": (*cmdCheck).helm, "aws": (*cmdCheck).cloud, "gcloud": (*cmdCheck).cloud, "az": (*cmdCheck).cloud, "gsutil": (*cmdCheck).cloud,
		"psql": (*cmdCheck).sql, "mysql": (*cmdCheck).sql, "sqlite3": (*cmdCheck).sql, "cockroach": (*cmdCheck).sql,
		"clickhouse-client": (*cmdCheck).sql, "mongo": (*cmdCheck).sql, "redis-cli": (*cmdCheck).redis,
		"git":      (*cmdCheck).git,
		"shutdown": (*cmdCheck).power, "reboot": (*cmdCheck).power, "halt": (*cmdCheck).power, "poweroff": (*cmdCheck).power,
		"init": (*cmdCheck).power, "telinit": (*cmdCheck).power,
		"kill": (*cmdCheck).kill, "pkill": (*cmdCheck).kill, "killall": (*cmdCheck).kill, "killall5": (*cmdCheck).kill,
		"sysctl": (*cmdCheck).sysctl, "iptables": (*cmdCheck).firewall, "ip6tables": (*cmdCheck).firewall,
		"nft": (*cmdCheck).firewall, "ufw": (*cmdCheck).firewall, "firewall-cmd": (*cmdCheck).firewall, "pfctl": (*cmdCheck).firewall,
		"mount": (*cmdCheck).mount, "umount": (*cmdCheck).mount, "swapoff": (*cmdCheck).mount, "swapon": (*cmdCheck).mount,
		"modprobe": (*cmdCheck).kmod, "insmod": (*cmdCheck).kmod, "rmmod": (*cmdCheck).kmod, "kexec": (*cmdCheck).kmod,
		"systemctl": (*cmdCheck).systemctl, "service": (*cmdCheck).systemctl, "launchctl": (*cmdCheck).systemctl,
		"crontab": (*cmdCheck).crontab, "at": (*cmdCheck).at, "batch": (*cmdCheck).at,
		"ip": (*cmdCheck).ipcmd, "ifconfig": (*cmdCheck).ipcmd, "hostnamectl": (*cmdCheck).ipcmd, "timedatectl": (*cmdCheck).ipcmd,
		"chmod": (*cmdCheck).perms, "chown": (*cmdCheck).perms, "chgrp": (*cmdCheck).perms, "chattr": (*cmdCheck).perms,
		"nc": (*cmdCheck).netcat, "socat": (*cmdCheck).socat, "telnet": (*cmdCheck).netcat,
		"curl": (*cmdCheck).curl, "wget": (*cmdCheck).wget, "scp": (*cmdCheck).scp, "rsync": (*cmdCheck).scp, "sftp": (*cmdCheck).scp,
		"find": (*cmdCheck).find, "sed": (*cmdCheck).sed, "awk": (*cmdCheck).awk,
		"alias": (*cmdCheck).alias, "shopt": (*cmdCheck).shopt, "enable": (*cmdCheck).enable, "hash": (*cmdCheck).hashCmd,
		"tar": (*cmdCheck).tar, "ssh": (*cmdCheck).ssh, "env": (*cmdCheck).envCmd,
		"vim": (*cmdCheck).vim, "vi": (*cmdCheck).vim, "nvim": (*cmdCheck).vim, "ex": (*cmdCheck).vim,
		"emulate": (*cmdCheck).zshEmulate, "rg": (*cmdCheck).rgPre,
		"bash": (*cmdCheck).shellFlags, "sh": (*cmdCheck).shellFlags, "zsh": (*cmdCheck).shellFlags, "dash": (*cmdCheck).shellFlags,
	}
}

var zshBuiltins = map[string]bool{"zmodload": true, "ztcp": true, "zsocket": true, "zpty": true, "sysopen": true,
	"syswrite": true, "sysread": true, "sysseek": true, "zsystem": true}

// rmTarget classifies one deletion target.
func (k *cmdCheck) rmTarget(a analyze.Arg, recursive bool, verb string) {
	e := k.e
	if k.c.Remote {
		v := strings.TrimSuffix(a.Value, "/")
		if recursive && (v == "" || v == "/*" || v == "~" || v == "$HOME" || v == e.home || v == e.home+"/*" || e.criticalDir(v)) {
			k.floorAt(a.Span, "SG2001", verb+" of "+quote(v)+" wipes the system")
		}
		return
	}
	if a.Dynamic && !strings.HasPrefix(a.Value, "/") {
		if recursive {
			k.addAt(a.Span, "SG2005", Ask, "recursive "+verb+" of a path known only at run time ("+quote(a.Value)+")")
		}
		return
	}
	v := a.Value
	glob := a.Glob
	dir := v
	direct := false
	if glob {
		dir, direct = globBase(v)
		// "*.log" or "build-*" name what they delete; "*", ".*", "*.*"
		// delete everything in the directory.
		direct = direct && unscopedGlob(path.Base(v))
	}
	p := e.abs(dir, k.c.Cwd)
	if p == "" {
		if recursive {
			k.addAt(a.Span, "SG2005", Ask, "recursive "+verb+" in a directory known only at run time")
		}
		return
	}
	if strings.HasSuffix(v, "{}") && (strings.HasSuffix(p, "/{}")) {
		p = path.Dir(p)
		glob, direct = true, false
		if within(p, e.ws) {
			return
		}
	}
	// The user's own configuration and document folders stay protected
	// even when the workspace is the home directory itself.
	if path.Dir(p) == e.home && homeCritical[path.Base(p)] && (recursive || !strings.HasPrefix(path.Base(p), ".") || rcFile(path.Base(p))) {
		k.addAt(a.Span, "SG2002", Deny, verb+" of "+quote(v)+", the user's own "+path.Base(p)+" in home")
		return
	}
	if within(p, e.ws) && p != e.ws {
		return // inside the workspace, even when the workspace is the home directory
	}
	switch {
	case p == "/" || (e.criticalDir(p) && recursive):
		if recursive || glob {
			k.floorAt(a.Span, "SG2001", "recursive "+verb+" of the system directory "+quote(p))
		} else {
			k.addAt(a.Span, "SG2007", Deny, verb+" in the system directory "+quote(p))
		}
	case p == e.home:
		if recursive || glob && direct {
			k.floorAt(a.Span, "SG2002", "recursive "+verb+" of the home directory "+quote(v))
		} else if glob {
			k.addAt(a.Span, "SG2004", Ask, verb+" of "+quote(v)+" in the home directory")
		}
	case path.Dir(p) == e.home && strings.HasPrefix(path.Base(p), ".") && recursive:
		k.addAt(a.Span, "SG2002", Deny, "recursive "+verb+" of the configuration directory "+quote(v)+" in home")
	case within(p, e.home) && !e.rules.Unrestricted:
		if recursive {
			k.addAt(a.Span, "SG2004", Ask, "recursive "+verb+" of "+quote(v)+" in the home directory, outside the workspace")
		} else {
			k.addAt(a.Span, "SG2008", Ask, verb+" of "+quote(v)+" outside the workspace")
		}
	case within(e.ws, p) && p != e.ws:
		// an ancestor of the workspace
		k.addAt(a.Span, "SG2004", Deny, verb+" of "+quote(v)+", a parent of the workspace")
	case p == e.ws:
		if recursive && (!glob || direct) {
			k.addAt(a.Span, "SG2003", Deny, "recursive "+verb+" of the whole workspace ("+quote(v)+")")
		} else if glob && direct {
			k.addAt(a.Span, "SG2003", Ask, verb+" of every file at the workspace root ("+quote(v)+")")
		}
	case within(p, e.ws):
		// fine
	case e.inRoots(p):
		for _, r := range e.roots {
			if p == r && recursive {
				k.addAt(a.Span, "SG2004", Ask, "recursive "+verb+" of the whole directory "+quote(p))
			}
		}
	case e.systemPath(p):
		k.addAt(a.Span, "SG2007", Deny, verb+" of "+quote(p)+" outside the workspace (system location)")
	default:
		if e.rules.Unrestricted {
			return
		}
		if recursive {
			k.addAt(a.Span, "SG2004", Deny, "recursive "+verb+" of "+quote(v)+" outside the workspace")
		} else {
			k.addAt(a.Span, "SG2008", Ask, verb+" of "+quote(v)+" outside the workspace")
		}
	}
}

func (k *cmdCheck) rm() {
	recursive := k.hasShort('r', "--recursive") || k.hasShort('R') || k.name == "rmdir" && k.has("-p", "--parents") || k.c.Name() == "rimraf"
	ops := k.operands()
	fromFind := len(k.c.Wrappers) > 0 && k.c.Wrappers[len(k.c.Wrappers)-1].Program == "find"
	if k.c.ExtraArgs && recursive && !fromFind {
		k.add("SG2005", Ask, "recursive delete of paths read from input")
	}
	for _, a := range ops {
		k.rmTarget(a, recursive, "delete")
	}
	if k.e.rules.Readonly {
		k.add("SG2010", Deny, "deletes files in read-only mode")
	}
}

func (k *cmdCheck) shred() {
	for _, a := range k.operands() {
		p := k.e.abs(a.Value, k.c.Cwd)
		if p == "" {
			continue
		}
		if blockDevice(p) {
			k.floorAt(a.Span, "SG2102", "overwrites the block device "+quote(p))
		} else if !within(p, k.e.ws) && !safeDevice(p) {
			k.addAt(a.Span, "SG2006", Deny, "irreversibly overwrites "+quote(a.Value)+" outside the workspace")
		}
	}
}

func (k *cmdCheck) dd() {
	for _, a := range k.args {
		if strings.HasPrefix(a.Value, "of=") {
			k.e.writeTarget(k.i, a.Span, strings.TrimPrefix(a.Value, "of="), a.Dynamic, k.c.Cwd, "dd writes")
		}
	}
}

func (k *cmdCheck) disk() {
	dev := false
	for _, a := range k.operands() {
		if strings.HasPrefix(a.Value, "/dev/") {
			dev = true
		}
	}
	if k.name == "hdparm" && !k.has("--security-erase", "--security-erase-enhanced", "--trim-sector-ranges", "--fwdownload") {
		return
	}
	if dev || k.name == "wipefs" || k.name == "blkdiscard" {
		k.floor("SG2101", quote(k.name)+" formats, partitions or erases a disk")
	} else if !k.has("-l", "--list", "-h", "--help", "--version", "-V", "list", "status") {
		k.add("SG2101", Ask, quote(k.name)+" manages disks or file systems")
	}
}

func (k *cmdCheck) priv() {
	switch k.name {
	case "chroot", "nsenter":
		k.add("SG2204", Ask, quote(k.name)+" changes the root or namespaces of a process")
		return
	}
	k.add("SG2201", Deny, quote(k.name)+" changes user or privileges")
}

func (k *cmdCheck) docker() {
	sub, rest := k.sub()
	switch sub {
	case "run", "create":
		for i, a := range rest {
			v := a.Value
			switch {
			case v == "--privileged" || strings.HasPrefix(v, "--pid=host") || v == "--pid" && i+1 < len(rest) && rest[i+1].Value == "host" ||
				strings.HasPrefix(v, "--cap-add") && (strings.Contains(v, "SYS_ADMIN") || strings.Contains(v, "ALL") || i+1 < len(rest) && (rest[i+1].Value == "SYS_ADMIN" || rest[i+1].Value == "ALL")) ||
				strings.HasPrefix(v, "--userns=host") || strings.HasPrefix(v, "--security-opt") && i+1 < len(rest) && strings.Contains(rest[i+1].Value, "unconfined"):
				k.addAt(a.Span, "SG2203", Deny, "container gets host privileges ("+v+")")
			case (v == "-v" || v == "--volume" || v == "--mount") && i+1 < len(rest):
				k.mountSrc(rest[i+1])
			case strings.HasPrefix(v, "--volume=") || strings.HasPrefix(v, "--mount="):
				a2 := a
				a2.Value = v[strings.IndexByte(v, '=')+1:]
				k.mountSrc(a2)
			}
			if !strings.HasPrefix(v, "-") && i > 0 && !strings.HasPrefix(rest[i-1].Value, "-") {
				break
			}
		}
	case "compose":
		for i, a := range rest {
			if a.Value == "down" && (hasArgA(rest[i:], "-v") || hasArgA(rest[i:], "--volumes")) {
				k.add("SG3206", Deny, "docker compose down -v deletes volumes")
			}
		}
	case "down":
		if k.c.Name() == "docker-compose" && (k.has("-v") || k.has("--volumes")) {
			k.add("SG3206", Deny, "docker-compose down -v deletes volumes")
		}
	case "system", "volume", "image", "container", "network", "builder", "buildx":
		if len(rest) > 0 {
			op := rest[0].Value
			if op == "prune" && (sub == "system" || sub == "volume" || hasArgA(rest, "-a", "--all")) || op == "rm" && sub == "volume" {
				k.add("SG3206", Deny, "docker "+sub+" "+op+" deletes data irreversibly")
			}
		}
	}
}

func (k *cmdCheck) mountSrc(a analyze.Arg) {
	v := a.Value
	if strings.HasPrefix(v, "type=") || strings.Contains(v, "source=") || strings.Contains(v, "src=") {
		for _, part := range strings.Split(v, ",") {
			if strings.HasPrefix(part, "source=") || strings.HasPrefix(part, "src=") {
				v = part[strings.IndexByte(part, '=')+1:] + ":"
			}
		}
	}
	src, _, ok := strings.Cut(v, ":")
	if !ok || !(strings.HasPrefix(src, "/") || strings.HasPrefix(src, "~") || strings.HasPrefix(src, ".")) {
		return
	}
	p := k.e.abs(src, k.c.Cwd)
	switch {
	case p == "":
	case within(p, k.e.ws):
	case p == "/" || p == "/var/run/docker.sock" || p == "/run/docker.sock" || k.e.criticalDir(p) || p == k.e.home || k.e.credentialPath(p) != "":
		k.addAt(a.Span, "SG2203", Deny, "mounts the host path "+quote(src)+" into a container")
	case within(p, k.e.ws) || k.e.inRoots(p):
	default:
		k.addAt(a.Span, "SG2203", Ask, "mounts "+quote(src)+" from outside the workspace into a container")
	}
}

func (k *cmdCheck) dryRun() bool {
	for _, a := range k.args {
		v := a.Value
		if v == "--dry-run" || v == "--dryrun" || strings.HasPrefix(v, "--dry-run=client") || strings.HasPrefix(v, "--dry-run=server") || v == "--dry-run=true" || v == "-n" && k.name == "rsync" {
			return true
		}
	}
	return false
}

func (k *cmdCheck) kubectl() {
	if k.dryRun() {
		return
	}
	sub, rest := k.sub()
	switch sub {
	case "delete", "drain", "replace", "taint", "cordon":
		if sub == "replace" && !hasArgA(rest, "--force") {
			return
		}
		k.add("SG3201", Deny, "kubectl "+sub+" changes or removes cluster resources")
	case "scale":
		if hasArgA(rest, "--replicas=0") {
			k.add("SG3201", Ask, "scales a workload to zero")
		}
	}
}

func (k *cmdCheck) terraform() {
	sub, rest := k.sub()
	switch {
	case sub == "destroy":
		k.add("SG3202", Deny, "terraform destroy removes infrastructure")
	case sub == "workspace" && len(rest) > 0 && rest[0].Value == "delete":
		k.add("SG3202", Deny, "terraform workspace delete removes a workspace's state")
	case sub == "apply" && (hasArgA(rest, "-destroy", "--destroy")):
		k.add("SG3202", Deny, "terraform apply -destroy removes infrastructure")
	case sub == "apply" && hasArgA(rest, "-auto-approve", "--auto-approve"):
		k.add("SG3202", Ask, "terraform apply without review")
	case sub == "state" && len(rest) > 0 && (rest[0].Value == "rm" || rest[0].Value == "push"):
		k.add("SG3202", Ask, "terraform state "+rest[0].Value+" edits infrastructure state")
	}
}

func (k *cmdCheck) helm() {
	if k.dryRun() {
		return
	}
	sub, _ := k.sub()
	if sub == "uninstall" || sub == "delete" || sub == "del" {
		k.add("SG3207", Deny, "helm "+sub+" removes a release")
	}
}

var reCloudDelete = lazyre.New(`^(delete|terminate|remove|deregister|destroy|purge|rb)(-|$)`)

func (k *cmdCheck) cloud() {
	if k.dryRun() {
		return
	}
	sub, rest := k.sub()
	switch k.name {
	case "aws":
		if sub == "s3" && len(rest) > 0 {
			op := rest[0].Value
			if op == "rb" || op == "rm" && hasArgA(rest, "--recursive") || op == "sync" && hasArgA(rest, "--delete") {
				k.add("SG3205", Deny, "aws s3 "+op+" deletes cloud data")
			}
			return
		}
		for _, a := range rest {
			if reCloudDelete.MatchString(a.Value) {
				k.add("SG3205", Deny, "aws "+sub+" "+a.Value+" deletes cloud resources")
				return
			}
		}
	case "gsutil":
		if sub == "rb" || sub == "rm" && (hasArgA(rest, "-r") || hasArgA(rest, "-R")) {
			k.add("SG3205", Deny, "gsutil "+sub+" deletes cloud data")
		}
	default:
		for _, a := range k.args {
			if a.Value == "delete" || a.Value == "destroy" || a.Value == "purge" {
				k.add("SG3205", Deny, k.name+" "+a.Value+" deletes cloud resources")
				return
			}
		}
	}
}

var reDestructiveSQL = lazyre.New(`(?i)\b(drop\s+(table|database|schema|index|view|user|role)|truncate\b|dropDatabase|\.drop\(\)|flushall|alter\s+table\s+\S+\s+drop)|(deleteMany|remove|delete_many)\(\s*\{\s*\}\s*\)`)
var reDeleteFrom = lazyre.New(`(?i)\bdelete\s+from\b`)
var reUpdateSet = lazyre.New(`(?i)\bupdate\s+\S+\s+set\b`)
var reWhere = lazyre.New(`(?i)\bwhere\b`)

func (k *cmdCheck) sql() {
	if k.c.StdinPipe {
		for _, u := range k.e.upstream(k.c) {
			if n := u.Name(); n == "echo" || n == "printf" || n == "cat" {
				for _, a := range u.Argv[1:] {
					if reDestructiveSQL.MatchString(a) || (reDeleteFrom.MatchString(a) || reUpdateSet.MatchString(a)) && !reWhere.MatchString(a) {
						k.add("SG3203", Deny, "destructive SQL statement fed on stdin")
						return
					}
				}
			}
		}
	}
	for _, r := range k.c.Redirects {
		if r.Op == "<<<" || r.Op == "<<" || r.Op == "<<-" {
			if reDestructiveSQL.MatchString(r.Target.Value) {
				k.addAt(r.Span, "SG3203", Deny, "destructive SQL statement in a here-document")
				return
			}
		}
	}
	for _, a := range k.args {
		q := a.Value
		if reDestructiveSQL.MatchString(q) {
			k.addAt(a.Span, "SG3203", Deny, "destructive SQL statement")
			return
		}
		if (reDeleteFrom.MatchString(q) || reUpdateSet.MatchString(q)) && !reWhere.MatchString(q) {
			k.addAt(a.Span, "SG3203", Deny, "DELETE or UPDATE without WHERE changes every row")
			return
		}
	}
}

func (k *cmdCheck) redis() {
	for i, a := range k.args {
		switch strings.ToUpper(a.Value) {
		case "FLUSHALL", "FLUSHDB", "SHUTDOWN":
			k.addAt(a.Span, "SG3204", Deny, "redis "+strings.ToUpper(a.Value)+" destroys data or the server")
			return
		case "CONFIG":
			if i+1 < len(k.args) && strings.EqualFold(k.args[i+1].Value, "SET") {
				k.addAt(a.Span, "SG3204", Ask, "redis CONFIG SET changes the server")
			}
		}
	}
}

func (k *cmdCheck) git() {
	// global options
	args := k.args
	for len(args) > 0 {
		v := args[0].Value
		if v == "-c" && len(args) > 1 {
			k.gitConfigPair(args[1])
			args = args[2:]
			continue
		}
		if v == "-C" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" {
			if len(args) > 1 {
				args = args[2:]
				continue
			}
		}
		if strings.HasPrefix(v, "--exec-path=") {
			k.addAt(args[0].Span, "SG2507", Ask, "git --exec-path replaces git's helper programs")
		}
		if strings.HasPrefix(v, "-") {
			args = args[1:]
			continue
		}
		break
	}
	if len(args) == 0 {
		return
	}
	sub := args[0].Value
	rest := args[1:]
	flags := func(short byte, long ...string) bool {
		for _, a := range rest {
			v := a.Value
			if v == "--" {
				return false
			}
			if short != 0 && len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v[1:], short) >= 0 {
				return true
			}
			for _, l := range long {
				if v == l || strings.HasPrefix(v, l+"=") {
					return true
				}
			}
		}
		return false
	}
	for _, a := range rest {
		v := a.Value
		if strings.HasPrefix(v, "--upload-pack") || strings.HasPrefix(v, "--receive-pack") || (sub == "clone" || sub == "fetch" || sub == "ls-remote") && v == "-u" ||
			sub == "grep" && (strings.HasPrefix(v, "-O") || strings.HasPrefix(v, "--open-files-in-pager")) {
			k.addAt(a.Span, "SG2507", Ask, "git "+sub+" "+v+" runs a command of its own")
		}
	}
	switch sub {
	case "push":
		k.gitPushURL(rest)
		switch {
		case flags('f', "--force", "--mirror"):
			k.add("SG3101", Deny, "git push --force rewrites remote history")
		case flags(0, "--force-with-lease", "--force-if-includes"):
			k.add("SG3101", Ask, "git push --force-with-lease rewrites remote history")
		case flags('d', "--delete", "--prune"):
			k.add("SG3106", Deny, "git push deletes remote branches")
		}
		for _, a := range rest {
			if strings.HasPrefix(a.Value, "+") && len(a.Value) > 1 {
				k.add("SG3101", Deny, "forced refspec "+quote(a.Value)+" rewrites remote history")
			}
			if strings.HasPrefix(a.Value, ":") && len(a.Value) > 1 {
				k.add("SG3106", Deny, "refspec "+quote(a.Value)+" deletes a remote branch")
			}
		}
	case "reset":
		if flags(0, "--hard", "--merge") {
			k.add("SG3102", Deny, "git reset --hard discards uncommitted work")
		}
	case "clean":
		if flags('f', "--force") && !flags('n', "--dry-run") {
			k.add("SG3103", Deny, "git clean -f deletes untracked files")
		}
	case "branch":
		if flags('D') || flags('d', "--delete") && flags('f', "--force") {
			k.add("SG3104", Deny, "git branch -D deletes a branch with unmerged work")
		}
	case "switch":
		if flags('f', "--force", "--discard-changes") {
			k.add("SG3107", Deny, "git switch --force discards every uncommitted change")
		}
	case "rm":
		if flags('r') && !flags(0, "--cached") {
			for _, a := range rest {
				if a.Value == "." || a.Value == "*" || a.Value == ":/" {
					k.add("SG3107", Deny, "git rm -r "+a.Value+" removes every tracked file")
				}
			}
		}
	case "clone":
		var ro []analyze.Arg
		for _, a := range rest {
			if !strings.HasPrefix(a.Value, "-") {
				ro = append(ro, a)
			}
		}
		if len(ro) >= 1 {
			dir := strings.TrimSuffix(path.Base(ro[0].Value), ".git")
			if len(ro) >= 2 {
				dir = ro[1].Value
			}
			if p := k.e.abs(dir, k.c.Cwd); p != "" {
				k.e.downloadedDirs = append(k.e.downloadedDirs, p)
			}
		}
	case "filter-branch", "filter-repo":
		k.add("SG3105", Deny, "git "+sub+" rewrites the whole history")
	case "checkout", "restore":
		if sub == "restore" && flags('S', "--staged") && !flags('W', "--worktree") {
			return
		}
		discard := flags('f', "--force")
		dd := false
		for _, a := range rest {
			if a.Value == "--" {
				dd = true
				continue
			}
			if (dd || sub == "restore") && (a.Value == "." || a.Value == "*" || a.Value == ":/" || a.Value == "./") {
				discard = true
			}
			if !dd && sub == "checkout" && a.Value == "." {
				discard = true
			}
		}
		if discard {
			k.add("SG3107", Deny, "git "+sub+" discards every uncommitted change")
		}
	case "stash":
		if len(rest) > 0 && (rest[0].Value == "drop" || rest[0].Value == "clear") {
			k.add("SG3108", Ask, "git stash "+rest[0].Value+" deletes stashed work")
		}
	case "reflog":
		if len(rest) > 0 && (rest[0].Value == "expire" || rest[0].Value == "delete") {
			k.add("SG3108", Ask, "git reflog "+rest[0].Value+" removes recovery points")
		}
	case "gc", "prune":
		if flags(0, "--prune") && hasArgA(rest, "--prune=now") || sub == "prune" {
			k.add("SG3108", Ask, "git "+sub+" removes unreachable commits")
		}
	case "update-ref":
		if flags('d') {
			k.add("SG3108", Ask, "git update-ref -d deletes a ref")
		}
	case "config":
		global := flags(0, "--global", "--system")
		read := flags('l', "--get", "--get-all", "--list", "--get-regexp", "--show-origin")
		var ops []analyze.Arg
		for _, a := range rest {
			if !strings.HasPrefix(a.Value, "-") {
				ops = append(ops, a)
			}
		}
		if len(ops) >= 2 && !read {
			key := strings.ToLower(ops[0].Value)
			switch {
			case key == "core.hookspath":
				if p := k.e.abs(ops[1].Value, k.c.Cwd); p == "" || !within(p, k.e.ws) {
					k.add("SG2805", Deny, "git config core.hooksPath makes git run hooks from another directory")
				}
			case progs.GitExecKey(key) && plainTool(ops[1].Value):
				// core.pager less, core.editor vim: a known tool, no shell
			case progs.GitExecKey(key):
				d := Ask
				if global {
					d = Deny
				}
				k.add("SG2507", d, "git config "+key+" sets a command git will run")
			case global && (strings.HasPrefix(key, "url.") || strings.HasPrefix(key, "include") || strings.HasPrefix(key, "http.") ||
				strings.HasPrefix(key, "credential") || strings.HasPrefix(key, "core.") && key != "core.autocrlf" && key != "core.editor" && key != "core.excludesfile" ||
				strings.HasPrefix(key, "protocol.")):
				k.add("SG2806", Ask, "changes how git fetches or loads configuration for every repository ("+key+")")
			}
		}
	}
}

func (k *cmdCheck) gitConfigPair(a analyze.Arg) {
	key, val, _ := strings.Cut(a.Value, "=")
	key = strings.ToLower(key)
	switch {
	case key == "core.hookspath":
		k.addAt(a.Span, "SG2805", Deny, "git -c core.hooksPath runs hooks from another directory")
	case progs.GitExecKey(key) && plainTool(val):
	case progs.GitExecKey(key):
		k.addAt(a.Span, "SG2507", Ask, "git -c "+key+" sets a command git will run")
	}
}

func (k *cmdCheck) power() {
	if k.name == "init" || k.name == "telinit" {
		ops := k.operands()
		if len(ops) == 0 || !(ops[0].Value == "0" || ops[0].Value == "6" || ops[0].Value == "1" || ops[0].Value == "s" || ops[0].Value == "S") {
			return
		}
	}
	if k.has("--help", "-h") && k.name != "shutdown" {
		return
	}
	k.floor("SG2901", quote(k.name)+" shuts down or restarts the machine")
}

func (k *cmdCheck) kill() {
	switch k.name {
	case "killall5":
		k.floor("SG2902", "killall5 kills every process")
		return
	case "pkill", "killall":
		for _, a := range k.operands() {
			n := strings.ToLower(a.Value)
			if len(n) < 3 && !k.has("-x") || systemProcs[n] || a.Value == "." || a.Value == ".*" {
				k.addAt(a.Span, "SG2905", Ask, quote(k.name)+" "+quote(a.Value)+" may kill system or unrelated processes")
			}
		}
		if k.has("-u", "--user") || k.has("-1") {
			k.add("SG2905", Ask, quote(k.name)+" kills processes of a whole user")
		}
		return
	}
	// kill: skip signal options
	args := k.args
	for len(args) > 0 {
		v := args[0].Value
		if v == "-s" || v == "-n" {
			args = args[min(2, len(args)):]
			continue
		}
		if v == "-l" || v == "-L" {
			return
		}
		if v == "--" {
			args = args[1:]
			break
		}
		if strings.HasPrefix(v, "-") && len(v) > 1 {
			if _, err := strconv.Atoi(v[1:]); err == nil && len(args) > 1 || !isDigits(v[1:]) {
				args = args[1:]
				continue
			}
		}
		break
	}
	for _, a := range args {
		if a.Value == "1" || a.Value == "-1" {
			k.floorAt(a.Span, "SG2902", "kill "+a.Value+" signals init or every process")
		}
	}
}

var systemProcs = map[string]bool{"init": true, "systemd": true, "sshd": true, "dockerd": true, "containerd": true,
	"kubelet": true, "bash": true, "sh": true, "zsh": true, "login": true, "xorg": true, "gnome-shell": true, "dbus-daemon": true,
	"journald": true, "systemd-journald": true, "cron": true, "crond": true, "networkmanager": true, "shellguard": true}

func unscopedGlob(base string) bool {
	// bracket expressions ([a-z], [!.]) match many names: drop them
	for {
		i := strings.IndexByte(base, '[')
		if i < 0 {
			break
		}
		j := strings.IndexByte(base[i:], ']')
		if j < 0 {
			break
		}
		base = base[:i] + "?" + base[i+j+1:]
	}
	for _, r := range base {
		switch r {
		case '*', '?', '.', '[', ']', '!', '^', '{', '}', ',':
		default:
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (k *cmdCheck) sysctl() {
	for _, a := range k.args {
		if a.Value == "-w" || a.Value == "--write" || a.Value == "-p" || a.Value == "--load" || a.Value == "--system" || !strings.HasPrefix(a.Value, "-") && strings.Contains(a.Value, "=") {
			k.add("SG2903", Deny, "sysctl changes kernel settings")
			return
		}
	}
}

func (k *cmdCheck) firewall() {
	for _, a := range k.args {
		switch a.Value {
		case "-L", "--list", "-S", "--list-rules", "-nL", "-vnL", "-nvL", "status", "list", "--list-all", "-h", "--help", "--version":
			return
		}
	}
	if k.name == "nft" && len(k.args) > 0 && (k.args[0].Value == "list") {
		return
	}
	k.add("SG2903", Deny, quote(k.name)+" changes the firewall")
}

func (k *cmdCheck) mount() {
	ops := k.operands()
	switch k.name {
	case "mount":
		if len(ops) == 0 || k.has("-l", "--list", "-h", "--help", "-V", "--version") {
			return
		}
	case "swapon":
		if k.has("-s", "--show", "--summary") || len(k.args) == 0 {
			return
		}
	}
	k.add("SG2903", Deny, quote(k.name)+" changes mounted file systems or swap")
}

func (k *cmdCheck) kmod() {
	if k.has("-h", "--help", "--version", "-V") || k.name == "modprobe" && k.has("-n", "--dry-run", "--show-depends", "-c") {
		return
	}
	k.add("SG2903", Deny, quote(k.name)+" changes the running kernel")
}

func (k *cmdCheck) systemctl() {
	sub := ""
	user := k.has("--user")
	for _, a := range k.args {
		if !strings.HasPrefix(a.Value, "-") {
			sub = a.Value
			break
		}
	}
	if k.name == "service" {
		ops := k.operands()
		if len(ops) >= 2 {
			sub = ops[1].Value
		} else {
			return
		}
	}
	if k.name == "launchctl" {
		switch sub {
		case "load", "bootstrap", "submit", "enable":
			k.add("SG2804", Deny, "launchctl "+sub+" installs a service that keeps running")
		case "unload", "bootout", "remove", "stop", "kill", "disable", "reboot":
			k.add("SG2904", Deny, "launchctl "+sub+" changes system services")
		}
		return
	}
	switch sub {
	case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep", "soft-reboot", "rescue", "emergency":
		k.floor("SG2901", "systemctl "+sub+" stops or restarts the machine")
	case "enable", "link", "preset", "add-wants", "add-requires", "set-default", "edit", "import-environment", "set-environment":
		k.add("SG2804", Deny, "systemctl "+sub+" makes a service start automatically")
	case "start", "restart", "reload", "try-restart", "reload-or-restart":
		if user {
			k.add("SG2904", Ask, "systemctl "+sub+" starts a user service")
		} else {
			k.add("SG2904", Deny, "systemctl "+sub+" changes system services")
		}
	case "stop", "disable", "mask", "kill", "isolate", "daemon-reload", "daemon-reexec", "revert", "reset-failed", "unmask", "freeze":
		k.add("SG2904", Deny, "systemctl "+sub+" changes system services")
	}
}

func (k *cmdCheck) crontab() {
	for _, a := range k.args {
		switch a.Value {
		case "-l", "-h", "--help", "-V":
			return
		case "-r", "-ir", "-ri":
			k.add("SG2803", Deny, "crontab -r deletes the user's scheduled jobs")
			return
		case "-e":
			k.add("SG2803", Deny, "crontab -e edits scheduled jobs")
			return
		}
	}
	k.add("SG2803", Deny, "installs a new crontab (scheduled code keeps running)")
}

func (k *cmdCheck) at() {
	if k.has("-l", "-V", "-h") || k.name == "at" && len(k.args) == 0 {
		return
	}
	k.add("SG2803", Ask, quote(k.name)+" schedules code to run later")
}

func (k *cmdCheck) ipcmd() {
	switch k.name {
	case "ip":
		for _, a := range k.args {
			switch a.Value {
			case "add", "del", "delete", "set", "flush", "change", "replace", "append":
				k.add("SG2903", Deny, "ip "+a.Value+" changes the network configuration")
				return
			}
		}
	case "ifconfig":
		for _, a := range k.args {
			if a.Value == "down" || a.Value == "up" || strings.Contains(a.Value, ".") && len(k.args) > 1 {
				k.add("SG2903", Deny, "ifconfig changes the network configuration")
				return
			}
		}
	default:
		for _, a := range k.args {
			if strings.HasPrefix(a.Value, "set-") {
				k.add("SG2903", Ask, k.name+" "+a.Value+" changes system settings")
				return
			}
		}
	}
}

func (k *cmdCheck) perms() {
	recursive := k.hasShort('R', "--recursive")
	ops := k.operands()
	if len(ops) == 0 {
		return
	}
	mode := ops[0]
	targets := ops[1:]
	if k.name == "chattr" {
		if strings.HasPrefix(mode.Value, "+") || strings.HasPrefix(mode.Value, "-") {
			targets = ops
		}
	}
	if k.name == "chmod" {
		m := mode.Value
		if strings.ContainsAny(m, "s") && !strings.ContainsAny(m, "/") || len(m) == 4 && isDigits(m) && (m[0] == '4' || m[0] == '2' || m[0] == '6') {
			k.addAt(mode.Span, "SG3602", Deny, "chmod sets the setuid or setgid bit")
		}
	}
	for _, t := range targets {
		if t.Dynamic {
			continue
		}
		p := k.e.abs(t.Value, k.c.Cwd)
		if p == "" {
			continue
		}
		if recursive && (p == "/" || k.e.criticalDir(p) || p == k.e.home || within(k.e.ws, p) && p != k.e.ws) {
			k.floorAt(t.Span, "SG3601", "recursive "+k.name+" of "+quote(t.Value)+" changes permissions of the whole system or home")
			continue
		}
		k.e.writeTarget(k.i, t.Span, t.Value, t.Dynamic, k.c.Cwd, k.name+" changes")
	}
}

func (k *cmdCheck) netcat() {
	for i, a := range k.args {
		v := a.Value
		if v == "-e" || v == "-c" || v == "--exec" || v == "--sh-exec" || v == "--lua-exec" || strings.HasPrefix(v, "-e") && len(v) > 2 && !strings.HasPrefix(v, "--") {
			k.addAt(a.Span, "SG2705", Deny, "netcat executes a program for the connection: remote shell")
			return
		}
		_ = i
	}
	for _, r := range k.c.Redirects {
		if (r.Op == "<" || r.Op == "<>") && !r.Target.Dynamic {
			k.upload(r.Target.Value, r.Span)
		}
	}
	if k.c.StdinPipe {
		k.upload("-", k.c.Span)
	}
	if k.hasShort('l', "--listen") {
		k.add("SG2706", Ask, "opens a listening network socket")
		return
	}
	ops := k.operands()
	if k.hasShort('z') || len(ops) > 0 && (ops[0].Value == "localhost" || strings.HasPrefix(ops[0].Value, "127.") || ops[0].Value == "::1") {
		return // port check or local service
	}
	if len(ops) > 0 {
		k.add("SG2706", Ask, "opens a raw network connection")
	}
}

func (k *cmdCheck) socat() {
	for _, a := range k.args {
		u := strings.ToUpper(a.Value)
		if strings.HasPrefix(u, "EXEC:") || strings.HasPrefix(u, "SYSTEM:") || strings.Contains(u, ",EXEC") {
			k.addAt(a.Span, "SG2705", Deny, "socat connects a program to the network: remote shell")
			return
		}
	}
	k.add("SG2706", Ask, "socat opens raw network connections")
}

func (k *cmdCheck) curl() {
	for i, a := range k.args {
		v := a.Value
		next := func() (analyze.Arg, bool) {
			if i+1 < len(k.args) {
				return k.args[i+1], true
			}
			return analyze.Arg{}, false
		}
		switch {
		case v == "-d" || v == "--data" || v == "--data-binary" || v == "--data-urlencode" || v == "--json" || v == "--data-ascii":
			if n, ok := next(); ok {
				d := n.Value
				if j := strings.Index(d, "=@"); j >= 0 && v == "--data-urlencode" {
					d = d[j+1:]
				}
				if strings.HasPrefix(d, "@") {
					k.upload(d[1:], n.Span)
				}
			}
		case v == "-F" || v == "--form":
			if n, ok := next(); ok {
				if j := strings.Index(n.Value, "=@"); j >= 0 {
					f := n.Value[j+2:]
					if s := strings.IndexByte(f, ';'); s >= 0 {
						f = f[:s]
					}
					k.upload(f, n.Span)
				} else if j := strings.Index(n.Value, "=<"); j >= 0 {
					k.upload(n.Value[j+2:], n.Span)
				}
			}
		case v == "-T" || v == "--upload-file":
			if n, ok := next(); ok {
				k.upload(n.Value, n.Span)
			}
		case strings.HasPrefix(v, "--data-binary=@") || strings.HasPrefix(v, "--data=@") || strings.HasPrefix(v, "--upload-file="):
			k.upload(v[strings.IndexAny(v, "@=")+1:], a.Span)
		case strings.HasPrefix(v, "-d@"):
			k.upload(v[3:], a.Span)
		case (v == "-K" || v == "--config") && i+1 < len(k.args):
			k.addAt(a.Span, "SG2702", Ask, "curl reads options from a file")
		}
	}
	k.outputFlag("-o", "--output")
}

func (k *cmdCheck) outputFlag(short, long string) {
	for i, a := range k.args {
		v := a.Value
		if (v == short || v == long) && i+1 < len(k.args) {
			n := k.args[i+1]
			if n.Value != "-" {
				k.e.writeTarget(k.i, n.Span, n.Value, n.Dynamic, k.c.Cwd, k.name+" writes")
			}
		} else if strings.HasPrefix(v, long+"=") {
			k.e.writeTarget(k.i, a.Span, strings.TrimPrefix(v, long+"="), a.Dynamic, k.c.Cwd, k.name+" writes")
		}
	}
}

func (k *cmdCheck) wget() {
	for _, a := range k.args {
		v := a.Value
		if strings.HasPrefix(v, "--post-file=") || strings.HasPrefix(v, "--body-file=") {
			k.upload(v[strings.IndexByte(v, '=')+1:], a.Span)
		}
	}
	for i, a := range k.args {
		if (a.Value == "--post-file" || a.Value == "--body-file") && i+1 < len(k.args) {
			k.upload(k.args[i+1].Value, k.args[i+1].Span)
		}
		if strings.HasPrefix(a.Value, "-O") && len(a.Value) > 2 {
			k.e.writeTarget(k.i, a.Span, a.Value[2:], a.Dynamic, k.c.Cwd, "wget writes")
		}
	}
	k.outputFlag("-O", "--output-document")
}

func (k *cmdCheck) scp() {
	ops := k.operands()
	if len(ops) < 2 {
		return
	}
	dst := ops[len(ops)-1].Value
	remoteDst := strings.Contains(dst, ":") && !strings.HasPrefix(dst, "/") && !strings.HasPrefix(dst, ".")
	if !remoteDst {
		return
	}
	for _, s := range ops[:len(ops)-1] {
		if strings.Contains(s.Value, ":") && !strings.HasPrefix(s.Value, "/") {
			continue
		}
		p := k.e.abs(s.Value, k.c.Cwd)
		if k.e.credentialPath(p) != "" || secretFile(s.Value) {
			k.addAt(s.Span, "SG2701", Deny, "copies a secret file "+quote(s.Value)+" to a remote host")
		} else {
			k.addAt(s.Span, "SG2702", Ask, "copies "+quote(s.Value)+" to a remote host")
		}
	}
}

func (k *cmdCheck) find() {
	var roots []analyze.Arg
	i := 0
	for i < len(k.args) && (k.args[i].Value == "-H" || k.args[i].Value == "-L" || k.args[i].Value == "-P") {
		i++
	}
	for ; i < len(k.args); i++ {
		v := k.args[i].Value
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" {
			break
		}
		roots = append(roots, k.args[i])
	}
	if len(roots) == 0 {
		roots = []analyze.Arg{{Value: ".", Span: k.c.Span}}
	}
	filtered := false
	for j := i; j < len(k.args); j++ {
		v := k.args[j].Value
		switch v {
		case "-exec", "-execdir", "-ok", "-okdir":
			if j+1 < len(k.args) && !filtered {
				switch path.Base(k.args[j+1].Value) {
				case "rm", "unlink", "shred", "srm":
					for _, r := range roots {
						k.rmTarget(r, true, "find -exec rm")
					}
				}
			}
		case "-name", "-iname", "-path", "-ipath", "-regex", "-iregex", "-newer", "-mtime", "-mmin", "-size", "-user", "-wholename", "-empty", "-type", "-perm", "-atime", "-ctime", "-cmin", "-amin", "-links", "-inum", "-samefile", "-lname":
			if v != "-type" {
				filtered = true
			}
		case "-delete":
			for _, r := range roots {
				if filtered {
					p := k.e.abs(r.Value, k.c.Cwd)
					if p != "" && within(p, k.e.ws) {
						continue
					}
				}
				k.rmTarget(r, true, "find -delete")
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if j+1 < len(k.args) {
				n := k.args[j+1]
				k.e.writeTarget(k.i, n.Span, n.Value, n.Dynamic, k.c.Cwd, "find "+v+" writes")
			}
		}
	}
}

func (k *cmdCheck) sed() {
	inplace := false
	for _, a := range k.args {
		if a.Value == "-i" || strings.HasPrefix(a.Value, "-i") && !strings.HasPrefix(a.Value, "--") || strings.HasPrefix(a.Value, "--in-place") || len(a.Value) > 1 && a.Value[0] == '-' && a.Value[1] != '-' && strings.ContainsRune(a.Value, 'i') {
			inplace = true
		}
	}
	for _, cd := range k.c.Code {
		switch cd.Exec {
		case analyze.ExecRead:
			k.addAt(cd.Span, "SG2506", Deny, "sed 'e' executes text as a shell command")
		case analyze.ExecComputed:
			k.addAt(cd.Span, "SG2506", Deny, "sed executes the pattern space (e, s///e) as a shell command")
		}
		for _, w := range cd.Writes {
			k.e.writeTarget(k.i, cd.Span, w, cd.Dynamic, k.c.Cwd, "sed w writes")
		}
	}
	if inplace {
		skip := map[analyze.Span]bool{}
		for _, cd := range k.c.Code {
			skip[cd.Span] = true
		}
		for _, a := range k.operands() {
			if skip[a.Span] {
				continue
			}
			k.e.writeTarget(k.i, a.Span, a.Value, a.Dynamic, k.c.Cwd, "sed -i edits")
		}
	}
}

func (k *cmdCheck) awk() {
	for _, cd := range k.c.Code {
		if strings.Contains(cd.Text, "/inet/") {
			k.addAt(cd.Span, "SG2705", Deny, "awk opens a network socket (/inet/)")
		}
		// system("literal") and print | "literal" are analysed as code;
		// commands built at run time are not readable.
		switch cd.Exec {
		case analyze.ExecData:
			k.addAt(cd.Span, "SG2505", Ask, "awk pipes its data into a shell or interpreter")
		case analyze.ExecComputed:
			k.addAt(cd.Span, "SG2505", Ask, "awk program runs shell commands built at run time")
		}
	}
}

func (k *cmdCheck) alias() {
	for _, a := range k.args {
		if name, _, ok := strings.Cut(a.Value, "="); ok && (knownCommand(name) || builtinName(name)) {
			k.addAt(a.Span, "SG3502", Ask, "alias redefines the command "+quote(name))
			return
		}
	}
}

func builtinName(n string) bool {
	switch n {
	case "cd", "echo", "printf", "source", ".", "eval", "exec", "command", "builtin", "export", "alias", "unalias", "set",
		"unset", "trap", "read", "test", "[", "type", "hash", "kill", "exit", "return", "shift", "wait":
		return true
	}
	return false
}

func (k *cmdCheck) shopt() {
	if k.has("expand_aliases") && k.has("-s") {
		k.add("SG3503", Ask, "enables alias expansion")
	}
}

func (k *cmdCheck) enable() {
	if k.has("-f") {
		k.add("SG3503", Deny, "loads a builtin from a shared object")
	} else if k.has("-n") {
		k.add("SG3503", Ask, "disables a shell builtin")
	}
}

func (k *cmdCheck) hashCmd() {
	if k.has("-p") {
		k.add("SG3503", Ask, "hash -p maps a command name to another program")
	}
}

func (k *cmdCheck) tar() {
	for _, a := range k.args {
		v := a.Value
		if strings.HasPrefix(v, "--checkpoint-action=exec") || strings.HasPrefix(v, "--to-command") || strings.HasPrefix(v, "--use-compress-program") ||
			strings.HasPrefix(v, "--info-script") || strings.HasPrefix(v, "--new-volume-script") || v == "-I" || v == "-F" {
			k.addAt(a.Span, "SG2508", Ask, "tar option "+quote(v)+" runs a command")
		}
	}
	// extraction directory
	for i, a := range k.args {
		if (a.Value == "-C" || a.Value == "--directory") && i+1 < len(k.args) {
			x := k.args[i+1]
			if k.isExtract() {
				k.e.writeTarget(k.i, x.Span, x.Value, x.Dynamic, k.c.Cwd, "tar extracts into")
			}
		}
	}
	// archive file for creation
	for i, a := range k.args {
		v := a.Value
		if (v == "-f" || v == "--file") && i+1 < len(k.args) || len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.HasSuffix(v, "f") && i+1 < len(k.args) {
			if k.isCreate() {
				x := k.args[i+1]
				if x.Value != "-" {
					k.e.writeTarget(k.i, x.Span, x.Value, x.Dynamic, k.c.Cwd, "tar writes")
				}
			}
			break
		}
	}
}

func (k *cmdCheck) tarMode(letter byte, long string) bool {
	if len(k.args) > 0 && !strings.HasPrefix(k.args[0].Value, "-") && strings.IndexByte(k.args[0].Value, letter) >= 0 {
		return true
	}
	return k.hasShort(letter, long)
}
func (k *cmdCheck) isExtract() bool { return k.tarMode('x', "--extract") }
func (k *cmdCheck) isCreate() bool {
	return k.tarMode('c', "--create") || k.tarMode('r', "--append") || k.tarMode('u', "--update")
}

func (k *cmdCheck) ssh() {
	for _, a := range k.args {
		if a.Value == "-R" || a.Value == "-D" || strings.HasPrefix(a.Value, "-R") && len(a.Value) > 2 {
			k.addAt(a.Span, "SG2706", Ask, "ssh opens a tunnel ("+a.Value+")")
			break
		}
	}
	for i, a := range k.args {
		v := a.Value
		var opt string
		if v == "-o" && i+1 < len(k.args) {
			opt = k.args[i+1].Value
		} else if strings.HasPrefix(v, "-o") {
			opt = v[2:]
		} else {
			continue
		}
		fields := strings.FieldsFunc(opt, func(r rune) bool { return r == '=' || r == ' ' })
		if len(fields) == 0 {
			continue
		}
		key := strings.ToLower(strings.TrimSpace(fields[0]))
		switch key {
		case "proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand":
			k.addAt(a.Span, "SG2510", Ask, "ssh option "+key+" runs a local command")
		}
	}
}

func (k *cmdCheck) envCmd() {
	for _, a := range k.args {
		if a.Value == "-S" || strings.HasPrefix(a.Value, "-S") || strings.HasPrefix(a.Value, "--split-string") {
			k.addAt(a.Span, "SG2512", Ask, "env -S splits a string into a command line")
			return
		}
	}
}

func (k *cmdCheck) vim() {
	for i, a := range k.args {
		var ex string
		switch {
		case (a.Value == "-c" || a.Value == "--cmd") && i+1 < len(k.args):
			ex = k.args[i+1].Value
		case strings.HasPrefix(a.Value, "+"):
			ex = a.Value[1:]
		default:
			continue
		}
		ex = strings.TrimLeft(ex, ": ")
		if strings.HasPrefix(ex, "!") || strings.Contains(ex, "system(") || strings.HasPrefix(ex, "terminal") || strings.HasPrefix(ex, "r !") || strings.HasPrefix(ex, "w !") || strings.Contains(ex, "|!") {
			k.addAt(a.Span, "SG2511", Ask, "editor command runs a shell command")
		}
	}
}

func (k *cmdCheck) zshEmulate() {
	if k.has("-c") {
		k.add("SG3301", Deny, "zsh emulate -c evaluates code")
	}
}

func (k *cmdCheck) shellFlags() {
	if k.has("-i") || k.hasShort('i') && !k.has("-c") {
		for _, r := range k.c.Redirects {
			if strings.HasPrefix(r.Target.Value, "/dev/tcp/") || strings.HasPrefix(r.Target.Value, "/dev/udp/") {
				k.floorAt(r.Span, "SG2705", "interactive shell connected to a network socket: reverse shell")
				return
			}
		}
	}
}

// ---- writes ----

// writes checks file arguments that a command modifies.
func (k *cmdCheck) writes() {
	if k.c.Remote {
		return
	}
	var targets []analyze.Arg
	ops := k.operands()
	switch k.name {
	case "touch", "mkdir", "truncate", "tee", "install", "rmdir", "ln", "mkfifo", "mknod":
		if k.name == "truncate" || k.name == "install" || k.name == "ln" {
			if len(ops) > 0 {
				targets = ops[len(ops)-1:]
				if k.name == "truncate" {
					targets = ops
				}
			}
		} else {
			targets = ops
		}
	case "cp":
		if len(ops) > 1 {
			targets = ops[len(ops)-1:]
		}
		for i, a := range k.args {
			if (a.Value == "-t" || a.Value == "--target-directory") && i+1 < len(k.args) {
				targets = append(targets, k.args[i+1])
			}
		}
	case "mv":
		if len(ops) > 1 {
			targets = ops
		}
	case "perl", "ruby":
		if k.hasShort('i') {
			for _, cd := range k.c.Code {
				if cd.Stdin {
					continue
				}
				for _, a := range ops {
					if a.Span != cd.Span {
						targets = append(targets, a)
					}
				}
			}
		}
	case "git":
		sub, rest := k.sub()
		if sub == "clone" {
			var ro []analyze.Arg
			for _, a := range rest {
				if !strings.HasPrefix(a.Value, "-") {
					ro = append(ro, a)
				}
			}
			if len(ro) == 2 {
				targets = ro[1:]
			}
		}
	}
	verb := k.name + " writes"
	if k.name == "mv" {
		verb = "mv moves"
	}
	for _, t := range targets {
		if k.name == "tee" && (t.Value == "-a" || t.Value == "--append") {
			continue
		}
		k.e.writeTarget(k.i, t.Span, t.Value, t.Dynamic, k.c.Cwd, verb)
	}
	if k.e.rules.Readonly && writeCommands[k.name] {
		k.add("SG2010", Deny, quote(k.name)+" modifies files in read-only mode")
	}
}

var writeCommands = map[string]bool{"rm": true, "rmdir": true, "mv": true, "cp": true, "mkdir": true, "touch": true,
	"chmod": true, "chown": true, "chgrp": true, "ln": true, "tee": true, "truncate": true, "install": true, "shred": true,
	"dd": true, "unlink": true, "mkfifo": true, "mknod": true, "patch": true, "rsync": true}

// redirect checks an output redirection. Its findings belong to no
// subcommand: an allow rule for "echo *" does not allow echo > /etc/passwd.
func (e *evaluator) redirect(r analyze.Redirect) {
	if !r.Write {
		return
	}
	if r.Cmd >= 0 && r.Cmd < len(e.res.Commands) && e.res.Commands[r.Cmd].Remote {
		return
	}
	v := r.Target.Value
	if strings.HasPrefix(v, "/dev/tcp/") || strings.HasPrefix(v, "/dev/udp/") {
		e.add(-1, r.Span, "SG2703", Deny, "redirects to a network socket ("+quote(v)+")")
		return
	}
	e.writeTarget(-1, r.Span, v, r.Target.Dynamic, r.Cwd, "redirect writes")
	if e.rules.Readonly {
		p := e.abs(v, r.Cwd)
		if !safeDevice(p) {
			e.add(-1, r.Span, "SG2010", Deny, "writes a file in read-only mode")
		}
	}
}

// writeTarget classifies a path that a command creates or modifies.
func (e *evaluator) writeTarget(cmd int, sp analyze.Span, v string, dynamic bool, cwd, verb string) {
	if strings.HasPrefix(v, "/dev/tcp/") || strings.HasPrefix(v, "/dev/udp/") {
		e.add(cmd, sp, "SG2703", Deny, verb+" to a network socket")
		return
	}
	if dynamic && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "~") {
		return
	}
	p := e.abs(v, cwd)
	if p == "" {
		return
	}
	switch {
	case safeDevice(p):
		return
	case blockDevice(p):
		e.floor(cmd, sp, "SG2102", verb+" the block device "+quote(p))
		return
	case within(p, "/etc/sudoers") || within(p, "/etc/sudoers.d"):
		e.floor(cmd, sp, "SG2202", verb+" the sudoers configuration")
		return
	}
	if within(p, path.Join(e.home, ".local/bin")) || within(p, path.Join(e.home, "bin")) && path.Join(e.home, "bin") != e.ws {
		e.add(cmd, sp, "SG2801", Ask, verb+" "+quote(v)+" in a program directory on PATH: it can shadow commands")
		return
	}
	if what := e.persistenceTarget(p); what != "" {
		id := "SG2801"
		switch {
		case strings.Contains(what, "authorized_keys"):
			id = "SG2802"
		case strings.Contains(what, "cron"):
			id = "SG2803"
		case strings.Contains(what, "service"):
			id = "SG2804"
		case strings.Contains(what, "git hook"):
			id = "SG2805"
		}
		e.add(cmd, sp, id, Deny, verb+" "+what+": code would run later")
		return
	}
	switch {
	case within(p, e.ws) || e.inRoots(p):
		if strings.Contains(p, "/.git/hooks/") || strings.HasSuffix(p, "/.git/config") {
			e.add(cmd, sp, "SG2805", Ask, verb+" git hooks or git config inside the workspace")
		}
		return
	case strings.HasPrefix(p, "/dev/"):
		e.add(cmd, sp, "SG2007", Ask, verb+" the device "+quote(p))
	case e.systemPath(p):
		e.add(cmd, sp, "SG2007", Deny, verb+" "+quote(p)+" in a system location")
	default:
		if e.rules.Unrestricted {
			return
		}
		e.add(cmd, sp, "SG2008", Ask, verb+" "+quote(v)+" outside the workspace")
	}
}

// lookalikes flags options written with a Unicode dash that only looks
// like "-".
func (k *cmdCheck) lookalikes() {
	for _, a := range k.args {
		for _, d := range []string{"\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212", "\ufe63", "\uff0d"} {
			if strings.HasPrefix(a.Value, d) {
				k.addAt(a.Span, "SG1014", Ask, "argument starts with a dash lookalike "+quote(a.Value))
				return
			}
		}
	}
}

var infraCLIs = map[string]bool{"pulumi": true, "cdk": true, "doctl": true, "heroku": true, "fly": true, "flyctl": true,
	"vercel": true, "netlify": true, "firebase": true, "eksctl": true, "oci": true, "linode-cli": true, "hcloud": true,
	"ibmcloud": true, "serverless": true, "sls": true, "aliyun": true, "scw": true, "vultr-cli": true, "railway": true, "supabase": true}

func (k *cmdCheck) infraDelete() {
	if !infraCLIs[k.name] {
		return
	}
	for _, a := range k.args {
		v := strings.ToLower(a.Value)
		if v == "destroy" || v == "delete" || v == "remove" || v == "rm" || strings.HasSuffix(v, ":destroy") || strings.HasSuffix(v, ":delete") || strings.HasSuffix(v, ":remove") || strings.HasSuffix(v, ":reset") {
			k.add("SG3205", Deny, k.name+" "+a.Value+" deletes cloud resources")
			return
		}
	}
}

func (k *cmdCheck) dropdb() {
	switch k.name {
	case "dropdb", "dropuser":
		k.add("SG3203", Deny, quote(k.name)+" deletes a database or role")
	case "mysqladmin":
		if k.has("drop") {
			k.add("SG3203", Deny, "mysqladmin drop deletes a database")
		}
	case "etcdctl":
		if k.has("del", "delete") {
			k.add("SG3203", Deny, "etcdctl del deletes keys")
		}
	}
}

func (k *cmdCheck) nmcli() {
	for _, a := range k.args {
		switch a.Value {
		case "off", "down", "delete", "disconnect", "modify", "add":
			k.add("SG2903", Deny, "nmcli changes the network configuration")
			return
		}
	}
}

func (k *cmdCheck) dateCmd() {
	if k.has("-s") || hasArgA(k.args, "--set") {
		k.add("SG2903", Ask, "date -s changes the system clock")
	}
}

func (k *cmdCheck) hostnameCmd() {
	if ops := k.operands(); len(ops) > 0 {
		k.add("SG2903", Ask, "hostname changes the machine's name")
	}
}

func (k *cmdCheck) psCmd() {
	for _, a := range k.args {
		v := a.Value
		if !strings.HasPrefix(v, "-") && strings.ContainsRune(v, 'e') || v == "-E" {
			k.add("SG2604", Ask, "ps with 'e' prints the environment of processes (may hold secrets)")
			return
		}
	}
}

func (k *cmdCheck) echoSecret() {
	// printing into a pipe or a file does not show the value
	if len(k.c.Redirects) > 0 {
		for _, r := range k.c.Redirects {
			if r.Write && (r.N == "" || r.N == "1") {
				return
			}
		}
	}
	for _, p := range k.c.Pipes {
		for _, o := range k.e.res.Commands {
			for _, q := range o.Pipes {
				if q.ID == p.ID && q.Stage > p.Stage {
					return
				}
			}
		}
	}
	for _, a := range k.args {
		for _, v := range a.Vars {
			if reSecretName.MatchString(v) && !k.c.StdinPipe {
				k.addAt(a.Span, "SG2604", Ask, "prints the secret variable $"+v)
				return
			}
		}
	}
}

func (k *cmdCheck) exportF() {
	if k.has("-f") && (len(k.args) > 1 || len(k.c.Assigns) > 0) {
		k.add("SG3501", Ask, "exports a function to child shells (can shadow commands)")
	}
}

func (k *cmdCheck) rgPre() {
	for _, a := range k.args {
		if a.Value == "--pre" || strings.HasPrefix(a.Value, "--pre=") {
			k.addAt(a.Span, "SG2508", Ask, "rg --pre runs a program on every file searched")
			return
		}
	}
}

// gitPushURL flags pushes to an explicit URL rather than a configured
// remote: the repository can leave for any host.
func (k *cmdCheck) gitPushURL(rest []analyze.Arg) {
	for _, a := range rest {
		v := a.Value
		if strings.Contains(v, "://") && !localURL(v) || strings.Contains(v, "@") && strings.Contains(v, ":") && !strings.HasPrefix(v, "-") {
			k.addAt(a.Span, "SG2702", Ask, "pushes the repository to an explicit URL "+quote(v))
			return
		}
	}
}

// recon flags searches for privilege-escalation footholds.
func (k *cmdCheck) recon() {
	switch k.name {
	case "find":
		for i, a := range k.args {
			if a.Value == "-perm" && i+1 < len(k.args) {
				m := k.args[i+1].Value
				if strings.Contains(m, "4000") || strings.Contains(m, "2000") || strings.Contains(m, "u=s") || strings.Contains(m, "g=s") || strings.Contains(m, "6000") {
					k.add("SG2201", Ask, "searches for setuid programs (privilege escalation reconnaissance)")
					return
				}
			}
		}
	case "getcap":
		if k.hasShort('r') {
			k.add("SG2201", Ask, "searches for programs with capabilities (privilege escalation reconnaissance)")
		}
	}
}

// secretsCLI flags cloud CLIs that print stored secrets.
func (k *cmdCheck) secretsCLI() {
	joined := " " + strings.Join(k.c.Argv[1:], " ") + " "
	switch k.name {
	case "aws":
		if strings.Contains(joined, " secretsmanager get-secret-value ") || strings.Contains(joined, " ssm get-parameter") && strings.Contains(joined, "--with-decryption") {
			k.add("SG2603", Deny, "prints a secret from the cloud secret store")
		}
	case "gcloud":
		if strings.Contains(joined, " secrets versions access ") {
			k.add("SG2603", Deny, "prints a secret from the cloud secret store")
		}
	case "az":
		if strings.Contains(joined, " keyvault secret show ") || strings.Contains(joined, " keyvault secret download ") {
			k.add("SG2603", Deny, "prints a secret from the key vault")
		}
	case "heroku":
		if strings.Contains(joined, " config ") && !strings.Contains(joined, " config:set ") || strings.HasSuffix(strings.TrimSpace(joined), "config") {
			k.add("SG2603", Ask, "prints the app's configuration variables (secrets)")
		}
	case "kafka-topics", "kafka-topics.sh":
		if strings.Contains(joined, " --delete ") {
			k.add("SG3205", Deny, "deletes a Kafka topic")
		}
	case "curl":
		for i, a := range k.args {
			if (a.Value == "-X" || a.Value == "--request") && i+1 < len(k.args) && strings.EqualFold(k.args[i+1].Value, "DELETE") ||
				strings.EqualFold(a.Value, "-XDELETE") || strings.EqualFold(a.Value, "--request=DELETE") {
				if k.remoteTarget() {
					k.add("SG3205", Ask, "sends an HTTP DELETE to a remote service")
				}
				return
			}
		}
	}
}

// homeCritical names direct children of the home directory whose loss
// hurts the user: configuration, keys, toolchains and document folders.
var homeCritical = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`.config .local .ssh .gnupg .aws .azure .kube .docker .mozilla .thunderbird
		.password-store .cargo .rustup .npm .nvm .pyenv .rbenv .gem .m2 .vim .emacs.d .oh-my-zsh .gitconfig .bashrc .zshrc
		.profile .bash_profile .zprofile .bash_history .zsh_history .netrc .git-credentials .vscode-server
		Documents Desktop Downloads Pictures Music Videos Library Applications Dropbox`) {
		m[n] = true
	}
	return m
}()

func rcFile(n string) bool {
	switch n {
	case ".bashrc", ".zshrc", ".profile", ".bash_profile", ".zprofile", ".gitconfig", ".netrc", ".git-credentials", ".bash_history", ".zsh_history":
		return true
	}
	return false
}
