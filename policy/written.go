package policy

import (
	"path"
	"sort"
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/effects"
	"github.com/shellguard/shellguard/internal/grammar"
)

// Data flow inside one command line: a file that an earlier command of
// the line writes through a redirect and a later one runs as a script
// (bash F, sh F, source F, . F) or as a program (./F). Running a file
// that was there before the line is the workspace's code, which the
// sandbox holds; a file the line writes itself is the line's own code:
//   - when the line shows what it wrote (echo, printf, a here-document or
//     here-string through cat), that text is judged as a command line of
//     its own, and what it would do is what running the file does;
//   - when it does not (another program's output), the code run is known
//     only at run time: ask.
// A file built by a compiler (go build -o, cc -o) is not written through a
// redirect and stays the workspace's code; a written file renamed, copied
// or linked (mv, cp, ln, install) keeps what it holds.

// writtenFile is what the line wrote to one path so far.
type writtenFile struct {
	text  string // known: the text written
	known bool
}

// writtenScripts judges k's command when it runs a file the line wrote,
// then records what k's command writes through its redirects.
func (k *cmdCheck) writtenScripts() {
	e := k.e
	if len(e.written) > 0 {
		if p, arg := k.runsFile(); p != "" {
			if w, ok := e.written[p]; ok {
				sp := k.c.Span
				if arg != nil {
					sp = arg.Span
				}
				if w.known {
					k.nestedLine("runs a file written earlier in this command line, holding", strings.TrimRight(w.text, "\n"), sp)
				} else {
					k.emitAt(sg2305, sp, "runs "+quote(arg.Value)+", written earlier in this command line by a program whose output is not shown: the code it runs is known only at run time")
				}
			}
		}
	}
	k.foundRuns()
	// a written or downloaded file renamed, copied or linked keeps what
	// it holds, under its new name or in the directory it is moved to
	if (len(e.written) > 0 || len(e.downloaded) > 0) && k.copies() {
		ops := k.operands()
		if len(ops) == 2 && !ops[0].Dynamic && !ops[1].Dynamic {
			src, dst := e.abs(ops[0].Value, k.c.Cwd), e.abs(ops[1].Value, k.c.Cwd)
			if dst != "" {
				for _, d := range []string{dst, path.Join(dst, path.Base(src))} {
					if w, ok := e.written[src]; ok {
						e.written[d] = w
					}
					if e.downloaded[src] {
						e.downloaded[d] = true
					}
				}
			}
		}
	}
	k.downloads()
	for _, r := range k.c.Redirects {
		if !r.Write || (r.N != "" && r.N != "1") || r.Op == ">&" || r.Target.Dynamic || r.Target.ProcSubst {
			continue
		}
		p := e.abs(r.Target.Value, r.Cwd)
		if p == "" || safeDevice(p) {
			continue
		}
		text, known := k.printed()
		if prev, ok := e.written[p]; ok && (r.Op == ">>" || r.Op == "&>>") {
			text, known = prev.text+text, prev.known && known
		}
		if e.written == nil {
			e.written = map[string]writtenFile{}
		}
		e.written[p] = writtenFile{text: text, known: known}
	}
}

// downloads records what a network client writes (curl -o, wget -O or
// -P, a redirect of its output, in any spelling the grammar reads) as
// downloaded: the files, and everything under a directory it writes to.
func (k *cmdCheck) downloads() {
	e := k.e
	fetch := false
	for _, ef := range e.effs[k.i] {
		fetch = fetch || ef.Kind == effects.Net && ef.Dest != ""
	}
	if !fetch {
		return
	}
	for _, ef := range e.effs[k.i] {
		if ef.Kind != effects.Write || ef.Path.Origin != effects.OriginLiteral || ef.Path.Abs == "" {
			continue
		}
		p := e.resolve(ef.Path.Abs)
		if safeDevice(p) || p == "/" {
			continue
		}
		e.downloaded[p] = true
		e.downloadedDirs = append(e.downloadedDirs, p)
	}
}

// foundRuns judges the files a command runs that are found at run time (a
// glob, find -exec, xargs, a loop over find's output). Files the line
// downloaded or wrote under that root, matching its name pattern, are
// among those run; with none, files found in the workspace are its own
// code, and files found anywhere else are code nobody has read: ask.
func (k *cmdCheck) foundRuns() {
	e := k.e
	for _, ef := range e.effs[k.i] {
		if ef.Kind != effects.Exec || ef.Code != effects.CodeFile || ef.Option != "" {
			continue
		}
		root, pattern, ok := foundRoot(ef.Path)
		if !ok {
			continue
		}
		root = e.resolve(root)
		sp := ef.Span
		if sp == (analyze.Span{}) {
			sp = k.c.Span
		}
		what := "the files found under " + quote(root)
		if ef.Via != "" {
			what = "the files " + quote(ef.Via) + " finds"
		}
		if d, ok := e.downloadedUnder(root, pattern); ok {
			k.emitAt(sg2303deny, sp, "runs "+what+", among them "+quote(d)+", downloaded earlier in the same command")
			continue
		}
		ran := false
		for _, p := range sortedKeys(e.written) {
			if !within(p, root) || p == root || !matchBase(pattern, p) {
				continue
			}
			ran = true
			if w := e.written[p]; w.known {
				k.nestedLine("runs "+what+", among them "+quote(p)+", written earlier in this command line, holding", strings.TrimRight(w.text, "\n"), sp)
			} else {
				k.emitAt(sg2305, sp, "runs "+what+", among them "+quote(p)+", written earlier in this command line by a program whose output is not shown")
			}
		}
		if !ran && !e.inWorkspace(root) && !e.rules.Unrestricted {
			k.emitAt(sg2305, sp, "runs "+what+" at run time, outside the workspace: code nobody has read")
		}
	}
}

// foundScript reports a script operand that names files found at run
// time under a known root (for f in $(find …); do sh "$f"): foundRuns
// judges what it runs.
func (k *cmdCheck) foundScript(a analyze.Arg) bool {
	for _, ef := range k.e.effs[k.i] {
		if ef.Kind == effects.Exec && ef.Code == effects.CodeFile && ef.Span == a.Span && ef.Path.Origin == effects.OriginDerived && ef.Path.Known() {
			return true
		}
	}
	return false
}

// foundRoot returns the directory under which the files of a derived
// path are found and the name pattern they match ("" for any): a glob's
// last element, find -name, or the {} find -exec and xargs -I fill.
func foundRoot(p effects.Path) (root, pattern string, ok bool) {
	switch {
	case p.Origin == effects.OriginDerived && p.Abs != "":
		pattern = p.Pattern
		if strings.HasPrefix(p.Via, "glob ") {
			pattern = path.Base(p.Raw)
		}
		return p.Abs, path.Base(pattern), true
	case p.Origin == effects.OriginLiteral && path.Base(p.Abs) == "{}":
		return path.Dir(p.Abs), "", true
	}
	return "", "", false
}

// downloadedUnder returns a file downloaded earlier in the line that a
// run of the files under root matching pattern includes.
func (e *evaluator) downloadedUnder(root, pattern string) (string, bool) {
	for _, p := range sortedKeys(e.downloaded) {
		if within(p, root) && p != root && matchBase(pattern, p) {
			return p, true
		}
	}
	for _, d := range e.downloadedDirs {
		// the root is in what was downloaded, or a cloned tree is
		// under it (a file also listed here is matched above)
		if within(root, d) || within(d, root) && !e.downloaded[d] {
			return d, true
		}
	}
	return "", false
}

// matchBase reports whether the last element of p matches a name
// pattern; an empty pattern matches every name, and so does one that
// does not compile.
func matchBase(pattern, p string) bool {
	if pattern == "" || pattern == "." || pattern == "/" {
		return true
	}
	ok, err := path.Match(pattern, path.Base(p))
	return ok || err != nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// verbatim reports a program that, given no file, prints its input as
// it is (+verbatim: cat).
func verbatim(name string) bool {
	g := grammar.Resolve(name).Line
	return g != nil && g.Verbatim
}

// runsFile returns the path of the file k's command runs as a script or
// a program, and the argument naming it; "" when it runs none.
func (k *cmdCheck) runsFile() (string, *analyze.Arg) {
	c := k.c
	a0 := &c.Args[0]
	switch {
	case !c.Builtin && strings.Contains(a0.Value, "/"):
		return k.e.abs(a0.Value, c.Cwd), a0
	case k.name == "source" || k.name == ".":
		if len(c.Args) > 1 {
			return k.e.abs(c.Args[1].Value, c.Cwd), &c.Args[1]
		}
	case c.Shell():
		for i := 1; i < len(c.Args); i++ {
			a := &c.Args[i]
			switch {
			case a.Value == "-c" || a.Value == "-s":
				return "", nil // the code is an argument, or stdin
			case a.Value == "--":
				if i+1 < len(c.Args) {
					return k.e.abs(c.Args[i+1].Value, c.Cwd), &c.Args[i+1]
				}
				return "", nil
			case strings.HasPrefix(a.Value, "-") || strings.HasPrefix(a.Value, "+"):
				if a.Value == "-o" || a.Value == "+o" || a.Value == "-O" || a.Value == "+O" {
					i++ // takes a value
				}
			default:
				return k.e.abs(a.Value, c.Cwd), a
			}
		}
	}
	return "", nil
}

// printed returns the text k's command writes to its standard output when
// the line shows it: echo's and printf's arguments, or the here-document
// or here-string cat copies. Parts known only at run time are kept as the
// analysis renders them ($NAME, $(…)), so the judged text still says
// that they are unknown.
func (k *cmdCheck) printed() (string, bool) {
	c := k.c
	args := c.Args[1:]
	switch k.name {
	case "echo":
		newline, escapes := true, false
		for len(args) > 0 && len(args[0].Value) > 1 && args[0].Value[0] == '-' && strings.Trim(args[0].Value[1:], "neE") == "" {
			newline = newline && !strings.Contains(args[0].Value, "n")
			escapes = strings.Contains(args[0].Value, "e")
			args = args[1:]
		}
		var words []string
		for _, a := range args {
			words = append(words, a.Value)
		}
		text := strings.Join(words, " ")
		if escapes {
			text = unescape(text)
		}
		if newline {
			text += "\n"
		}
		return text, true
	case "printf":
		if len(args) == 0 || strings.HasPrefix(args[0].Value, "-") {
			return "", false
		}
		format, rest := args[0].Value, args[1:]
		if !strings.Contains(format, "%") {
			return unescape(format), true
		}
		// %s and %b take the arguments in turn, the format repeats while
		// arguments are left; any other directive: not known.
		var b strings.Builder
		for first := true; first || len(rest) > 0; first = false {
			if !first && !consumes(format) {
				break // a format that takes no argument is printed once
			}
			f := format
			for {
				i := strings.IndexByte(f, '%')
				if i < 0 {
					b.WriteString(unescape(f))
					break
				}
				b.WriteString(unescape(f[:i]))
				if i+1 >= len(f) {
					return "", false
				}
				switch f[i+1] {
				case '%':
					b.WriteByte('%')
				case 's', 'b':
					if len(rest) > 0 {
						v := rest[0].Value
						if f[i+1] == 'b' {
							v = unescape(v)
						}
						b.WriteString(v)
						rest = rest[1:]
					}
				default:
					return "", false
				}
				f = f[i+2:]
			}
		}
		return b.String(), true
	}
	// a program that prints its input as it is (+verbatim), given no
	// file: the here-document or here-string it reads
	if g := k.prog.Line; g == nil || !g.Verbatim || len(args) > 0 {
		return "", false // files the line does not show
	}
	for _, r := range c.Redirects {
		switch r.Op {
		case "<<", "<<-":
			return r.Target.Value, true
		case "<<<":
			return r.Target.Value + "\n", true
		}
	}
	return "", false
}

// consumes reports whether a printf format takes an argument (%s, %b):
// only then is it repeated for the arguments left.
func consumes(format string) bool {
	for i := 0; i+1 < len(format); i++ {
		if format[i] == '%' {
			if format[i+1] == 's' || format[i+1] == 'b' {
				return true
			}
			i++ // %% and the others
		}
	}
	return false
}

// unescape applies the backslash escapes echo -e and printf share that
// matter to a shell reading the text: newline, tab and backslash.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`).Replace(s)
}
