package analyze

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// MaxInput is the size above which the input is reported as too large.
const MaxInput = 64 << 10

var parserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash))
}}

// Analyze parses src as bash and returns the facts about it. It never
// panics and never fails: a parse error is a Note.
func Analyze(src string, opts Options) *Result {
	if opts.Home == "" {
		opts.Home = "/home/user"
	}
	if opts.Workspace == "" {
		opts.Workspace = "/workspace"
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = 8
	}
	if opts.MaxCommands <= 0 {
		opts.MaxCommands = 10000
	}
	r := &Result{Src: src, Funcs: map[string]Span{}}
	w := &walker{opts: opts, res: r, vars: map[string]expand.Variable{}, globVars: map[string]bool{}, dynVars: map[string]bool{}}
	w.cfg = &expand.Config{Env: (*envAdapter)(w), CmdSubst: w.cmdSubst, ProcSubst: w.procSubst}
	scanChars(src, r)
	if len(src) > MaxInput {
		r.Notes = append(r.Notes, Note{Kind: NoteTooLarge, Span: Span{0, len(src)}, Cmd: -1,
			Detail: fmt.Sprintf("%d bytes", len(src))})
	}
	f, err := parse(src)
	if err != nil {
		r.Notes = append(r.Notes, parseNote(err, src, nil))
		if f == nil {
			dropQuotedSpaces(nil, r)
			return r
		}
	}
	dropQuotedSpaces(f, r)
	c := &ctx{cwd: opts.Workspace}
	w.pos, w.posSet, w.arg0 = []string{}, true, "bash"
	w.stmts(f.Stmts, c)
	return r
}

func parse(src string) (f *syntax.File, err error) {
	p := parserPool.Get().(*syntax.Parser)
	defer func() {
		if r := recover(); r != nil {
			// The parser must never take the process down; a fresh one
			// replaces the one that panicked.
			f, err = nil, fmt.Errorf("parser panic: %v", r)
			return
		}
		parserPool.Put(p)
	}()
	return p.Parse(strings.NewReader(src), "")
}

func parseNote(err error, src string, override *Span) Note {
	n := Note{Kind: NoteParseError, Cmd: -1, Detail: err.Error()}
	var pe syntax.ParseError
	var le syntax.LangError
	off := -1
	switch {
	case errors.As(err, &pe):
		off = int(pe.Pos.Offset())
		n.Detail = fmt.Sprintf("%d:%d: %s", pe.Pos.Line(), pe.Pos.Col(), pe.Text)
	case errors.As(err, &le):
		off = int(le.Pos.Offset())
	}
	if override != nil {
		n.Span = *override
		n.Kind = NoteUnparsedCode
	} else if off >= 0 {
		if off > len(src) {
			off = len(src)
		}
		end := off + 1
		if end > len(src) {
			end = len(src)
		}
		n.Span = Span{off, end}
	} else {
		n.Span = Span{0, len(src)}
	}
	return n
}

// ctx is the state that flows along a statement list.
type ctx struct {
	cwd        string // "" = unknown
	wrappers   []string
	pipes      []PipePos
	override   *Span // span for everything found in string-carried code
	depth      int
	remote     bool
	funcDef    string
	background bool
	stdinPipe  bool
	inPipe     bool
	extraArgs  bool
}

func (c *ctx) copy() *ctx {
	n := *c
	return &n
}

type walker struct {
	opts     Options
	res      *Result
	vars     map[string]expand.Variable
	globVars map[string]bool // variables holding an unexpanded glob
	dynVars  map[string]bool // variables with a known prefix but a run-time value
	pos      []string        // positional parameters; nil = unknown
	arg0     string          // $0
	seen     map[*syntax.CallExpr]bool
	posSet   bool
	funcs    map[string]*syntax.Stmt
	calling  []string
	cfg      *expand.Config
	pipeSeq  int
	// per-expansion state
	dyn, procSub, ifs, positional bool
	usedVars                      []string
	refs                          map[string]bool
	curCtx                        *ctx
}

func (w *walker) span(n syntax.Node, c *ctx) Span {
	if c.override != nil {
		return *c.override
	}
	if n == nil || !n.Pos().IsValid() {
		return Span{}
	}
	s := Span{int(n.Pos().Offset()), int(n.End().Offset())}
	if s.End < s.Start {
		s.End = s.Start
	}
	if s.End > len(w.res.Src) {
		s.End = len(w.res.Src)
	}
	if s.Start > s.End {
		s.Start = s.End
	}
	return s
}

func (w *walker) full() bool { return len(w.res.Commands) >= w.opts.MaxCommands }

func (w *walker) stmts(list []*syntax.Stmt, c *ctx) {
	for _, s := range list {
		w.stmt(s, c)
	}
}

func (w *walker) stmt(s *syntax.Stmt, c *ctx) {
	if s == nil || w.full() {
		return
	}
	sc := c
	if s.Background || s.Coprocess || s.Disown {
		sc = c.copy()
		sc.background = true
	}
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		w.call(x, s.Redirs, sc)
		if sc != c {
			// a backgrounded cd does not change our directory
		} else if c.cwd != sc.cwd {
			c.cwd = sc.cwd
		}
		return
	case nil:
		w.compoundRedirs(s.Redirs, sc)
		return
	}
	w.compoundRedirs(s.Redirs, sc)
	switch x := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			w.pipeline(x, sc)
			return
		}
		w.stmt(x.X, sc)
		w.stmt(x.Y, sc)
	case *syntax.Subshell:
		w.stmts(x.Stmts, sc.copy())
	case *syntax.Block:
		w.stmts(x.Stmts, sc)
	case *syntax.IfClause:
		for ic := x; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond, sc)
			w.stmts(ic.Then, sc)
		}
	case *syntax.WhileClause:
		w.stmts(x.Cond, sc)
		w.stmts(x.Do, sc)
	case *syntax.ForClause:
		switch l := x.Loop.(type) {
		case *syntax.WordIter:
			var items []Arg
			static := l.Name != nil && len(l.Items) > 0
			for _, it := range l.Items {
				w.substs(it, sc)
				for _, a := range w.expandWord(it, sc) {
					items = append(items, a)
					static = static && !a.Dynamic
				}
			}
			if static && len(items) <= 8 {
				// walk the body once per item, as bash runs it
				name := l.Name.Value
				for _, it := range items {
					w.vars[name] = expand.Variable{Set: true, Kind: expand.String, Str: it.Value}
					if it.Glob {
						w.globVars[name] = true
					} else {
						delete(w.globVars, name)
					}
					w.stmts(x.Do, sc)
				}
				delete(w.globVars, name)
				return
			}
			if l.Name != nil {
				w.vars[l.Name.Value] = unknownVar
			}
		case *syntax.CStyleLoop:
			w.substs(l, sc)
			w.arithmAssigns(l)
		}
		w.stmts(x.Do, sc)
	case *syntax.CaseClause:
		w.substs(x.Word, sc)
		for _, it := range x.Items {
			for _, p := range it.Patterns {
				w.substs(p, sc)
			}
			w.stmts(it.Stmts, sc)
		}
	case *syntax.FuncDecl:
		w.funcDecl(x, sc)
	case *syntax.ArithmCmd:
		w.substs(x, sc)
		w.arithmAssigns(x)
	case *syntax.TestClause:
		w.substs(x, sc)
	case *syntax.LetClause:
		w.substs(x, sc)
		w.arithmAssigns(x)
	case *syntax.DeclClause:
		w.decl(x, s.Redirs, sc)
	case *syntax.TimeClause:
		c2 := sc.copy()
		c2.wrappers = appendCopy(sc.wrappers, "time")
		w.stmt(x.Stmt, c2)
	case *syntax.CoprocClause:
		c2 := sc.copy()
		c2.background = true
		w.stmt(x.Stmt, c2)
	case *syntax.TestDecl:
		w.stmt(x.Body, sc)
	}
}

// arithmAssigns forgets variables that arithmetic assigns ((n++),
// let x=1, for ((i=0;…;i++))): their values are no longer literal.
func (w *walker) arithmAssigns(n syntax.Node) {
	syntax.Walk(n, func(n syntax.Node) bool {
		var x syntax.ArithmExpr
		switch e := n.(type) {
		case *syntax.BinaryArithm:
			switch e.Op {
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
				x = e.X
			}
		case *syntax.UnaryArithm:
			if e.Op == syntax.Inc || e.Op == syntax.Dec {
				x = e.X
			}
		}
		if wd, ok := x.(*syntax.Word); ok {
			if name := wd.Lit(); name != "" {
				w.vars[name] = unknownVar
			}
		}
		return true
	})
}

func appendCopy(s []string, v ...string) []string {
	n := make([]string, 0, len(s)+len(v))
	n = append(n, s...)
	return append(n, v...)
}

func (w *walker) pipeline(x *syntax.BinaryCmd, c *ctx) {
	var stages []*syntax.Stmt
	var flat func(s *syntax.Stmt)
	flat = func(s *syntax.Stmt) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(s.Redirs) == 0 && !s.Background {
			flat(b.X)
			flat(b.Y)
			return
		}
		stages = append(stages, s)
	}
	flat(x.X)
	flat(x.Y)
	w.pipeSeq++
	id := w.pipeSeq
	for i, s := range stages {
		sc := c.copy()
		sc.pipes = append(append([]PipePos(nil), c.pipes...), PipePos{ID: id, Stage: i})
		sc.stdinPipe = i > 0
		sc.inPipe = true
		w.stmt(s, sc)
	}
}

func (w *walker) funcDecl(x *syntax.FuncDecl, c *ctx) {
	names := x.Names
	if x.Name != nil {
		names = append([]*syntax.Lit{x.Name}, names...)
	}
	if w.funcs == nil {
		w.funcs = map[string]*syntax.Stmt{}
	}
	if len(names) == 0 {
		// anonymous function (zsh) or odd input: the body still counts
		c2 := c.copy()
		c2.funcDef = "anonymous"
		w.stmt(x.Body, c2)
	}
	for _, n := range names {
		sp := w.span(n, c)
		w.res.Funcs[n.Value] = sp
		w.funcs[n.Value] = x.Body
		w.res.Notes = append(w.res.Notes, Note{Kind: NoteFuncDef, Span: w.span(x, c), Detail: n.Value, Cmd: -1})
		c2 := c.copy()
		c2.funcDef = n.Value
		savedPos, savedSet := w.pos, w.posSet
		w.pos, w.posSet = nil, false
		w.calling = append(w.calling, n.Value)
		w.stmt(x.Body, c2)
		w.calling = w.calling[:len(w.calling)-1]
		w.pos, w.posSet = savedPos, savedSet
	}
}

func (w *walker) compoundRedirs(rs []*syntax.Redirect, c *ctx) {
	for _, r := range rs {
		rd := w.redirect(r, c, -1)
		w.res.Redirects = append(w.res.Redirects, rd)
	}
}

func isWriteOp(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.RdrAll,
		syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
		return true
	}
	return false
}

func (w *walker) redirect(r *syntax.Redirect, c *ctx, cmd int) Redirect {
	rd := Redirect{Op: r.Op.String(), Cwd: c.cwd, Span: w.span(r, c), Cmd: cmd, Write: isWriteOp(r.Op)}
	if r.N != nil {
		rd.N = r.N.Value
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc != nil {
			idx := w.substs(r.Hdoc, c)
			rd.Target = w.literalArg(r.Hdoc, c)
			rd.Target.Subst = idx
		}
		return rd
	}
	if r.Word != nil {
		idx := w.substs(r.Word, c)
		args := w.expandWord(r.Word, c)
		if len(args) > 0 {
			rd.Target = args[0]
		} else {
			rd.Target = Arg{Dynamic: true, Span: w.span(r.Word, c)}
		}
		rd.Target.Subst = idx
		if r.Op == syntax.DplOut && !rd.Target.Dynamic {
			// >&word with a non-numeric word is &>word in bash
			if _, err := strconv.Atoi(rd.Target.Value); err != nil && rd.Target.Value != "-" {
				rd.Write = true
			}
		}
	}
	return rd
}

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

func (w *walker) call(x *syntax.CallExpr, redirs []*syntax.Redirect, c *ctx) {
	if !w.seen[x] {
		if w.seen == nil {
			w.seen = map[*syntax.CallExpr]bool{}
		}
		w.seen[x] = true
		w.res.SimpleCommands++
	}
	if len(x.Args) == 0 {
		cmd := &Command{Span: w.span(x, c), Builtin: true}
		for _, a := range x.Assigns {
			cmd.Assigns = append(cmd.Assigns, w.assign(a, c, true))
		}
		w.emitSimple(cmd, redirs, c)
		return
	}
	cmd := &Command{Span: w.span(x, c)}
	for _, a := range x.Assigns {
		cmd.Assigns = append(cmd.Assigns, w.assign(a, c, false))
	}
	for _, word := range x.Args {
		idx := w.substs(word, c)
		args := w.expandWord(word, c)
		for i := range args {
			args[i].Subst = idx
		}
		if len(args) == 0 && len(idx) > 0 {
			args = []Arg{{Dynamic: true, Value: "$(…)", Subst: idx, Span: w.span(word, c)}}
		}
		cmd.Args = append(cmd.Args, args...)
	}
	if c.override == nil && len(x.Args) > 0 {
		checkHistory(x.Args, w.res)
	}
	w.emitSimple(cmd, redirs, c)
}

func checkHistory(words []*syntax.Word, r *Result) {
	for _, word := range words {
		for _, p := range word.Parts {
			lit, ok := p.(*syntax.Lit)
			if !ok {
				continue
			}
			v := lit.Value
			for i := 0; i+1 < len(v); i++ {
				if v[i] != '!' || (i > 0 && v[i-1] == '\\') {
					continue
				}
				n := v[i+1]
				if n == '!' || n == '$' || n == '^' || n == '*' || n == '-' || (n >= '0' && n <= '9') || (n >= 'a' && n <= 'z') || (n >= 'A' && n <= 'Z') || n == '?' || n == '#' {
					if i == 0 || v[i-1] == ' ' || n == '!' || n == '$' {
						r.Notes = append(r.Notes, Note{Kind: NoteHistory, Cmd: -1,
							Span:   Span{int(lit.Pos().Offset()) + i, int(lit.Pos().Offset()) + i + 2},
							Detail: v[i : i+2]})
						break
					}
				}
			}
		}
	}
}

// emitSimple records a command built from the syntax tree, then follows
// whatever it runs.
func (w *walker) emitSimple(cmd *Command, redirs []*syntax.Redirect, c *ctx) {
	idx := len(w.res.Commands)
	for _, r := range redirs {
		rd := w.redirect(r, c, idx)
		cmd.Redirects = append(cmd.Redirects, rd)
	}
	w.emit(cmd, c)
	for i := range cmd.Redirects {
		cmd.Redirects[i].Cmd = idx
	}
	w.res.Redirects = append(w.res.Redirects, cmd.Redirects...)
	w.follow(idx, c)
}

func (w *walker) emit(cmd *Command, c *ctx) int {
	if w.full() {
		if len(w.res.Notes) == 0 || w.res.Notes[len(w.res.Notes)-1].Kind != NoteTooManyCommands {
			w.res.Notes = append(w.res.Notes, Note{Kind: NoteTooManyCommands, Cmd: -1, Span: cmd.Span})
		}
		return -1
	}
	cmd.Argv = make([]string, len(cmd.Args))
	for i, a := range cmd.Args {
		cmd.Argv[i] = a.Value
	}
	if cmd.Wrappers == nil {
		cmd.Wrappers = c.wrappers
	}
	cmd.Cwd = c.cwd
	cmd.Pipes = c.pipes
	cmd.StdinPipe = cmd.StdinPipe || c.stdinPipe
	cmd.Background = c.background
	cmd.Remote = cmd.Remote || c.remote
	cmd.ExtraArgs = cmd.ExtraArgs || c.extraArgs
	cmd.FuncDef = c.funcDef
	cmd.Depth = c.depth
	if len(cmd.Args) > 0 && !cmd.Args[0].Dynamic {
		name := cmd.Args[0].Value
		if _, ok := w.funcs[name]; ok {
			cmd.Func, cmd.Builtin = true, true
		} else if builtins[name] {
			cmd.Builtin = true
		}
		for _, r := range name {
			if r > 127 {
				w.res.Notes = append(w.res.Notes, Note{Kind: NoteNonASCIIName, Span: cmd.Args[0].Span, Detail: name, Cmd: len(w.res.Commands)})
				break
			}
		}
		if c.funcDef != "" && name == c.funcDef {
			kind := NoteRecursiveFunc
			if c.inPipe || c.background {
				kind = NoteForkBomb
			}
			w.res.Notes = append(w.res.Notes, Note{Kind: kind, Span: cmd.Span, Detail: name, Cmd: len(w.res.Commands)})
		}
	}
	w.res.Commands = append(w.res.Commands, cmd)
	return len(w.res.Commands) - 1
}

// builtins are names that run inside bash without starting a program.
var builtins = map[string]bool{
	":": true, ".": true, "source": true, "alias": true, "bg": true, "bind": true, "break": true,
	"builtin": true, "caller": true, "cd": true, "command": true, "compgen": true, "complete": true,
	"continue": true, "declare": true, "dirs": true, "disown": true, "echo": true, "enable": true,
	"eval": true, "exec": true, "exit": true, "export": true, "false": true, "fc": true, "fg": true,
	"getopts": true, "hash": true, "help": true, "history": true, "jobs": true, "kill": true,
	"let": true, "local": true, "logout": true, "mapfile": true, "popd": true, "printf": true,
	"pushd": true, "pwd": true, "read": true, "readarray": true, "readonly": true, "return": true,
	"set": true, "shift": true, "shopt": true, "suspend": true, "test": true, "[": true,
	"times": true, "trap": true, "true": true, "type": true, "typeset": true, "ulimit": true,
	"umask": true, "unalias": true, "unset": true, "wait": true, "time": true,
}

func baseName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return s
}

// ---- word expansion ----

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
	for _, f := range fields {
		args = append(args, Arg{Value: f, Dynamic: w.dyn, Glob: glob, ProcSubst: w.procSub,
			Brace: len(fields) > 1 && !hasParam, ANSIC: wi.ansic, IFS: wi.ifs, Positional: w.positional,
			Quoted: wi.quoted, Vars: vars, Span: sp})
	}
	return args
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
	var vars []string
	if len(w.usedVars) > 0 {
		vars = append(vars, w.usedVars...)
	}
	return Arg{Value: s, Dynamic: w.dyn, ProcSubst: w.procSub, IFS: wi.ifs, ANSIC: wi.ansic,
		Positional: w.positional, Quoted: wi.quoted, Vars: vars, Span: sp}
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

// ---- following what a command runs ----

// follow looks at command idx and analyses what it runs: wrapped commands,
// code carried in strings, function bodies.
func (w *walker) follow(idx int, c *ctx) {
	if idx < 0 {
		return
	}
	cmd := w.res.Commands[idx]
	name := cmd.Name()
	if name == "" {
		return
	}
	// cd changes the directory for what follows.
	switch name {
	case "cd", "pushd":
		c.cwd = w.cdTarget(cmd, c.cwd)
		return
	case "popd":
		c.cwd = ""
		return
	case "read", "mapfile", "readarray", "getopts", "printf", "unset":
		w.forgetAssigned(cmd)
		if name != "set" {
			return
		}
	case "set":
		for i, a := range cmd.Args[1:] {
			if a.Value == "--" {
				w.pos, w.posSet = append([]string(nil), cmd.Argv[i+2:]...), true
				for _, b := range cmd.Args[i+2:] {
					if b.Dynamic {
						w.posSet = false
					}
				}
				break
			}
		}
		return
	case "shift":
		n := 1
		if len(cmd.Argv) > 1 {
			if v, err := strconv.Atoi(cmd.Argv[1]); err == nil {
				n = v
			} else {
				w.posSet = false
			}
		}
		if w.posSet && n <= len(w.pos) && n >= 0 {
			w.pos = w.pos[n:]
		} else {
			w.posSet = false
		}
		return
	}
	// a call of a function defined in the script runs its body with the
	// call's arguments
	if body, ok := w.funcs[cmd.Args[0].Value]; ok {
		w.callFunc(cmd, body, c)
		return
	}
	u := unwrap(cmd)
	if u == nil {
		return
	}
	if c.depth >= w.opts.MaxDepth {
		w.res.Notes = append(w.res.Notes, Note{Kind: NoteDepthLimit, Span: cmd.Span, Cmd: idx})
		return
	}
	for _, in := range u.inner {
		if len(in.args) == 0 {
			continue
		}
		c2 := c.copy()
		c2.depth = c.depth + 1
		c2.wrappers = appendCopy(c.wrappers, in.wrapper)
		c2.remote = c.remote || in.remote
		c2.extraArgs = in.extraArgs
		switch {
		case in.cwd == "":
		case in.cwd == "\x00" || c.cwd == "" && !path.IsAbs(in.cwd):
			c2.cwd = ""
		case path.IsAbs(in.cwd):
			c2.cwd = path.Clean(in.cwd)
		default:
			c2.cwd = path.Join(c.cwd, in.cwd)
		}
		sub := &Command{Args: in.args, Assigns: in.assigns, Span: argsSpan(in.args, cmd.Span)}
		if in.stdinFromParent {
			sub.StdinPipe = cmd.StdinPipe
		}
		// redirects of the wrapper apply to the wrapped command too
		sub.Redirects = cmd.Redirects
		j := w.emit(sub, c2)
		w.follow(j, c2)
	}
	for _, code := range u.code {
		w.code(code, cmd, c)
	}
}

// forgetAssigned marks the variables a builtin assigns at run time
// (read NAME, mapfile NAME, getopts OPTS NAME, printf -v NAME, unset NAME)
// as unknown.
func (w *walker) forgetAssigned(cmd *Command) {
	args := cmd.Args[1:]
	forget := func(n string) {
		if i := strings.IndexByte(n, '['); i > 0 {
			n = n[:i]
		}
		if isName(n) {
			w.vars[n] = unknownVar
			delete(w.dynVars, n)
		}
	}
	switch cmd.Name() {
	case "printf":
		for i, a := range args {
			if a.Value == "-v" && i+1 < len(args) {
				forget(args[i+1].Value)
			}
		}
	case "getopts":
		if len(args) >= 2 {
			forget(args[1].Value)
		}
	case "mapfile", "readarray":
		forget("MAPFILE")
		fallthrough
	default: // read, unset
		valued := map[string]bool{"-a": true, "-d": true, "-p": true, "-n": true, "-N": true, "-t": false, "-u": true, "-i": true, "-C": true, "-c": true, "-O": true, "-s": false}
		if cmd.Name() == "read" {
			valued["-t"] = true
			forget("REPLY")
		}
		for i := 0; i < len(args); i++ {
			v := args[i].Value
			if strings.HasPrefix(v, "-") {
				if (v == "-a") && i+1 < len(args) {
					forget(args[i+1].Value)
				}
				if valued[v] {
					i++
				}
				continue
			}
			forget(v)
		}
	}
}

func argsSpan(args []Arg, def Span) Span {
	if len(args) == 0 {
		return def
	}
	s := Span{args[0].Span.Start, args[len(args)-1].Span.End}
	if s.End < s.Start {
		return def
	}
	return s
}

// code parses a string that a command runs as shell code.
func (w *walker) code(cd codeArg, parent *Command, c *ctx) {
	c2 := c.copy()
	c2.depth = c.depth + 1
	c2.wrappers = appendCopy(c.wrappers, cd.wrapper)
	c2.remote = c.remote || cd.remote
	c2.pipes = append([]PipePos(nil), c.pipes...)
	sp := cd.span
	c2.override = &sp
	if cd.dynamic {
		w.res.Notes = append(w.res.Notes, Note{Kind: NoteDynamicCode, Span: sp, Detail: cd.wrapper, Cmd: -1})
		return
	}
	if c2.depth > w.opts.MaxDepth {
		w.res.Notes = append(w.res.Notes, Note{Kind: NoteDepthLimit, Span: sp, Cmd: -1})
		return
	}
	f, err := parse(cd.text)
	if err != nil {
		w.res.Notes = append(w.res.Notes, parseNote(err, cd.text, &sp))
		if f == nil {
			return
		}
	}
	if cd.newShell {
		// a new shell: positional parameters come from its arguments
		savedPos, savedSet, savedVars, saved0 := w.pos, w.posSet, w.vars, w.arg0
		w.pos, w.posSet = cd.positional, cd.positionalSet
		if len(w.pos) > 0 {
			w.arg0, w.pos = w.pos[0], w.pos[1:]
		}
		w.vars = map[string]expand.Variable{}
		for k, v := range savedVars {
			w.vars[k] = v
		}
		w.stmts(f.Stmts, c2)
		w.pos, w.posSet, w.vars, w.arg0 = savedPos, savedSet, savedVars, saved0
		return
	}
	w.stmts(f.Stmts, c2)
	// eval runs in the current shell: directory changes stick
	if cd.sameShell {
		c.cwd = c2.cwd
	}
}

func (w *walker) callFunc(cmd *Command, body *syntax.Stmt, c *ctx) {
	name := cmd.Args[0].Value
	for _, n := range w.calling {
		if n == name {
			return
		}
	}
	if c.depth >= w.opts.MaxDepth {
		return
	}
	c2 := c.copy()
	c2.depth = c.depth + 1
	c2.wrappers = appendCopy(c.wrappers, "function "+name)
	c2.override = &cmd.Span
	c2.funcDef = ""
	savedPos, savedSet := w.pos, w.posSet
	w.pos = cmd.Argv[1:]
	w.posSet = true
	for _, a := range cmd.Args[1:] {
		if a.Dynamic {
			// keep the placeholders; the words are dynamic at run time
			break
		}
	}
	w.calling = append(w.calling, name)
	w.stmt(body, c2)
	w.calling = w.calling[:len(w.calling)-1]
	w.pos, w.posSet = savedPos, savedSet
}

func (w *walker) cdTarget(cmd *Command, cwd string) string {
	args := cmd.Args[1:]
	for len(args) > 0 && (args[0].Value == "-L" || args[0].Value == "-P" || args[0].Value == "-e" || args[0].Value == "--") {
		args = args[1:]
	}
	if len(args) == 0 {
		return w.opts.Home
	}
	a := args[0]
	if a.Dynamic || a.Value == "-" || a.Glob {
		return ""
	}
	if path.IsAbs(a.Value) {
		return path.Clean(a.Value)
	}
	if cwd == "" {
		return ""
	}
	return path.Join(cwd, a.Value)
}

// substCommands walks the statements of a $( ) or <( ) substitution in a
// context of their own (not part of the surrounding pipeline, not in the
// background) and appends the indices of the commands found to idx.
func (w *walker) substCommands(stmts []*syntax.Stmt, c *ctx, idx []int) []int {
	start := len(w.res.Commands)
	sc := c.copy()
	sc.pipes = nil
	sc.stdinPipe, sc.inPipe, sc.background = false, false, false
	w.stmts(stmts, sc)
	for i := start; i < len(w.res.Commands); i++ {
		idx = append(idx, i)
	}
	return idx
}
