package effects

import (
	"path"
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/internal/grammar"
	"github.com/shellguard/shellguard/internal/world"
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
	x := &extractor{res: res, opts: opts, out: make([]Effect, 0, 2*len(res.Commands)+len(res.Redirects))}
	x.indexPipes()
	x.tempVars()
	x.gitRemotes()
	x.varValues()
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
	temps map[string]bool  // variables assigned only from $(mktemp …)
	// values known for variables bash assigns in ways analyze leaves
	// open: printf -v NAME with literal text, declare -n NAME=HOME
	values   map[string]string
	namerefs map[string]string
	// remotes added in this command text (git remote add NAME URL)
	remotes map[string]string
}

// varValues records printf -v assignments of literal text and namerefs
// (declare -n, local -n, typeset -n).
func (x *extractor) varValues() {
	for _, c := range x.res.Commands {
		if c == nil || len(c.Args) < 2 {
			continue
		}
		switch c.Name() {
		case "printf":
			a := c.Args
			if len(a) >= 4 && a[1].Value == "-v" && !a[2].Dynamic && !a[3].Dynamic {
				var vals []string
				ok := true
				for _, w := range a[4:] {
					if w.Dynamic {
						ok = false
					}
					vals = append(vals, w.Value)
				}
				if ok && strings.Count(a[3].Value, "%") == strings.Count(a[3].Value, "%s") {
					v := a[3].Value
					for _, w := range vals {
						v = strings.Replace(v, "%s", w, 1)
					}
					if x.values == nil {
						x.values = map[string]string{}
					}
					x.values[a[2].Value] = strings.ReplaceAll(v, "%s", "")
				}
			}
		case "declare", "typeset", "local":
			ref := false
			for _, a := range c.Args[1:] {
				if strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "--") && strings.Contains(a.Value, "n") {
					ref = true
				}
			}
			if !ref {
				continue
			}
			for _, as := range c.Assigns {
				if !as.Value.Dynamic {
					if x.namerefs == nil {
						x.namerefs = map[string]string{}
					}
					x.namerefs[as.Name] = as.Value.Value
				}
			}
		}
	}
}

// knownValue resolves a word whose only variable has a value recorded
// by varValues.
func (x *extractor) knownValue(a analyze.Arg) (string, bool) {
	if len(a.Vars) != 1 {
		return "", false
	}
	v := a.Vars[0]
	if t, ok := x.namerefs[v]; ok {
		val := ""
		switch t {
		case "HOME":
			val = x.opts.Home
		default:
			return "", false
		}
		// analyze expanded the nameref to the target's name
		if strings.HasPrefix(a.Value, t) {
			return val + a.Value[len(t):], true
		}
		return "", false
	}
	if val, ok := x.values[v]; ok {
		for _, p := range []string{"${" + v + "}", "$" + v} {
			if strings.HasPrefix(a.Value, p) {
				return val + a.Value[len(p):], true
			}
		}
	}
	return "", false
}

// gitRemotes records remotes the text adds or repoints.
func (x *extractor) gitRemotes() {
	for _, c := range x.res.Commands {
		if c == nil || c.Name() != "git" {
			continue
		}
		p := grammar.Parse(grammar.Lookup("git"), c.Args[1:])
		if p.Grammar.Name != "git remote" || len(p.Ops) < 3 {
			continue
		}
		if v := p.Ops[0].Value; v == "add" || v == "set-url" {
			if x.remotes == nil {
				x.remotes = map[string]string{}
			}
			x.remotes[p.Ops[1].Value] = p.Ops[2].Value
		}
	}
}

// tempVars finds variables whose every assignment is the output of
// mktemp: paths in them are fresh temporary files.
func (x *extractor) tempVars() {
	other := map[string]bool{}
	for _, c := range x.res.Commands {
		if c == nil {
			continue
		}
		for _, a := range c.Assigns {
			v := a.Value
			isTemp := len(v.Subst) == 1 && strings.HasPrefix(v.Value, "$(") && v.Subst[0] >= 0 && v.Subst[0] < len(x.res.Commands) &&
				x.res.Commands[v.Subst[0]] != nil && x.res.Commands[v.Subst[0]].Name() == "mktemp"
			if isTemp {
				if x.temps == nil {
					x.temps = map[string]bool{}
				}
				x.temps[a.Name] = true
			} else {
				other[a.Name] = true
			}
		}
	}
	for n := range other {
		delete(x.temps, n)
	}
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
		if g := grammar.Lookup(u.Name()); g != nil && g.Wrapper {
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
	if v, ok := x.knownValue(a); ok {
		if p, ok := x.abs(v, cwd); ok {
			return Path{Abs: p, Raw: raw, Origin: OriginLiteral}
		}
	}
	if a.Dynamic {
		if len(a.Vars) == 1 && x.temps[a.Vars[0]] && (strings.HasPrefix(raw, "$"+a.Vars[0]) || strings.HasPrefix(raw, "${"+a.Vars[0])) {
			return Path{Abs: "/tmp", Raw: raw, Origin: OriginDerived, Via: "mktemp"}
		}
		if root, via, ok := x.substRoot(a, cwd); ok {
			return Path{Abs: root, Raw: raw, Origin: OriginDerived, Via: via, Pattern: producerPattern(x.res.Commands[a.Subst[0]])}
		}
		// analyze renders a value with a known prefix as that prefix
		// ("/tmp/tmp.mktemp"): derived from its directory
		if strings.HasPrefix(raw, "/") && !strings.ContainsAny(raw, "$`…") {
			return Path{Abs: path.Dir(path.Clean(raw)), Raw: raw, Origin: OriginDerived, Via: "a value computed at run time"}
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
	// "$f" of for f in $(find …): analyze gives the loop's substitution
	loopVar := len(a.Vars) == 1 && a.Value == "$"+a.Vars[0]
	if len(a.Subst) != 1 || len(a.Vars) > 0 && !loopVar {
		return "", "", false
	}
	if !loopVar && !strings.HasPrefix(a.Value, "$(") && !strings.HasPrefix(a.Value, "`") {
		return "", "", false
	}
	j := a.Subst[0]
	if j < 0 || j >= len(x.res.Commands) {
		return "", "", false
	}
	return x.producer(x.res.Commands[j])
}

// producerPath is producer as a Path, with the name pattern the producer
// selects.
func (x *extractor) producerPath(u *analyze.Command) (Path, bool) {
	root, via, ok := x.producer(u)
	if !ok {
		return Path{}, false
	}
	return Path{Abs: root, Raw: root, Origin: OriginDerived, Via: via, Pattern: producerPattern(u)}, true
}

// producerPattern returns the name pattern find -name, locate and fd
// select.
func producerPattern(u *analyze.Command) string {
	args := u.Args[1:]
	switch u.Name() {
	case "find":
		for k := 0; k+1 < len(args); k++ {
			switch args[k].Value {
			case "-name", "-iname", "-path", "-ipath", "-wholename":
				if k > 0 && (args[k-1].Value == "-not" || args[k-1].Value == "!") {
					continue // a pattern the names do NOT match selects nothing by name
				}
				return args[k+1].Value
			}
		}
	case "ls", "tree", "du":
		// ls *.pyc: the glob of the listed operand
		for _, a := range args {
			if !strings.HasPrefix(a.Value, "-") {
				if a.Glob && !a.Dynamic {
					return path.Base(a.Value)
				}
				return ""
			}
		}
	case "locate", "fd", "fdfind", "plocate", "mlocate":
		p := grammar.Parse(grammar.Lookup(u.Name()), args)
		if p == nil {
			return ""
		}
		if len(p.Ops) > 0 {
			return p.Ops[0].Value
		}
	}
	return ""
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
	case "locate", "plocate", "mlocate":
		return "/", "locate", true
	case "ls", "fd", "fdfind", "grep", "rg", "ag", "tree", "du":
		g := grammar.Lookup(name)
		if g == nil {
			return "", "", false
		}
		p := grammar.Parse(g, args)
		ops := p.Ops
		if (name == "fd" || name == "fdfind" || name == "grep" || name == "rg" || name == "ag") && !p.MetaSkip() {
			// the first operand is the pattern
			if len(ops) > 0 {
				ops = ops[1:]
			}
		}
		if len(ops) > 0 {
			// The first operand names the root the search starts from.
			a := ops[0]
			pa := x.pathOf(a, cwd)
			if !pa.Known() {
				return "", "", false
			}
			return pa.Abs, name + " " + a.Value, true
		}
		if cwd == "" {
			return "", "", false
		}
		return cwd, name, true
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
	g := grammar.Lookup(name)
	if g == nil && strings.HasPrefix(name, "python") {
		g = grammar.Lookup("python")
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
	p := grammar.Parse(g, c.Args[1:])
	start := len(x.out)
	x.apply(i, c, p)
	if p.Method != "" {
		// a destructive method to a host that is not this machine
		for _, e := range x.out[start:] {
			if e.Kind == Net && !world.Loopback(world.HostOf(e.Dest)) {
				x.emit(Effect{Kind: System, System: SysDestroy, Cmd: i, Span: c.Span, Program: p.Path[0], Text: "HTTP " + p.Method + " to " + e.Dest})
				break
			}
		}
	}
	if p.DryRun() {
		// a rehearsal: it changes nothing and reads only names
		kept := x.out[:start]
		for _, e := range x.out[start:] {
			switch e.Kind {
			case Write, Delete, Chmod, Chown, System:
				continue
			case Read:
				e.Meta = true
			}
			kept = append(kept, e)
		}
		x.out = kept
	}
}

// unknownProgram reports a program with no grammar and what its
// arguments name: paths, URLs and computed values.
func (x *extractor) unknownProgram(i int, c *analyze.Command, name string) {
	prog := c.Args[0].Value
	if grammar.IsURL(prog) {
		x.emit(Effect{Kind: Exec, Cmd: i, Span: c.Span, Code: CodeNetwork, Text: prog, Program: prog})
		return
	}
	if strings.Contains(prog, "/") {
		x.emit(Effect{Kind: Exec, Cmd: i, Span: c.Span, Code: CodeFile, Path: x.pathOf(c.Args[0], c.Cwd), Program: prog})
	}
	x.emit(Effect{Kind: Unknown, Cmd: i, Span: c.Span, Program: name})
	x.unknownCode(i, c, name)
	if !strings.Contains(prog, "/") {
		if w, ok := destroyWords(c.Args[1:]); ok {
			x.emit(Effect{Kind: System, System: SysDestroy, Cmd: i, Span: c.Span, Program: name, Text: w})
		}
	}
	for _, a := range c.Args[1:] {
		v := a.Value
		if a.Dynamic && !specialParam(v) {
			x.emit(Effect{Kind: Unknown, Cmd: i, Span: a.Span, Program: name, Dynamic: true, Path: x.pathOf(a, c.Cwd)})
			continue
		}
		if a.Dynamic {
			continue
		}
		if k := strings.IndexByte(v, '='); k > 0 && strings.HasPrefix(v, "-") {
			v = v[k+1:]
		} else if strings.HasPrefix(v, "-") {
			continue
		}
		if grammar.IsURL(v) {
			x.emit(Effect{Kind: Unknown, Cmd: i, Span: a.Span, Program: name, Dest: v})
			continue
		}
		if grammar.LooksLikePath(v) {
			b := a
			b.Value = v
			x.emit(Effect{Kind: Unknown, Cmd: i, Span: a.Span, Program: name, Path: x.pathOf(b, c.Cwd)})
		}
	}
}

// destroyWords judges a program with no grammar by its words: its first
// subcommand words (apps:destroy is two) and its long flags, against
// the verb lexicon the cloud CLIs are judged by (delete, purge, wipe …).
func destroyWords(args []analyze.Arg) (string, bool) {
	subs := 0
	for _, a := range args {
		v := a.Value
		if a.Dynamic || v == "" {
			break
		}
		var words []string
		switch {
		case strings.HasPrefix(v, "--"):
			// flags say it with a narrower lexicon: --disable-cache and
			// --rm are not destruction
			name, _, _ := strings.Cut(v[2:], "=")
			if flagDestroys(name) {
				return v, true
			}
			continue
		case v[0] == '-':
			continue
		default:
			if subs >= 3 || grammar.LooksLikePath(v) || strings.ContainsAny(v, "/=@") || subs > 0 && strings.Contains(v, ".") {
				subs = 3
				continue
			}
			subs++
			// namespaced verbs: apps:destroy, db.drop (in the first word
			// only: later dotted words are file names)
			words = strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == '.' })
		}
		if grammar.TreeVerb(words) == grammar.VerbDestroy {
			return v, true
		}
	}
	return "", false
}

// flagDestroys reports a long flag name with a destroy verb among its
// words (--purge-all, --force-delete), unless a word before it negates
// it (--no-prune, --skip-delete).
func flagDestroys(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '-' || r == '_' }) {
		if grammar.HasWord(flagNegations, w) {
			return false
		}
		if grammar.HasWord(flagVerbs, w) {
			return true
		}
	}
	return false
}

// flagNegations are the words that turn the verb after them off.
var flagNegations = []string{"no", "not", "skip", "without", "keep", "disable", "dont", "never", "prevent", "protect", "undo"}

// flagVerbs are the verbs that make a long flag destructive.
var flagVerbs = []string{"delete", "destroy", "drop", "purge", "prune", "revoke", "wipe", "reset", "terminate",
	"unregister", "deregister", "erase", "nuke", "truncate", "remove", "uninstall"}

// codeOptions are the options interpreters take code with (-e, -c,
// --eval, -Command …): given to a program with no grammar, a value that
// reads as code (spaces, brackets, quotes, separators) is code in a
// language nobody reads.
var codeOptions = map[string]bool{"-e": true, "-c": true, "-E": true, "--eval": true, "-eval": true, "--command": true,
	"-command": true, "-Command": true, "--execute": true, "-execute": true, "--exec": true, "--expr": true, "--run": true,
	"-r": true, "--script": true, "-x": true, "--code": true, "-code": true, "--evaluate": true}

// unknownCode reports an option of a program with no grammar that
// carries code: an interpreter nobody described runs a one-liner.
func (x *extractor) unknownCode(i int, c *analyze.Command, name string) {
	args := c.Args[1:]
	for j, a := range args {
		if a.Dynamic {
			continue
		}
		opt, val, eq := strings.Cut(a.Value, "=")
		if !codeOptions[opt] {
			continue
		}
		v := analyze.Arg{Value: val, Span: a.Span}
		if !eq {
			if j+1 >= len(args) {
				continue
			}
			v = args[j+1]
		}
		if v.Dynamic || strings.ContainsAny(v.Value, " \t\n()[]{};'\"`|&<>$!") {
			code := CodeLiteral
			if v.Dynamic {
				code = CodeComputed
			}
			x.emit(Effect{Kind: Exec, Cmd: i, Span: v.Span, Program: name, Code: code, Dynamic: v.Dynamic,
				Text: opt + " " + v.Value, Via: "code for a program with no grammar"})
			return
		}
	}
}

// streamPath reports a script path that is a descriptor or standard
// input: the code in it is not shown.
func streamPath(v string) bool {
	return v == "/dev/stdin" || strings.HasPrefix(v, "/dev/fd/") || strings.HasPrefix(v, "/proc/") && strings.Contains(v, "/fd/")
}

// specialParam reports $$, $!, $?, $# and friends: numbers, never paths.
func specialParam(v string) bool {
	switch v {
	case "$$", "$!", "$?", "$#", "${$}", "${!}", "${?}", "${#}", "$PPID", "$BASHPID", "$RANDOM", "$SECONDS", "$LINENO", "$UID", "$EUID":
		return true
	}
	return false
}

func (x *extractor) apply(i int, c *analyze.Command, p *grammar.Parsed) {
	prog := strings.Join(p.Path, " ")
	base := Effect{Cmd: i, Span: c.Span, Program: prog}
	with := func(e Effect) Effect {
		e.Cmd, e.Program = base.Cmd, base.Program
		if e.Span == (analyze.Span{}) {
			e.Span = base.Span
		}
		return e
	}
	for _, g := range p.Chain {
		if g.System != "" && g.System != SysConfig {
			x.emit(with(Effect{Kind: System, System: g.System}))
		}
	}
	if p.Unknown != "" {
		x.emit(with(Effect{Kind: Unknown, Program: prog + " " + p.Unknown, Text: p.Unknown}))
	}
	if p.Chain[0].Verbs {
		words := append([]string(nil), p.Path[1:]...)
		if p.Unknown != "" {
			words = append(words, p.Unknown)
		} else if len(p.Ops) > 0 && len(p.Grammar.Subs) > 0 && len(p.Chain) > 1 {
			// "system reset": a verb of a subcommand group not in the table
			words = append(words, p.Ops[0].Value)
		}
		if len(words) > 0 && grammar.TreeVerb(words) == grammar.VerbDestroy && !p.DryRun() && !p.SoftLocal(words) {
			x.emit(with(Effect{Kind: System, System: SysDestroy}))
		}
	}
	for _, g := range p.Chain {
		if g.Destroy {
			x.emit(with(Effect{Kind: System, System: SysDestroy}))
		}
		for _, o := range p.Opts {
			v := o.Name
			if o.HasVal {
				v += "=" + o.Val.Value
			}
			if g.DestroyOpts[o.Name] || g.DestroyOpts[v] {
				x.emit(with(Effect{Kind: System, System: SysDestroy, Text: v}))
			}
		}
	}
	if len(p.TreeVerb) > 0 {
		switch grammar.TreeVerb(p.TreeVerb) {
		case grammar.VerbDestroy:
			x.emit(with(Effect{Kind: System, System: SysDestroy, Program: prog}))
		case grammar.VerbChange:
			x.emit(with(Effect{Kind: System, System: SysChange, Program: prog}))
		case grammar.VerbUnknown:
			x.emit(with(Effect{Kind: Unknown, Program: prog, Text: strings.Join(p.TreeVerb, " ")}))
		}
	}
	cwd := c.Cwd
	name := p.Chain[0].Name
	if sys := configChange(p); sys {
		x.emit(with(Effect{Kind: System, System: SysConfig}))
	}
	switch name {
	case "find":
		x.find(i, c, p, with)
		return
	case "tar":
		x.tar(i, c, p, with)
		return
	}
	if len(p.Grammar.Modes) > 0 {
		x.archiver(c, p, with)
		return
	}
	switch name {
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
	toStdout := false
	skip := 0
	for _, o := range p.Opts {
		if p.Grammar.RecurOpt(o.Name) {
			recursive = true
		}
		if p.Grammar.ToStdout(o.Name) {
			toStdout = true
		}
		if p.Grammar.InPlaceOpt(o.Name) {
			inplace = true
		}
		for _, g := range p.Chain {
			if g.Skip1[o.Name] {
				skip = 1
			}
		}
	}
	// options with roles
	var sends []Effect
	createMode := "" // install -m, mkdir -m: the mode the files written are made with
	for _, o := range p.Opts {
		if p.Grammar.RunsOpt(o.Name) {
			code := CodeLiteral
			if o.Val.Dynamic {
				code = CodeComputed
			}
			x.emit(with(Effect{Kind: Exec, Code: code, Text: strings.TrimSpace(o.Name + " " + o.Val.Value), Span: o.Arg.Span, Dynamic: o.Val.Dynamic, Option: o.Name}))
		}
		role, ok := p.Grammar.OptRole(o.Name)
		if !ok && o.HasVal && !p.Grammar.RunsOpt(o.Name) {
			x.mention(c, o.Val, cwd, with)
		}
		if !ok || !o.HasVal {
			continue
		}
		switch role {
		case grammar.RoleDir:
			if d, ok := x.abs(o.Val.Value, cwd); ok && !o.Val.Dynamic {
				cwd = d
			} else {
				cwd = ""
			}
		case grammar.RoleCode:
			x.code(i, c, p, o.Val, with)
		case grammar.RoleCmd, grammar.RoleProg, grammar.RoleModule, grammar.RoleConfig:
			x.runs(p, role, o.Name, o.Val, cwd, with)
		case grammar.RoleMethod:
			p.HTTPMethod(o.Val.Value)
		case grammar.RoleMode:
			createMode = o.Val.Value
		case grammar.RoleSend:
			if e, ok := x.sendValue(c, o.Name, o.Val, with); ok {
				sends = append(sends, e)
			}
		default:
			x.operand(i, c, p, role, o.Val, cwd, recursive, false, "", with)
		}
	}
	switch p.Grammar.Name {
	case "git config":
		x.gitConfig(c, p, cwd, with)
	}
	if len(p.TreeVerb) > 0 && p.Grammar.IsNet() {
		x.treeSends(c, p, cwd, with)
	}
	// xargs -I{} / parallel: {} stands for each path the producer lists
	var xroot *Path
	if len(c.Wrappers) > 0 {
		if w := c.Wrappers[len(c.Wrappers)-1].Text; strings.HasPrefix(w, "xargs") || strings.HasPrefix(w, "parallel") {
			if u := x.upstream(c); u != nil {
				if pp, ok := x.producerPath(u); ok {
					xroot = &pp
					xroot.Via = cmdText(u) + " | xargs " + strings.Join(p.Path, " ")
				}
			}
		}
	}
	// operands
	opsFrom := len(x.out)
	n := len(p.Ops)
	mode := ""
	var modeKind Kind
	interpCode := p.Grammar.Interp && (p.Has("-c", "-e", "-E", "-p", "--eval", "--print", "-r", "-m", "-Command", "-command") || p.HasRoleCode())
	for j, a := range p.Ops {
		role := p.Grammar.RoleAt(j+skip, n+skip)
		if p.Grammar.Interp || p.Chain[0].Interp {
			if interpCode || j > 0 {
				role = grammar.RoleArg
			}
		}
		if role == grammar.RoleArg {
			if name, val, ok := strings.Cut(a.Value, "="); ok && !a.Dynamic {
				if r, ok := p.Chain[0].Assign[name]; ok {
					b := a
					b.Value = val
					x.runs(p, r, name+"=", b, cwd, with)
					continue
				}
			}
			x.mention(c, a, cwd, with)
		}
		if role == grammar.RoleMethod {
			if p.HTTPMethod(a.Value) {
				continue
			}
			role = grammar.RoleURL // http example.com/x: the method is optional
		}
		if role == grammar.RoleRead && inplace {
			role = grammar.RoleWrite
		}
		if role == grammar.RoleWrite && toStdout {
			role = grammar.RoleRead
		}
		if p.Chain[0].Wrapper && len(p.Chain) == 1 {
			if role == grammar.RolePackage {
				x.operand(i, c, p, role, a, cwd, false, false, "", with) // bunx github:u/r: fetched, then run
			}
			break // the wrapped command is a command of its own
		}
		switch role {
		case grammar.RoleMode:
			mode, modeKind = a.Value, Chmod
			continue
		case grammar.RoleOwner:
			mode, modeKind = a.Value, Chown
			continue
		}
		if strings.HasPrefix(a.Value, "+") && len(p.Grammar.ShellMarkers()) > 0 && (role == grammar.RoleWrite || role == grammar.RoleRead) {
			// vim +CMD
			x.code(i, c, p, analyze.Arg{Value: a.Value[1:], Span: a.Span, Dynamic: a.Dynamic}, with)
			continue
		}
		if xroot != nil && (strings.Contains(a.Value, "{}") || a.Value == "%") {
			if k := roleKind(role); k != 0 {
				x.emit(with(Effect{Kind: k, Path: *xroot, Recursive: recursive, Via: xroot.Via, Span: a.Span}))
			}
			continue
		}
		before := len(x.out)
		x.operand(i, c, p, role, a, cwd, recursive, mode != "", mode, with)
		if mode != "" && role == grammar.RoleWrite && len(x.out) > before {
			last := &x.out[len(x.out)-1]
			if last.Kind == Write {
				last.Kind = modeKind
				last.Recursive = recursive
				last.Mode = mode
			}
		}
	}
	if createMode != "" {
		for k := opsFrom; k < len(x.out); k++ {
			if x.out[k].Kind == Write && x.out[k].Mode == "" {
				x.out[k].Mode = createMode
			}
		}
	}
	// xargs and find -exec append derived operands
	x.appended(i, c, p, recursive, with)
	x.reveals(p, with)
	x.publishes(i, p, with)
	if !p.DryRun() {
		for _, f := range p.Grammar.Creates {
			x.emit(with(Effect{Kind: Write, Path: x.pathOf(analyze.Arg{Value: f, Span: c.Span}, cwd), Span: c.Span}))
		}
	}
	x.sockets(i, c, p, with)
	x.netFlow(i, c, p, sends, with)
	x.stdinCode(i, c, p, with)
	x.interpreter(i, c, p, with)
}

// runs emits what an operand or option value that is run means: a
// command line (cmd), a program (prog: "prog" or "prog,args"), a module
// name that is code when it is anything else (mod), or settings whose
// keys named by the grammar's cfgprog hold a program (cfg).
func (x *extractor) runs(p *grammar.Parsed, role grammar.Role, name string, a analyze.Arg, cwd string, with func(Effect) Effect) {
	code := CodeLiteral
	if a.Dynamic {
		code = CodeComputed
	}
	line := func(v string) {
		x.emit(with(Effect{Kind: Exec, Code: code, Text: strings.TrimSpace(name + " " + v), Option: name, Span: a.Span, Dynamic: a.Dynamic}))
	}
	switch role {
	case grammar.RoleCmd:
		line(a.Value)
	case grammar.RoleProg:
		v := a.Value
		if k := strings.IndexByte(v, ','); k >= 0 {
			v = v[:k]
		}
		if strings.ContainsAny(v, " \t;|&$`<>()'\"") || a.Dynamic {
			line(v)
			return
		}
		b := a
		b.Value = v
		pa := Path{Raw: v, Origin: OriginUnknown}
		if strings.Contains(v, "/") || strings.HasPrefix(v, "~") {
			pa = x.pathOf(b, cwd)
		}
		x.emit(with(Effect{Kind: Exec, Code: CodeFile, Path: pa, Text: strings.TrimSpace(name + " " + a.Value), Option: name, Span: a.Span}))
	case grammar.RoleModule:
		if a.Dynamic || !plainModule(a.Value) {
			x.emit(with(Effect{Kind: Exec, Code: code, Text: name + a.Value, Span: a.Span, Dynamic: a.Dynamic}))
			return
		}
		for _, pre := range []string{"/", "./", "../", "~/"} {
			if strings.HasPrefix(a.Value, pre) {
				// node -r ./setup.js, ruby -r/tmp/x.rb: a file that runs
				x.emit(with(Effect{Kind: Exec, Code: CodeFile, Path: x.pathOf(a, cwd), Text: name + " " + a.Value, Option: name, Span: a.Span}))
				return
			}
		}
	case grammar.RoleConfig:
		key, val, ok := strings.Cut(a.Value, "=")
		if !ok {
			x.operand(-1, nil, p, grammar.RoleRead, a, cwd, false, false, "", with)
			return
		}
		key = strings.TrimSpace(key)
		if k := strings.LastIndexByte(key, '.'); k >= 0 {
			key = key[k+1:]
		}
		if !p.Chain[0].CfgProg[key] {
			return
		}
		b := a
		b.Value = strings.Trim(strings.TrimSpace(val), "\"'")
		if strings.ContainsAny(b.Value, " \t") {
			x.runs(p, grammar.RoleCmd, name, b, cwd, with)
		} else {
			x.runs(p, grammar.RoleProg, name, b, cwd, with)
		}
	}
}

// plainModule reports a module name with optional import list
// (Data::Dumper, Foo=bar,baz, os.path): nothing that reads as code.
func plainModule(v string) bool {
	if v == "" || strings.HasPrefix(v, "data:") || strings.Contains(v, "://") {
		return false
	}
	for _, r := range v {
		if !(r == '_' || r == ':' || r == '.' || r == '=' || r == ',' || r == '-' || r == '/' || r == '@' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// mention reports a literal path given where the grammar gives it no
// role (npm pack ~/.ssh/id_rsa): what it names is judged.
func (x *extractor) mention(c *analyze.Command, a analyze.Arg, cwd string, with func(Effect) Effect) {
	if a.Dynamic || a.ProcSubst || !grammar.LooksLikePath(a.Value) {
		return
	}
	x.emit(with(Effect{Kind: Mention, Path: x.pathOf(a, cwd), Span: a.Span}))
}

func roleKind(r grammar.Role) Kind {
	switch r {
	case grammar.RoleRead:
		return Read
	case grammar.RoleWrite, grammar.RoleWriteDir:
		return Write
	case grammar.RoleDelete:
		return Delete
	}
	return 0
}

// operand emits the effect of one argument with a role.
func (x *extractor) operand(i int, c *analyze.Command, p *grammar.Parsed, role grammar.Role, a analyze.Arg, cwd string, recursive, modeSet bool, mode string, with func(Effect) Effect) {
	if a.ProcSubst && role != grammar.RoleExec && role != grammar.RoleScript {
		return // <( ) / >( ) are pipes, not files
	}
	switch role {
	case grammar.RoleScript:
		// read as a file, and its text run as the program's code: a
		// downloaded one is downloaded code run
		if !a.ProcSubst {
			x.operand(i, c, p, grammar.RoleRead, a, cwd, recursive, modeSet, mode, with)
		}
		x.operand(i, c, p, grammar.RoleExec, a, cwd, recursive, modeSet, mode, with)
	case grammar.RoleRead:
		if a.Value == "-" {
			return
		}
		if grammar.IsRemote(a.Value) {
			return
		}
		secret := p.Chain[0].Secrets || len(p.Chain[0].SecretsWith) > 0 && p.Has(p.Chain[0].SecretsWith...)
		x.emit(with(Effect{Kind: Read, Path: x.pathOf(a, cwd), Span: a.Span, Dynamic: a.Dynamic, Meta: p.Grammar.IsMeta() || p.MetaOpt(), Secret: secret}))
	case grammar.RoleWrite, grammar.RoleWriteDir:
		if a.Value == "-" {
			return
		}
		if grammar.IsRemote(a.Value) {
			return
		}
		x.emit(with(Effect{Kind: Write, Path: x.pathOf(a, cwd), Span: a.Span, Dynamic: a.Dynamic}))
	case grammar.RoleDelete:
		if grammar.IsRemote(a.Value) {
			return
		}
		x.emit(with(Effect{Kind: Delete, Path: x.pathOf(a, cwd), Recursive: recursive, Span: a.Span, Dynamic: a.Dynamic}))
	case grammar.RoleExec:
		if a.ProcSubst || streamPath(a.Value) {
			x.emit(with(Effect{Kind: Exec, Code: CodeComputed, Text: a.Value, Span: a.Span, Via: "a script read from a descriptor or a process substitution"}))
			return
		}
		if a.Value == "-" {
			return
		}
		if grammar.IsURL(a.Value) {
			x.emit(with(Effect{Kind: Exec, Code: CodeNetwork, Text: a.Value, Span: a.Span}))
			return
		}
		x.emit(with(Effect{Kind: Exec, Code: CodeFile, Path: x.pathOf(a, cwd), Span: a.Span, Dynamic: a.Dynamic}))
	case grammar.RoleCode:
		x.code(i, c, p, a, with)
	case grammar.RoleCmd, grammar.RoleProg, grammar.RoleModule, grammar.RoleConfig:
		x.runs(p, role, "operand", a, cwd, with)
	case grammar.RoleURL:
		if f, ok := fileURL(a.Value); ok {
			// file:///path is a local read, whatever the client
			x.emit(with(Effect{Kind: Read, Path: x.pathOf(analyze.Arg{Value: f, Span: a.Span}, cwd), Span: a.Span, Dynamic: a.Dynamic}))
			return
		}
		if p.Grammar.IsNet() {
			x.emit(with(Effect{Kind: Net, Dest: a.Value, Span: a.Span, Dynamic: a.Dynamic}))
		}
	case grammar.RoleRepo:
		x.repo(p, a, cwd, with)
	case grammar.RoleAddr:
		// read as a pair by x.sockets
	case grammar.RoleExpose:
		x.emit(with(Effect{Kind: Net, Text: "serve", Remote: "the tunnel's public address", Sends: true, SendsWhat: "the local service at " + a.Value, Span: a.Span, Dynamic: a.Dynamic}))
	case grammar.RoleImage:
		e := Effect{Kind: Net, Dest: imageRegistry(a.Value), Span: a.Span, Dynamic: a.Dynamic}
		if a.Dynamic || grammar.IsURL(a.Value) {
			e.Dest = a.Value
		}
		if e.Dest == "" {
			e.Remote = "the default registry"
		}
		x.emit(with(e))
	case grammar.RoleSignal:
		x.emit(with(Effect{Kind: Signal, Target: a.Value, Span: a.Span, Dynamic: a.Dynamic}))
	case grammar.RolePackage:
		short := false
		for g := p.Grammar; g != nil; g = g.Parent {
			short = short || g.GitShort
		}
		if remoteSpec(a.Value, short) {
			// installing builds the package: its scripts run
			x.emit(with(Effect{Kind: Exec, Code: CodeNetwork, Text: a.Value, Span: a.Span, Dynamic: a.Dynamic, Via: "package spec " + a.Value}))
		} else {
			x.mention(c, a, cwd, with)
		}
	case grammar.RoleIndex:
		// packages come from a source the configuration does not name:
		// a new index, repository, tap or channel (one on this machine
		// is the project's own)
		if a.Dynamic || !localSource(a.Value) {
			x.emit(with(Effect{Kind: System, System: SysConfig, Text: a.Value, Span: a.Span, Dynamic: a.Dynamic}))
		}
	}
}

// localSource reports a package source on this machine: a path, a
// file: URL or a URL to localhost.
func localSource(v string) bool {
	if _, ok := fileURL(v); ok {
		return true
	}
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || v == "." {
		return true
	}
	if !strings.Contains(v, "://") {
		return false
	}
	return world.Loopback(world.HostOf(v))
}

// hostedGit are the package-spec prefixes that name a repository on a
// code host.
var hostedGit = []string{"github:", "gitlab:", "bitbucket:", "gist:", "git+", "git@", "git:", "hg+", "svn+", "bzr+"}

// remoteSpec reports a package spec that resolves to code from the
// network: a URL (also a PEP 508 "name @ URL"), a VCS address, a hosted
// repository, or with short, owner/repo.
func remoteSpec(v string, short bool) bool {
	if strings.Contains(v, "://") {
		return true
	}
	l := strings.ToLower(v)
	for _, h := range hostedGit {
		if strings.HasPrefix(l, h) {
			return true
		}
	}
	if !short || v == "" || strings.ContainsAny(v[:1], "./~@\\") || strings.Contains(v, ":") {
		return false
	}
	owner, repo, ok := strings.Cut(v, "/")
	return ok && owner != "" && repo != "" && !strings.Contains(repo, "/") && !strings.HasSuffix(repo, ".tgz") && !strings.HasSuffix(repo, ".tar.gz")
}

// fileURL returns the path of a file: URL (file:///p, file://localhost/p,
// file:/p).
func fileURL(v string) (string, bool) {
	if len(v) < 6 || !strings.EqualFold(v[:5], "file:") {
		return "", false
	}
	r := v[5:]
	if strings.HasPrefix(r, "//") {
		r = r[2:]
		k := strings.IndexByte(r, '/')
		if k < 0 {
			return "", false
		}
		r = r[k:] // the host part names this machine
	}
	return r, strings.HasPrefix(r, "/")
}

// reveals emits a secret Read for a subcommand that prints a secret
// under the conditions of its grammar (Grammar.Reveals).
func (x *extractor) reveals(p *grammar.Parsed, with func(Effect) Effect) {
	rv := p.Grammar.Reveals
	if len(rv) == 0 {
		return
	}
	first := ""
	if len(p.Ops) > 0 {
		first = p.Ops[0].Value
	}
	always, named := false, false
	var opts, names []string
	for _, w := range rv {
		switch {
		case w == "*":
			always = true
		case w == "@":
			named = true
		case strings.HasPrefix(w, "="):
			names = append(names, w[1:])
		case strings.HasPrefix(w, "-"):
			opts = append(opts, w)
		}
	}
	ok := always
	if !always {
		ok = (len(opts) == 0 || p.Has(opts...)) && (!named || world.SecretName(first))
		if len(names) > 0 {
			hit := false
			for _, n := range names {
				hit = hit || first != "" && strings.HasPrefix(first, n)
			}
			ok = ok && hit
		}
		ok = ok && (len(opts) > 0 || named || len(names) > 0)
	}
	if !ok {
		return
	}
	what := strings.Join(p.Path, " ")
	if named {
		what += " " + first
	}
	x.emit(with(Effect{Kind: Read, Secret: true, Path: Path{Raw: "the secret " + what + " prints", Origin: OriginUnknown}, Via: what}))
}

// codeReads emits a Read for each file the tool's code reads after one
// of the grammar's reader markers.
func (x *extractor) codeReads(c *analyze.Command, p *grammar.Parsed, a analyze.Arg, with func(Effect) Effect) {
	var marks []string
	for g := p.Grammar; g != nil && marks == nil; g = g.Parent {
		marks = g.CodeReads
	}
	if len(marks) == 0 || a.Dynamic {
		return
	}
	cwd := ""
	if c != nil {
		cwd = c.Cwd
	}
	for _, f := range readFiles(a.Value, marks) {
		if strings.HasPrefix(f, "~/") {
			f = path.Join(x.opts.Home, f[2:])
		}
		x.emit(with(Effect{Kind: Read, Path: x.pathOf(analyze.Arg{Value: f, Span: a.Span}, cwd), Span: a.Span, Via: p.Path[0] + " code reads " + f}))
	}
}

// readFiles returns the file names that follow reader markers in code
// (at most 8).
func readFiles(code string, marks []string) []string {
	var out []string
	take := func(rest string) {
		if t := readToken(rest); t != "" && len(out) < 8 {
			out = append(out, t)
		}
	}
	lower := strings.ToLower(code)
	for _, m := range marks {
		if mm, ok := strings.CutPrefix(m, "~"); ok {
			for off := 0; len(out) < 8; {
				k := strings.Index(lower[off:], mm)
				if k < 0 {
					break
				}
				off += k + len(mm)
				take(code[off:])
			}
			continue
		}
		for _, seg := range splitSegments(code) {
			s := strings.TrimLeft(seg, " \t0123456789$,")
			if len(s) > len(m) && strings.HasPrefix(s, m) && (s[len(m)] == ' ' || s[len(m)] == '\t') {
				take(s[len(m):])
			}
		}
	}
	return out
}

// readToken returns the file name after a reader marker: past blanks,
// a variable and "<" (awk's getline VAR < FILE), a parenthesis and a
// quote.
func readToken(s string) string {
	s = strings.TrimLeft(s, " \t")
	if j := strings.IndexByte(s, '<'); j >= 0 && identText(strings.TrimSpace(s[:j])) {
		s = strings.TrimLeft(s[j+1:], " \t")
	}
	s = strings.TrimLeft(s, "( \t\"'")
	if end := strings.IndexAny(s, "\"' \t\n;)}|"); end >= 0 {
		s = s[:end]
	}
	return s
}

func identText(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(isLetter(s[i]) || s[i] == '_' || i > 0 && s[i] >= '0' && s[i] <= '9') {
			return false
		}
	}
	return true
}

// code emits an Exec for tool code that reaches a shell.
func (x *extractor) code(i int, c *analyze.Command, p *grammar.Parsed, a analyze.Arg, with func(Effect) Effect) {
	x.secretsInCode(a.Value, p.Path[0], with)
	x.codeReads(c, p, a, with)
	marks := p.Grammar.ShellMarkers()
	if len(marks) == 0 {
		// code of a general-purpose language analyze has no reader for
		// (julia, groovy, elixir …): nobody can say what it runs
		if c != nil && c.Lang == "" && (p.Chain[0].Interp || len(p.Chain[0].Ops) > 0 && p.Chain[0].Ops[0] == grammar.RoleExec) {
			code := CodeLiteral
			if a.Dynamic {
				code = CodeComputed
			}
			x.emit(with(Effect{Kind: Exec, Code: code, Text: a.Value, Span: a.Span, Dynamic: a.Dynamic, Via: "code in a language with no reader"}))
		}
		return
	}
	if p.Chain[0].Name == "make" {
		// a rule given with --eval: its recipe (after ";") is a command line
		if k := strings.Index(a.Value, ":"); k >= 0 {
			if j := strings.IndexByte(a.Value[k:], ';'); j >= 0 {
				recipe := strings.TrimLeft(strings.TrimSpace(a.Value[k+j+1:]), "@-+")
				if recipe != "" {
					x.emit(with(Effect{Kind: Exec, Code: CodeLiteral, Text: "--eval " + recipe, Option: "--eval", Span: a.Span, Dynamic: a.Dynamic}))
				}
			}
		}
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
	if c != nil && (strings.Contains(v, "{}") || v == "%") {
		if root, ok := x.xargsRoot(c); ok {
			p = root
		}
	}
	if r.Write {
		x.emit(Effect{Kind: Write, Cmd: i, Span: r.Span, Path: p, Program: prog, Dynamic: t.Dynamic})
	}
	if r.Op == "<" || r.Op == "<>" {
		x.emit(Effect{Kind: Read, Cmd: i, Span: r.Span, Path: p, Program: prog, Dynamic: t.Dynamic})
	}
}

// xargsRoot finds the xargs (or parallel) command c runs under, through
// sh -c code, and the paths its input lists.
func (x *extractor) xargsRoot(c *analyze.Command) (Path, bool) {
	inX := false
	for _, w := range c.Wrappers {
		if strings.HasPrefix(w.Text, "xargs") || strings.HasPrefix(w.Text, "parallel") {
			inX = true
		}
	}
	if !inX {
		return Path{}, false
	}
	for _, u := range x.res.Commands {
		if u == nil || u == c || (u.Name() != "xargs" && u.Name() != "parallel") {
			continue
		}
		if u.Span.Start <= c.Span.Start && c.Span.End <= u.Span.End {
			if up := x.upstream(u); up != nil {
				if pp, ok := x.producerPath(up); ok {
					pp.Via = cmdText(up) + " | " + u.Name()
					return pp, true
				}
			}
		}
	}
	return Path{}, false
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

// treeSends reports local files a cloud CLI uploads: every local path
// operand of create/upload/put verbs, and the sources of cp/sync/mv
// when the destination is remote.
func (x *extractor) treeSends(c *analyze.Command, p *grammar.Parsed, cwd string, with func(Effect) Effect) {
	up, cp := false, false
	for _, w := range p.TreeVerb {
		h := strings.ToLower(w)
		if k := strings.IndexAny(h, "-_"); k > 0 {
			h = h[:k]
		}
		switch h {
		case "create", "upload", "put", "import", "edit", "send", "attach":
			up = true
		case "cp", "sync", "mv", "copy", "rsync", "moveto", "copyto":
			cp = true
		}
	}
	if !up && !cp {
		return
	}
	ops := p.Ops
	if cp {
		if len(ops) < 2 || !grammar.RemoteOperand(ops[len(ops)-1].Value) {
			return
		}
		ops = ops[:len(ops)-1]
	}
	for _, a := range ops {
		v := a.Value
		if a.Dynamic || grammar.RemoteOperand(v) || !grammar.LocalPathLike(v) {
			continue
		}
		pa := x.pathOf(a, cwd)
		x.emit(with(Effect{Kind: Net, Dest: p.Path[0], Sends: true, SendsWhat: pa.String(), Path: pa, Span: a.Span}))
	}
}

// gitConfig reports the file "git config" writes when it sets something:
// --file, --global (~/.gitconfig), --system, or the repository's
// .git/config (of the -C directory).
func (x *extractor) gitConfig(c *analyze.Command, p *grammar.Parsed, cwd string, with func(Effect) Effect) {
	set := len(p.Ops) >= 2
	target := Path{}
	for _, o := range p.Opts {
		switch o.Name {
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--show-origin", "--show-scope", "--name-only":
			if len(p.Ops) < 2 || o.Name != "--show-origin" && o.Name != "--show-scope" {
				return
			}
		case "--unset", "--unset-all", "--add", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit":
			set = true
		case "--file", "-f":
			if o.HasVal {
				target = x.pathOf(o.Val, cwd)
			}
		case "--global":
			target = Path{Abs: path.Join(x.opts.Home, ".gitconfig"), Raw: "~/.gitconfig", Origin: OriginLiteral}
		case "--system":
			target = Path{Abs: "/etc/gitconfig", Raw: "/etc/gitconfig", Origin: OriginLiteral}
		}
	}
	if len(p.Ops) > 0 {
		switch p.Ops[0].Value {
		case "set", "unset", "rename-section", "remove-section", "edit":
			set = true
		case "get", "list":
			return
		}
	}
	if !set {
		return
	}
	if target.Origin == 0 {
		if cwd == "" {
			target = Path{Raw: ".git/config", Origin: OriginUnknown}
		} else {
			target = Path{Abs: path.Join(cwd, ".git/config"), Raw: ".git/config", Origin: OriginLiteral}
		}
	}
	key := ""
	for _, a := range p.Ops {
		if a.Value != "set" && a.Value != "unset" {
			key = a.Value
			break
		}
	}
	val := ""
	for j, a := range p.Ops {
		if a.Value == key && j+1 < len(p.Ops) {
			val = p.Ops[j+1].Value
			break
		}
	}
	x.emit(with(Effect{Kind: Write, Path: target, Text: "git config", Name: key, Value: val}))
}
