package effects

import (
	"path"
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/internal/grammar"
)

// interpreter reads the code of python -c, node -e, perl -e, ruby -e,
// pwsh -c …: list-form argv (subprocess.run(['rm','-rf',…]),
// execFileSync('rm', [...]), system('rm', …)) becomes the effects of that
// command; delete calls (shutil.rmtree, remove_tree, fs.promises.rm,
// Remove-Item …) become deletes.
func (x *extractor) interpreter(i int, c *analyze.Command, p *grammar.Parsed, with func(Effect) Effect) {
	g := p.Chain[0]
	if !g.Interp {
		return
	}
	x.server(c, p, with)
	for _, o := range p.Opts {
		if r, ok := p.Grammar.OptRole(o.Name); ok && r == grammar.RoleCode && o.HasVal {
			x.interpCode(i, c, o.Val, with)
		}
	}
}

// delete calls of interpreter libraries and whether they are recursive.
var deleteCalls = []struct {
	name      string
	recursive bool
}{
	{"shutil.rmtree", true}, {"rmtree", true}, {"remove_tree", true}, {"rm_rf", true}, {"rm_r", true},
	{"FileUtils.rm", false}, {"fs.promises.rm", true}, {"fsPromises.rm", true}, {"fs.rmSync", true}, {"fs.rm", true},
	{"rmSync", true}, {"fs.rmdirSync", true}, {"Remove-Item", true}, {"rimraf", true}, {"os.RemoveAll", true},
	{"os.remove", false}, {"os.unlink", false}, {"os.rmdir", false}, {"unlinkSync", false}, {"fs.unlink", false},
	{"File.delete", false}, {"unlink", false}, {"rmdir", false}, {"Path.unlink", false}, {".unlink(", false},
	{".rmdir(", false}, {".promises.rm", true}, {".rmSync", true}, {".rm(", true}, {"del ", false}, {"ri ", true},
}

// server: python -m http.server (and php -S) serve a directory to the
// network.
func (x *extractor) server(c *analyze.Command, p *grammar.Parsed, with func(Effect) Effect) {
	mod := ""
	dir := ""
	bind := "0.0.0.0"
	for k, o := range p.Opts {
		switch o.Name {
		case "-m":
			mod = o.Val.Value
			// the module's own options follow as operands or options
			rest := p.Opts[k+1:]
			for _, r := range rest {
				switch r.Name {
				case "--directory", "-d":
					if r.HasVal {
						dir = r.Val.Value
					}
				case "--bind", "-b":
					if r.HasVal {
						bind = r.Val.Value
					}
				}
			}
		case "-S":
			mod = "php -S"
			bind = o.Val.Value
		case "-t":
			dir = o.Val.Value
		}
	}
	if mod != "http.server" && mod != "SimpleHTTPServer" && mod != "php -S" {
		return
	}
	// the module's options were parsed as the interpreter's: look again
	args := c.Args[1:]
	for k := 0; k+1 < len(args); k++ {
		switch args[k].Value {
		case "--directory", "-d":
			dir = args[k+1].Value
		case "--bind", "-b":
			bind = args[k+1].Value
		}
		if v, ok := strings.CutPrefix(args[k].Value, "--directory="); ok {
			dir = v
		}
	}
	pa := Path{Abs: c.Cwd, Raw: ".", Origin: OriginLiteral}
	if dir != "" {
		pa = x.pathOf(analyze.Arg{Value: dir}, c.Cwd)
	} else if c.Cwd == "" {
		pa = Path{Raw: ".", Origin: OriginUnknown}
	}
	x.emit(with(Effect{Kind: Net, Dest: bind, Sends: true, SendsWhat: "every file under " + pa.String(), Path: pa, Text: "serve"}))
}

// secretsInCode reports code that prints the whole environment or reads
// a keyring.
func (x *extractor) secretsInCode(code, prog string, with func(Effect) Effect) {
	env := Path{Abs: "/proc/self/environ", Raw: "the environment", Origin: OriginLiteral}
	if envDump(code) {
		x.emit(with(Effect{Kind: Read, Path: env, Via: prog + " code prints the environment"}))
	}
	for _, k := range []string{"keyring.get_password", "keyring.get_credential", "keytar.getPassword", "keytar.findCredentials",
		"SecItemCopyMatching", "secret_password_lookup", "Secret.password_lookup", "CredRead"} {
		if strings.Contains(code, k) {
			x.emit(with(Effect{Kind: Read, Path: Path{Abs: path.Join(x.opts.Home, ".local/share/keyrings"), Raw: "the keyring", Origin: OriginLiteral},
				Via: prog + " code calls " + k}))
			return
		}
	}
}

// envDump reports code that prints or serialises the whole environment
// (not one variable of it).
func envDump(code string) bool {
	if strings.Contains(code, "ENVIRON") && strings.Contains(code, " in ENVIRON") {
		return true
	}
	for _, w := range []string{"process.env", "os.environ", "ENV", "%ENV", "System.getenv()", "getenv()", "os.Environ()", "Deno.env.toObject", "Bun.env"} {
		off := 0
		for n := 0; n < 16; n++ {
			k := strings.Index(code[off:], w)
			if k < 0 {
				break
			}
			k += off
			off = k + len(w)
			if k > 0 && (isIdent(code[k-1]) || code[k-1] == '.' || w == "ENV" && (code[k-1] == '%' || code[k-1] == '$')) {
				continue
			}
			rest := code[off:]
			switch w {
			case "%ENV":
				if !strings.HasPrefix(strings.TrimSpace(rest), "{") {
					return true
				}
				continue
			case "System.getenv()", "getenv()", "os.Environ()", "Deno.env.toObject", "Bun.env":
				return true
			case "ENV":
				if strings.HasPrefix(rest, ".to_h") || strings.HasPrefix(rest, ".each") || strings.HasPrefix(rest, ".inspect") ||
					strings.HasPrefix(rest, ".to_a") || strings.HasPrefix(rest, ".map") || rest == "" || rest[0] == ')' || rest[0] == ' ' || rest[0] == ';' || rest[0] == '\n' {
					if k >= 2 && (strings.HasSuffix(code[:k], "p ") || strings.HasSuffix(code[:k], "puts ") || strings.HasSuffix(code[:k], "pp ") || strings.HasSuffix(code[:k], "print ")) || strings.HasPrefix(rest, ".") {
						return true
					}
				}
				continue
			}
			// "NAME" in os.environ: a test of one variable
			if lit := strings.TrimSuffix(strings.TrimSuffix(strings.TrimRight(code[:k], " "), " in"), " not"); lit != strings.TrimRight(code[:k], " ") &&
				(strings.HasSuffix(lit, `"`) || strings.HasSuffix(lit, `'`)) {
				continue
			}
			// process.env / os.environ followed by a single-variable access
			if strings.HasPrefix(rest, "[") || strings.HasPrefix(rest, ".get") || strings.HasPrefix(rest, ".setdefault") ||
				strings.HasPrefix(rest, ".pop") || strings.HasPrefix(rest, ".keys") || strings.HasPrefix(rest, ".__contains__") ||
				len(rest) > 0 && rest[0] == '.' && len(rest) > 1 && isIdent(rest[1]) && w == "process.env" {
				continue
			}
			return true
		}
	}
	return false
}

func (x *extractor) interpCode(i int, c *analyze.Command, a analyze.Arg, with func(Effect) Effect) {
	code := a.Value
	if len(code) > 8192 {
		code = code[:8192]
	}
	x.secretsInCode(code, c.Name(), with)
	// list-form argv: ['rm', '-rf', '/x'] or ("rm", "-rf", …)
	for k := 0; k < len(code); k++ {
		if code[k] != '[' && code[k] != '(' {
			continue
		}
		words, end, ok := stringList(code[k+1:], closer(code[k]))
		if !ok || len(words) < 2 {
			continue
		}
		name := words[0]
		if j := strings.LastIndexByte(name, '/'); j >= 0 {
			name = name[j+1:]
		}
		g := grammar.Lookup(name)
		if g == nil || g.Interp && name != "rm" {
			k += end
			continue
		}
		args := make([]analyze.Arg, len(words))
		for j, w := range words {
			args[j] = analyze.Arg{Value: w, Span: a.Span}
		}
		inner := &analyze.Command{Argv: words, Args: args, Cwd: c.Cwd, Span: a.Span}
		p := grammar.Parse(g, args[1:])
		before := len(x.out)
		x.apply(i, inner, p)
		for j := before; j < len(x.out); j++ {
			x.out[j].Via = c.Name() + " code runs " + strings.Join(words, " ")
			if len(x.out[j].Via) > 80 {
				x.out[j].Via = x.out[j].Via[:77] + "…"
			}
		}
		k += end
	}
	// delete calls with a literal or computed path
	for _, d := range deleteCalls {
		off := 0
		for n := 0; n < 8; n++ {
			k := strings.Index(code[off:], d.name)
			if k < 0 {
				break
			}
			k += off
			off = k + len(d.name)
			if k > 0 && isIdent(code[k-1]) && d.name[0] != '.' {
				continue
			}
			rest := code[off:]
			if off < len(code) && isIdent(code[off]) && d.name[len(d.name)-1] != ' ' {
				continue
			}
			lit, dyn, ok := firstString(rest)
			if !ok {
				continue
			}
			via := c.Name() + " code calls " + strings.TrimSuffix(strings.TrimSpace(d.name), "(")
			if dyn {
				x.emit(with(Effect{Kind: Delete, Path: Path{Raw: lit, Origin: OriginUnknown}, Recursive: d.recursive, Via: via, Span: a.Span, Dynamic: true}))
				continue
			}
			pa := x.pathOf(analyze.Arg{Value: lit, Span: a.Span}, c.Cwd)
			x.emit(with(Effect{Kind: Delete, Path: pa, Recursive: d.recursive, Via: via, Span: a.Span}))
		}
	}
}

// exprWord renders an expression in a list-form argv: the home
// directory where the expression names it, else a run-time value.
func exprWord(e string) string {
	if strings.Contains(e, "expanduser") || strings.Contains(e, "HOME") || strings.Contains(e, "homedir") || strings.Contains(e, "Path.home") || strings.Contains(e, "home_dir") ||
		strings.Contains(e, "Dir.home") || strings.Contains(e, "user.home") || strings.Contains(e, "UserHomeDir") {
		if k := strings.Index(e, "\"~"); k >= 0 {
			if j := strings.IndexByte(e[k+1:], '"'); j >= 0 {
				return e[k+1 : k+1+j]
			}
		}
		if k := strings.Index(e, "'~"); k >= 0 {
			if j := strings.IndexByte(e[k+1:], '\''); j >= 0 {
				return e[k+1 : k+1+j]
			}
		}
		return "~"
	}
	return "$(" + strings.TrimSpace(e) + ")"
}

func closer(b byte) byte {
	if b == '[' {
		return ']'
	}
	return ')'
}

func isIdent(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// stringList parses "'a', "b", 'c']" up to close: a list of string
// literals only. end is the offset after close.
func stringList(s string, close byte) (words []string, end int, ok bool) {
	k := 0
	for {
		for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n') {
			k++
		}
		if k >= len(s) {
			return nil, k, false
		}
		if s[k] == close && len(words) > 0 {
			return words, k + 1, true
		}
		q := s[k]
		if q != '\'' && q != '"' && q != '`' {
			// an expression: os.path.expanduser("~"), os.environ["HOME"]
			e := k
			depth := 0
			for e < len(s) && (depth > 0 || s[e] != ',' && s[e] != close) {
				switch s[e] {
				case '(', '[', '{':
					depth++
				case ')', ']', '}':
					depth--
				}
				if depth < 0 {
					break
				}
				e++
			}
			if e >= len(s) || e == k || len(words) == 0 {
				return nil, k, false
			}
			words = append(words, exprWord(s[k:e]))
			k = e
			if s[k] == ',' {
				k++
				continue
			}
			return words, k + 1, true
		}
		j := strings.IndexByte(s[k+1:], q)
		if j < 0 {
			return nil, k, false
		}
		words = append(words, s[k+1:k+1+j])
		k += j + 2
		for k < len(s) && s[k] == ' ' {
			k++
		}
		if k < len(s) && s[k] == ',' {
			k++
			continue
		}
		if k < len(s) && s[k] == close {
			return words, k + 1, true
		}
		return nil, k, false
	}
}

// firstString returns the first argument after a call name: a string
// literal, or (dyn) an expression that is not one.
func firstString(rest string) (string, bool, bool) {
	k := 0
	for k < len(rest) && (rest[k] == ' ' || rest[k] == '(' || rest[k] == '\t') {
		k++
	}
	if k >= len(rest) {
		return "", false, false
	}
	for k < len(rest) && rest[k] == '-' { // Remove-Item -Recurse -Force ~
		for k < len(rest) && rest[k] != ' ' && rest[k] != ';' && rest[k] != '\n' {
			k++
		}
		for k < len(rest) && rest[k] == ' ' {
			k++
		}
		if k >= len(rest) || rest[k] == ';' || rest[k] == '\n' {
			return "", false, false
		}
	}
	if k < len(rest) && (rest[k] == '/' || rest[k] == '~' || rest[k] == '.') {
		e := k
		for e < len(rest) && rest[e] != ' ' && rest[e] != ';' && rest[e] != '\n' && rest[e] != ')' && rest[e] != '\'' && rest[e] != '"' {
			e++
		}
		return rest[k:e], false, true
	}
	q := rest[k]
	if q == '\'' || q == '"' || q == '`' {
		j := strings.IndexByte(rest[k+1:], q)
		if j < 0 {
			return "", false, false
		}
		v := rest[k+1 : k+1+j]
		if q == '`' && strings.Contains(v, "${") || q == '"' && (strings.Contains(v, "#{") || strings.Contains(v, "$")) {
			return v, true, true
		}
		if v == "" {
			return "", false, false
		}
		return v, false, true
	}
	if k < len(rest) && (isIdent(rest[k]) || rest[k] == '$') {
		e := k
		for e < len(rest) && (isIdent(rest[e]) || rest[e] == '.' || rest[e] == '$') {
			e++
		}
		return rest[k:e], true, true
	}
	return "", false, false
}
