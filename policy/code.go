package policy

import (
	"path"
	"slices"
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/effects"
	"github.com/shellguard/shellguard/internal/grammar"
	"github.com/shellguard/shellguard/internal/lazyre"
	"github.com/shellguard/shellguard/internal/progs"
	"github.com/shellguard/shellguard/internal/world"
)

// Code runners: shells, eval, source, interpreters, awk, sed and tools with options that run commands.

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

func (k *cmdCheck) codeRunner() {
	e := k.e
	// program text from a pipe
	if k.c.StdinPipe && k.c.StdinCode {
		up := e.upstream(k.c)
		switch {
		case anyOf(up, isNetwork):
			k.emit(sg2301, "output of a network download is executed by "+quote(k.said()))
		case anyOf(up, isDecoder):
			k.emit(sg2306, "decoded or transformed text is executed by "+quote(k.said()))
		default:
			// literal echo/printf text piped into a shell is analysed as
			// code (analyze follows it); anything else piped into a
			// program that runs it asks.
			piped := false
			for _, cd := range k.c.Code {
				piped = piped || cd.Piped
			}
			if !piped {
				k.emit(sg2304, "text from a pipe is executed as a program by "+quote(k.said()))
			}
		}
	}
	// a shell or interpreter reading its program from a standard input
	// it was not given itself: a here-document or pipe of the function,
	// group or coprocess around it feeds code nobody analysed
	if k.c.StdinCode && k.c.Shell() && !k.c.Remote && !k.c.StdinPipe && len(k.c.Code) == 0 && !ownStdin(k.c) {
		k.emit(sg2304, quote(k.said())+" reads the code it runs from an input that is not shown (the stdin of a function, group or coprocess)")
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
				k.emitAt(sg2302floor, r.Span, "downloaded content is executed by "+quote(k.said()))
			case anyOf(subs, isDecoder):
				k.emitAt(sg2306, r.Span, "decoded text is executed by "+quote(k.said()))
			case r.Op == "<" && !r.Target.ProcSubst && e.downloaded[e.abs(r.Target.Value, r.Cwd)]:
				k.emitAt(sg2303deny, r.Span, "runs a file downloaded earlier in the same command")
			}
		}
	}
	// program text from substitutions: bash <(curl …), sh -c "$(curl …)",
	// eval "$(…)", source <(…)
	for _, a := range k.args {
		if len(a.Subst) == 0 && !a.Dynamic && !a.Filled {
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
			k.emitAt(sg2302floor, a.Span, "downloaded content is executed by "+quote(k.said()))
		case anyOf(subs, isDecoder):
			k.emitAt(sg2306, a.Span, "decoded text is executed by "+quote(k.said()))
		case len(subs) > 0 && allEnvInit(subs):
			// eval "$(ssh-agent -s)", eval "$(direnv hook bash)": tools
			// that print shell setup for the current shell
		case k.interpreterLang() && len(a.Subst) == 0 && varsInLiterals(a.Value, a.Vars):
			// python3 -c "…urlopen('http://localhost:$port/')…": the
			// program is known; shell variables fill its string
			// literals, and the code is judged as written
		case (a.Dynamic || a.Filled) && !(k.c.FuncDef != "" && a.Positional) && !k.foundScript(a):
			k.emitAt(sg2305, a.Span, quote(k.said())+" runs code that is only known at run time")
		}
	}
	if k.interpreterLang() {
		k.interpreter()
	}
}

// ownStdin reports a redirect of c's own standard input.
func ownStdin(c *analyze.Command) bool {
	for _, r := range c.Redirects {
		if (r.N == "" || r.N == "0") && (r.Op == "<" || r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<" || r.Op == "<&" || r.Op == "<>") {
			return true
		}
	}
	return false
}

// allEnvInit reports commands that all print shell setup for the
// current shell, as their grammar lines say (initcode=).
func allEnvInit(cs []*analyze.Command) bool {
	for _, c := range cs {
		g := grammar.Resolve(c.Name()).Line
		if g == nil || len(g.InitCode) == 0 {
			return false
		}
		if !slices.Contains(g.InitCode, "*") && !slices.ContainsFunc(g.InitCode, func(w string) bool { return hasArg(c.Argv, w) }) {
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
	reEnvDumpCode     = lazyre.New(`dict\(\s*os\.environ\s*\)|os\.environ\.(items|keys|values)\(|print\(\s*os\.environ\s*\)|json\.dumps\(\s*(dict\()?os\.environ|console\.log\(\s*process\.env\s*\)|JSON\.stringify\(\s*process\.env\s*\)|Object\.(entries|keys)\(\s*process\.env|\bENV\.(to_h|each|inspect)|p\s+ENV\b|%ENV|(print_r|var_dump|var_export|json_encode)\(\s*\$_(ENV|SERVER)\b|getenv\(\s*\)`)
	// reSecretPrintCode: a print call whose arguments read a variable of
	// the environment with a secret's name.
	reSecretPrintCode = lazyre.New(`(?i)\b(print|println|printf|puts|echo|say|print_r|var_dump|console\.(log|error|info|warn|debug)|(sys|process)\.std(out|err)\.write|fmt\.Print(ln|f)?)\s*\(?[^;\n]{0,200}?(environ(\.get)?\s*[\(\[]\s*['"]|process\.env\.|process\.env\[\s*['"]|ENV\[\s*['"]|\$ENV\{|\$_(ENV|SERVER)\[\s*['"]|getenv\(\s*['"])[A-Z0-9_]*(KEY|SECRET|TOKEN|PASSW|CREDENTIAL|PRIVATE)`)
	reSecretInCode    = lazyre.New(`(?i)(environ(\.get)?\s*[\(\[]\s*['"]|process\.env\.|process\.env\[\s*['"]|ENV\[\s*['"]|\$ENV\{|getenv\(\s*['"])[A-Z0-9_]*(KEY|SECRET|TOKEN|PASSW|CREDENTIAL|PRIVATE)`)
	reNetAPI          = lazyre.New(`socket\.create_connection|\.connect\(|urlopen|urllib|requests\.(get|post|put)|http\.client|httpx|fetch\(|https?\.get|https?\.request|Net::HTTP|LWP|open-uri|URI\.open|HTTP::Tiny|curl_exec|file_get_contents\(\s*['"]https?:|socket\.socket|IO::Socket|TCPSocket|require\(\s*['"](node:)?https?['"]\s*\)|(?i:\biwr\b|\birm\b|Invoke-WebRequest|Invoke-RestMethod|DownloadString|DownloadFile|WebClient)`)
	reExecAPI         = lazyre.New(`\bexec\s*\(|\beval\s*[\(\s]|\bsystem\s*\(|subprocess|popen|spawn|execSync|child_process|os\.system|Function\(|(?i:\biex\b|Invoke-Expression|Start-Process)`)
	reReadAPI         = lazyre.New(`open\(|readFile|File\.read|os\.environ|process\.env|ENV\[|\$ENV\{|getenv|read_text`)
)

func (k *cmdCheck) interpreter() {
	for _, cd := range k.c.Code {
		k.interpreterCode(cd)
	}
}

// reCodeString finds the string literals of interpreter code that could
// be a path: quoted, on one line, without blanks.
var reCodeString = lazyre.New(`'([^'\\\s]{1,512})'|"([^"\\\s]{1,512})"`)

// codePaths classifies the string literals of interpreter code that look
// like paths (with a slash, or starting with . or ~) as the shell's words
// are: one that names a credential (.env, a key file, a token store) is
// read or written by the code as far as can be told.
func (k *cmdCheck) codePaths(cd analyze.Code) {
	e := k.e
	for _, m := range reCodeString.FindAllStringSubmatchIndex(cd.Text, 64) {
		a, b := m[2], m[3]
		if a < 0 {
			a, b = m[4], m[5]
		}
		s := cd.Text[a:b]
		if !strings.Contains(s, "/") && !strings.HasPrefix(s, ".") && !strings.HasPrefix(s, "~") || strings.Contains(s, "://") {
			continue
		}
		p := e.abs(s, k.c.Cwd)
		if p == "" {
			continue
		}
		if r := world.Classify(p, e.classOpts()); r.Class == world.ClassCredential {
			row := sg4001
			if e.credentialPath(p) != "" && !strings.HasPrefix(p, "/proc/") {
				row = sg2601deny
			}
			k.emitCode(row, cd, []int{a, b}, "interpreter code names "+r.What)
			return
		}
	}
}

// secretPrinted returns where interpreter code prints a variable of the
// environment with a secret's name, or nil. A print of a test or a
// measure of it (bool(…), len(…), … is not None, .length, == "") shows
// none of it, as ${#TOKEN} does not.
func secretPrinted(code string) []int {
	for _, loc := range reSecretPrintCode.FindAllStringSubmatchIndex(code, 16) {
		// group 6 is the read of the environment
		read, end := loc[12], loc[1]
		if read < loc[0] {
			read = loc[0]
		}
		for end < len(code) && (isNameByte(code[end]) || strings.IndexByte(`'"])`, code[end]) >= 0) {
			end++
		}
		after := strings.TrimSpace(code[end:min(end+24, len(code))])
		before := code[max(read-12, loc[0]):read]
		tested := false
		for _, p := range []string{"is not None", "is None", "!=", "==", ".length", "?", "is not", "and ", "or ", "&&", "||"} {
			tested = tested || strings.HasPrefix(after, p)
		}
		for _, p := range []string{"bool(", "Boolean(", "len(", "!!", "typeof ", "not ", "isset(", "empty(", "defined ", "exists "} {
			tested = tested || strings.Contains(before, p)
		}
		if !tested {
			return []int{loc[0], loc[1]}
		}
	}
	return nil
}

func isNameByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func (k *cmdCheck) interpreterCode(cd analyze.Code) {
	code := cd.Text
	if strings.Contains(code, "fork") && reForkLoop.MatchString(code) {
		k.emitCode(sg2503, cd, reForkLoop.FindStringIndex(code), "interpreter code forks in a loop: fork bomb")
	}
	if reWriteAPI.MatchString(code) && reSensitiveInCode.MatchString(code) {
		k.emitCode(sg2801deny, cd, reSensitiveInCode.FindStringIndex(code), "interpreter code writes a startup file, key file or system file")
	}
	if containsAny(code, "socket", "Socket", "fsockopen", "net.connect", "/inet/") && reRevShell.MatchString(code) {
		k.emitCode(sg2504, cd, reRevShell.FindStringIndex(code), "interpreter code connects a socket to a shell: reverse shell")
	}
	if loc := reRmAPI.FindStringIndex(code); loc != nil && reRootOrHome.MatchString(code) {
		k.emitCode(sg2501, cd, loc, "interpreter code deletes files outside the workspace (root, home or system)")
	}
	if loc := reCredInCode.FindStringIndex(code); loc != nil {
		k.emitCode(sg2601deny, cd, loc, "interpreter code touches credentials ("+quote(code[loc[0]:loc[1]])+")")
	} else {
		k.codePaths(cd)
	}
	if containsAny(code, "exec", "eval", "system", "popen", "spawn") && reDecodeExec.MatchString(code) {
		k.emitCode(sg2306, cd, reDecodeExec.FindStringIndex(code), "interpreter code executes decoded data")
	}
	if loc := reEnvDumpCode.FindStringIndex(code); loc != nil {
		k.emitCode(sg2604, cd, loc, "interpreter code prints the whole environment (may hold secrets)")
	} else if loc := secretPrinted(code); loc != nil {
		k.emitCode(sg2604, cd, loc, "interpreter code prints a secret variable of the environment")
	}
	if reNetAPI.MatchString(code) && reSecretInCode.MatchString(code) {
		k.emitCode(sg2704, cd, reSecretInCode.FindStringIndex(code), "interpreter code sends a secret variable over the network")
	}
	if reNetAPI.MatchString(code) && reExecAPI.MatchString(code) {
		k.emitCode(sg2302deny, cd, reExecAPI.FindStringIndex(code), "interpreter code downloads and executes code")
	} else if reNetAPI.MatchString(code) && reReadAPI.MatchString(code) && !localURL(code) && !strings.Contains(code, "localhost") {
		k.emitCode(sg2702, cd, reNetAPI.FindStringIndex(code), "interpreter code reads local data and talks to the network")
	}
	// shell commands the code runs literally are analysed as commands
	switch cd.Exec {
	case analyze.ExecComputed:
		k.emitAt(sg2502, cd.Span, "interpreter code runs shell commands built at run time")
	case analyze.ExecOpaque:
		k.emitAt(sg2502, cd.Span, "interpreter code runs commands that cannot be read statically")
	}
}

// emitCode reports row r about program text cd. In text of more than
// one line (a here-document, a script in -c), loc, a match in the text,
// names the line the finding is about: the message quotes it, and when
// the text is in the source verbatim the span is that line.
func (k *cmdCheck) emitCode(r *Finding, cd analyze.Code, loc []int, msg string) {
	sp := cd.Span
	if loc != nil && strings.Contains(cd.Text, "\n") {
		start, end := lineAround(cd.Text, loc[0])
		msg += "; line: " + quote(strings.TrimSpace(cd.Text[start:end]))
		if src := k.e.res.Src; sp.Start >= 0 && sp.End <= len(src) && src[sp.Start:sp.End] == cd.Text {
			sp = analyze.Span{Start: sp.Start + start, End: sp.Start + end}
		}
	}
	k.emitAt(r, sp, msg)
}

// lineAround returns the bounds of the line of s that holds offset i.
func lineAround(s string, i int) (start, end int) {
	start = strings.LastIndexByte(s[:i], '\n') + 1
	end = strings.IndexByte(s[i:], '\n')
	if end < 0 {
		return start, len(s)
	}
	return start, i + end
}

func (k *cmdCheck) downloadExec() {
	e := k.e
	c := k.c
	// record downloads: what the client writes by option or redirect is
	// recorded from its effects (downloads, written.go); a file named
	// after the URL (curl -O, wget URL) is not in the command
	if k.urlNamed() {
		for _, u := range k.args {
			if strings.Contains(u.Value, "://") {
				e.markDownload(path.Base(u.Value), c.Cwd)
			}
		}
	}
	if len(e.downloaded) == 0 && len(e.downloadedDirs) == 0 {
		return
	}
	isDl := func(v string) bool { return e.isDownloaded(v, c.Cwd) }
	if isDl(c.Args[0].Value) && strings.Contains(c.Args[0].Value, "/") {
		k.emit(sg2303deny, "runs a file downloaded earlier in the same command")
		return
	}
	if k.runsCode() && k.name != "eval" {
		for _, a := range k.args {
			if strings.HasPrefix(a.Value, "-") {
				continue
			}
			if isDl(a.Value) {
				k.emit(sg2303deny, "runs a file downloaded earlier in the same command")
			}
			break
		}
	}
	if dir := k.projectDir(); dir != "" {
		for _, d := range e.downloadedDirs {
			if within(dir, d) {
				k.emit(sg2303deny, "runs the code "+quote(dir)+" holds (its build files, scripts or tests), downloaded earlier in the same command")
				return
			}
		}
	}
}

// projectDir returns the directory whose code a project runner runs (make,
// npm test, cargo build: grammar +project), its -C or --cwd when given, or
// "" for another program or a directory not known.
func (k *cmdCheck) projectDir() string {
	g := grammar.Lookup(k.name)
	if g == nil {
		return ""
	}
	p := grammar.Parse(g, k.args)
	project := false
	for _, x := range p.Chain {
		project = project || x.Project
	}
	if !project {
		return ""
	}
	dir := k.c.Cwd
	for _, o := range p.Opts {
		if r, ok := p.Grammar.OptRole(o.Name); ok && r == grammar.RoleDir && o.HasVal {
			if o.Val.Dynamic {
				return ""
			}
			dir = k.e.abs(o.Val.Value, dir)
		}
	}
	return dir
}

// execDownloaded flags a mode change that makes a file downloaded
// earlier in the line executable (chmod's check).
func (k *cmdCheck) execDownloaded() {
	if len(k.e.downloaded) == 0 && len(k.e.downloadedDirs) == 0 {
		return
	}
	for _, a := range k.operands() {
		if k.e.isDownloaded(a.Value, k.c.Cwd) && strings.Contains(k.args[0].Value, "x") {
			k.emit(sg2303ask, "makes a downloaded file executable")
		}
	}
}

// isDownloaded reports a path downloaded earlier in the line, or one
// under a directory that was.
func (e *evaluator) isDownloaded(v, cwd string) bool {
	p := e.abs(v, cwd)
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

// urlNamed reports a download saved under the last part of its URL, as
// the program's line says (urlname=): always unless the command writes a
// file it names, or with one of the options given (curl -O).
func (k *cmdCheck) urlNamed() bool {
	g := k.prog.Line
	if g == nil || g.URLName == nil {
		return false
	}
	if g.URLName["*"] {
		for _, ef := range k.e.effs[k.i] {
			if ef.Kind == effects.Write {
				return false
			}
		}
		return true
	}
	for _, a := range k.args {
		v := a.Value
		if v == "--" {
			return false
		}
		if g.URLName[v] {
			return true
		}
		if len(v) > 1 && v[0] == '-' && v[1] != '-' {
			for j := 1; j < len(v); j++ {
				if g.URLName["-"+v[j:j+1]] {
					return true
				}
			}
		}
	}
	return false
}

func (e *evaluator) markDownload(p, cwd string) {
	if a := e.abs(p, cwd); a != "" && !safeDevice(a) {
		e.downloaded[a] = true
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
		if cd.Filled {
			k.emitAt(sg2305, cd.Span, quote(k.said())+" runs a script its input writes in (xargs, find -exec)")
		}
		switch cd.Exec {
		case analyze.ExecRead:
			k.emitAt(sg2506, cd.Span, "sed 'e' executes text as a shell command")
		case analyze.ExecComputed:
			k.emitAt(sg2506, cd.Span, "sed executes the pattern space (e, s///e) as a shell command")
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
		if cd.Filled {
			k.emitAt(sg2305, cd.Span, quote(k.said())+" runs a program its input writes in (xargs, find -exec)")
		}
		if strings.Contains(cd.Text, "/inet/") {
			k.emitAt(sg2705deny, cd.Span, "awk opens a network socket (/inet/)")
		}
		// system("literal") and print | "literal" are analysed as code;
		// commands built at run time are not readable.
		switch cd.Exec {
		case analyze.ExecData:
			k.emitAt(sg2505, cd.Span, "awk pipes its data into a shell or interpreter")
		case analyze.ExecComputed:
			k.emitAt(sg2505, cd.Span, "awk program runs shell commands built at run time")
		}
	}
}

func (k *cmdCheck) tar() {
	for _, a := range k.args {
		v := a.Value
		if strings.HasPrefix(v, "--checkpoint-action=exec") || strings.HasPrefix(v, "--to-command") || strings.HasPrefix(v, "--use-compress-program") ||
			strings.HasPrefix(v, "--info-script") || strings.HasPrefix(v, "--new-volume-script") || v == "-I" || v == "-F" {
			k.emitAt(sg2508, a.Span, "tar option "+quote(v)+" runs a command")
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
			k.emitAt(sg2511, a.Span, "editor command runs a shell command")
		}
	}
}

func (k *cmdCheck) shellFlags() {
	if k.has("-i") || k.hasShort('i') && !k.has("-c") {
		for _, r := range k.c.Redirects {
			if strings.HasPrefix(r.Target.Value, "/dev/tcp/") || strings.HasPrefix(r.Target.Value, "/dev/udp/") {
				k.emitAt(sg2705floor, r.Span, "interactive shell connected to a network socket: reverse shell")
				return
			}
		}
	}
}

func (k *cmdCheck) rgPre() {
	for _, a := range k.args {
		if a.Value == "--pre" || strings.HasPrefix(a.Value, "--pre=") {
			k.emitAt(sg2508, a.Span, "rg --pre runs a program on every file searched")
			return
		}
	}
}

// varsInLiterals reports interpreter code whose only unknown parts are
// the shell variables vars, each expanded where the program expects a
// value: inside a quoted string literal ('…' or "…"), or as a whole
// argument of a call (connect(('localhost', $PORT))). Never where it
// would be code of its own.
func varsInLiterals(code string, vars []string) bool {
	if len(vars) == 0 {
		return false
	}
	found := 0
	var quote byte
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case c == '\\' && quote != 0:
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"' || c == '`'):
			quote = c
		case c == '$':
			for _, v := range vars {
				n := 0
				switch {
				case strings.HasPrefix(code[i+1:], "{"+v+"}"):
					n = len(v) + 3
				case strings.HasPrefix(code[i+1:], v):
					n = len(v) + 1
				default:
					continue
				}
				if quote == 0 && !wholeArgument(code, i, i+n) {
					return false
				}
				found++
			}
		}
	}
	return found > 0
}

// wholeArgument reports that code[start:end] is a whole argument or
// element: the nearest non-blank characters around it are ( [ or , before
// and , ) or ] after.
func wholeArgument(code string, start, end int) bool {
	before := strings.TrimRight(code[:start], " \t")
	after := strings.TrimLeft(code[end:], " \t")
	return before != "" && after != "" && strings.ContainsRune("([,", rune(before[len(before)-1])) && strings.ContainsRune(",)]", rune(after[0]))
}
