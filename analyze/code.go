package analyze

import (
	"strings"

	"github.com/shellguard/shellguard/internal/lazyre"
	"github.com/shellguard/shellguard/internal/progs"
)

// ---- the code a command runs: shells, interpreters, awk, sed ----

// codeFacts fills the language, the code and the stdin flag of a
// command. prev holds the commands emitted before it (for text piped
// into a shell).
func codeFacts(cmd *Command, prev []*Command) {
	name := cmd.Program
	if name == "" {
		return
	}
	args := cmd.Args[1:]
	switch name {
	case "eval":
		cmd.Lang = progs.Shell
		if len(args) > 0 {
			cd := joinArgs(args)
			cmd.Code = append(cmd.Code, Code{Lang: progs.Shell, Text: cd.Value, Span: cd.Span, Dynamic: cd.Dynamic, Exec: ExecRead})
		}
		return
	case "source", ".":
		cmd.Lang = progs.Shell
		cmd.StdinCode = len(args) > 0 && (args[0].Value == "/dev/stdin" || args[0].Value == "-")
		if cmd.StdinCode {
			cmd.Code = append(cmd.Code, stdinCode(cmd, progs.Shell)...)
		}
		return
	}
	cmd.Lang = progs.Lang(name)
	if cmd.ExtraArgs && codeNext(name, cmd.Lang, args) {
		// xargs, find -exec … + and their kind append their input after
		// the words given: when those end with a code flag (sh -c,
		// python3 -c, perl -e) or leave out the program (awk, sed), the
		// first word of the input is the code. It stands in the command
		// as a word of its own.
		end := cmd.Span.End
		cmd.Args = append(cmd.Args[:len(cmd.Args):len(cmd.Args)], Arg{Value: "{}", Filled: true, Span: Span{end, end}})
		if len(cmd.Argv) == len(cmd.Args)-1 {
			cmd.Argv = append(cmd.Argv[:len(cmd.Argv):len(cmd.Argv)], "{}")
		}
		args = cmd.Args[1:]
	}
	switch cmd.Lang {
	case "":
		return
	case progs.Shell:
		u := &unwrapped{}
		unwrapShell(name, cmd, args, u)
		for _, cd := range u.code {
			cmd.Code = append(cmd.Code, Code{Lang: progs.Shell, Text: cd.text, Span: cd.span, Dynamic: cd.dynamic, Filled: cd.filled,
				Stdin: strings.HasSuffix(cd.wrapper, " <<"), Exec: ExecRead})
		}
		// under xargs or find -exec the operands appended at run time
		// are the script and its arguments, not code on stdin
		cmd.StdinCode = shellReadsStdin(args) && !(cmd.ExtraArgs && !stdinOperand(args))
		if cmd.StdinCode && cmd.StdinPipe {
			cmd.Code = append(cmd.Code, pipedCode(cmd, prev)...)
		}
	case progs.Awk:
		if prog := awkProgram(args); prog != nil {
			cmd.Code = append(cmd.Code, Code{Lang: progs.Awk, Text: prog.Value, Span: prog.Span, Dynamic: prog.Dynamic || prog.Filled, Filled: prog.Filled, Exec: awkExec(prog.Value)})
		}
	case progs.Sed:
		for _, sc := range sedScripts(args) {
			cd := Code{Lang: progs.Sed, Text: sc.Value, Span: sc.Span, Dynamic: sc.Dynamic || sc.Filled, Filled: sc.Filled}
			for _, c := range parseSed(sc.Value) {
				switch {
				case c.Cmd == 'e' && c.Arg != "":
					cd.Exec = max(cd.Exec, ExecRead)
				case c.Cmd == 'e', c.Cmd == 's' && strings.ContainsRune(c.Flags, 'e'):
					cd.Exec = max(cd.Exec, ExecComputed)
				case (c.Cmd == 'w' || c.Cmd == 'W') && c.Arg != "":
					cd.Writes = append(cd.Writes, c.Arg)
				case c.WFile != "":
					cd.Writes = append(cd.Writes, c.WFile)
				}
			}
			cmd.Code = append(cmd.Code, cd)
		}
	default: // interpreters
		cd, ok, inPlace := interpreterOpts(name, args)
		stdin := false
		if !ok {
			cd, ok = interpreterStdin(cmd)
			stdin = ok
		}
		if ok {
			cmd.Code = append(cmd.Code, Code{Lang: cmd.Lang, Text: cd.Value, Span: cd.Span, Dynamic: cd.Dynamic || cd.Filled, Filled: cd.Filled, Stdin: stdin,
				Exec: interpreterExec(cmd.Lang, cd.Value), InPlace: inPlace && !stdin})
		} else {
			cmd.StdinCode = interpreterReadsStdin(args) && !(cmd.ExtraArgs && !stdinOperand(args))
		}
		if stdin {
			cmd.StdinCode = true
		}
	}
}

// codeNext reports whether the program of a command run as name with args
// takes its code from the word that would come next: a word appended
// there is found as its code.
func codeNext(name, lang string, args []Arg) bool {
	probe := Arg{Value: "\x00next", Span: Span{-1, -1}}
	next := append(args[:len(args):len(args)], probe)
	switch lang {
	case "":
		return false
	case progs.Shell:
		u := &unwrapped{}
		unwrapShell(name, &Command{}, next, u)
		return len(u.code) > 0 && u.code[0].text == probe.Value
	case progs.Awk:
		p := awkProgram(next)
		return p != nil && p.Value == probe.Value
	case progs.Sed:
		for _, s := range sedScripts(next) {
			if s.Value == probe.Value {
				return true
			}
		}
		return false
	}
	cd, ok, _ := interpreterOpts(name, next)
	return ok && cd.Value == probe.Value
}

// stdinCode returns the here-documents and here-strings of a command as
// code read from standard input.
func stdinCode(cmd *Command, lang string) []Code {
	var out []Code
	for _, r := range cmd.Redirects {
		if r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<" {
			out = append(out, Code{Lang: lang, Text: r.Target.Value, Span: hdocSpan(r), Dynamic: r.Target.Dynamic, Stdin: true, Exec: ExecRead})
		}
	}
	return out
}

// shellReadsStdin reports a shell invocation that takes its program from
// standard input: no -c and no script operand, or -s, - or /dev/stdin.
func shellReadsStdin(args []Arg) bool {
	for _, a := range args {
		v := a.Value
		if v == "-s" || v == "-" || v == "/dev/stdin" {
			return true
		}
		if len(v) > 1 && v[0] == '-' {
			if strings.ContainsRune(v[1:], 'c') && !strings.HasPrefix(v, "--") {
				return false
			}
			continue
		}
		return false
	}
	return true
}

// stdinOperand reports an operand or option that names standard input
// as the script: "-", "-s", /dev/stdin.
func stdinOperand(args []Arg) bool {
	for _, a := range args {
		if a.Value == "-" || a.Value == "-s" || a.Value == "/dev/stdin" {
			return true
		}
	}
	return false
}

// interpreterReadsStdin reports an interpreter invocation with no inline
// code and no script operand, or with "-" as the script.
func interpreterReadsStdin(args []Arg) bool {
	for _, a := range args {
		v := a.Value
		if v == "-" {
			return true
		}
		if v == "-m" || v == "-V" || v == "--version" || v == "-h" || v == "--help" || v == "-v" {
			return false
		}
		if len(v) > 1 && v[0] == '-' {
			continue
		}
		return false
	}
	return true
}

// pipedCode returns the text that literal echo/printf stages of the same
// pipeline feed into a shell. It returns nothing unless every earlier
// stage is such a literal echo or printf.
func pipedCode(cmd *Command, prev []*Command) []Code {
	var up []*Command
	for _, p := range cmd.Pipes {
		for _, o := range prev {
			for _, q := range o.Pipes {
				if q.ID == p.ID && q.Stage < p.Stage {
					up = append(up, o)
					break
				}
			}
		}
	}
	if len(up) == 0 {
		return nil
	}
	var out []Code
	for _, u := range up {
		n := u.Name()
		if n != "echo" && n != "printf" {
			return nil
		}
		for _, a := range u.Args {
			if a.Dynamic || len(a.Subst) > 0 {
				return nil
			}
		}
		args := u.Argv[1:]
		if len(args) == 0 {
			continue
		}
		if n == "echo" && strings.HasPrefix(args[0], "-") {
			args = args[1:]
		}
		text := strings.Join(args, " ")
		if n == "printf" && len(args) > 0 {
			text = printfLite(args[0], args[1:])
		}
		out = append(out, Code{Lang: progs.Shell, Text: text, Span: argsSpan(u.Args[1:], cmd.Span), Stdin: true, Piped: true, Exec: ExecRead})
	}
	return out
}

// printfLite renders the common printf directives (%s %b %d %%, \n \t)
// well enough to read the text a printf feeds into a shell.
func printfLite(format string, args []string) string {
	var sb strings.Builder
	ai := 0
	next := func() string {
		if ai < len(args) {
			ai++
			return args[ai-1]
		}
		return ""
	}
	for {
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '%' && i+1 < len(format):
				i++
				switch format[i] {
				case '%':
					sb.WriteByte('%')
				default:
					sb.WriteString(next())
				}
			case c == '\\' && i+1 < len(format):
				i++
				switch format[i] {
				case 'n':
					sb.WriteByte('\n')
				case 't':
					sb.WriteByte('\t')
				default:
					sb.WriteByte(format[i])
				}
			default:
				sb.WriteByte(c)
			}
		}
		// printf reuses the format while arguments remain
		if ai >= len(args) || !strings.Contains(format, "%") {
			break
		}
	}
	return sb.String()
}

// interpreterStdin returns the program text an interpreter reads from a
// here-document or here-string when it has no script argument.
func interpreterStdin(cmd *Command) (Arg, bool) {
	for _, a := range cmd.Args[1:] {
		if !strings.HasPrefix(a.Value, "-") || a.Value == "-m" || a.Value == "-c" || a.Value == "-e" {
			if a.Value != "-" {
				return Arg{}, false
			}
		}
	}
	for _, r := range cmd.Redirects {
		if r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<" {
			a := r.Target
			a.Span = hdocSpan(r)
			return a, true
		}
	}
	return Arg{}, false
}

// shortOpts describes the bundled short options of interpreters that
// accept them: the letters that take the program text, the letters that
// take a value (attached, or the next word when nothing is attached),
// the letters whose optional value can only be attached (the rest of the
// word), and the letters whose optional value is the digits that follow
// (perl -l[octal], -0[octal or xHEX]). Perl's -lne'print' is -l, -n,
// then the code "print"; -l0e'print' is -l0, then the code. nextOnly:
// a code letter never takes attached text, the code is the next word
// (node -pe CODE is -p and -e, then CODE).
var shortOpts = map[string]struct {
	code, next, attached, digits string
	nextOnly                     bool
}{
	progs.Perl:   {code: "eE", next: "MmIF", attached: "ixCdD123456789", digits: "l0"},
	progs.Ruby:   {code: "e", next: "IrCFEK", attached: "iWx123456789", digits: "0"},
	progs.Python: {code: "c", next: "mWX"},
	progs.JS:     {code: "ep", next: "r", nextOnly: true},
	progs.PHP:    {code: "r", next: "dcz"},
	progs.Lua:    {code: "e", next: "l"},
}

// optDigits returns the end of the digits of an option value that start
// at v[k]: octal or decimal digits, or x and hexadecimal ones.
func optDigits(v string, k int) int {
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	if k < len(v) && (v[k] == 'x' || v[k] == 'X') {
		k++
		isDigit = func(c byte) bool {
			return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f'
		}
	}
	for k < len(v) && isDigit(v[k]) {
		k++
	}
	return k
}

// interpreterOpts parses the options of an interpreter command up to its
// inline program, and reports whether a switch asks to edit the file
// operands in place (perl -i, ruby -i; not the i of -ne'print if …').
func interpreterOpts(name string, args []Arg) (code Arg, ok, inPlace bool) {
	lang := progs.Lang(name)
	spec, bundles := shortOpts[lang]
	flag := progs.CodeFlag(name)
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.Value
		if a.Dynamic && i == 0 {
			return Arg{}, false, inPlace
		}
		if v == "--" || (len(v) > 0 && v[0] != '-') {
			if name == "deno" && v == "eval" && i+1 < len(args) {
				return args[i+1], true, inPlace
			}
			return Arg{}, false, inPlace
		}
		if v == flag || v == "--eval" || lang == progs.JS && v == "--print" {
			if i+1 < len(args) {
				return args[i+1], true, inPlace
			}
			return Arg{}, false, inPlace
		}
		if !bundles || len(v) < 2 || strings.HasPrefix(v, "--") {
			continue
		}
	letters:
		for j := 1; j < len(v); j++ {
			ch := v[j]
			if ch == 'i' && (lang == progs.Perl || lang == progs.Ruby) {
				inPlace = true
			}
			switch {
			case strings.IndexByte(spec.code, ch) >= 0:
				if j+1 < len(v) && !spec.nextOnly {
					a.Value = v[j+1:]
					return a, true, inPlace
				}
				if i+1 < len(args) {
					return args[i+1], true, inPlace
				}
				return Arg{}, false, inPlace
			case lang == progs.Python && ch == 'm':
				return Arg{}, false, inPlace // python -m module: no inline code
			case strings.IndexByte(spec.next, ch) >= 0:
				if j+1 == len(v) {
					i++ // the value is the next word
				}
				break letters
			case strings.IndexByte(spec.digits, ch) >= 0:
				j = optDigits(v, j+1) - 1
			case strings.IndexByte(spec.attached, ch) >= 0:
				break letters
			}
		}
	}
	return Arg{}, false, inPlace
}

var (
	reShellCall = lazyre.New(`(?:\bos\.system|\bos\.popen|\bsubprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|\bsystem|\bexec(?:Sync)?|\bspawnSync|\bspawn|\bpopen|\bshell_exec|\bpassthru|\bproc_open|%x|\bIO\.popen|\bOpen3\.\w+|\bos\.execute|\bio\.popen|do shell script)\s*\(?\s*(?:\[\s*)?(?:r|b|f)?("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')`)
	reBacktick  = lazyre.New("`([^`]+)`")
	// reShellCallDyn: a shell-running call whose command is a literal
	// joined with something computed ("rm -rf " + path).
	reShellCallDyn = lazyre.New(`(?:\bos\.system|\bos\.popen|\bsubprocess\.\w+|\bsystem|\bexec(?:Sync)?|\bspawnSync|\bpopen|\bshell_exec|\bpassthru|\bos\.execute)\s*\(\s*(?:r|b|f)?("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*([^\s,)\]])`)
	// reShellAPI: any API that runs a command.
	reShellAPI = lazyre.New(`os\.system|os\.popen|subprocess|\bsystem\s*\(|\bexec\s*\(|execSync|spawnSync|\bspawn\s*\(|child_process|popen|shell_exec|passthru|proc_open|%x[\(\{\[]|IO\.popen|Open3|` + "`")
)

// shellStrings extracts string literals passed to shell-running calls in
// interpreter code (os.system("…"), system('…'), execSync(`…`), …).
func shellStrings(code string) []string {
	var out []string
	for _, m := range reShellCall.FindAllStringSubmatch(code, 8) {
		s := m[1]
		s = s[1 : len(s)-1]
		s = strings.NewReplacer(`\"`, `"`, `\'`, `'`, `\\`, `\`, `\n`, "\n").Replace(s)
		out = append(out, s)
	}
	return out
}

// shellBackticks extracts `…` commands (perl, ruby), and perl's other
// spellings of a command for the shell: qx{…}, and system or exec given
// a q{…} or qq{…} string.
func shellBackticks(lang, code string) []string {
	if lang != progs.Perl && lang != progs.Ruby {
		return nil
	}
	var out []string
	for _, m := range reBacktick.FindAllStringSubmatch(code, 8) {
		out = append(out, m[1])
	}
	if lang == progs.Perl {
		for _, m := range rePerlQuoted.FindAllStringSubmatchIndex(code, 8) {
			if m[3]-m[2] != 1 {
				continue // a delimiter outside ASCII
			}
			if s, ok := perlQuoteBody(code, m[2]); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// rePerlQuoted finds qx and system/exec with q or qq: group 1 ends at
// the opening delimiter.
var rePerlQuoted = lazyre.New(`(?:\bqx|\b(?:system|exec)\s*\(?\s*qq?)\s*([^\w\s])`)

// perlQuoteBody returns the text of a perl quote-like operator whose
// opening delimiter is at code[i]: up to the matching bracket (nested
// ones counted) or the same character again.
func perlQuoteBody(code string, i int) (string, bool) {
	open := code[i]
	close := open
	switch open {
	case '(':
		close = ')'
	case '[':
		close = ']'
	case '{':
		close = '}'
	case '<':
		close = '>'
	}
	depth := 0
	for j := i + 1; j < len(code); j++ {
		switch c := code[j]; {
		case c == '\\':
			j++
		case c == close && depth == 0:
			return code[i+1 : j], true
		case c == close:
			depth--
		case c == open && open != close:
			depth++
		}
	}
	return "", false
}

// codeOnly removes the comments of Python code, so that a call named in
// a comment is not taken for one that runs. Other languages are kept
// whole: their comment markers also mean other things (perl s#a#b#,
// $#array), and keeping text can only make a check stricter.
func codeOnly(lang, code string) string {
	if lang != progs.Python || !strings.Contains(code, "#") {
		return code
	}
	var b strings.Builder
	b.Grow(len(code))
	for i := 0; i < len(code); {
		c := code[i]
		switch {
		case c == '#':
			j := strings.IndexByte(code[i:], '\n')
			if j < 0 {
				return b.String()
			}
			i += j
		case c == '\'' || c == '"':
			q := string(c)
			if strings.HasPrefix(code[i:], q+q+q) {
				q += q + q
			}
			j := i + len(q)
			for j < len(code) && !strings.HasPrefix(code[j:], q) {
				if code[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+len(q), len(code))
			b.WriteString(code[i:j])
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// interpreterExec classifies the shell commands interpreter code runs.
func interpreterExec(lang, code string) Exec {
	code = codeOnly(lang, code)
	switch {
	case reShellCallDyn.MatchString(code):
		return ExecComputed
	case len(shellStrings(code)) > 0 || len(shellBackticks(lang, code)) > 0:
		return ExecRead
	case reShellAPI.MatchString(code):
		return ExecOpaque
	}
	return ExecNone
}

func awkProgram(args []Arg) *Arg {
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		if v == "-f" || v == "--file" {
			return nil
		}
		if v == "-F" || v == "-v" || v == "--assign" || v == "--field-separator" {
			i++
			continue
		}
		if strings.HasPrefix(v, "-") && len(v) > 1 {
			continue
		}
		return &args[i]
	}
	return nil
}

var (
	reAwkSystem     = lazyre.New(`system\s*\(\s*"((?:[^"\\]|\\.)*)"|\|\s*"((?:[^"\\]|\\.)*)"|"((?:[^"\\]|\\.)*)"\s*\|\s*getline`)
	reAwkPipe       = lazyre.New(`(print|printf)[^;}|]*\|\s*("|[a-zA-Z_])`)
	reAwkToShell    = lazyre.New(`\|\s*"\s*(/bin/|/usr/bin/)?(sh|bash|zsh|dash|ksh|python[0-9.]*|perl|ruby|node|php)\b`)
	reAwkAnyPipe    = lazyre.New(`(print|printf)[^;}|]*\|[^|&]`)
	reAwkLitPipe    = lazyre.New(`(print|printf)[^;}|]*\|\s*"(?:[^"\\]|\\.)*"`)
	reAwkLitGetline = lazyre.New(`"(?:[^"\\]|\\.)*"\s*\|\s*getline`)
	reAwkLoneSystem = lazyre.New(`system\s*\(\s*"(?:[^"\\]|\\.)*"\s*\)`)
)

func awkShellStrings(prog string) []string {
	var out []string
	for _, m := range reAwkSystem.FindAllStringSubmatch(prog, 8) {
		for _, g := range m[1:] {
			if g != "" {
				out = append(out, strings.ReplaceAll(g, `\"`, `"`))
			}
		}
	}
	return out
}

// awkExec classifies the commands an awk program runs: system("literal")
// and print | "literal" are read (and analysed as code); commands built
// at run time are not readable; print | "sh" feeds data to a shell.
func awkExec(prog string) Exec {
	runs := strings.Contains(prog, "system") || strings.Contains(prog, "getline") && strings.Contains(prog, "|") ||
		reAwkPipe.MatchString(prog)
	if reAwkToShell.MatchString(prog) {
		return ExecData
	}
	if !runs {
		return ExecNone
	}
	lone := len(reAwkLoneSystem.FindAllString(prog, -1))
	calls := strings.Count(prog, "system")
	pipes := len(reAwkAnyPipe.FindAllString(prog, -1))
	litPipes := len(reAwkLitPipe.FindAllString(prog, -1))
	if lone < calls || pipes > litPipes || strings.Contains(prog, "getline") && strings.Contains(prog, "|") && !reAwkLitGetline.MatchString(prog) {
		return ExecComputed
	}
	return ExecRead
}

type sedExec struct {
	text    string
	span    Span
	dynamic bool
}

// sedScripts returns the sed scripts of a sed command.
func sedScripts(args []Arg) []Arg {
	var scripts []Arg
	explicit := false
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "-e" || v == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
			explicit = true
		case strings.HasPrefix(v, "--expression="):
			a := args[i]
			a.Value = strings.TrimPrefix(v, "--expression=")
			scripts = append(scripts, a)
			explicit = true
		case v == "-f" || v == "--file":
			i++
			explicit = true
		}
	}
	if explicit {
		return scripts
	}
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		if v == "-l" || v == "--line-length" {
			i++
			continue
		}
		if strings.HasPrefix(v, "-") && len(v) > 1 {
			continue
		}
		return []Arg{args[i]}
	}
	return nil
}

// sedCommand is one command of a sed script.
type sedCommand struct {
	Cmd   byte   // 'e', 's', 'w', 'W', 'r', …
	Arg   string // the rest: command for e, file for w
	Flags string // s flags
	WFile string // s///w file
}

// parseSed splits a sed script into commands, well enough to find the
// ones that execute (e, s///e) or write (w, W, s///w).
func parseSed(script string) []sedCommand {
	var out []sedCommand
	s := script
	for len(s) > 0 {
		s = strings.TrimLeft(s, " \t\n;")
		if s == "" {
			break
		}
		// address
		s = skipSedAddr(s)
		s = strings.TrimLeft(s, " \t")
		if strings.HasPrefix(s, ",") {
			s = skipSedAddr(strings.TrimLeft(s[1:], " "))
		}
		s = strings.TrimLeft(s, " \t!")
		if s == "" {
			break
		}
		c := s[0]
		s = s[1:]
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
			continue
		case 'e', 'w', 'W', 'r', 'R', 'a', 'i', 'c', 'b', 't', 'T', ':', 'q', 'Q', 'L', 'v':
			end := strings.IndexByte(s, '\n')
			if c == 'b' || c == 't' || c == 'T' || c == 'q' || c == 'Q' || c == 'v' || c == ':' || c == 'l' {
				if e2 := strings.IndexByte(s, ';'); e2 >= 0 && (end < 0 || e2 < end) {
					end = e2
				}
			}
			var arg string
			if end < 0 {
				arg, s = s, ""
			} else {
				arg, s = s[:end], s[end:]
			}
			out = append(out, sedCommand{Cmd: c, Arg: strings.TrimSpace(arg)})
		case 's', 'y':
			if s == "" {
				return out
			}
			d := s[0]
			s = s[1:]
			parts := 0
			for parts < 2 && len(s) > 0 {
				if s[0] == '\\' && len(s) > 1 {
					s = s[2:]
					continue
				}
				if s[0] == d {
					parts++
				}
				s = s[1:]
			}
			fl := s
			end := strings.IndexAny(fl, ";\n}")
			if end >= 0 {
				fl, s = fl[:end], fl[end:]
			} else {
				s = ""
			}
			sc := sedCommand{Cmd: c, Flags: fl}
			if k := strings.IndexByte(fl, 'w'); k >= 0 && c == 's' {
				sc.WFile = strings.TrimSpace(fl[k+1:])
				sc.Flags = fl[:k+1]
			}
			out = append(out, sc)
		default:
			// unknown: skip to the next separator
			end := strings.IndexAny(s, ";\n")
			if end < 0 {
				return out
			}
			s = s[end:]
		}
	}
	return out
}

func skipSedAddr(s string) string {
	if s == "" {
		return s
	}
	switch {
	case s[0] >= '0' && s[0] <= '9':
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
			i++
		}
		return s[i:]
	case s[0] == '$':
		return s[1:]
	case s[0] == '+' || s[0] == '~':
		i := 1
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return s[i:]
	case s[0] == '/' || s[0] == '\\':
		d := byte('/')
		i := 1
		if s[0] == '\\' && len(s) > 1 {
			d = s[1]
			i = 2
		}
		for i < len(s) {
			if s[i] == '\\' {
				i += 2
				continue
			}
			if s[i] == d {
				i++
				for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
				return s[i:]
			}
			i++
		}
		return ""
	}
	return s
}

func sedExecs(args []Arg) []sedExec {
	var out []sedExec
	for _, sc := range sedScripts(args) {
		for _, c := range parseSed(sc.Value) {
			if c.Cmd == 'e' && c.Arg != "" {
				out = append(out, sedExec{text: c.Arg, span: sc.Span, dynamic: sc.Dynamic})
			}
		}
	}
	return out
}
