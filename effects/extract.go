package effects

import (
	"path"
	"strings"

	"github.com/shellguard/shellguard/analyze"
)

// Options locate the command.
type Options struct {
	// Workspace is the starting directory (default "/workspace").
	Workspace string
	// Home is $HOME (default "/home/user").
	Home string
}

// Extract returns the effects of every command of res, at any depth, in
// command order, followed by the effects of compound redirects. It never
// panics on any analyze result.
func Extract(res *analyze.Result, opts Options) []Effect {
	if res == nil {
		return nil
	}
	if opts.Workspace == "" {
		opts.Workspace = "/workspace"
	}
	if opts.Home == "" {
		opts.Home = "/home/user"
	}
	x := &extractor{res: res, opts: opts}
	x.indexPipes()
	for i, c := range res.Commands {
		if c == nil {
			continue
		}
		x.command(i, c)
	}
	for _, r := range res.Redirects {
		if r.Cmd < 0 {
			x.redirect(-1, nil, r)
		}
	}
	return x.out
}

type extractor struct {
	res   *analyze.Result
	opts  Options
	out   []Effect
	pipes map[[2]int][]int // (pipe id, stage) → command indices
}

func (x *extractor) emit(e Effect) { x.out = append(x.out, e) }

func (x *extractor) indexPipes() {
	for i, c := range x.res.Commands {
		if c == nil {
			continue
		}
		for _, p := range c.Pipes {
			if x.pipes == nil {
				x.pipes = map[[2]int][]int{}
			}
			k := [2]int{p.ID, p.Stage}
			x.pipes[k] = append(x.pipes[k], i)
		}
	}
}

// upstream returns the command that feeds c's stdin through a pipe: the
// first command of the previous stage that is not a mere wrapper.
func (x *extractor) upstream(c *analyze.Command) *analyze.Command {
	if !c.StdinPipe || len(c.Pipes) == 0 {
		return nil
	}
	p := c.Pipes[len(c.Pipes)-1]
	if p.Stage == 0 {
		return nil
	}
	var first *analyze.Command
	for _, j := range x.pipes[[2]int{p.ID, p.Stage - 1}] {
		u := x.res.Commands[j]
		if first == nil {
			first = u
		}
		if g := Lookup(u.Name()); g != nil && g.Wrapper {
			continue
		}
		return u
	}
	return first
}

// abs makes p absolute against cwd. ok is false when it cannot be known.
func (x *extractor) abs(p, cwd string) (string, bool) {
	if p == "" {
		return "", false
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = x.opts.Home + p[1:]
	} else if strings.HasPrefix(p, "~") {
		return "", false
	}
	if path.IsAbs(p) {
		return path.Clean(p), true
	}
	if cwd == "" {
		return "", false
	}
	return path.Join(cwd, p), true
}

// pathOf builds the Path of argument a (resolved against cwd).
func (x *extractor) pathOf(a analyze.Arg, cwd string) Path {
	raw := a.Value
	if a.Dynamic {
		if root, via, ok := x.substRoot(a, cwd); ok {
			return Path{Abs: root, Raw: raw, Origin: OriginDerived, Via: via}
		}
		// a known directory with a dynamic leaf ("/etc/$x") is derived
		// from that directory
		if i := strings.IndexAny(raw, "$`"); i > 0 {
			if j := strings.LastIndexByte(raw[:i], '/'); j >= 0 {
				dir := raw[:j]
				if dir == "" {
					dir = "/"
				}
				if p, ok := x.abs(dir, cwd); ok {
					return Path{Abs: p, Raw: raw, Origin: OriginDerived, Via: "a value computed at run time"}
				}
			}
		}
		return Path{Raw: raw, Origin: OriginUnknown}
	}
	if a.Glob && strings.ContainsAny(raw, "*?[") {
		dir := globDir(raw)
		if p, ok := x.abs(dir, cwd); ok {
			return Path{Abs: p, Raw: raw, Origin: OriginDerived, Via: "glob " + raw}
		}
		return Path{Raw: raw, Origin: OriginUnknown}
	}
	if p, ok := x.abs(raw, cwd); ok {
		return Path{Abs: p, Raw: raw, Origin: OriginLiteral}
	}
	return Path{Raw: raw, Origin: OriginUnknown}
}

// globDir returns the directory of a glob before its first pattern
// character.
func globDir(p string) string {
	i := strings.IndexAny(p, "*?[")
	if i < 0 {
		return p
	}
	j := strings.LastIndexByte(p[:i], '/')
	if j < 0 {
		return "."
	}
	if j == 0 {
		return "/"
	}
	return p[:j]
}

// substRoot resolves a word made only of command substitutions whose
// output is a list of paths under a known root ($(find / …),
// $(git ls-files)).
func (x *extractor) substRoot(a analyze.Arg, cwd string) (string, string, bool) {
	if len(a.Subst) != 1 || len(a.Vars) > 0 {
		return "", "", false
	}
	if !strings.HasPrefix(a.Value, "$(") && !strings.HasPrefix(a.Value, "`") {
		return "", "", false
	}
	j := a.Subst[0]
	if j < 0 || j >= len(x.res.Commands) {
		return "", "", false
	}
	return x.producer(x.res.Commands[j])
}

// producer reports the root under which a command lists paths on its
// output (find ROOT, git ls-files, ls DIR, fd …) and names it.
func (x *extractor) producer(u *analyze.Command) (root, via string, ok bool) {
	if u == nil || len(u.Args) == 0 {
		return "", "", false
	}
	name := u.Name()
	args := u.Args[1:]
	cwd := u.Cwd
	switch name {
	case "find":
		// The first argument is the start path unless it is an option or
		// an expression.
		if len(args) > 0 {
			a := args[0]
			if v := a.Value; !strings.HasPrefix(v, "-") && v != "(" && v != "!" && v != "\\(" {
				p := x.pathOf(a, cwd)
				if !p.Known() {
					return "", "", false
				}
				return p.Abs, "find " + a.Value, true
			}
		}
		if cwd == "" {
			return "", "", false
		}
		return cwd, "find", true
	case "git":
		sub, _ := firstWord(args)
		if sub == "ls-files" || sub == "diff" || sub == "ls-tree" || sub == "grep" || sub == "status" {
			if cwd == "" {
				return "", "", false
			}
			return cwd, "git " + sub, true
		}
	case "ls", "fd", "fdfind", "locate", "grep", "rg", "ag", "tree", "du":
		if name == "locate" {
			return "/", "locate", true
		}
		for _, a := range args {
			if strings.HasPrefix(a.Value, "-") {
				continue
			}
			if name == "fd" || name == "fdfind" || name == "grep" || name == "rg" || name == "ag" {
				// the first operand is the pattern
				name = name + " …"
				continue
			}
			p := x.pathOf(a, cwd)
			if !p.Known() {
				return "", "", false
			}
			return p.Abs, strings.TrimSuffix(name, " …") + " " + a.Value, true
		}
		if cwd == "" {
			return "", "", false
		}
		return cwd, strings.TrimSuffix(name, " …"), true
	}
	return "", "", false
}

func firstWord(args []analyze.Arg) (string, int) {
	for i, a := range args {
		if !strings.HasPrefix(a.Value, "-") {
			return a.Value, i
		}
	}
	return "", -1
}

// cmdText renders a command for a reason ("find / -name x").
func cmdText(c *analyze.Command) string {
	s := strings.Join(c.Argv, " ")
	if len(s) > 48 {
		s = s[:45] + "…"
	}
	return s
}

// ---- commands ----

type opt struct {
	name   string
	val    analyze.Arg
	hasVal bool
	arg    analyze.Arg // the option word itself
}

type parsed struct {
	g        *Grammar
	chain    []*Grammar // program first
	path     []string   // program and subcommand words
	opts     []opt
	ops      []analyze.Arg
	unknown  string // unknown subcommand of a mutating CLI
	treeVerb []string
}

func isOpt(a analyze.Arg) bool {
	return !a.Dynamic && len(a.Value) > 1 && a.Value[0] == '-'
}

// parse walks args with the grammar of the program.
func parse(g *Grammar, args []analyze.Arg) *parsed {
	p := &parsed{g: g, chain: []*Grammar{g}, path: []string{g.Name}}
	dd := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !dd && a.Value == "--" && !a.Dynamic {
			dd = true
			continue
		}
		if !dd && isOpt(a) {
			v := a.Value
			if strings.HasPrefix(v, "--") || p.g.Dashlong {
				name, val, eq := strings.Cut(v, "=")
				o := opt{name: name, arg: a}
				if eq {
					o.val, o.hasVal = analyze.Arg{Value: val, Span: a.Span, Dynamic: a.Dynamic, Glob: a.Glob}, true
				} else if p.g.takesValue(name) && i+1 < len(args) {
					i++
					o.val, o.hasVal = args[i], true
				}
				p.opts = append(p.opts, o)
				continue
			}
			// short options, possibly grouped (-rf, -ofile)
			done := false
			for j := 1; j < len(v) && !done; j++ {
				name := "-" + string(v[j])
				o := opt{name: name, arg: a}
				if p.g.takesValue(name) {
					if j+1 < len(v) {
						o.val, o.hasVal = analyze.Arg{Value: strings.TrimPrefix(v[j+1:], "="), Span: a.Span}, true
					} else if i+1 < len(args) {
						i++
						o.val, o.hasVal = args[i], true
					}
					done = true
				}
				p.opts = append(p.opts, o)
			}
			// a whole single-dash word can be a long option (-name, -rf…)
			if len(v) > 2 && p.g.takesValue(v) && !done {
				o := opt{name: v, arg: a}
				if i+1 < len(args) {
					i++
					o.val, o.hasVal = args[i], true
				}
				p.opts = append(p.opts, o)
			} else if len(v) > 2 {
				p.opts = append(p.opts, opt{name: v, arg: a})
			}
			continue
		}
		// an operand: a subcommand while the grammar has them
		if len(p.ops) == 0 && !a.Dynamic && (p.g.Subs != nil || p.g.Tree) {
			if s := p.g.Subs[a.Value]; s != nil {
				p.g = s
				p.chain = append(p.chain, s)
				p.path = append(p.path, a.Value)
				continue
			}
			if p.g.Tree && len(p.treeVerb) < 4 {
				p.treeVerb = append(p.treeVerb, a.Value)
				p.path = append(p.path, a.Value)
				continue
			}
			if p.g.Mutating && p.unknown == "" && len(p.chain) == 1 {
				p.unknown = a.Value
			}
		}
		p.ops = append(p.ops, a)
	}
	return p
}

func (p *parsed) has(names ...string) bool {
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

func (x *extractor) command(i int, c *analyze.Command) {
	for _, a := range c.Assigns {
		x.emit(Effect{Kind: Env, Cmd: i, Span: a.Span, Name: a.Name, Value: a.Value.Value, Dynamic: a.Value.Dynamic, Program: c.Name()})
	}
	for _, r := range c.Redirects {
		x.redirect(i, c, r)
	}
	if len(c.Args) == 0 {
		return
	}
	a0 := c.Args[0]
	if a0.Dynamic {
		x.emit(Effect{Kind: Exec, Cmd: i, Span: c.Span, Code: CodeComputed, Text: a0.Value, Program: a0.Value, Dynamic: true})
		return
	}
	name := c.Name()
	g := Lookup(name)
	if g == nil && strings.HasPrefix(name, "python") {
		g = Lookup("python")
	}
	if c.Remote {
		// runs on another host or in a container: local paths do not apply
		if g == nil {
			x.emit(Effect{Kind: Unknown, Cmd: i, Span: c.Span, Program: name})
		}
		return
	}
	if g == nil {
		x.unknownProgram(i, c, name)
		return
	}
	p := parse(g, c.Args[1:])
	x.apply(i, c, p)
}

// unknownProgram reports a program with no grammar and what its
// arguments name: paths, URLs and computed values.
func (x *extractor) unknownProgram(i int, c *analyze.Command, name string) {
	prog := c.Args[0].Value
	if strings.Contains(prog, "/") {
		x.emit(Effect{Kind: Exec, Cmd: i, Span: c.Span, Code: CodeFile, Path: x.pathOf(c.Args[0], c.Cwd), Program: prog})
	}
	x.emit(Effect{Kind: Unknown, Cmd: i, Span: c.Span, Program: name})
	for _, a := range c.Args[1:] {
		v := a.Value
		if a.Dynamic {
			x.emit(Effect{Kind: Unknown, Cmd: i, Span: a.Span, Program: name, Dynamic: true, Path: x.pathOf(a, c.Cwd)})
			continue
		}
		if k := strings.IndexByte(v, '='); k > 0 && strings.HasPrefix(v, "-") {
			v = v[k+1:]
		} else if strings.HasPrefix(v, "-") {
			continue
		}
		if isURL(v) {
			x.emit(Effect{Kind: Unknown, Cmd: i, Span: a.Span, Program: name, Dest: v})
			continue
		}
		if looksLikePath(v) {
			b := a
			b.Value = v
			x.emit(Effect{Kind: Unknown, Cmd: i, Span: a.Span, Program: name, Path: x.pathOf(b, c.Cwd)})
		}
	}
}

func looksLikePath(v string) bool {
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(v, "./") ||
		strings.HasPrefix(v, "../") || v == ".." || v == "."
}

func isURL(v string) bool {
	i := strings.Index(v, "://")
	if i <= 0 || i > 12 {
		return false
	}
	for _, r := range v[:i] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

func (x *extractor) apply(i int, c *analyze.Command, p *parsed) {
	prog := strings.Join(p.path, " ")
	base := Effect{Cmd: i, Span: c.Span, Program: prog}
	with := func(e Effect) Effect {
		e.Cmd, e.Program = base.Cmd, base.Program
		if e.Span == (analyze.Span{}) {
			e.Span = base.Span
		}
		return e
	}
	for _, g := range p.chain {
		if g.System != "" {
			x.emit(with(Effect{Kind: System, System: g.System}))
		}
	}
	if p.unknown != "" {
		x.emit(with(Effect{Kind: Unknown, Program: prog + " " + p.unknown, Text: p.unknown}))
	}
	if len(p.treeVerb) > 0 {
		switch treeVerb(p.treeVerb) {
		case verbDestroy:
			x.emit(with(Effect{Kind: System, System: SysDestroy, Program: prog}))
		case verbChange:
			x.emit(with(Effect{Kind: System, System: SysChange, Program: prog}))
		case verbUnknown:
			x.emit(with(Effect{Kind: Unknown, Program: prog, Text: strings.Join(p.treeVerb, " ")}))
		}
	}
	cwd := c.Cwd
	name := p.chain[0].Name
	switch name {
	case "find":
		x.find(i, c, p, with)
		return
	case "tar":
		x.tar(i, c, p, with)
		return
	case "dd":
		for _, a := range c.Args[1:] {
			if k, v, ok := strings.Cut(a.Value, "="); ok {
				b := a
				b.Value = v
				switch k {
				case "if":
					x.emit(with(Effect{Kind: Read, Path: x.pathOf(b, cwd), Span: a.Span}))
				case "of":
					x.emit(with(Effect{Kind: Write, Path: x.pathOf(b, cwd), Span: a.Span}))
				}
			}
		}
		return
	}
	recursive := false
	inplace := false
	skip := 0
	for _, o := range p.opts {
		if p.g.recur(o.name) {
			recursive = true
		}
		if p.g.inPlace(o.name) {
			inplace = true
		}
		for _, g := range p.chain {
			if g.Skip1[o.name] {
				skip = 1
			}
		}
	}
	// options with roles
	var sends []Effect
	for _, o := range p.opts {
		if p.g.runs(o.name) {
			code := CodeLiteral
			if o.val.Dynamic {
				code = CodeComputed
			}
			x.emit(with(Effect{Kind: Exec, Code: code, Text: strings.TrimSpace(o.name + " " + o.val.Value), Span: o.arg.Span, Dynamic: o.val.Dynamic}))
		}
		role, ok := p.g.optRole(o.name)
		if !ok || !o.hasVal {
			continue
		}
		switch role {
		case RoleDir:
			if d, ok := x.abs(o.val.Value, cwd); ok && !o.val.Dynamic {
				cwd = d
			} else {
				cwd = ""
			}
		case RoleCode:
			x.code(i, c, p, o.val, with)
		case RoleSend:
			if e, ok := x.sendValue(c, o.val, with); ok {
				sends = append(sends, e)
			}
		default:
			x.operand(i, c, p, role, o.val, cwd, recursive, false, "", with)
		}
	}
	// operands
	n := len(p.ops)
	mode := ""
	var modeKind Kind
	interpCode := p.g.Interp && (p.has("-c", "-e", "-E", "-p", "--eval", "--print", "-r", "-m", "-Command", "-command") || p.hasRoleCode())
	for j, a := range p.ops {
		role := p.g.roleAt(j+skip, n+skip)
		if p.g.Interp || p.chain[0].Interp {
			if interpCode || j > 0 {
				role = RoleArg
			}
		}
		if role == RoleRead && inplace {
			role = RoleWrite
		}
		if p.chain[0].Wrapper && len(p.chain) == 1 {
			break // the wrapped command is a command of its own
		}
		switch role {
		case RoleMode:
			mode, modeKind = a.Value, Chmod
			continue
		case RoleOwner:
			mode, modeKind = a.Value, Chown
			continue
		}
		if strings.HasPrefix(a.Value, "+") && len(p.g.shellMarkers()) > 0 && (role == RoleWrite || role == RoleRead) {
			// vim +CMD
			x.code(i, c, p, analyze.Arg{Value: a.Value[1:], Span: a.Span, Dynamic: a.Dynamic}, with)
			continue
		}
		x.operand(i, c, p, role, a, cwd, recursive, mode != "", mode, with)
		if mode != "" && role == RoleWrite {
			last := &x.out[len(x.out)-1]
			if last.Kind == Write {
				last.Kind = modeKind
				last.Recursive = recursive
			}
		}
	}
	// xargs and find -exec append derived operands
	x.appended(i, c, p, recursive, with)
	x.netFlow(i, c, p, sends, with)
	x.stdinCode(i, c, p, with)
	x.interpreter(i, c, p, with)
}

func (p *parsed) hasRoleCode() bool {
	for _, o := range p.opts {
		if r, ok := p.g.optRole(o.name); ok && r == RoleCode {
			return true
		}
	}
	return false
}

// operand emits the effect of one argument with a role.
func (x *extractor) operand(i int, c *analyze.Command, p *parsed, role Role, a analyze.Arg, cwd string, recursive, modeSet bool, mode string, with func(Effect) Effect) {
	if a.ProcSubst {
		return // <( ) / >( ) are pipes, not files
	}
	switch role {
	case RoleRead:
		if a.Value == "-" {
			return
		}
		if isRemote(a.Value) {
			return
		}
		x.emit(with(Effect{Kind: Read, Path: x.pathOf(a, cwd), Span: a.Span, Dynamic: a.Dynamic}))
	case RoleWrite, RoleWriteDir:
		if a.Value == "-" {
			return
		}
		if isRemote(a.Value) {
			return
		}
		x.emit(with(Effect{Kind: Write, Path: x.pathOf(a, cwd), Span: a.Span, Dynamic: a.Dynamic}))
	case RoleDelete:
		if isRemote(a.Value) {
			return
		}
		x.emit(with(Effect{Kind: Delete, Path: x.pathOf(a, cwd), Recursive: recursive, Span: a.Span, Dynamic: a.Dynamic}))
	case RoleExec:
		if a.Value == "-" {
			return
		}
		x.emit(with(Effect{Kind: Exec, Code: CodeFile, Path: x.pathOf(a, cwd), Span: a.Span, Dynamic: a.Dynamic}))
	case RoleCode:
		x.code(i, c, p, a, with)
	case RoleURL:
		if p.g.net() {
			x.emit(with(Effect{Kind: Net, Dest: a.Value, Span: a.Span, Dynamic: a.Dynamic}))
		}
	case RoleSignal:
		x.emit(with(Effect{Kind: Signal, Target: a.Value, Span: a.Span, Dynamic: a.Dynamic}))
	}
}

// isRemote reports host:path operands (scp, rsync) and URLs.
func isRemote(v string) bool {
	if isURL(v) {
		return true
	}
	k := strings.IndexByte(v, ':')
	if k <= 0 || strings.HasPrefix(v, "/") || strings.HasPrefix(v, ".") || strings.HasPrefix(v, "~") {
		return false
	}
	return !strings.Contains(v[:k], "/")
}

// code emits an Exec for tool code that reaches a shell.
func (x *extractor) code(i int, c *analyze.Command, p *parsed, a analyze.Arg, with func(Effect) Effect) {
	marks := p.g.shellMarkers()
	if len(marks) == 0 {
		return
	}
	if line, ok := shellEscape(a.Value, marks); ok {
		code := CodeLiteral
		if a.Dynamic {
			code = CodeComputed
		}
		x.emit(with(Effect{Kind: Exec, Code: code, Text: line, Span: a.Span, Dynamic: a.Dynamic}))
	} else if a.Dynamic && marksAny(marks) {
		x.emit(with(Effect{Kind: Exec, Code: CodeComputed, Text: a.Value, Span: a.Span, Dynamic: true}))
	}
}

func marksAny(m []string) bool {
	for _, s := range m {
		if s == "*" {
			return true
		}
	}
	return false
}

// shellEscape finds the first segment of code (lines, "|" of ex
// commands) that runs a shell command according to marks.
func shellEscape(code string, marks []string) (string, bool) {
	if strings.TrimSpace(code) == "" {
		return "", false
	}
	if marksAny(marks) {
		return firstLine(code), true
	}
	lower := strings.ToLower(code)
	for _, m := range marks {
		if strings.HasPrefix(m, "~") {
			mm := strings.ReplaceAll(m[1:], "_", " ")
			if k := strings.Index(lower, mm); k >= 0 {
				return lineAt(code, k), true
			}
		}
	}
	for _, seg := range splitSegments(code) {
		s := strings.TrimLeft(seg, " \t:")
		ls := strings.ToLower(s)
		for _, m := range marks {
			if strings.HasPrefix(m, "~") || m == "" {
				continue
			}
			m = strings.ReplaceAll(m, "_", " ")
			if !strings.HasPrefix(ls, m) {
				continue
			}
			last := m[len(m)-1]
			if isLetter(last) && len(ls) > len(m) && isLetter(ls[len(m)]) {
				continue // "sort" is not "so"
			}
			return firstLine(s), true
		}
	}
	return "", false
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

func splitSegments(code string) []string {
	return strings.FieldsFunc(code, func(r rune) bool { return r == '\n' || r == '|' || r == ';' })
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		s = s[:k]
	}
	if len(s) > 60 {
		s = s[:57] + "…"
	}
	return s
}

func lineAt(s string, k int) string {
	st := strings.LastIndexByte(s[:k], '\n') + 1
	return firstLine(s[st:])
}

// ---- redirects ----

func (x *extractor) redirect(i int, c *analyze.Command, r analyze.Redirect) {
	switch r.Op {
	case "<<", "<<-", "<<<", ">&", "<&":
		return
	}
	t := r.Target
	v := t.Value
	if r.Op == ">&" || r.Op == "<&" || v == "-" {
		return
	}
	if isDigits(v) && (r.Op == ">&" || r.Op == "<&") {
		return
	}
	prog := ""
	if c != nil {
		prog = c.Name()
	}
	p := x.pathOf(t, r.Cwd)
	if r.Write {
		x.emit(Effect{Kind: Write, Cmd: i, Span: r.Span, Path: p, Program: prog, Dynamic: t.Dynamic})
	}
	if r.Op == "<" || r.Op == "<>" {
		x.emit(Effect{Kind: Read, Cmd: i, Span: r.Span, Path: p, Program: prog, Dynamic: t.Dynamic})
	}
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
