package effects

import (
	"path"
	"slices"
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/internal/grammar"
)

// find: the roots are read; -delete deletes what is found under them;
// -fprint writes. -exec commands are commands of their own.
func (x *extractor) find(i int, c *analyze.Command, p *grammar.Parsed, with func(Effect) Effect) {
	var roots []Path
	for _, a := range c.Args[1:] {
		v := a.Value
		if !a.Dynamic && (strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == ")") {
			break
		}
		roots = append(roots, x.pathOf(a, c.Cwd))
	}
	if len(roots) == 0 {
		if c.Cwd != "" {
			roots = []Path{{Abs: c.Cwd, Raw: ".", Origin: OriginLiteral}}
		} else {
			roots = []Path{{Raw: ".", Origin: OriginUnknown}}
		}
	}
	del := false
	for _, a := range c.Args[1:] {
		if a.Value == "-delete" && !a.Dynamic {
			del = true
		}
	}
	for _, r := range roots {
		x.emit(with(Effect{Kind: Read, Path: r, Meta: !hasContentAction(c)}))
		if del {
			d := r
			if d.Origin == OriginLiteral {
				d.Origin = OriginDerived
			}
			d.Via = "find " + r.Raw + " -delete"
			d.Pattern = producerPattern(c)
			x.emit(with(Effect{Kind: Delete, Path: d, Recursive: true, Via: "find " + r.Raw + " -delete"}))
		}
	}
	for _, o := range p.Opts {
		if r, ok := p.Grammar.OptRole(o.Name); ok && r == grammar.RoleWrite && o.HasVal {
			x.emit(with(Effect{Kind: Write, Path: x.pathOf(o.Val, c.Cwd), Span: o.Val.Span}))
		}
	}
}

// hasContentAction reports find expressions that read or act on file
// contents (-exec and -ok run commands of their own; -fprint writes).
func hasContentAction(c *analyze.Command) bool {
	for _, a := range c.Args[1:] {
		switch a.Value {
		case "-fprintf", "-fprint", "-fls", "-fprint0":
			return true
		}
	}
	return false
}

// configChange reports tool configuration that is written: the config
// subcommands of package managers and toolchains with a verb that
// changes (npm config set, pip config set, go env -w, gem sources --add).
func configChange(p *grammar.Parsed) bool {
	cfg := false
	for _, g := range p.Chain {
		if g.System == SysConfig {
			cfg = true
		}
	}
	name := p.Chain[0].Name
	if len(p.Path) >= 2 && (name == "go" && p.Path[1] == "env" || name == "yarn" || name == "pnpm" || name == "bundle" || name == "poetry" || name == "cargo" || name == "uv") {
		cfg = cfg || name == "go" || hasOp(p, "config")
	} else if !cfg && (name == "yarn" || name == "pnpm" || name == "bundle" || name == "poetry") && hasOp(p, "config") {
		cfg = true
	}
	if !cfg {
		return false
	}
	for _, o := range p.Opts {
		switch o.Name {
		case "-w", "--add", "--remove", "--append", "--prepend", "--set", "--unset", "--edit", "-u", "--replace-all":
			return true
		}
	}
	words := append(append([]string(nil), p.Path[1:]...), opValues(p)...)
	for _, w := range words {
		switch w {
		case "set", "add", "delete", "rm", "remove", "unset", "edit", "append", "prepend", "replace":
			return true
		}
	}
	return false
}

func opValues(p *grammar.Parsed) []string {
	var out []string
	for _, a := range p.Ops {
		out = append(out, a.Value)
	}
	return out
}

func hasOp(p *grammar.Parsed, w string) bool {
	for _, a := range p.Ops {
		if a.Value == w {
			return true
		}
	}
	return false
}

// tar: create reads its operands and writes the archive; extract reads
// the archive and writes into the directory (-C or cwd).
func (x *extractor) tar(i int, c *analyze.Command, p *grammar.Parsed, with func(Effect) Effect) {
	args := c.Args[1:]
	mode := byte(0)
	archive := analyze.Arg{}
	hasArchive := false
	dir := c.Cwd
	var ops []analyze.Arg
	for k := 0; k < len(args); k++ {
		a := args[k]
		v := a.Value
		switch {
		case k == 0 && !strings.HasPrefix(v, "-") && !a.Dynamic:
			// bundled mode letters: "czf out.tgz"
			for j := 0; j < len(v); j++ {
				switch v[j] {
				case 'c', 'x', 't', 'r', 'u', 'A', 'd':
					mode = v[j]
				case 'f':
					if k+1 < len(args) {
						k++
						archive, hasArchive = args[k], true
					}
				case 'C':
					if k+1 < len(args) {
						k++
						dir = x.dirOf(args[k], c.Cwd)
					}
				}
			}
		case strings.HasPrefix(v, "--"):
			name, val, eq := strings.Cut(v, "=")
			name = p.Grammar.Complete(name)
			switch name {
			case "--create":
				mode = 'c'
			case "--extract", "--get":
				mode = 'x'
			case "--list":
				mode = 't'
			case "--append", "--update", "--concatenate", "--catenate":
				mode = 'r'
			case "--delete":
				mode = 'd'
			case "--file", "--directory":
				if !eq && k+1 < len(args) {
					k++
					a = args[k]
				} else {
					a = analyze.Arg{Value: val, Span: a.Span}
				}
				if name == "--file" {
					archive, hasArchive = a, true
				} else {
					dir = x.dirOf(a, c.Cwd)
				}
			default:
				if !eq && p.Grammar.TakesValue(name) && k+1 < len(args) {
					k++
				}
			}
		case strings.HasPrefix(v, "-") && len(v) > 1 && !a.Dynamic:
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'c', 'x', 't', 'r', 'u', 'A', 'd':
					mode = v[j]
				case 'f', 'C':
					var val analyze.Arg
					if j+1 < len(v) {
						val = analyze.Arg{Value: v[j+1:], Span: a.Span}
					} else if k+1 < len(args) {
						k++
						val = args[k]
					}
					if v[j] == 'f' {
						archive, hasArchive = val, true
					} else {
						dir = x.dirOf(val, c.Cwd)
					}
					j = len(v)
				default:
					if p.Grammar.TakesValue("-"+string(v[j])) && j+1 == len(v) && k+1 < len(args) {
						k++
					}
				}
			}
		default:
			ops = append(ops, a)
		}
	}
	for _, o := range p.Opts {
		if p.Grammar.RunsOpt(o.Name) {
			x.emit(with(Effect{Kind: Exec, Code: CodeLiteral, Text: strings.TrimSpace(o.Name + " " + o.Val.Value), Span: o.Arg.Span}))
		}
	}
	switch mode {
	case 'c', 'r', 'u', 'A', 'd':
		if hasArchive && archive.Value != "-" && !grammar.IsRemote(archive.Value) {
			x.emit(with(Effect{Kind: Write, Path: x.pathOf(archive, c.Cwd), Span: archive.Span}))
		}
		for _, a := range ops {
			x.emit(with(Effect{Kind: Read, Path: x.pathOf(a, dir), Span: a.Span}))
		}
	case 'x':
		if hasArchive && archive.Value != "-" && !grammar.IsRemote(archive.Value) {
			x.emit(with(Effect{Kind: Read, Path: x.pathOf(archive, c.Cwd), Span: archive.Span}))
		}
		if dir != "" {
			x.emit(with(Effect{Kind: Write, Path: Path{Abs: dir, Raw: dir, Origin: OriginDerived, Via: "tar -x"}}))
		} else {
			x.emit(with(Effect{Kind: Write, Path: Path{Raw: "tar -x", Origin: OriginUnknown}}))
		}
	case 't':
		if hasArchive && archive.Value != "-" {
			x.emit(with(Effect{Kind: Read, Path: x.pathOf(archive, c.Cwd), Span: archive.Span}))
		}
	}
}

func (x *extractor) dirOf(a analyze.Arg, cwd string) string {
	if a.Dynamic {
		return ""
	}
	d, ok := x.abs(a.Value, cwd)
	if !ok {
		return ""
	}
	return d
}

// appended: xargs and find -exec … add paths to the command line at run
// time; their provenance is the producer upstream.
func (x *extractor) appended(i int, c *analyze.Command, p *grammar.Parsed, recursive bool, with func(Effect) Effect) {
	if len(c.Wrappers) == 0 {
		return
	}
	w := c.Wrappers[len(c.Wrappers)-1].Text
	var root Path
	via := ""
	switch {
	case strings.HasPrefix(w, "xargs") || strings.HasPrefix(w, "parallel"):
		u := x.upstream(c)
		if u == nil {
			// arguments from a file (-a) or elsewhere: unknown
			root = Path{Raw: "xargs input", Origin: OriginUnknown}
			via = "xargs " + p.Path[0]
			break
		}
		if pp, ok := x.producerPath(u); ok {
			root = pp
		} else if lit, ok := literalWords(u); ok {
			// echo /etc | xargs rm -rf: the words themselves
			for _, wd := range lit {
				x.derivedOperand(i, c, p, Path{Abs: wd, Raw: wd, Origin: OriginLiteral}, recursive, cmdText(u)+" | xargs "+p.Path[0], with)
			}
			return
		} else {
			root = Path{Raw: "output of " + u.Name(), Origin: OriginUnknown}
		}
		via = cmdText(u) + " | xargs " + strings.Join(p.Path, " ")
	case strings.HasPrefix(w, "find -exec") || strings.HasPrefix(w, "find -ok"):
		// analyze renders {} under the find root: "/{}" for find /
		for _, a := range c.Args[1:] {
			if k := strings.Index(a.Value, "{}"); k >= 0 {
				dir := strings.TrimSuffix(a.Value[:k], "/")
				if dir == "" && strings.HasPrefix(a.Value, "/") {
					dir = "/"
				} else if dir == "" {
					dir = "."
				}
				if d, ok := x.abs(dir, c.Cwd); ok && !a.Dynamic {
					root = Path{Abs: d, Raw: dir, Origin: OriginDerived, Via: "find " + dir}
					if f := x.wrapping(i, c); f != nil {
						root.Pattern = producerPattern(f)
					}
				} else {
					root = Path{Raw: a.Value, Origin: OriginUnknown}
				}
				break
			}
		}
		if root.Origin == 0 {
			return
		}
		via = "find " + root.Raw + " -exec " + strings.Join(p.Path, " ")
	default:
		return
	}
	if !c.ExtraArgs && !strings.HasPrefix(w, "find") {
		return
	}
	x.derivedOperand(i, c, p, root, recursive, via, with)
}

// literalWords returns the words echo/printf print, when all are literal.
func literalWords(u *analyze.Command) ([]string, bool) {
	n := u.Name()
	if n != "echo" && n != "printf" {
		return nil, false
	}
	var out []string
	for k, a := range u.Args[1:] {
		if a.Dynamic {
			return nil, false
		}
		if strings.HasPrefix(a.Value, "-") || n == "printf" && k == 0 && strings.Contains(a.Value, "%") {
			continue
		}
		for _, f := range strings.Fields(strings.ReplaceAll(a.Value, `\n`, "\n")) {
			if !path.IsAbs(f) && !strings.HasPrefix(f, "~") {
				return nil, false
			}
			out = append(out, path.Clean(f))
		}
	}
	return out, len(out) > 0
}

// derivedOperand emits the effect an appended operand has, by the role
// the grammar gives to the last operand.
func (x *extractor) derivedOperand(i int, c *analyze.Command, p *grammar.Parsed, root Path, recursive bool, via string, with func(Effect) Effect) {
	n := len(p.Ops) + 1
	role := p.Grammar.RoleAt(n-1, n)
	if role == grammar.RoleExec && !p.CodeGiven() {
		// xargs bash, find -exec sh: the files found are the scripts run
		x.emit(with(Effect{Kind: Exec, Code: CodeFile, Path: root, Via: via}))
		return
	}
	if p.Grammar.Interp || p.Chain[0].Wrapper {
		return
	}
	kind := Kind(0)
	switch role {
	case grammar.RoleRead:
		kind = Read
	case grammar.RoleWrite, grammar.RoleWriteDir:
		kind = Write
		for _, r := range p.Grammar.Ops {
			if r == grammar.RoleMode {
				kind = Chmod
			} else if r == grammar.RoleOwner {
				kind = Chown
			}
		}
		if p.Grammar.InPlaceSet(p) {
			kind = Write
		}
	case grammar.RoleDelete:
		kind = Delete
	default:
		if p.Grammar.InPlaceSet(p) {
			kind = Write
		} else {
			return
		}
	}
	if kind == Read && p.Grammar.InPlaceSet(p) {
		kind = Write
	}
	e := with(Effect{Kind: kind, Path: root, Recursive: recursive, Via: via})
	if kind == Chmod || kind == Chown {
		for _, a := range p.Ops {
			e.Mode = a.Value
			break
		}
	}
	x.emit(e)
}

// sendValue turns the value of a send option (curl -d @file, -T file,
// -F x=@file) into the data it sends.
func (x *extractor) sendValue(c *analyze.Command, opt string, v analyze.Arg, with func(Effect) Effect) (Effect, bool) {
	val := v.Value
	switch opt {
	case "-T", "--upload-file", "--post-file", "--body-file":
		// these take a bare file name
		if val != "-" && val != "." && !strings.HasPrefix(val, "@") {
			val = "@" + val
		}
	}
	if k := strings.Index(val, "=@"); k >= 0 && !strings.HasPrefix(val, "@") {
		val = val[k+1:]
	} else if k := strings.Index(val, "=<"); k >= 0 {
		val = "@" + val[k+2:]
	}
	file := ""
	switch {
	case strings.HasPrefix(val, "@"):
		file = val[1:]
	case v.Value == "-" || v.Value == ".":
		file = "-"
	default:
		// data given in the command: only what it expands matters
		if v.Dynamic && len(v.Vars) > 0 {
			return with(Effect{Kind: Net, Sends: true, SendsWhat: "the value of $" + v.Vars[0], Span: v.Span, Dynamic: true}), true
		}
		if v.Dynamic {
			return with(Effect{Kind: Net, Sends: true, SendsWhat: "computed data", Span: v.Span, Dynamic: true}), true
		}
		// curl -T FILE takes a bare file name
		return Effect{}, false
	}
	if file == "-" {
		return with(Effect{Kind: Net, Sends: true, SendsWhat: "stdin", Span: v.Span}), true
	}
	a := v
	a.Value = file
	p := x.pathOf(a, c.Cwd)
	return with(Effect{Kind: Net, Sends: true, SendsWhat: p.String(), Path: p, Span: v.Span}), true
}

// netFlow connects what a network command sends to where: files named
// by send options, its stdin (a pipe or a "<" redirect), local operands
// of scp/rsync going to a remote host.
func (x *extractor) netFlow(i int, c *analyze.Command, p *grammar.Parsed, sends []Effect, with func(Effect) Effect) {
	if !p.Grammar.IsNet() {
		return
	}
	var dests []string
	for _, e := range x.out {
		if e.Cmd == i && e.Kind == Net && e.Dest != "" {
			dests = append(dests, e.Dest)
		}
	}
	name := p.Chain[0].Name
	if name == "scp" || name == "rsync" {
		if p.Has("--list-only", "--dry-run", "-n") {
			return
		}
		if len(p.Ops) >= 2 {
			last := p.Ops[len(p.Ops)-1]
			if grammar.IsRemote(last.Value) {
				for _, a := range p.Ops[:len(p.Ops)-1] {
					if grammar.IsRemote(a.Value) {
						continue
					}
					pa := x.pathOf(a, c.Cwd)
					x.emit(with(Effect{Kind: Net, Dest: last.Value, Sends: true, SendsWhat: pa.String(), Path: pa, Span: a.Span}))
				}
			} else {
				for _, a := range p.Ops[:len(p.Ops)-1] {
					if grammar.IsRemote(a.Value) {
						x.emit(with(Effect{Kind: Net, Dest: a.Value, Span: a.Span}))
					}
				}
			}
		}
		return
	}
	dest := ""
	if len(dests) > 0 {
		dest = dests[0]
	}
	for _, s := range sends {
		if s.SendsWhat == "stdin" {
			x.stdinSend(i, c, dest, with)
			continue
		}
		s.Dest = dest
		x.emit(s)
	}
	// stdin goes out for stream tools (nc, socat, telnet, ssh, mail)
	switch name {
	case "nc", "socat", "telnet", "ssh", "mail", "mailx", "sendmail", "mutt", "msmtp", "websocat", "openssl":
		x.stdinSend(i, c, dest, with)
	}
}

// stdinSend reports what feeds c's stdin when it is sent to dest.
func (x *extractor) stdinSend(i int, c *analyze.Command, dest string, with func(Effect) Effect) {
	for _, r := range c.Redirects {
		if r.Op == "<" {
			p := x.pathOf(r.Target, r.Cwd)
			x.emit(with(Effect{Kind: Net, Dest: dest, Sends: true, SendsWhat: p.String(), Path: p, Span: r.Span}))
			return
		}
		if r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<" {
			if r.Target.Dynamic {
				x.emit(with(Effect{Kind: Net, Dest: dest, Sends: true, SendsWhat: "computed data", Span: r.Span, Dynamic: true}))
			}
			return
		}
	}
	u := x.upstream(c)
	if u == nil {
		return
	}
	via := cmdText(u) + " | " + cmdText(c)
	// the files the upstream command reads are what is sent
	found := false
	for _, e := range x.out {
		if e.Kind == Read && x.res.Commands[e.Cmd] == u {
			x.emit(with(Effect{Kind: Net, Dest: dest, Sends: true, SendsWhat: e.Path.String(), Path: e.Path, Via: via}))
			found = true
		}
	}
	if !found {
		if _, ok := literalText(u); ok {
			return // text written in the command
		}
		x.emit(with(Effect{Kind: Net, Dest: dest, Sends: true, SendsWhat: "the output of " + u.Name(), Via: via}))
	}
}

// literalText returns the text echo/printf print when it is literal.
func literalText(u *analyze.Command) (string, bool) {
	n := u.Name()
	if n != "echo" && n != "printf" {
		return "", false
	}
	var b strings.Builder
	for _, a := range u.Args[1:] {
		if a.Dynamic {
			return "", false
		}
		b.WriteString(a.Value)
		b.WriteByte('\n')
	}
	return b.String(), true
}

// stdinCode: shells and interpreters that read code from a pipe, and
// tools that read commands from stdin (ed, dc, psql, sqlite3 …).
func (x *extractor) stdinCode(i int, c *analyze.Command, p *grammar.Parsed, with func(Effect) Effect) {
	g := p.Chain[0]
	// under xargs the appended operands are the script, not code on stdin
	if g.Interp && len(p.Ops) == 0 && !c.ExtraArgs && !p.Has("-c", "-e", "-E", "-p", "--eval", "--print", "-m", "-r", "-Command", "-command") || g.Interp && len(p.Ops) > 0 && p.Ops[0].Value == "-" {
		if u := x.upstream(c); u != nil {
			src := CodeComputed
			if un := u.Name(); un == "curl" || un == "wget" || un == "fetch" || un == "aria2c" || un == "http" || un == "nc" {
				src = CodeNetwork
			}
			if _, ok := literalText(u); ok {
				src = CodeLiteral
			}
			if src != CodeLiteral {
				x.emit(with(Effect{Kind: Exec, Code: src, Text: cmdText(u) + " | " + p.Path[0], Via: cmdText(u) + " | " + p.Path[0]}))
			}
		}
		return
	}
	if !p.Grammar.Stdin && !g.Stdin {
		return
	}
	marks := p.Grammar.ShellMarkers()
	text := ""
	dyn := false
	for _, r := range c.Redirects {
		if r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<" {
			text += r.Target.Value + "\n"
			dyn = dyn || r.Target.Dynamic
		}
	}
	if u := x.upstream(c); u != nil {
		if t, ok := literalText(u); ok {
			text += t
		}
	}
	if line, ok := shellEscape(text, marks); ok {
		code := CodeLiteral
		if dyn {
			code = CodeComputed
		}
		x.emit(with(Effect{Kind: Exec, Code: code, Text: line}))
	}
}

// wrapping returns the command whose words hold command i, c (the find
// of a find -exec): the nearest one before it whose span holds c's.
func (x *extractor) wrapping(i int, c *analyze.Command) *analyze.Command {
	for j := i - 1; j >= 0 && j < len(x.res.Commands); j-- {
		u := x.res.Commands[j]
		if u != nil && u.Span.Start <= c.Span.Start && c.Span.End <= u.Span.End && u != c {
			return u
		}
	}
	return nil
}

// repo: a repository's remote given as a URL or host:path is that host;
// a path is another repository on this machine (a push writes into it,
// anything else reads it); a name is the remote the repository's
// configuration gives, unless this command line added it.
func (x *extractor) repo(p *grammar.Parsed, a analyze.Arg, cwd string, with func(Effect) Effect) {
	v := a.Value
	if local, ok := localRepo(a); ok {
		a.Value = local
		k := Read
		if p.Grammar.Sends {
			k = Write
		}
		x.emit(with(Effect{Kind: k, Path: x.pathOf(a, cwd), Span: a.Span}))
		return
	}
	switch {
	case a.Dynamic:
		x.emit(with(Effect{Kind: Net, Dest: v, Span: a.Span, Dynamic: true}))
	case grammar.IsRemote(v):
		x.emit(with(Effect{Kind: Net, Dest: v, Span: a.Span}))
	default:
		if url, ok := x.remotes[v]; ok {
			x.emit(with(Effect{Kind: Net, Dest: url, Span: a.Span, Via: "remote " + v + " added in this command"}))
			return
		}
		x.emit(with(Effect{Kind: Net, Remote: "remote " + v, Span: a.Span}))
	}
}

// localRepo returns the path of a repository operand that names a
// repository on this machine (a path, a file: URL), and true.
func localRepo(a analyze.Arg) (string, bool) {
	v := a.Value
	switch {
	case a.Dynamic:
		return "", false
	case grammar.IsRemote(v):
		return fileURL(v)
	}
	return v, grammar.LooksLikePath(v) || strings.Contains(v, "/")
}

// imageRegistry returns the registry an image reference names in its
// first part (ghcr.io/org/app, localhost:5000/app), or "" for the
// configured default registry (alpine, org/app).
func imageRegistry(ref string) string {
	first, _, ok := strings.Cut(ref, "/")
	if !ok || !(strings.ContainsAny(first, ".:") || first == "localhost") {
		return ""
	}
	return first
}

// publishes: a +sends subcommand uploads what it publishes (its read
// operands, else the repository, image or package it names) to every
// destination it contacts. A line whose operands name its destination
// (a remote, an image) contacts the one its configuration gives when
// they name none.
func (x *extractor) publishes(i int, p *grammar.Parsed, with func(Effect) Effect) {
	g := p.Grammar
	if p.DryRun() {
		return // a rehearsal: npm publish --dry-run uploads nothing
	}
	if !g.Sends && !slices.ContainsFunc(g.Ops, func(r grammar.Role) bool { return r == grammar.RoleRepo || r == grammar.RoleImage }) {
		return
	}
	var nets []int
	var files []Path
	for k, e := range x.out {
		switch {
		case e.Cmd != i:
		case e.Kind == Net:
			nets = append(nets, k)
		case e.Kind == Read && e.Path.Known() && g.Sends:
			files = append(files, e.Path)
		}
	}
	for j, a := range p.Ops {
		if _, local := localRepo(a); local && len(nets) == 0 && g.RoleAt(j, len(p.Ops)) == grammar.RoleRepo {
			return // the destination is a repository on this machine
		}
	}
	if len(nets) == 0 {
		remote := "the configured remote"
		if slices.Contains(g.Ops, grammar.RoleImage) || !slices.Contains(g.Ops, grammar.RoleRepo) {
			remote = "the configured registry"
		}
		x.emit(with(Effect{Kind: Net, Remote: remote}))
		nets = append(nets, len(x.out)-1)
	}
	if !g.Sends {
		return
	}
	var more []Effect
	for _, k := range nets {
		e := &x.out[k]
		if e.Sends {
			continue
		}
		e.Sends = true
		e.SendsWhat = "what " + g.Name + " publishes"
		for j, f := range files {
			if j == 0 {
				e.Path, e.SendsWhat = f, f.String()
				continue
			}
			m := *e
			m.Path, m.SendsWhat = f, f.String()
			more = append(more, m)
		}
	}
	x.out = append(x.out, more...)
}

// connectTypes are the socket address types (socat) whose first
// parameter is the host contacted: HOST:PORT, or the proxy's host for
// SOCKS and PROXY.
var connectTypes = map[string]bool{"tcp": true, "tcp4": true, "tcp6": true, "tcp-connect": true, "tcp4-connect": true,
	"tcp6-connect": true, "udp": true, "udp4": true, "udp6": true, "udp-connect": true, "udp4-connect": true, "udp6-connect": true,
	"udp-sendto": true, "udp4-sendto": true, "udp6-sendto": true, "udp-datagram": true, "udp4-datagram": true,
	"udp6-datagram": true, "udplite-connect": true, "udplite4-connect": true, "udplite6-connect": true, "udplite-sendto": true,
	"sctp": true, "sctp4": true, "sctp6": true, "sctp-connect": true, "sctp4-connect": true, "sctp6-connect": true,
	"dccp-connect": true, "dccp4-connect": true, "dccp6-connect": true, "openssl": true, "ssl": true, "openssl-connect": true,
	"openssl-dtls-client": true, "openssl-sctp-connect": true, "socks": true, "socks4": true, "socks4a": true, "socks5": true,
	"socks5-connect": true, "proxy": true, "proxy-connect": true, "ip": true, "ip4": true, "ip6": true, "ip-sendto": true,
	"ip4-sendto": true, "ip6-sendto": true, "ip-datagram": true, "ip4-datagram": true, "ip6-datagram": true}

// execTypes are the socket address types that run their parameter: a
// program with arguments (EXEC) or a shell command line (SYSTEM, SHELL).
var execTypes = map[string]bool{"exec": true, "system": true, "shell": true}

// localTypes are the socket address types that stay on this machine
// and name no file the relay reads or writes as data: its own streams
// and descriptors, terminals, pipes. The unix-, abstract- and posixmq-
// types (local sockets, message queues) are too, by their prefix in
// socketAddr. Every other type is taken as a connection to the address.
var localTypes = map[string]bool{"stdio": true, "stdin": true, "stdout": true, "stderr": true, "fd": true, "fdin": true,
	"fdout": true, "pty": true, "readline": true, "pipe": true, "socketpair": true, "shell-pipe": true}

// sockets reads the socket addresses of a relay (socat ADDR1 ADDR2): a
// connection contacts its host; a listener (TYPE-LISTEN, -RECV,
// -RECVFROM) accepts connections on its bind address (all by default);
// EXEC, SYSTEM and SHELL run a program; FILE, OPEN, GOPEN, PIPE and a
// bare path are read (and written when the data flows into them: the
// second address with -u, the first with -U); CREATE is written. A file
// relayed to the other side is sent there, or served to whoever connects
// to a listener. An address of two halves (READ!!WRITE) is both. An
// address of a type not known here is taken as a connection to it. The
// relay's own stdin and stdout ("-", STDIO) are netFlow's.
func (x *extractor) sockets(i int, c *analyze.Command, p *grammar.Parsed, with func(Effect) Effect) {
	n := len(p.Ops)
	var files []Path
	var nets []int
	for j, a := range p.Ops {
		if p.Grammar.RoleAt(j, n) != grammar.RoleAddr {
			continue
		}
		if typ, _, ok := strings.Cut(a.Value, ":"); a.Dynamic && (!ok || strings.ContainsAny(typ, "$`")) {
			x.emit(with(Effect{Kind: Net, Dest: a.Value, Span: a.Span, Dynamic: true}))
			nets = append(nets, len(x.out)-1)
			continue
		}
		for rest := a.Value; rest != ""; {
			half, after, dual := strings.Cut(rest, "!!")
			typ, _, ok := strings.Cut(half, ":")
			if ok && execTypes[strings.ToLower(typ)] {
				// The rest of the address is the program: "!!" in it is
				// the program's.
				_, code, _ := strings.Cut(rest, ":")
				x.socketExec(a, code, with)
				break
			}
			if k := x.socketAddr(j, c, p, a, half, with); k.net >= 0 {
				nets = append(nets, k.net)
			} else if k.file != nil {
				files = append(files, *k.file)
			}
			if !dual {
				break
			}
			rest = after
		}
	}
	if len(files) == 0 {
		return
	}
	for _, k := range nets {
		e := &x.out[k]
		e.Sends, e.Path, e.SendsWhat = true, files[0], files[0].String()
		if e.Text == "listen" {
			e.Text = "serve"
		}
	}
}

// socketExec emits the program an EXEC, SYSTEM or SHELL address runs
// (code: its parameters, options included).
func (x *extractor) socketExec(a analyze.Arg, code string, with func(Effect) Effect) {
	params, _, _ := strings.Cut(code, ",")
	src := CodeLiteral
	if a.Dynamic {
		src = CodeComputed
	}
	x.emit(with(Effect{Kind: Exec, Code: src, Text: params, Span: a.Span, Dynamic: a.Dynamic}))
}

// socketKind is what socketAddr emitted: the index of a Net effect, or
// a file read as the relay's data.
type socketKind struct {
	net  int // -1: none
	file *Path
}

// socketAddr emits the effect of one socket address (one half of a
// READ!!WRITE address), the j-th operand a of the relay.
func (x *extractor) socketAddr(j int, c *analyze.Command, p *grammar.Parsed, a analyze.Arg, addr string, with func(Effect) Effect) socketKind {
	none := socketKind{net: -1}
	typ, params, ok := strings.Cut(addr, ":")
	if !ok {
		head, _, _ := strings.Cut(addr, ",")
		switch h := strings.ToLower(head); {
		case h == "-" || h == "" || localTypes[h]:
			return none
		case strings.Contains(h, "/"):
			// A bare path is GOPEN: a file, or a socket, opened by name.
			typ, params = "gopen", addr
		case strings.Trim(h, "0123456789") == "":
			return none // a descriptor number (FD)
		default:
			x.emit(with(Effect{Kind: Net, Dest: addr, Span: a.Span, Dynamic: a.Dynamic}))
			return socketKind{net: len(x.out) - 1}
		}
	}
	params, opts, _ := strings.Cut(params, ",")
	t := strings.ToLower(typ)
	switch {
	case strings.HasSuffix(t, "-listen") || strings.HasSuffix(t, "-l") || strings.HasSuffix(t, "-recv") || strings.HasSuffix(t, "-recvfrom"):
		if strings.HasPrefix(t, "unix-") || strings.HasPrefix(t, "abstract-") {
			return none // a local socket
		}
		bind := "0.0.0.0"
		for _, o := range strings.Split(opts, ",") {
			if v, ok := strings.CutPrefix(o, "bind="); ok && v != "" {
				bind = v
			}
		}
		x.emit(with(Effect{Kind: Net, Dest: bind, Text: "listen", Span: a.Span, Dynamic: a.Dynamic}))
		return socketKind{net: len(x.out) - 1}
	case connectTypes[t]:
		host := params
		if strings.HasPrefix(host, "[") {
			if k := strings.IndexByte(host, ']'); k > 0 {
				host = host[:k+1]
			}
		} else if k := strings.IndexByte(host, ':'); k >= 0 {
			host = host[:k]
		}
		x.emit(with(Effect{Kind: Net, Dest: host, Span: a.Span, Dynamic: a.Dynamic}))
		return socketKind{net: len(x.out) - 1}
	case t == "file" || t == "open" || t == "gopen" || t == "pipe" && params != "" || t == "create":
		b := a
		b.Value = params
		pa := x.pathOf(b, c.Cwd)
		if t == "create" || j == 1 && p.Has("-u") || j == 0 && p.Has("-U") {
			x.emit(with(Effect{Kind: Write, Path: pa, Span: a.Span}))
			return none
		}
		x.emit(with(Effect{Kind: Read, Path: pa, Span: a.Span}))
		return socketKind{net: -1, file: &pa}
	case localTypes[t] || strings.HasPrefix(t, "unix-") || strings.HasPrefix(t, "abstract-") || strings.HasPrefix(t, "posixmq-"):
		return none
	}
	// A type not known here: taken as a connection to the address.
	x.emit(with(Effect{Kind: Net, Dest: addr, Span: a.Span, Dynamic: a.Dynamic}))
	return socketKind{net: len(x.out) - 1}
}

// archiver: a modes= archiver (pax). Its options choose the mode:
// extract reads the archive (-f, else stdin) and writes what it holds
// into the working directory; create reads the operands and writes the
// archive (-f, else stdout); both copy the operands into the last one;
// neither lists the archive.
func (x *extractor) archiver(c *analyze.Command, p *grammar.Parsed, with func(Effect) Effect) {
	g := p.Grammar
	var extract, create bool
	var archive *analyze.Arg
	for _, o := range p.Opts {
		switch g.Modes[o.Name] {
		case "extract":
			extract = true
		case "create":
			create = true
		}
		if g.Archive[o.Name] && o.HasVal && o.Val.Value != "-" {
			a := o.Val
			archive = &a
		}
	}
	ops := p.Ops
	switch {
	case extract && create:
		if len(ops) == 0 {
			return
		}
		dest := ops[len(ops)-1]
		for _, a := range ops[:len(ops)-1] {
			x.emit(with(Effect{Kind: Read, Path: x.pathOf(a, c.Cwd), Span: a.Span}))
		}
		x.writeInto(x.pathOf(dest, c.Cwd), g.Name+" copy", dest.Span, with)
	case create:
		for _, a := range ops {
			x.emit(with(Effect{Kind: Read, Path: x.pathOf(a, c.Cwd), Span: a.Span}))
		}
		if archive != nil {
			x.emit(with(Effect{Kind: Write, Path: x.pathOf(*archive, c.Cwd), Span: archive.Span}))
		}
	default:
		if archive != nil {
			x.emit(with(Effect{Kind: Read, Path: x.pathOf(*archive, c.Cwd), Span: archive.Span}))
		}
		if extract {
			x.writeInto(Path{Abs: c.Cwd, Raw: c.Cwd}, g.Name+" extract", c.Span, with)
		}
	}
}

// writeInto reports files written under dir that only a run knows.
func (x *extractor) writeInto(dir Path, via string, sp analyze.Span, with func(Effect) Effect) {
	if dir.Abs == "" || dir.Origin == OriginUnknown {
		x.emit(with(Effect{Kind: Write, Path: Path{Raw: via, Origin: OriginUnknown}, Span: sp}))
		return
	}
	x.emit(with(Effect{Kind: Write, Path: Path{Abs: dir.Abs, Raw: dir.Raw, Origin: OriginDerived, Via: via}, Span: sp}))
}
