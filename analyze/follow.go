package analyze

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

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
		c2.wrappers = appendWrapper(c.wrappers, wrapperOf(in.wrapper, ViaArgv))
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
	wr := wrapperOf(cd.wrapper, cd.via)
	wr.Stdin = cd.stdin
	c2.wrappers = appendWrapper(c.wrappers, wr)
	c2.remote = c.remote || cd.remote
	c2.pipes = append([]PipePos(nil), c.pipes...)
	sp := cd.span
	c2.inCode = true
	if base := w.codeBase(cd.text, sp, c); base >= 0 {
		// the code is in the source verbatim (a quoted here-document, a
		// single-quoted sh -c): its commands keep their own spans
		c2.base = base
	} else {
		c2.override = &sp
	}
	if cd.dynamic {
		w.res.Notes = append(w.res.Notes, Note{Kind: NoteDynamicCode, Span: sp, Detail: cd.wrapper, Cmd: -1, Wrapper: wr})
		return
	}
	if c2.depth > w.opts.MaxDepth {
		w.res.Notes = append(w.res.Notes, Note{Kind: NoteDepthLimit, Span: sp, Cmd: -1})
		return
	}
	if d := nesting(cd.text, MaxNesting); d > MaxNesting {
		w.res.Notes = append(w.res.Notes, Note{Kind: NoteTooDeep, Span: sp, Cmd: -1,
			Detail: fmt.Sprintf("code nested more than %d levels deep", MaxNesting)})
		return
	}
	w.spend(len(cd.text) / bytesPerStep)
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

// codeBase returns the offset in the source where code text carried in
// the word at sp appears verbatim, once, or -1.
func (w *walker) codeBase(text string, sp Span, c *ctx) int {
	src := w.res.Src
	if c.override != nil || text == "" || sp.Start < 0 || sp.End > len(src) || sp.Start >= sp.End {
		return -1
	}
	in := src[sp.Start:sp.End]
	i := strings.Index(in, text)
	if i < 0 || strings.Contains(in[i+1:], text) {
		return -1
	}
	return sp.Start + i
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
	c2.wrappers = appendWrapper(c.wrappers, Wrapper{Program: "function", Text: "function " + name, Via: ViaFunc})
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
