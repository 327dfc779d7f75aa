package analyze

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// literalArg renders a heredoc body: quoted bodies are literal; unquoted
// ones are expanded best-effort.
func (w *walker) literalArg(word *syntax.Word, c *ctx) Arg {
	args := w.expandWordOne(word, c)
	return args
}

var unknownVar = expand.Variable{Set: true, Kind: expand.String, Str: "\x00unknown"}

// substs finds command and process substitutions inside any node and walks
// their statements. It returns the indices of the commands found.
func (w *walker) substs(n syntax.Node, c *ctx) []int {
	if n == nil {
		return nil
	}
	var idx []int
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			idx = w.substCommands(x.Stmts, c, idx)
			return false
		case *syntax.ProcSubst:
			idx = w.substCommands(x.Stmts, c, idx)
			return false
		}
		return true
	})
	return idx
}

func (w *walker) decl(x *syntax.DeclClause, redirs []*syntax.Redirect, c *ctx) {
	variant := x.Variant.Value
	cmd := &Command{Argv: []string{variant}, Args: []Arg{{Value: variant, Span: w.span(x.Variant, c)}}, Span: w.span(x, c), Builtin: true}
	for _, a := range x.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			// a flag or a name given as a word
			w.substs(a.Value, c)
			args := w.expandWord(a.Value, c)
			for _, ar := range args {
				cmd.Args = append(cmd.Args, ar)
				cmd.Argv = append(cmd.Argv, ar.Value)
			}
			continue
		}
		if a.Name == nil {
			continue
		}
		// declare/local/export/readonly all set the variable for what
		// follows (scoping of local is not modelled)
		as := w.assign(a, c, true)
		cmd.Assigns = append(cmd.Assigns, as)
	}
	w.emitSimple(cmd, redirs, c)
}

// assign evaluates one assignment and records the variable when set is true.
func (w *walker) assign(a *syntax.Assign, c *ctx, set bool) Assign {
	as := Assign{Name: a.Name.Value, Span: w.span(a, c)}
	if a.Index != nil {
		w.substs(a.Index, c)
	}
	switch {
	case a.Array != nil:
		var list []string
		dyn := false
		for _, e := range a.Array.Elems {
			if e.Index != nil {
				w.substs(e.Index, c)
			}
			if e.Value == nil {
				continue
			}
			w.substs(e.Value, c)
			for _, f := range w.expandWord(e.Value, c) {
				as.Array = append(as.Array, f)
				list = append(list, f.Value)
				dyn = dyn || f.Dynamic
			}
		}
		if set {
			if dyn || a.Index != nil || a.Append {
				w.vars[as.Name] = unknownVar
			} else {
				w.vars[as.Name] = expand.Variable{Set: true, Kind: expand.Indexed, List: list}
			}
		}
	case a.Value != nil:
		idx := w.substs(a.Value, c)
		as.Value = w.expandWordOne(a.Value, c)
		as.Value.Subst = idx
		mk := false
		if p, ok := w.mktemp(a.Value, idx); ok {
			// x=$(mktemp): a fresh, unknown name in a known directory
			as.Value.Value, mk = p, true
		}
		if set {
			delete(w.dynVars, as.Name)
			switch {
			case mk && a.Index == nil && !a.Append:
				w.vars[as.Name] = expand.Variable{Set: true, Kind: expand.String, Str: as.Value.Value}
				w.dynVars[as.Name] = true
			case as.Value.Dynamic || a.Index != nil || a.Append:
				w.vars[as.Name] = unknownVar
			default:
				w.vars[as.Name] = expand.Variable{Set: true, Kind: expand.String, Str: as.Value.Value}
			}
		}
	default:
		if set && !a.Naked {
			w.vars[as.Name] = expand.Variable{Set: true, Kind: expand.String}
		}
	}
	return as
}

type envAdapter walker

func (e *envAdapter) Get(name string) expand.Variable {
	w := (*walker)(e)
	switch name {
	case "@", "*":
		w.positional = true
		if w.posSet {
			return expand.Variable{Set: true, Kind: expand.Indexed, List: w.pos}
		}
		w.dyn = true
		return expand.Variable{Set: true, Kind: expand.Indexed, List: []string{"$" + name}}
	case "#":
		w.positional = true
		if w.posSet {
			return expand.Variable{Set: true, Kind: expand.String, Str: strconv.Itoa(len(w.pos))}
		}
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9":
		w.positional = true
		if w.posSet {
			n, _ := strconv.Atoi(name)
			if n == 0 {
				return expand.Variable{Set: true, Kind: expand.String, Str: w.arg0}
			}
			if n-1 < len(w.pos) {
				return expand.Variable{Set: true, Kind: expand.String, Str: w.pos[n-1]}
			}
			return expand.Variable{}
		}
	}
	if strings.HasPrefix(name, "HOME ") {
		return expand.Variable{Set: true, Kind: expand.String, Str: "/home/" + name[5:]}
	}
	if !w.refs[name] {
		// an internal lookup of the expander (IFS for splitting, PWD …),
		// not a variable the word mentions
		switch name {
		case "IFS":
			if v, ok := w.vars[name]; ok && v.Str != unknownVar.Str {
				return v
			}
			return expand.Variable{Set: true, Kind: expand.String, Str: " \t\n"}
		case "HOME":
			return expand.Variable{Set: true, Kind: expand.String, Str: w.opts.Home}
		}
		if v, ok := w.vars[name]; ok && v.Str != unknownVar.Str {
			return v
		}
		return expand.Variable{}
	}
	w.usedVars = append(w.usedVars, name)
	if v, ok := w.vars[name]; ok {
		if v.Kind == expand.String && v.Str == unknownVar.Str {
			w.dyn = true
			return expand.Variable{Set: true, Kind: expand.String, Str: "$" + name}
		}
		return v
	}
	switch name {
	case "HOME":
		return expand.Variable{Set: true, Kind: expand.String, Str: w.opts.Home}
	case "PWD":
		if w.curCtx != nil && w.curCtx.cwd != "" {
			return expand.Variable{Set: true, Kind: expand.String, Str: w.curCtx.cwd}
		}
	case "IFS":
		return expand.Variable{Set: true, Kind: expand.String, Str: " \t\n"}
	}
	if v, ok := w.opts.Env[name]; ok {
		return expand.Variable{Set: true, Kind: expand.String, Str: v}
	}
	w.dyn = true
	return expand.Variable{Set: true, Kind: expand.String, Str: "$" + name}
}

func (e *envAdapter) Each(func(name string, vr expand.Variable) bool) {}

func (w *walker) cmdSubst(out io.Writer, cs *syntax.CmdSubst) error {
	if s, ok := w.knownOutput(cs); ok {
		io.WriteString(out, s)
		return nil
	}
	w.dyn = true
	io.WriteString(out, "$(…)")
	return nil
}

// knownOutput returns the output of a substitution whose output is
// certain: $(pwd) with a known directory, $(echo word…) and
// $(printf word) with plain literal words.
func (w *walker) knownOutput(cs *syntax.CmdSubst) (string, bool) {
	if len(cs.Stmts) != 1 || len(cs.Stmts[0].Redirs) > 0 || cs.Stmts[0].Background {
		return "", false
	}
	ce, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 || len(ce.Args) == 0 {
		return "", false
	}
	var words []string
	for _, word := range ce.Args {
		var sb strings.Builder
		for _, p := range word.Parts {
			switch x := p.(type) {
			case *syntax.Lit:
				if strings.ContainsAny(x.Value, "\\*?[{~") {
					return "", false
				}
				sb.WriteString(x.Value)
			case *syntax.SglQuoted:
				if x.Dollar {
					return "", false
				}
				sb.WriteString(x.Value)
			default:
				return "", false
			}
		}
		words = append(words, sb.String())
	}
	switch words[0] {
	case "pwd":
		if w.curCtx == nil || w.curCtx.cwd == "" || len(words) > 2 {
			return "", false
		}
		return w.curCtx.cwd, true
	case "which", "command", "type":
		// $(which rm), $(command -v rm), $(type -P rm): the path of the
		// program NAME (its directory is a guess; the program is not)
		args := words[1:]
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			args = args[1:]
		}
		if len(args) != 1 || words[0] != "which" && len(words) < 3 || strings.Contains(args[0], "/") {
			return "", false
		}
		return "/usr/bin/" + args[0], true
	case "echo":
		args := words[1:]
		if len(args) > 0 && strings.HasPrefix(args[0], "-") {
			return "", false
		}
		return strings.Join(args, " "), true
	case "printf":
		if len(words) == 2 && !strings.ContainsAny(words[1], "%\\") {
			return strings.TrimRight(words[1], "\n"), true
		}
	}
	return "", false
}

func (w *walker) procSubst(ps *syntax.ProcSubst) (string, error) {
	w.procSub = true
	return "/dev/fd/63", nil
}

// wordInfo inspects the parts of a word.
type wordInfo struct {
	glob, quoted, ansic, risky, ifs bool
}

func inspectWord(word *syntax.Word) wordInfo {
	var wi wordInfo
	var visit func(parts []syntax.WordPart, quoted bool)
	visit = func(parts []syntax.WordPart, quoted bool) {
		for _, p := range parts {
			switch x := p.(type) {
			case *syntax.Lit:
				if !quoted {
					if pattern.HasMeta(x.Value, 0) {
						wi.glob = true
					}
					if strings.Contains(x.Value, "\\") {
						wi.quoted = true
					}
					if braceTooBig(x.Value) {
						wi.risky = true
					}
				}
			case *syntax.SglQuoted:
				wi.quoted = true
				if x.Dollar {
					wi.ansic = true
				}
			case *syntax.DblQuoted:
				wi.quoted = true
				visit(x.Parts, true)
			case *syntax.ExtGlob:
				wi.glob = true
			case *syntax.BraceExp:
				// only produced by SplitBraces
			}
		}
	}
	visit(word.Parts, false)
	syntax.Walk(word, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok {
			if pe.Param != nil && pe.Param.Value == "IFS" {
				wi.ifs = true
			}
			if pe.Excl {
				wi.risky = true // indirection: the name itself is runtime data
			}
		}
		return true
	})
	return wi
}

// braceTooBig reports brace expressions that could expand to a huge number
// of fields; those are not expanded.
func braceTooBig(s string) bool {
	if !strings.Contains(s, "{") {
		return false
	}
	prod := 1
	depth := 0
	commas := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
			commas = 0
		case ',':
			if depth > 0 {
				commas++
			}
		case '}':
			if depth > 0 {
				depth--
				prod *= commas + 1
				if prod > 4096 {
					return true
				}
			}
		case '.':
			if depth > 0 && i+1 < len(s) && s[i+1] == '.' {
				// numeric or letter range: estimate its size
				j := strings.LastIndexByte(s[:i], '{')
				k := strings.IndexByte(s[i:], '}')
				if j >= 0 && k > 0 {
					a, err1 := strconv.Atoi(s[j+1 : i])
					rest := s[i+2 : i+k]
					if d := strings.Index(rest, ".."); d >= 0 {
						rest = rest[:d]
					}
					b, err2 := strconv.Atoi(rest)
					if err1 == nil && err2 == nil {
						n := a - b
						if n < 0 {
							n = -n
						}
						prod *= n + 1
						if prod > 4096 || n > 4096 {
							return true
						}
					}
				}
			}
		}
	}
	return len(s) > 4096 && strings.Count(s, "{") > 64
}

func (w *walker) resetExp(c *ctx, word *syntax.Word) {
	w.dyn, w.procSub, w.ifs, w.positional = false, false, false, false
	w.usedVars = w.usedVars[:0]
	w.curCtx = c
	clear(w.refs)
	if w.refs == nil {
		w.refs = map[string]bool{}
	}
	syntax.Walk(word, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ParamExp:
			if x.Param != nil {
				w.refs[x.Param.Value] = true
			}
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		}
		return true
	})
}

// expandWord expands one word into fields, bash style, without touching
// the file system.
func (w *walker) expandWord(word *syntax.Word, c *ctx) (args []Arg) {
	sp := w.span(word, c)
	if w.tick(); w.stopped {
		return []Arg{{Value: "$(…)", Dynamic: true, Span: sp}}
	}
	wi := inspectWord(word)
	if wi.risky {
		return []Arg{{Value: rawWord(word), Dynamic: true, Span: sp, Quoted: wi.quoted}}
	}
	w.resetExp(c, word)
	fields, err := w.safeFields(word)
	if err != nil {
		return []Arg{{Value: rawWord(word), Dynamic: true, Span: sp, Quoted: wi.quoted}}
	}
	hasParam := false
	for _, p := range word.Parts {
		if _, ok := p.(*syntax.Lit); !ok {
			if _, ok := p.(*syntax.SglQuoted); !ok {
				hasParam = true
			}
		}
	}
	var vars []string
	if len(w.usedVars) > 0 {
		vars = append(vars, w.usedVars...)
	}
	glob := wi.glob
	for n := range w.refs {
		if w.globVars[n] {
			glob = true
		}
		if w.dynVars[n] {
			w.dyn = true
		}
	}
	measured := measuredVars(word, vars)
	for _, f := range fields {
		w.spend(len(f) / bytesPerStep)
		args = append(args, Arg{Value: f, Dynamic: w.dyn, Glob: glob, ProcSubst: w.procSub,
			Brace: len(fields) > 1 && !hasParam, ANSIC: wi.ansic, IFS: wi.ifs, Positional: w.positional,
			Quoted: wi.quoted, Vars: vars, Measured: measured, Span: sp})
	}
	return args
}

// measuredVars returns the names among vars whose every expansion in word
// only measures or tests the value: ${#NAME}, ${NAME:+text} and
// ${NAME+text} (text may not expand it).
func measuredVars(word *syntax.Word, vars []string) []string {
	if len(vars) == 0 {
		return nil
	}
	valued := map[string]bool{}
	seen := map[string]bool{}
	var visit func(n syntax.Node) bool
	visit = func(n syntax.Node) bool {
		pe, ok := n.(*syntax.ParamExp)
		if !ok || pe.Param == nil {
			return true
		}
		name := pe.Param.Value
		seen[name] = true
		switch {
		case pe.Length && pe.Index == nil && pe.Exp == nil && pe.Slice == nil && pe.Repl == nil && !pe.Excl:
		case pe.Exp != nil && (pe.Exp.Op == syntax.AlternateUnset || pe.Exp.Op == syntax.AlternateUnsetOrNull) &&
			pe.Index == nil && !pe.Length && !pe.Excl:
			if pe.Exp.Word != nil {
				syntax.Walk(pe.Exp.Word, visit)
			}
			return false
		default:
			valued[name] = true
		}
		return true
	}
	syntax.Walk(word, visit)
	var out []string
	for _, v := range vars {
		if seen[v] && !valued[v] && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func (w *walker) safeFields(word *syntax.Word) (fields []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("expand panic: %v", r)
		}
	}()
	return expand.Fields(w.cfg, word)
}

// expandWordOne expands a word without field splitting (assignment values,
// heredoc bodies).
func (w *walker) expandWordOne(word *syntax.Word, c *ctx) Arg {
	sp := w.span(word, c)
	if w.tick(); w.stopped {
		return Arg{Value: "$(…)", Dynamic: true, Span: sp}
	}
	wi := inspectWord(word)
	if wi.risky {
		return Arg{Value: rawWord(word), Dynamic: true, Span: sp}
	}
	w.resetExp(c, word)
	var s string
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("expand panic: %v", r)
			}
		}()
		s, err = expand.Literal(w.cfg, word)
	}()
	if err != nil {
		return Arg{Value: rawWord(word), Dynamic: true, Span: sp}
	}
	w.spend(len(s) / bytesPerStep)
	var vars []string
	if len(w.usedVars) > 0 {
		vars = append(vars, w.usedVars...)
	}
	return Arg{Value: s, Dynamic: w.dyn, ProcSubst: w.procSub, IFS: wi.ifs, ANSIC: wi.ansic,
		Positional: w.positional, Quoted: wi.quoted, Vars: vars, Measured: measuredVars(word, vars), Span: sp}
}

// mktemp recognises a word that is exactly $(mktemp …) and returns the
// kind of path it produces.
func (w *walker) mktemp(word *syntax.Word, idx []int) (string, bool) {
	if len(word.Parts) != 1 || len(idx) != 1 {
		if len(word.Parts) == 1 {
			if dq, ok := word.Parts[0].(*syntax.DblQuoted); !ok || len(dq.Parts) != 1 || len(idx) != 1 {
				return "", false
			}
		} else {
			return "", false
		}
	}
	c := w.res.Commands[idx[0]]
	if c.Name() != "mktemp" {
		return "", false
	}
	dir := "/tmp"
	if v, ok := w.opts.Env["TMPDIR"]; ok && v != "" {
		dir = v
	}
	for i, a := range c.Args[1:] {
		if a.Dynamic {
			return "", false
		}
		v := a.Value
		if (v == "-p" || v == "--tmpdir") && i+2 < len(c.Args) {
			dir = c.Args[i+2].Value
			if !path.IsAbs(dir) {
				return "", false
			}
		} else if strings.HasPrefix(v, "--tmpdir=") {
			dir = strings.TrimPrefix(v, "--tmpdir=")
		} else if !strings.HasPrefix(v, "-") && (i == 0 || c.Args[i].Value != "-p") {
			if strings.Contains(v, "/") {
				return "", false // a template with a directory
			}
		}
	}
	if !path.IsAbs(dir) {
		return "", false
	}
	return path.Join(dir, "tmp.mktemp"), true
}

func rawWord(word *syntax.Word) string {
	var sb strings.Builder
	syntax.NewPrinter().Print(&sb, word)
	return sb.String()
}
