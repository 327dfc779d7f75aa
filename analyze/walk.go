package analyze

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// MaxInput is the analysis budget: a longer input is not parsed, only
// scanned for characters, and reported as too large (NoteTooLarge).
const MaxInput = 1 << 20

var parserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash))
}}

// The analysis budgets. DefaultMaxWork steps are about ten times what a
// script of 64 KiB (the review budget of package policy) takes: a step is
// a statement, a word, a redirect, or 16 bytes of text parsed or
// expanded. DefaultMaxTime is a backstop for a slow machine.
const (
	DefaultMaxWork = 100_000
	DefaultMaxTime = 5 * time.Second
)

// Analyze parses src as bash and returns the facts about it. It never
// panics and never fails: a parse error is a Note.
func Analyze(src string, opts Options) *Result {
	return AnalyzeContext(context.Background(), src, opts)
}

// AnalyzeContext is Analyze that stops when cx ends (NoteCancelled).
// Every bound of the analysis (MaxInput, MaxNesting, Options.MaxWork,
// Options.MaxTime, Options.MaxCommands) ends it early with a note, and
// the facts found until then.
func AnalyzeContext(cx context.Context, src string, opts Options) *Result {
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
	if opts.MaxWork <= 0 {
		opts.MaxWork = DefaultMaxWork
	}
	if opts.MaxTime <= 0 {
		opts.MaxTime = DefaultMaxTime
	}
	r := &Result{Src: src, Funcs: map[string]Span{}}
	w := &walker{opts: opts, res: r, vars: map[string]expand.Variable{}, globVars: map[string]bool{}, dynVars: map[string]bool{},
		cx: cx, deadline: time.Now().Add(opts.MaxTime)}
	w.cfg = &expand.Config{Env: (*envAdapter)(w), CmdSubst: w.cmdSubst, ProcSubst: w.procSubst}
	scanChars(src, r)
	if len(src) > MaxInput {
		r.Notes = append(r.Notes, Note{Kind: NoteTooLarge, Span: Span{0, len(src)}, Cmd: -1,
			Detail: fmt.Sprintf("%d bytes, over the %d-byte analysis budget", len(src), MaxInput)})
		return r
	}
	if d := nesting(src, MaxNesting); d > MaxNesting {
		r.Notes = append(r.Notes, Note{Kind: NoteTooDeep, Span: Span{0, len(src)}, Cmd: -1,
			Detail: fmt.Sprintf("nested more than %d levels deep", MaxNesting)})
		return r
	}
	if w.spend(1 + len(src)/bytesPerStep); w.stopped {
		return r
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

// tick counts one step of work (spend).
func (w *walker) tick() { w.spend(1) }

// bytesPerStep is what one step of work buys in bytes of expanded text:
// words and values that grow (a=$a$a) spend the budget by their size.
const bytesPerStep = 16

// spend counts n steps of work and stops the analysis, with a note that
// names the bound, once the work budget is spent, the time is up or the
// caller has gone. The clock and the context are read every 64 steps.
func (w *walker) spend(n int) {
	if w.stopped {
		return
	}
	before := w.work
	w.work += n
	var kind NoteKind
	var detail string
	switch {
	case w.work > w.opts.MaxWork:
		kind, detail = NoteWorkBudget, fmt.Sprintf("more than %d steps", w.opts.MaxWork)
	case before>>6 == w.work>>6 && before != 0:
		return
	case w.cx.Err() != nil:
		kind, detail = NoteCancelled, "the caller has gone: "+w.cx.Err().Error()
	case time.Now().After(w.deadline):
		kind, detail = NoteCancelled, fmt.Sprintf("longer than %s", w.opts.MaxTime)
	default:
		return
	}
	w.stopped = true
	w.res.Notes = append(w.res.Notes, Note{Kind: kind, Span: Span{0, len(w.res.Src)}, Cmd: -1, Detail: detail})
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
	wrappers   []Wrapper
	pipes      []PipePos
	override   *Span // span for everything found in string-carried code
	base       int   // offset of string-carried code in the source, when it is there verbatim
	inCode     bool  // in string-carried code (no history expansion there)
	depth      int
	remote     bool
	funcDef    string
	background bool
	loop       bool // in the condition or body of a while, until or for loop
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
	cx       context.Context
	deadline time.Time
	work     int  // steps taken (tick)
	stopped  bool // a budget is spent: walk no further
	res      *Result
	vars     map[string]expand.Variable
	globVars map[string]bool // variables holding an unexpanded glob
	dynVars  map[string]bool // variables with a known prefix but a run-time value
	// outVars are loop variables that take, in turn, the words a command
	// substitution prints (for f in $(find …)): the indices of its commands
	outVars map[string][]int
	pos     []string // positional parameters; nil = unknown
	arg0    string   // $0
	seen    map[*syntax.CallExpr]bool
	posSet  bool
	funcs   map[string]*syntax.Stmt
	calling []string
	cfg     *expand.Config
	pipeSeq int
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
	s := Span{c.base + int(n.Pos().Offset()), c.base + int(n.End().Offset())}
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

// full reports whether the walk must stop: the command budget or another
// bound (tick) is spent.
func (w *walker) full() bool { return w.stopped || len(w.res.Commands) >= w.opts.MaxCommands }

func (w *walker) stmts(list []*syntax.Stmt, c *ctx) {
	for _, s := range list {
		w.stmt(s, c)
	}
}

func (w *walker) stmt(s *syntax.Stmt, c *ctx) {
	if w.tick(); s == nil || w.full() {
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
		defer func(was bool) { sc.loop = was }(sc.loop)
		sc.loop = true
		w.stmts(x.Cond, sc)
		w.stmts(x.Do, sc)
	case *syntax.ForClause:
		defer func(was bool) { sc.loop = was }(sc.loop)
		sc.loop = true
		switch l := x.Loop.(type) {
		case *syntax.WordIter:
			var items []Arg
			static := l.Name != nil && len(l.Items) > 0
			var out []int
			for _, it := range l.Items {
				idx := w.substs(it, sc)
				if len(l.Items) == 1 && loneSubst(it) {
					out = idx
				}
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
				if out != nil {
					if w.outVars == nil {
						w.outVars = map[string][]int{}
					}
					w.outVars[l.Name.Value] = out
					defer delete(w.outVars, l.Name.Value)
				}
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
		c2.wrappers = appendWrapper(sc.wrappers, Wrapper{Program: "time", Text: "time", Via: ViaArgv})
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

func appendWrapper(s []Wrapper, v Wrapper) []Wrapper {
	n := make([]Wrapper, 0, len(s)+1)
	n = append(n, s...)
	return append(n, v)
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
	w.tick()
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
			if c.override == nil {
				rd.Target.Span = w.bodySpan(rd.Target.Span)
			}
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
		if len(idx) == 0 && len(args) == 1 {
			if n := loneParam(word); n != "" {
				idx = w.outVars[n]
			}
		}
		for i := range args {
			args[i].Subst = idx
		}
		if len(args) == 0 && len(idx) > 0 {
			args = []Arg{{Dynamic: true, Value: "$(…)", Subst: idx, Span: w.span(word, c)}}
		}
		cmd.Args = append(cmd.Args, args...)
	}
	if c.override == nil && !c.inCode && len(x.Args) > 0 {
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
	for _, r := range redirs {
		rd := w.redirect(r, c, -1)
		cmd.Redirects = append(cmd.Redirects, rd)
	}
	// the index is the one emit gives: -1 when the budget is spent, and
	// then there is nothing to follow
	idx := w.emit(cmd, c)
	for i := range cmd.Redirects {
		cmd.Redirects[i].Cmd = idx
	}
	w.res.Redirects = append(w.res.Redirects, cmd.Redirects...)
	w.follow(idx, c)
}

func (w *walker) emit(cmd *Command, c *ctx) int {
	if w.tick(); w.stopped {
		return -1
	}
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
	cmd.InLoop = c.loop
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
	w.program(cmd)
	codeFacts(cmd, w.res.Commands)
	w.res.Commands = append(w.res.Commands, cmd)
	return len(w.res.Commands) - 1
}

// program sets the program name of a command: the base name of a
// literal name, or of a path whose directory a locator substitution
// prints ($(which node), $(npm bin)/eslint).
func (w *walker) program(cmd *Command) {
	if len(cmd.Args) == 0 {
		return
	}
	a0 := cmd.Args[0]
	located := len(a0.Subst) > 0
	for _, j := range a0.Subst {
		if j < 0 || j >= len(w.res.Commands) || !isLocator(w.res.Commands[j]) {
			located = false
		}
	}
	switch {
	case !a0.Dynamic:
		cmd.Program, cmd.Located = baseName(a0.Value), located
	case located && len(a0.Vars) == 0:
		if b := path.Base(a0.Value); !strings.ContainsAny(b, "$(…") {
			cmd.Program, cmd.Located = b, true
		}
	}
}

// isLocator reports commands that print where a program or directory
// is ($(which node), $(go env GOPATH), $(git rev-parse --show-toplevel)).
func isLocator(c *Command) bool {
	n := c.Name()
	sub := ""
	if len(c.Argv) > 1 {
		sub = c.Argv[1]
	}
	switch n {
	case "which", "command", "type", "dirname", "realpath", "readlink", "pwd", "basename", "cygpath", "wslpath":
		return true
	case "go":
		return sub == "env"
	case "npm", "yarn", "pnpm":
		return sub == "bin" || sub == "root" || sub == "prefix"
	case "git":
		return sub == "rev-parse"
	case "brew":
		return sub == "--prefix" || sub == "--cellar" || sub == "--repository"
	case "xcrun":
		return sub == "--find" || sub == "-f"
	case "pyenv", "rbenv", "nodenv", "asdf", "mise", "rustup", "goenv", "jenv":
		return sub == "which" || sub == "prefix" || sub == "where"
	case "rustc":
		return sub == "--print"
	case "python", "python3":
		return sub == "-m" && len(c.Argv) > 2 && (c.Argv[2] == "site" || c.Argv[2] == "sysconfig")
	}
	return false
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

// bodySpan trims the closing delimiter line off the span of a
// here-document body: the body ends with its last newline.
func (w *walker) bodySpan(sp Span) Span {
	if sp.Start < 0 || sp.End > len(w.res.Src) || sp.Start >= sp.End {
		return sp
	}
	body := w.res.Src[sp.Start:sp.End]
	if strings.HasSuffix(body, "\n") {
		return sp
	}
	sp.End = sp.Start + strings.LastIndexByte(body, '\n') + 1
	return sp
}

// loneSubst reports a word that is one command substitution, unquoted:
// its words are what the command prints.
func loneSubst(word *syntax.Word) bool {
	if len(word.Parts) != 1 {
		return false
	}
	_, ok := word.Parts[0].(*syntax.CmdSubst)
	return ok
}

// loneParam returns the name of the variable a word only expands ($f,
// "$f", ${f}), or "".
func loneParam(word *syntax.Word) string {
	parts := word.Parts
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts = dq.Parts
		}
	}
	if len(parts) != 1 {
		return ""
	}
	pe, ok := parts[0].(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Index != nil || pe.Exp != nil || pe.Repl != nil || pe.Slice != nil || pe.Length || pe.Excl || pe.Names != 0 || pe.Width {
		return ""
	}
	return pe.Param.Value
}
