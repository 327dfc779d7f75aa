package policy

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/effects"
	"github.com/shellguard/shellguard/internal/grammar"
	"github.com/shellguard/shellguard/internal/world"
)

// The policy over effects: what a command reads, writes, deletes, runs and
// sends, whatever program it is spelled with. The rules are few:
//   - a credential read asks; a credential sent over the network denies;
//   - a write, delete or mode change outside the writable roots asks; of a
//     floor path (/, system directories and their children, home) it is
//     denied whatever the workspace;
//   - startup and persistence files deny; registry and toolchain
//     configuration asks; the repository's .git is not deleted;
//   - code from the network denies, computed code and shell escapes ask;
//   - data sent to a host that is not this machine asks; metadata
//     endpoints deny;
//   - a program with no grammar is judged by what its arguments name;
//     an unknown subcommand of a CLI that changes things asks.

// effectsOf extracts the effects of the analysis once, grouped by command.
func (e *evaluator) effectsOf() {
	e.effs = map[int][]effects.Effect{}
	for _, ef := range effects.Extract(e.res, effects.Options{Workspace: workspaceOf(e.rules), Home: e.home}) {
		e.effs[ef.Cmd] = append(e.effs[ef.Cmd], ef)
	}
	e.textSinks()
}

// textSinks finds arithmetic evaluation of values that come from outside
// the command (a download, a file, read): bash evaluates subscripts in
// them, so a value like a[$(cmd)] runs cmd. Also indirect expansion of
// a variable prepared with such a subscript.
func (e *evaluator) textSinks() {
	ext := map[string]bool{}
	prepared := map[string]bool{}
	integer := map[string]bool{}
	assoc := map[string]bool{}
	var lets []string
	src := e.res.Src
	for _, c := range e.res.Commands {
		switch c.Name() {
		case "declare", "typeset", "local":
			flags := ""
			for _, a := range c.Args[1:] {
				if strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "--") {
					flags += a.Value[1:]
				}
			}
			names := make([]string, 0, len(c.Args)+len(c.Assigns))
			for _, a := range c.Args[1:] {
				n, _, _ := strings.Cut(a.Value, "=")
				names = append(names, n)
			}
			for _, as := range c.Assigns {
				names = append(names, as.Name)
			}
			for _, n := range names {
				if strings.HasPrefix(n, "-") || !isName(n) {
					continue
				}
				if strings.Contains(flags, "i") {
					integer[n] = true
				}
				if strings.Contains(flags, "i") && !strings.Contains(flags, "A") {
					for _, a := range c.Args[1:] {
						if m, v, ok := strings.Cut(a.Value, "="); ok && m == n && !a.Dynamic && subscriptCode(v) {
							e.emit(sg4020, -1, analyze.Span{Start: 0, End: len(e.res.Src)}, "integer variable "+n+" is given text with a command in a subscript: bash evaluates it and runs the command")
							return
						}
					}
				}
				if strings.Contains(flags, "A") {
					assoc[n] = true
				}
			}
		}
	}
	lets = letClauses(src)
	text := func(sp analyze.Span) string {
		if sp.Start < 0 || sp.End > len(src) || sp.Start >= sp.End {
			return ""
		}
		return src[sp.Start:sp.End]
	}
	// outside reports text that expands a positional parameter or a
	// variable already known to hold a value from outside
	outside := func(t string) bool {
		if _, ok := positionalIn(t); ok {
			return true
		}
		for n := range ext {
			if expands(t, n) {
				return true
			}
		}
		return false
	}
	// values from outside the command: read and mapfile targets, and
	// (to a fixed point, three rounds) variables given a download, a
	// file's text, a parameter or another such variable
	for round := 0; round < 3; round++ {
		before := len(ext)
		for _, c := range e.res.Commands {
			for _, a := range c.Assigns {
				v := a.Value
				if round == 0 && subscriptCode(v.Value) && !v.Dynamic {
					prepared[a.Name] = true
				}
				for _, j := range v.Subst {
					if j >= 0 && j < len(e.res.Commands) && externalSource(e.res.Commands[j]) {
						ext[a.Name] = true
					}
				}
				if outside(text(v.Span)) {
					ext[a.Name] = true
				}
			}
			for _, n := range readTargets(c) {
				ext[n] = true
			}
			switch c.Name() {
			case "declare", "typeset", "local", "readonly", "export":
				for _, a := range c.Args[1:] {
					if n, _, ok := strings.Cut(a.Value, "="); ok && isName(n) && outside(text(a.Span)) {
						ext[n] = true
					}
				}
			case "printf":
				// printf -v NAME FORMAT ARGS…
				if len(c.Args) > 3 && c.Args[1].Value == "-v" && isName(c.Args[2].Value) && outside(text(analyze.Span{Start: c.Args[3].Span.Start, End: c.Span.End})) {
					ext[c.Args[2].Value] = true
				}
			}
		}
		if len(ext) == before {
			break
		}
	}
	whole := analyze.Span{Start: 0, End: len(src)}
	for n := range ext {
		if integer[n] {
			e.emit(sg4020, -1, whole, "integer variable "+n+" is given a value from outside the command: bash evaluates it as arithmetic")
			return
		}
	}
	if n, ok := computedSubscript(src, assoc, ext); ok {
		e.emit(sg4020, -1, whole, "array subscript "+quote(n)+" comes from outside the command: bash evaluates it as arithmetic")
		return
	}
	for n := range prepared {
		if strings.Contains(src, "${!"+n+"}") || strings.Contains(src, "${!"+n+"[") {
			e.emit(sg4020, -1, whole, "indirect expansion of "+n+", which holds a subscript with a command substitution: bash runs it")
			return
		}
	}
	for n := range ext {
		if strings.Contains(src, "${!"+n+"}") {
			e.emit(sg4020, -1, whole, "indirect expansion of "+n+", a name from outside the command: a subscript in it runs commands")
			return
		}
	}
	ctxs := append(arithContexts(src), lets...)
	ctxs = append(ctxs, substringBounds(src)...)
	// text that holds a subscript with a command, given literally where
	// bash evaluates it as arithmetic (let 'x=a[$(cmd)]', an integer
	// variable, a variable that arithmetic or a subscript reads): the
	// command runs though no expansion shows it
	for n := range prepared {
		if integer[n] {
			e.emit(sg4020, -1, whole, "integer variable "+n+" is given text with a command in a subscript: bash evaluates it and runs the command")
			return
		}
	}
	for _, ctx := range lets {
		if subscriptCode(ctx) {
			e.emit(sg4020, -1, whole, "let evaluates "+quote(ctx)+" as arithmetic: the command in its subscript runs")
			return
		}
	}
	if len(prepared) > 0 {
		for _, ctx := range append(ctxs, subscripts(src, assoc)...) {
			for n := range prepared {
				if containsWord(ctx, n) {
					e.emit(sg4020, -1, whole, "arithmetic on "+n+", which holds a subscript with a command: bash runs it")
					return
				}
			}
		}
	}
	for _, ctx := range ctxs {
		if n, ok := externalSubst(ctx); ok {
			e.emit(sg4020, -1, whole, "arithmetic on the output of "+n+": bash evaluates it, and a subscript in it runs commands")
			return
		}
	}
	if len(ctxs) > 256 {
		ctxs = ctxs[:256]
	}
	for _, ctx := range ctxs {
		if p, ok := positionalIn(ctx); ok {
			e.emit(sg4020, -1, whole, "arithmetic on "+p+", a parameter given from outside: a subscript in it runs commands")
			return
		}
	}
	if len(ext) == 0 {
		return
	}
	for _, ctx := range ctxs {
		for n := range ext {
			if containsWord(ctx, n) {
				e.emit(sg4020, -1, whole, "arithmetic on "+n+", a value from outside the command: a subscript in it runs commands")
				return
			}
		}
	}
}

// subscriptCode reports text with a subscript that holds a command
// substitution (a[$(cmd)], a[`cmd`]): evaluated as arithmetic, bash
// runs the command.
func subscriptCode(v string) bool {
	i := strings.IndexByte(v, '[')
	return i >= 0 && (strings.Contains(v[i:], "$(") || strings.Contains(v[i:], "`"))
}

// subscripts returns the subscripts of indexed arrays in src, in
// expansions and assignments (${a[SUB]}, a[SUB]=): bash evaluates them
// as arithmetic. Associative arrays take theirs as strings.
func subscripts(src string, assoc map[string]bool) []string {
	var out []string
	for off := 0; off < len(src) && len(out) < 256; {
		i := strings.IndexByte(src[off:], '[')
		if i < 0 {
			break
		}
		i += off
		off = i + 1
		k := i
		for k > 0 && isIdentByte(src[k-1]) {
			k--
		}
		if name := src[k:i]; name == "" || !isName(name) || assoc[name] {
			continue
		}
		if j := strings.IndexByte(src[i:], ']'); j > 0 {
			out = append(out, src[i+1:i+j])
		}
	}
	return out
}

// letClauses returns the text of let commands (the parser keeps them as
// arithmetic, not as commands).
func letClauses(src string) []string {
	var out []string
	for off := 0; off < len(src); {
		i := strings.Index(src[off:], "let ")
		if i < 0 {
			break
		}
		i += off
		off = i + 4
		if i > 0 && strings.IndexByte(" \t\n;&|({", src[i-1]) < 0 {
			continue
		}
		end := strings.IndexAny(src[i:], "\n;&|")
		if end < 0 {
			end = len(src) - i
		}
		out = append(out, src[i:i+end])
	}
	return out
}

// positionalIn returns a positional parameter expanded in text ($1,
// ${2}, $@, $*).
func positionalIn(t string) (string, bool) {
	for i := 0; i+1 < len(t); i++ {
		if t[i] != '$' {
			continue
		}
		j := i + 1
		if t[j] == '{' && j+1 < len(t) {
			j++
		}
		if c := t[j]; c >= '1' && c <= '9' || c == '@' || c == '*' {
			return t[i : j+1], true
		}
	}
	return "", false
}

// computedSubscript finds an indexed-array subscript, in an assignment
// (a[…]=) or an expansion (${a[…]}), that holds a positional parameter
// or a command substitution: bash evaluates it as arithmetic.
// Associative arrays (declare -A) take their subscripts as strings.
func computedSubscript(src string, assoc, ext map[string]bool) (string, bool) {
	for off := 0; off < len(src); {
		i := strings.IndexByte(src[off:], '[')
		if i < 0 {
			return "", false
		}
		i += off
		off = i + 1
		k := i
		for k > 0 && isIdentByte(src[k-1]) {
			k--
		}
		name := src[k:i]
		if name == "" || !isName(name) || assoc[name] {
			continue
		}
		expansion := k >= 2 && src[k-2:k] == "${"
		j := strings.IndexByte(src[i:], ']')
		if j < 0 {
			return "", false
		}
		sub := src[i+1 : i+j]
		after := src[i+j+1:]
		assign := (k == 0 || strings.IndexByte(" \t\n;&|(", src[k-1]) >= 0) && (strings.HasPrefix(after, "=") || strings.HasPrefix(after, "+="))
		if !expansion && !assign {
			continue
		}
		if _, ok := positionalIn(sub); ok || strings.Contains(sub, "$(") || strings.Contains(sub, "`") {
			return name + "[" + sub + "]", true
		}
		for n := range ext {
			if containsWord(sub, n) {
				return name + "[" + sub + "]", true
			}
		}
	}
	return "", false
}

// readTargets returns the variables read and mapfile fill from their
// input (read -a NAME, mapfile NAME, MAPFILE by default).
func readTargets(c *analyze.Command) []string {
	var takes string
	switch c.Name() {
	case "read":
		takes = "dinNptu"
	case "mapfile", "readarray":
		takes = "dnOsuCc"
	default:
		return nil
	}
	var out []string
	args := c.Args[1:]
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		if strings.HasPrefix(v, "-") && len(v) > 1 {
			for j := 1; j < len(v); j++ {
				if strings.IndexByte(takes, v[j]) >= 0 {
					if j+1 == len(v) {
						i++ // the value is the next word
					}
					break
				}
			}
			continue
		}
		if !args[i].Dynamic && isName(v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 && c.Name() != "read" {
		out = append(out, "MAPFILE")
	}
	return out
}

// expands reports text that expands variable n ($n, ${n…}).
func expands(t, n string) bool {
	for off := 0; off < len(t); {
		k := strings.IndexByte(t[off:], '$')
		if k < 0 {
			return false
		}
		k += off + 1
		off = k
		if strings.HasPrefix(t[k:], "{") {
			k++
		}
		if strings.HasPrefix(t[k:], n) && (k+len(n) == len(t) || !isIdentByte(t[k+len(n)])) {
			return true
		}
	}
	return false
}

// substringBounds returns the offset and length of ${name:offset:length}
// expansions: bash evaluates them as arithmetic (${x:-y}, ${x:=y},
// ${x:+y} and ${x:?y} are not substrings).
func substringBounds(src string) []string {
	var out []string
	for off := 0; off < len(src) && len(out) < 256; {
		i := strings.Index(src[off:], "${")
		if i < 0 {
			break
		}
		i += off + 2
		off = i
		k := i
		for k < len(src) && (isIdentByte(src[k]) || k == i && (src[k] == '@' || src[k] == '*')) {
			k++
		}
		if k == i || k >= len(src) || src[k] != ':' || k+1 < len(src) && strings.IndexByte("-=+?", src[k+1]) >= 0 {
			continue
		}
		end := strings.IndexByte(src[k:], '}')
		if end < 0 {
			break
		}
		out = append(out, src[k+1:k+end])
	}
	return out
}

// externalSubst returns the program of a command substitution in text
// whose output comes from outside the command ($(cat f), `curl …`).
func externalSubst(t string) (string, bool) {
	for _, open := range []string{"$(", "`"} {
		for off := 0; off < len(t); {
			k := strings.Index(t[off:], open)
			if k < 0 {
				break
			}
			k += off + len(open)
			off = k
			f := strings.Fields(t[k:])
			if len(f) > 0 {
				name := strings.TrimRight(f[0], ")`")
				if externalName(name) {
					return name, true
				}
			}
		}
	}
	return "", false
}

// externalSource reports commands whose output comes from outside the
// command text: the network or a file.
func externalSource(c *analyze.Command) bool { return externalName(c.Name()) }

// externalName reports a program whose line says +external.
func externalName(name string) bool {
	g := grammar.Resolve(name).Line
	return g != nil && g.External
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !(b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || i > 0 && b >= '0' && b <= '9') {
			return false
		}
	}
	return true
}

// arithContexts returns the texts of (( )), $(( )) and [[ ]] tests with
// an arithmetic operator.
func arithContexts(src string) []string {
	var out []string
	for off := 0; off < len(src); {
		i := strings.Index(src[off:], "((")
		if i < 0 {
			break
		}
		i += off
		j := strings.Index(src[i:], "))")
		if j < 0 {
			break
		}
		out = append(out, src[i+2:i+j])
		off = i + j + 2
	}
	for off := 0; off < len(src); {
		i := strings.Index(src[off:], "[[")
		if i < 0 {
			break
		}
		i += off
		j := strings.Index(src[i:], "]]")
		if j < 0 {
			break
		}
		t := src[i+2 : i+j]
		for _, op := range []string{"-eq", "-ne", "-lt", "-le", "-gt", "-ge"} {
			if strings.Contains(t, op) {
				out = append(out, t)
				break
			}
		}
		off = i + j + 2
	}
	return out
}

func containsWord(s, w string) bool {
	for off := 0; off < len(s); {
		k := strings.Index(s[off:], w)
		if k < 0 {
			return false
		}
		k += off
		before := k == 0 || !isIdentByte(s[k-1])
		after := k+len(w) >= len(s) || !isIdentByte(s[k+len(w)])
		if before && after {
			return true
		}
		off = k + len(w)
	}
	return false
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

func (e *evaluator) classOpts() world.Options {
	return world.Options{Workspace: e.ws, Home: e.home}
}

// compoundReads judges what the input redirections of compound commands
// read (while read l; do …; done < .env, { cat; } < key): the commands
// inside all read it. Their writes are judged with every redirect
// (evaluator.redirect).
func (e *evaluator) compoundReads() {
	for _, ef := range e.effs[-1] {
		if ef.Kind != effects.Read || !ef.Path.Known() {
			continue
		}
		if r := world.Classify(e.resolve(ef.Path.Abs), e.classOpts()); r.Class == world.ClassCredential {
			e.emit(sg4001, -1, ef.Span, "a compound command's input is "+r.What)
		}
	}
}

// checkEffects judges the effects of command k.
func (k *cmdCheck) checkEffects() {
	e := k.e
	if e.effs == nil {
		return
	}
	c := k.c
	if c.FuncDef != "" {
		return // judged where the function is called
	}
	for _, ef := range e.effs[k.i] {
		k.effect(ef)
	}
	k.shellSinks()
	if argv, ok := grammar.WrappedArgv(c); ok && !k.unwrapped() {
		k.nestedLine("runs", shellJoin(argv), c.Span)
	}
}

// programValue judges an option value that names a program to run: a
// name looked up on PATH, or a file in the workspace or a system
// directory, is a program like any other; anything else (a temporary
// directory, home, a computed path) asks.
func (k *cmdCheck) programValue(ef effects.Effect, sp analyze.Span) {
	e := k.e
	raw := ef.Path.Raw
	if raw != "" && !strings.Contains(raw, "/") && !strings.HasPrefix(raw, "~") {
		return
	}
	if ef.Path.Known() {
		p := e.resolve(ef.Path.Abs)
		if within(p, e.ws) && !e.wsSystem || world.Classify(p, e.classOpts()).Class == world.ClassSystem {
			return
		}
	}
	e.emit(sg4013, k.i, sp, ef.Program+" "+ef.Option+" runs the program "+quote(raw))
}

// shellJoin quotes words back into a command line.
func shellJoin(args []analyze.Arg) string {
	var b strings.Builder
	for j, a := range args {
		if j > 0 {
			b.WriteByte(' ')
		}
		v := a.Value
		if a.Dynamic {
			b.WriteString(v)
			continue
		}
		if v != "" && !strings.ContainsAny(v, " \t\n'\"\\$`;|&<>(){}*?[]#~!") {
			b.WriteString(v)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(v, "'", `'\''`) + "'")
	}
	return b.String()
}

// nestedLine evaluates a command line that a command runs and reports
// its findings about this command.
func (k *cmdCheck) nestedLine(what, line string, sp analyze.Span) bool {
	e := k.e
	if e.depth >= 3 {
		e.emit(sg4013, k.i, sp, k.c.Name()+" "+what+" the command line "+quote(line))
		return true
	}
	if !e.nestOK(line) {
		e.emit(sg4013, k.i, sp, k.c.Name()+" "+what+" more command lines than can be judged: "+quote(line))
		return true
	}
	v := evaluateAt(analyze.Analyze(line, AnalyzeOptions(e.rules)), e.rules, e.depth+1, e.nested)
	for _, r := range v.Reasons {
		row := rowOf(r.ID, r.Decision)
		if row == nil {
			row = sg4013
		}
		e.emit(row, k.i, sp, k.c.Name()+" "+what+" "+quote(line)+": "+r.Message)
	}
	return len(v.Reasons) > 0
}

// envValue judges a variable that a program reads as a command line, a
// program, files to run or more of its options (the grammars' env= and
// envopts=), by what it holds: the command line, or the program's own
// options, as a command of its own, and a program or file by where it
// is (the workspace and system directories are fine; a temporary
// directory or home asks). PAGER=less stays allowed; PAGER='curl … | sh',
// EDITOR=/tmp/ed and NODE_OPTIONS='--require /tmp/x.js' do not.
func (k *cmdCheck) envValue(g *grammar.Grammar, ef effects.Effect, sp analyze.Span) {
	e := k.e
	n, v := ef.Name, strings.TrimSpace(ef.Value)
	if v == "" {
		return
	}
	if ef.Dynamic {
		e.emit(sg3405, k.i, sp, n+" gives "+g.Name+" a value computed at run time")
		return
	}
	held := "holds the command line"
	line := v
	role := g.Env[n]
	if g.EnvOpts[n] {
		// the program splits the value at blanks, quotes mean nothing
		var words []analyze.Arg
		for _, f := range strings.Fields(v) {
			words = append(words, analyze.Arg{Value: f})
		}
		held, line, role = "holds options of "+g.Name+":", g.Name+" "+shellJoin(words), grammar.RoleCmd
	}
	switch role {
	case grammar.RoleCmd, grammar.RoleProg:
		if role == grammar.RoleCmd || strings.ContainsAny(v, " \t;|&$`<>()'\"") {
			if k.nestedLine("runs what "+n+" "+held, line, sp) {
				if g.EnvOpts[n] {
					e.emit(sg3405, k.i, sp, n+" gives "+g.Name+" the options "+quote(v))
				} else {
					e.emit(sg3405, k.i, sp, n+" holds "+quote(v)+", a command line "+g.Name+" runs")
				}
				return
			}
		}
		if g.EnvOpts[n] {
			// files the options make the program run (-r FILE, -javaagent:JAR)
			res := analyze.Analyze(line, AnalyzeOptions(e.rules))
			for _, ef := range effects.Extract(res, effects.Options{Workspace: workspaceOf(e.rules), Home: e.home}) {
				if ef.Kind == effects.Exec && ef.Code == effects.CodeFile {
					k.programAt(n, g.Name, ef.Path.Raw, sp)
				}
			}
		} else if f := strings.Fields(v); len(f) > 0 {
			k.programAt(n, g.Name, f[0], sp)
		}
	case grammar.RoleExec:
		for _, f := range strings.Split(v, ":") {
			k.programAt(n, g.Name, f, sp)
		}
	}
}

// programAt asks when a variable names a program or file to run outside
// the workspace and the system directories.
func (k *cmdCheck) programAt(n, reader, raw string, sp analyze.Span) {
	e := k.e
	if raw == "" || !strings.Contains(raw, "/") && !strings.HasPrefix(raw, "~") {
		return // a name looked up on PATH
	}
	if p := e.abs(raw, k.c.Cwd); p != "" {
		p = e.resolve(p)
		if within(p, e.ws) && !e.wsSystem || world.Classify(p, e.classOpts()).Class == world.ClassSystem {
			return
		}
	}
	e.emit(sg3405, k.i, sp, n+" makes "+reader+" run "+quote(raw)+", outside the workspace")
}

func (k *cmdCheck) effect(ef effects.Effect) {
	e := k.e
	sp := ef.Span
	if sp == (analyze.Span{}) {
		sp = k.c.Span
	}
	desc := ef.Describe()
	switch ef.Kind {
	case effects.Read:
		if ef.Secret && !ef.Meta && !ef.Path.Known() {
			// a subcommand that prints a secret (gh auth token), or a
			// decrypting tool given a path known only at run time
			if ef.Via != "" {
				e.emit(sg2603deny, k.i, sp, ef.Via+" prints a secret")
			} else {
				e.emit(sg4001, k.i, sp, ef.Program+" reveals "+ef.Path.String())
			}
			return
		}
		if ef.Meta || !ef.Path.Known() {
			if !ef.Path.Known() && unknownSecretName(ef.Path.Raw) {
				e.emit(sg4001, k.i, sp, desc+": the name is a secret file's in a directory known only at run time")
			}
			return
		}
		p := e.resolve(ef.Path.Abs)
		if ef.Secret {
			e.emit(sg4001, k.i, sp, ef.Program+" decrypts or reveals "+ef.Path.String())
			return
		}
		// a glob's files are those its pattern selects, not its directory
		glob := ef.Path.Origin == effects.OriginDerived && strings.HasPrefix(ef.Path.Via, "glob ")
		if r := world.Classify(p, e.classOpts()); r.Class == world.ClassCredential && !glob {
			if e.credentialPath(p) != "" && !strings.HasPrefix(p, "/proc/") {
				// a store (a key file, a token store): the concept and
				// severity of the check of the words that name it
				e.emit(sg2601deny, k.i, sp, ef.Program+" reads "+r.What)
			} else {
				e.emit(sg4001, k.i, sp, ef.Program+" reads "+r.What)
			}
			return
		} else if r.Class == world.ClassDevice {
			// a raw disk or memory device holds every secret on it
			e.emit(sg4001, k.i, sp, ef.Program+" reads the "+r.What)
			return
		}
		if ef.Path.Origin == effects.OriginDerived {
			if r, ok := e.patternClass(ef.Path); ok && r.Class == world.ClassCredential {
				e.emit(sg4001, k.i, sp, desc+": the names it selects are credentials ("+r.What+")")
				return
			}
		}
		if glob {
			if r := world.GlobCredential(ef.Path.Raw, e.classOpts()); r.Class == world.ClassCredential {
				e.emit(sg4001, k.i, sp, desc+": the names it selects include "+r.What)
				return
			}
		}
		// a tree read whole (grep -r, tar, cp -r, a glob of every name)
		// reads the credential stores inside it
		pat := ef.Path.Pattern
		if pat == "" {
			pat = ef.Path.Raw // a glob
		}
		if whole := ef.Path.Origin == effects.OriginLiteral || strings.Trim(path.Base(pat), "*?") == ""; whole && !e.inWorkspace(p) {
			if r := world.Holds(p, e.classOpts()); r.Class == world.ClassCredential {
				e.emit(sg4001, k.i, sp, ef.Program+" reads the tree "+p+", which holds "+r.What)
			}
		}
	case effects.Write, effects.Delete, effects.Chmod, effects.Chown:
		k.mutation(ef, sp, desc)
	case effects.Net:
		k.net(ef, sp, desc)
	case effects.Exec:
		k.exec(ef, sp, desc)
	case effects.Env:
		k.env(ef, sp)
	case effects.System:
		k.system(ef, sp)
	case effects.Unknown:
		k.unknown(ef, sp)
	case effects.Mention:
		if !ef.Path.Known() || k.c.Builtin || k.c.Func {
			return
		}
		p := e.resolve(ef.Path.Abs)
		if r := world.Classify(p, e.classOpts()); r.Class == world.ClassDevice || r.Class == world.ClassCredential || r.Class == world.ClassPersistence {
			e.emit(sg4014, k.i, sp, quote(ef.Program)+" is given "+r.What+" where it takes no path")
		}
	}
}

// patternClass classifies the names a derived path selects: the glob's
// base (".env*") or the producer's name pattern (locate id_rsa).
func (e *evaluator) patternClass(pa effects.Path) (world.Resource, bool) {
	pat := pa.Pattern
	if pat == "" && strings.HasPrefix(pa.Via, "glob ") {
		pat = path.Base(pa.Raw)
	}
	if pat == "" {
		return world.Resource{}, false
	}
	dir := pa.Abs
	if dir == "" {
		dir = e.ws
	}
	r := world.ClassifyPattern(dir, pat, e.classOpts())
	return r, r.Class != world.ClassOther
}

// unknownSecretName reports a raw path whose base name is a secret file
// (.env, id_rsa, *credentials*) although its directory is unknown.
func unknownSecretName(raw string) bool {
	if raw == "" || strings.ContainsAny(path.Base(raw), "$`") {
		return false
	}
	r := world.Classify(path.Join("/nowhere", path.Base(raw)), world.Options{Workspace: "/nowhere", Home: "/nohome"})
	return r.Class == world.ClassCredential
}

func (k *cmdCheck) mutation(ef effects.Effect, sp analyze.Span, desc string) {
	e := k.e
	verb := map[effects.Kind]string{effects.Write: "write", effects.Delete: "delete", effects.Chmod: "chmod", effects.Chown: "chown"}[ef.Kind]
	if !ef.Path.Known() {
		switch {
		case ef.Kind == effects.Delete && ef.Recursive || ef.Kind == effects.Chmod && ef.Recursive || ef.Kind == effects.Chown && ef.Recursive:
			e.emit(sg4006, k.i, sp, desc+": the target is known only at run time")
		case ef.Kind == effects.Delete && strings.ContainsAny(ef.Path.Raw, "*?"):
			e.emit(sg4006, k.i, sp, desc+": a glob in a directory known only at run time")
		case unknownPersistName(ef.Path.Raw):
			e.emit(sg4006, k.i, sp, desc+": a startup file in a directory known only at run time")
		}
		return
	}
	p := e.resolve(ef.Path.Abs)
	o := e.classOpts()
	derived := ef.Path.Origin == effects.OriginDerived
	if (ef.Kind == effects.Chmod || ef.Kind == effects.Write) && dangerousMode(ef.Mode) {
		e.emit(sg4021, k.i, sp, desc+": world-writable or setuid")
	}
	// the floor: whatever the workspace is (files found under home are
	// not home itself: a workspace may be home)
	if ef.Kind != effects.Write && world.FloorPath(p, o) && (ef.Recursive || derived || p == "/") && !(derived && p == e.home) {
		e.emit(sg4005, k.i, sp, desc)
		return
	}
	if derived && strings.HasPrefix(ef.Path.Via, "git ") && (ef.Kind == effects.Delete || ef.Program == "truncate" || ef.Program == "shred") {
		e.emit(sg4006, k.i, sp, desc+": every file git lists, at once")
		return
	}
	if derived && ef.Kind == effects.Delete && ef.Path.Pattern != "" {
		if pr := world.ClassifyPatternAs(p, ef.Path.Pattern, world.ClassRepoGit, o); pr.Class == world.ClassRepoGit {
			e.emit(sg4009, k.i, sp, desc+": the repository's .git among them, its history is lost")
			return
		}
	}
	if derived && ef.Kind == effects.Delete && ef.Via != "" && p == e.ws && !e.wsSystem && !scopedPattern(ef.Path.Pattern) {
		// find . | xargs rm, ls -A | xargs rm -rf: not artefacts by name
		e.emit(sg4006, k.i, sp, desc+": every file listed at the workspace root, at once, untracked files and .git included")
		return
	}
	r := world.Classify(p, o)
	if derived && ef.Kind == effects.Write && ef.Path.Pattern != "" {
		for _, c := range []world.Class{world.ClassPersistence, world.ClassRegistry} {
			if pr := world.ClassifyPatternAs(p, ef.Path.Pattern, c, o); pr.Class == c {
				r = pr
				break
			}
		}
	}
	if ef.Text == "git config" && gitForcesPush(ef.Name, ef.Value) {
		e.emit(sg4016, k.i, sp, "git config "+ef.Name+" "+quote(ef.Value)+" makes every later push overwrite the remote")
		return
	}
	if ef.Text == "git config" && (r.Class == world.ClassPersistence || r.Class == world.ClassRepoGit || r.Class == world.ClassOtherGit) && plainGitKey(ef.Name) {
		if commandKey(ef.Name) && strings.ContainsAny(ef.Value, " ;|&$`") {
			k.nestedLine("sets "+ef.Name+" to", ef.Value, sp)
		}
		return // user.name, color.ui …: settings that run nothing, or a command that is judged
	}
	switch r.Class {
	case world.ClassPersistence:
		if ef.Kind != effects.Delete {
			e.emit(sg4007, k.i, sp, ef.Program+": "+verb+" "+r.What+": code would run later")
			return
		}
	case world.ClassRegistry:
		if ef.Kind != effects.Delete {
			e.emit(sg4008, k.i, sp, ef.Program+": "+verb+" "+r.What)
			return
		}
	case world.ClassRepoGit:
		if ef.Kind == effects.Delete && (p == path.Join(e.ws, ".git") || strings.HasSuffix(p, "/.git") || ef.Recursive && !strings.Contains(strings.TrimPrefix(p, e.ws), "/.git/")) {
			e.emit(sg4009, k.i, sp, ef.Program+" deletes the repository's .git: its history is lost")
			return
		}
		if ef.Kind == effects.Delete {
			if part := gitHistoryPart(p); part != "" {
				e.emit(sg4009, k.i, sp, ef.Program+" deletes the repository's "+part+": its history is lost")
			}
		}
		return // hooks, locks, a rebase's state: the repository keeps its history
	case world.ClassOtherGit:
		if ef.Kind == effects.Delete {
			e.emit(sg4009, k.i, sp, ef.Program+" deletes "+r.What)
		} else {
			e.emit(sg4010, k.i, sp, ef.Program+": "+verb+" "+r.What)
		}
		return
	case world.ClassDevice:
		e.emit(sg4006, k.i, sp, desc+": a device")
		return
	}
	if world.SafeDevice(p) || within(p, e.ws) || e.inRoots(p) || e.rules.Unrestricted {
		return
	}
	e.emit(sg4006, k.i, sp, desc+" outside the workspace")
}

// gitHistoryPart returns the part of a .git that p is in or is, when that
// part holds the repository's history (its objects, refs, HEAD, reflogs,
// submodules' and worktrees' repositories), and "" otherwise (hooks,
// locks, config, a rebase's or merge's state, FETCH_HEAD …).
func gitHistoryPart(p string) string {
	i := strings.LastIndex(p, "/.git/")
	if i < 0 {
		return ""
	}
	first, _, _ := strings.Cut(p[i+len("/.git/"):], "/")
	switch first {
	case "objects", "refs", "packed-refs", "HEAD", "logs", "modules", "worktrees", "shallow":
		return ".git/" + first
	}
	return ""
}

func unknownPersistName(raw string) bool {
	if raw == "" {
		return false
	}
	b := path.Base(raw)
	if strings.ContainsAny(b, "$`") {
		return false
	}
	r := world.Classify(path.Join("/home/nohome", b), world.Options{Workspace: "/nowhere", Home: "/home/nohome"})
	return r.Class == world.ClassPersistence || strings.HasSuffix(b, ".pth")
}

// dangerousMode reports world-writable and setuid/setgid modes.
func dangerousMode(m string) bool {
	if m == "" {
		return false
	}
	if isDigits(m) {
		if len(m) == 4 && (m[0] == '4' || m[0] == '2' || m[0] == '6') {
			return true
		}
		last := m[len(m)-1]
		return last == '2' || last == '3' || last == '6' || last == '7'
	}
	for _, part := range strings.Split(m, ",") {
		who, perm, ok := cutAny(part, "+=")
		if !ok {
			continue
		}
		if strings.ContainsAny(perm, "s") {
			return true
		}
		if strings.Contains(perm, "w") && (who == "" || strings.ContainsAny(who, "oa")) {
			return true
		}
	}
	return false
}

func cutAny(s, seps string) (string, string, bool) {
	if i := strings.IndexAny(s, seps); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

func (k *cmdCheck) net(ef effects.Effect, sp analyze.Span, desc string) {
	e := k.e
	host := world.HostOf(ef.Dest)
	if ef.Dest != "" && world.MetadataHost(host) {
		e.emit(sg4004, k.i, sp, ef.Program+" contacts the cloud metadata endpoint "+quote(ef.Dest)+": it hands out credentials")
		return
	}
	if !ef.Sends {
		return
	}
	if ef.Text == "serve" && !(world.Loopback(host) && host != "0.0.0.0" && host != "::") {
		// a directory served to the network: the workspace is the
		// agent's own; anything else leaves through the server
		if ef.Path.Raw == "" && ef.Path.Abs == "" && ef.SendsWhat != "" {
			e.emit(sg4003, k.i, sp, ef.Program+" makes "+ef.SendsWhat+" reachable from the internet through "+ef.Remote)
			return
		}
		if !ef.Path.Known() {
			e.emit(sg4003, k.i, sp, desc+": a directory known only at run time")
			return
		}
		p := e.resolve(ef.Path.Abs)
		if p != e.home && p != "/" && (within(p, e.ws) || e.inRoots(p)) {
			return
		}
		if r := world.Classify(p, e.classOpts()); r.Class == world.ClassCredential {
			e.emit(sg4002, k.i, sp, desc+" to anyone who can reach "+quote(ef.Dest)+": "+r.What)
			return
		}
		e.emit(sg4003, k.i, sp, desc+" to anyone who can reach "+quote(ef.Dest))
		return
	}
	if ef.Dest != "" && world.Loopback(host) || ef.Text == "serve" {
		return
	}
	if ef.Path.Known() {
		p := e.resolve(ef.Path.Abs)
		if r := world.Classify(p, e.classOpts()); r.Class == world.ClassCredential {
			e.emit(sg4002, k.i, sp, desc+": "+r.What)
			return
		}
	}
	if ef.Dest == "" && ef.Remote != "" {
		return // the destination its configuration gives: git push to origin, a publish to the default registry
	}
	dest := ef.Dest
	if dest == "" {
		dest = "a remote host"
	}
	e.emit(sg4003, k.i, sp, desc+" (to "+quote(dest)+")")
}

func (k *cmdCheck) exec(ef effects.Effect, sp analyze.Span, desc string) {
	e := k.e
	switch ef.Code {
	case effects.CodeNetwork:
		e.emit(sg4011, k.i, sp, desc)
	case effects.CodeComputed:
		if ef.Via != "" {
			e.emit(sg4012, k.i, sp, desc+" ("+ef.Via+")")
		} else if ef.Option != "" {
			e.emit(sg4013, k.i, sp, ef.Program+" "+ef.Option+" runs a command computed at run time")
		}
	case effects.CodeFile:
		if ef.Option != "" {
			k.programValue(ef, sp)
		} else if !k.runsCode() && ef.Path.Raw != "" && e.isDownloaded(ef.Path.Raw, k.c.Cwd) {
			// a program file (awk -f, make -f): shells and interpreters
			// are judged by downloadExec
			e.emit(sg2303deny, k.i, sp, "runs a file downloaded earlier in the same command")
		}
	case effects.CodeLiteral:
		if g := grammar.Lookup(k.c.Name()); g != nil && g.Wrapper {
			return // the wrapped command is judged by itself
		}
		if ef.Option != "" && k.unwrapped() {
			return // analyze read the command the option runs: it is judged by itself
		}
		if ef.Option != "" && !ef.Dynamic {
			k.optionCommand(ef, sp)
			return
		}
		e.emit(sg4013, k.i, sp, ef.Program+" runs a shell command through "+quote(ef.Text))
	}
}

// optionCommand judges the value of an option that runs a command: a
// program name runs with data on its stdin (a shell or an interpreter
// there runs the data); a command line is evaluated as a command.
func (k *cmdCheck) optionCommand(ef effects.Effect, sp analyze.Span) {
	e := k.e
	val := strings.TrimSpace(strings.TrimPrefix(ef.Text, ef.Option))
	if val == "" {
		e.emit(sg4013, k.i, sp, ef.Program+" option "+quote(ef.Option)+" runs a command")
		return
	}
	if !strings.ContainsAny(val, " \t;|&$`<>()'\"") {
		g := grammar.Lookup(path.Base(val))
		if g == nil || g.Interp || g.Wrapper {
			e.emit(sg4013, k.i, sp, ef.Program+" "+ef.Option+" runs "+quote(val)+" on its data")
		}
		return
	}
	if e.depth >= 3 {
		e.emit(sg4013, k.i, sp, ef.Program+" runs the command line "+quote(val))
		return
	}
	if !e.nestOK(val) {
		e.emit(sg4013, k.i, sp, ef.Program+" runs more command lines than can be judged: "+quote(val))
		return
	}
	v := evaluateAt(analyze.Analyze(val, AnalyzeOptions(e.rules)), e.rules, e.depth+1, e.nested)
	for _, r := range v.Reasons {
		row := rowOf(r.ID, r.Decision)
		if row == nil {
			row = sg4013
		}
		e.emit(row, k.i, sp, ef.Program+" "+ef.Option+" "+quote(val)+": "+r.Message)
	}
}

var (
	rowsOnce sync.Once
	rowsByID map[string]*Finding
)

// nestOK takes one nested evaluation from the check's budget.
func (e *evaluator) nestOK(line string) bool {
	if e.nested == nil {
		e.nested = new(int)
	}
	if *e.nested >= nestedBudget || len(line) > nestedMaxLen {
		return false
	}
	*e.nested++
	return true
}

// rowOf returns the catalog row of an ID at a decision.
func rowOf(id string, d Decision) *Finding {
	rowsOnce.Do(func() {
		rowsByID = map[string]*Finding{}
		for _, f := range Catalog {
			rowsByID[f.ID+"/"+f.Decision.String()] = f
		}
	})
	return rowsByID[id+"/"+d.String()]
}

// unwrapped reports whether analyze found commands run by this command
// (an option or argument holding a command line it could read).
func (k *cmdCheck) unwrapped() bool {
	e := k.e
	if e.wrappers == nil {
		e.wrappers = map[string]bool{}
		for _, c := range e.res.Commands {
			for _, w := range c.Wrappers {
				e.wrappers[w.Program] = true
				if n, _, ok := strings.Cut(w.Text, " "); ok {
					e.wrappers[n] = true
				}
			}
		}
	}
	return e.wrappers[k.c.Name()]
}

// gitForcesPush reports remote settings that turn a push into a forced
// or mirroring one.
func gitForcesPush(key, val string) bool {
	key = strings.ToLower(key)
	if !strings.HasPrefix(key, "remote.") {
		return false
	}
	switch {
	case strings.HasSuffix(key, ".mirror"):
		return val == "" || val == "true" || val == "1" || val == "yes" || val == "on"
	case strings.HasSuffix(key, ".push"):
		return strings.HasPrefix(val, "+") || strings.Contains(val, ":+") || val == "+*"
	}
	return false
}

// commandKey reports git settings whose value is a command line.
func commandKey(key string) bool {
	switch strings.ToLower(key) {
	case "core.pager", "core.editor", "sequence.editor", "pager.log", "pager.diff", "pager.show":
		return true
	}
	return false
}

// plainGitKey reports git settings that change no behaviour that runs
// or fetches code.
func plainGitKey(key string) bool {
	key = strings.ToLower(key)
	for _, p := range []string{"user.", "color.", "pull.rebase", "pull.ff", "init.defaultbranch", "push.default",
		"push.autosetupremote", "safe.directory", "core.autocrlf", "core.editor", "core.pager", "merge.conflictstyle",
		"rebase.autosquash", "rebase.autostash", "fetch.prune", "commit.gpgsign", "tag.gpgsign", "diff.colormoved",
		"advice.", "column.", "branch.sort", "help.autocorrect", "rerere.enabled", "log.", "format.", "status.",
		"core.ignorecase", "core.filemode", "core.quotepath", "gpg.format", "user.signingkey"} {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// variables that make builds, loaders or shells run other code
var hijackVars = map[string]string{
	"RUSTC_WRAPPER": "wraps every rustc call in another program", "RUSTC_WORKSPACE_WRAPPER": "wraps every rustc call in another program",
	"CARGO_BUILD_RUSTC_WRAPPER": "wraps every rustc call in another program", "GCONV_PATH": "makes glibc load conversion modules from a directory",
	"ZDOTDIR": "makes zsh read its startup files from another directory", "CARGO_BUILD_RUSTC": "replaces the compiler",
	"RUSTC": "replaces the compiler", "NODE_REPL_EXTERNAL_MODULE": "loads a module into node", "PYTHONWARNINGS": "",
	"LD_DEBUG_OUTPUT": "", "MALLOC_CHECK_": "", "HOSTALIASES": "redirects host name lookups", "RES_OPTIONS": "",
	"LOCALDOMAIN": "", "XDG_CONFIG_HOME": "moves every tool's configuration", "GIT_TEMPLATE_DIR": "",
	"INPUTRC": "", "TERMINFO": "", "BASH_LOADABLES_PATH": "lets enable -f load builtins from a directory",
}

func (k *cmdCheck) env(ef effects.Effect, sp analyze.Span) {
	e := k.e
	n, v := ef.Name, ef.Value
	if g := grammar.EnvReader(n); g != nil {
		k.envValue(g, ef, sp)
		return
	}
	switch {
	case n == "GOFLAGS" && (strings.Contains(v, "-toolexec") || strings.Contains(v, "-exec") || strings.Contains(v, "-overlay") || strings.Contains(v, "-modfile")):
		e.emit(sg4019, k.i, sp, "GOFLAGS="+quote(v)+" makes go run another program")
	case n == "PATH" && strings.HasPrefix(v, "$") && !strings.HasPrefix(v, "$PATH") && !strings.HasPrefix(v, "${PATH}"):
		e.emit(sg4019, k.i, sp, "PATH starts with "+quote(strings.Split(v, ":")[0])+", known only at run time: programs can be replaced")
	case hijackVars[n] != "":
		if n == "XDG_CONFIG_HOME" {
			return
		}
		e.emit(sg4019, k.i, sp, "setting "+n+" "+hijackVars[n])
	case strings.HasPrefix(n, "CARGO_TARGET_") && strings.HasSuffix(n, "_RUNNER"):
		e.emit(sg4019, k.i, sp, "setting "+n+" runs test binaries through another program")
	case strings.HasPrefix(n, "CMAKE_") && strings.HasSuffix(n, "_LAUNCHER"):
		e.emit(sg4019, k.i, sp, "setting "+n+" runs the compiler through another program")
	}
}

func (k *cmdCheck) system(ef effects.Effect, sp analyze.Span) {
	e := k.e
	switch ef.System {
	case effects.SysPower:
		e.emit(sg4017, k.i, sp, ef.Program+" powers off, reboots or suspends the machine")
	case effects.SysDisk, effects.SysMount, effects.SysKernel, effects.SysFirewall, effects.SysSchedule:
		e.emit(sg4018, k.i, sp, ef.Program+" changes the system ("+ef.System+")")
	case effects.SysService:
		// systemctl, service and launchctl have checks of their own
		if !slices.ContainsFunc(k.prog.Checks[:], func(n string) bool { return n != "" }) {
			e.emit(sg4018, k.i, sp, ef.Program+" starts, stops or changes a service of the system or the session, outside this command")
		}
	case effects.SysDestroy:
		what := "deletes or resets resources that cannot be recovered"
		if ef.Text != "" {
			what += " (" + ef.Text + ")"
		}
		e.emit(sg4016, k.i, sp, ef.Program+" "+what)
	case effects.SysConfig:
		if ef.Text != "" {
			e.emit(sg4008, k.i, sp, ef.Program+" takes packages from "+quote(ef.Text)+", a source the configuration does not name")
			return
		}
		e.emit(sg4008, k.i, sp, ef.Program+" changes registry or toolchain configuration")
	}
}

func (k *cmdCheck) unknown(ef effects.Effect, sp analyze.Span) {
	e := k.e
	if k.c.Builtin || k.c.Func {
		return
	}
	switch {
	case ef.Text != "":
		e.emit(sg4015, k.i, sp, quote(ef.Program)+": unknown subcommand of a CLI that changes things")
	case ef.Path.Origin == 0 && ef.Dest == "" && !ef.Dynamic:
		// the program itself: arguments that are command lines of known
		// programs (remote runners: salt, pdsh, fab) are judged as such
		for _, a := range k.c.Args[1:] {
			v := strings.TrimSpace(a.Value)
			if a.Dynamic || !strings.Contains(v, " ") || strings.HasPrefix(v, "-") {
				continue
			}
			first := strings.Fields(v)[0]
			if g := grammar.Lookup(path.Base(first)); g != nil && !g.ReadOnly {
				k.nestedLine("is given", v, a.Span)
			}
		}
	case ef.Dest != "":
		h := world.HostOf(ef.Dest)
		if world.MetadataHost(h) {
			e.emit(sg4004, k.i, sp, ef.Program+" is given the cloud metadata endpoint "+quote(ef.Dest))
			return
		}
		if !world.Loopback(h) {
			e.emit(sg4014, k.i, sp, "unknown program "+quote(ef.Program)+" is given the URL "+quote(ef.Dest))
		}
	case ef.Dynamic:
		e.emit(sg4014, k.i, sp, "unknown program "+quote(ef.Program)+" is given a value computed at run time")
	case ef.Path.Known():
		p := e.resolve(ef.Path.Abs)
		r := world.Classify(p, e.classOpts())
		switch {
		case r.Class == world.ClassDevice || r.Class == world.ClassCredential || r.Class == world.ClassPersistence:
			e.emit(sg4014, k.i, sp, "unknown program "+quote(ef.Program)+" is given "+r.What)
		case world.SafeDevice(p) || within(p, e.ws) || e.inRoots(p):
		default:
			e.emit(sg4014, k.i, sp, "unknown program "+quote(ef.Program)+" is given "+quote(ef.Path.Raw)+" outside the workspace")
		}
	case ef.Path.Origin == effects.OriginUnknown && ef.Path.Raw != "":
		e.emit(sg4014, k.i, sp, "unknown program "+quote(ef.Program)+" is given "+quote(ef.Path.Raw)+", a path known only at run time")
	}
}

// shellSinks: places where bash evaluates data as code.
func (k *cmdCheck) shellSinks() {
	c := k.c
	e := k.e
	switch k.name {
	case "mapfile", "readarray":
		for _, a := range c.Args[1:] {
			if a.Value == "-C" || strings.HasPrefix(a.Value, "-C") && !strings.HasPrefix(a.Value, "--") {
				e.emit(sg4020, k.i, c.Span, k.said()+" -C runs a callback with each line read")
				return
			}
		}
	case "printf":
		for j := 1; j+1 < len(c.Args); j++ {
			if c.Args[j].Value == "-v" && c.Args[j+1].Dynamic {
				e.emit(sg4020, k.i, c.Span, "printf -v assigns to a variable whose name is computed: a subscript in it runs commands")
				return
			}
		}
	case "read":
		for j, a := range c.Args[1:] {
			if j > 0 {
				switch c.Args[j].Value {
				case "-p", "-d", "-n", "-N", "-t", "-u", "-i", "-e":
					continue // the value of an option: a prompt, a count
				}
			}
			if a.Dynamic && !strings.HasPrefix(a.Value, "-") {
				e.emit(sg4020, k.i, c.Span, "read assigns to a variable whose name is computed")
				return
			}
		}
	case "declare", "typeset", "local", "export", "readonly":
		for _, a := range c.Args[1:] {
			if strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "--") && strings.Contains(a.Value, "n") {
				for _, as := range c.Assigns {
					if as.Value.Dynamic || as.Value.Positional || len(as.Value.Subst) > 0 {
						e.emit(sg4020, k.i, c.Span, "nameref "+as.Name+" points at a name computed at run time: a subscript in it runs commands")
						return
					}
				}
			}
		}
		integer := false
		for _, a := range c.Args[1:] {
			if strings.HasPrefix(a.Value, "-") && strings.Contains(a.Value, "i") && !strings.HasPrefix(a.Value, "--") {
				integer = true
			}
		}
		if integer {
			for _, as := range c.Assigns {
				if as.Value.Dynamic {
					e.emit(sg4020, k.i, c.Span, "integer variable "+as.Name+" gets a computed value: bash evaluates it as arithmetic")
					return
				}
			}
		}
	case "trap":
		for _, a := range c.Args[1:] {
			switch strings.ToUpper(a.Value) {
			case "DEBUG", "RETURN", "SIGRETURN":
				e.emit(sg4020, k.i, c.Span, "trap on "+a.Value+" runs code before every command")
				return
			}
		}
	case "test", "[":
		for j, a := range c.Args[1:] {
			if a.Value == "-v" && j+2 < len(c.Args) {
				if v := c.Args[j+2]; strings.Contains(v.Value, "[") && (v.Dynamic || strings.Contains(v.Value, "$")) {
					e.emit(sg4020, k.i, c.Span, "test -v with a computed array subscript evaluates it as arithmetic (command substitution inside runs)")
					return
				}
			}
		}
	}
	src := e.res.Src
	if c.Span.Start < 0 || c.Span.End > len(src) || c.Span.Start >= c.Span.End {
		return
	}
	text := src[c.Span.Start:c.Span.End]
	if strings.Contains(text, "@P}") {
		e.emit(sg4020, k.i, c.Span, "${var@P} expands the value as a prompt: command substitutions inside run")
		return
	}
	for off := 0; off < len(text); {
		i := strings.Index(text[off:], "${!")
		if i < 0 {
			break
		}
		i += off
		j := strings.IndexByte(text[i:], '}')
		if j < 0 {
			break
		}
		ref := text[i : i+j]
		if b := strings.IndexByte(ref, '['); b >= 0 && !strings.HasPrefix(ref[b:], "[@]") && !strings.HasPrefix(ref[b:], "[*]") && strings.ContainsAny(ref[b:], "$`") {
			e.emit(sg4020, k.i, c.Span, "indirect expansion with a computed subscript: the subscript is evaluated as arithmetic")
			return
		}
		off = i + j
	}
}

// scopedPattern reports a name pattern that names what it selects
// (*.log, __pycache__, node_modules), not one that selects every name
// (*, .*, "").
func scopedPattern(p string) bool {
	return p != "" && !unscopedGlob(path.Base(p))
}
