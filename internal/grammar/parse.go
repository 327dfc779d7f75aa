package grammar

import (
	"strings"

	"github.com/shellguard/shellguard/analyze"
)

// Opt is one option of a command as its grammar reads it.
type Opt struct {
	Name   string
	Val    analyze.Arg
	HasVal bool
	Arg    analyze.Arg // the option word itself
}

// Parsed is a command's arguments read with its program's grammar.
type Parsed struct {
	// Grammar is the grammar of the deepest subcommand.
	Grammar  *Grammar
	Chain    []*Grammar // program first
	Path     []string   // program and subcommand words
	Opts     []Opt
	Ops      []analyze.Arg
	Unknown  string   // unknown subcommand of a mutating CLI
	TreeVerb []string // the words of a tree CLI's subcommand path (aws ec2 terminate-instances)
	// wrapped is the command line after a wrap option (nix develop -c)
	wrapped []analyze.Arg
	// Method is a destructive HTTP method the command asks for
	Method string
}

// treeFlags are long switches of cloud CLIs that take no value.
var treeFlags = map[string]bool{"--recursive": true, "--public": true, "--draft": true, "--force": true, "--yes": true,
	"--quiet": true, "--dryrun": true, "--dry-run": true, "--web": true, "--fill": true, "--no-verify": true, "--debug": true,
	"--verbose": true, "--all": true, "--prerelease": true, "--latest": true, "--secret": true, "--private": true,
	"--internal": true, "--clone": true, "--confirm": true, "--async": true, "--wait": true, "--no-wait": true,
	"--delete": true, "--exact-timestamps": true, "--follow-symlinks": true, "--no-progress": true, "--only-show-errors": true,
	"--no-paginate": true, "--no-cli-pager": true, "--generate-notes": true, "--admin": true, "--squash": true,
	"--merge": true, "--rebase": true, "--auto": true, "--json": false, "--help": true}

func isOpt(a analyze.Arg) bool {
	return !a.Dynamic && len(a.Value) > 1 && a.Value[0] == '-'
}

// Parse walks args with the grammar of the program.
func Parse(g *Grammar, args []analyze.Arg) *Parsed {
	p := &Parsed{Grammar: g, Chain: []*Grammar{g}, Path: []string{g.Name}}
	dd := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !dd && a.Value == "--" && !a.Dynamic {
			dd = true
			continue
		}
		if !dd && isOpt(a) {
			v := a.Value
			if s := p.Grammar.Subs[v]; s != nil && len(p.Ops) == 0 {
				// a line named by an option: brew --prefix, npm -v
				p.Grammar = s
				p.Chain = append(p.Chain, s)
				p.Path = append(p.Path, v)
				continue
			}
			if strings.HasPrefix(v, "--") {
				name, val, eq := strings.Cut(v, "=")
				if full := p.Grammar.Complete(name); full != name {
					v = full
					if eq {
						v += "=" + val
					}
					a.Value = v
				}
			}
			if name, val, eq := strings.Cut(v, "="); p.Grammar.wrapOpt(name) {
				// the rest is a command line of its own
				p.Opts = append(p.Opts, Opt{Name: name, Arg: a})
				if eq {
					first := a
					first.Value = val
					p.wrapped = append([]analyze.Arg{first}, args[i+1:]...)
				} else {
					p.wrapped = args[i+1:]
				}
				return p
			}
			// a subcommand parses its options as the program does (terraform plan -out=FILE)
			dashlong := p.Grammar.up(func(x *Grammar) bool { return x.Dashlong })
			if strings.HasPrefix(v, "--") || dashlong {
				name, val, eq := strings.Cut(v, "=")
				if k := strings.IndexByte(v, ':'); !eq && k > 0 && dashlong && p.Grammar.TakesValue(v[:k]) {
					name, val, eq = v[:k], v[k+1:], true // java -javaagent:JAR
				}
				o := Opt{Name: name, Arg: a}
				if eq {
					o.Val, o.HasVal = analyze.Arg{Value: val, Span: a.Span, Dynamic: a.Dynamic, Glob: a.Glob}, true
				} else if p.Grammar.TakesValue(name) && i+1 < len(args) {
					i++
					o.Val, o.HasVal = args[i], true
				} else if p.Chain[0].Tree && strings.HasPrefix(v, "--") && !treeFlags[name] && i+1 < len(args) && !strings.HasPrefix(args[i+1].Value, "-") {
					// cloud CLIs: a long option takes a value unless it is
					// a known switch
					i++
					o.Val, o.HasVal = args[i], true
				}
				p.Opts = append(p.Opts, o)
				continue
			}
			// short options, possibly grouped (-rf, -ofile)
			done := false
			for j := 1; j < len(v) && !done; j++ {
				name := "-" + string(v[j])
				o := Opt{Name: name, Arg: a}
				if p.Grammar.TakesValue(name) {
					if j+1 < len(v) {
						o.Val, o.HasVal = analyze.Arg{Value: strings.TrimPrefix(v[j+1:], "="), Span: a.Span}, true
					} else if i+1 < len(args) {
						i++
						o.Val, o.HasVal = args[i], true
					}
					done = true
				}
				p.Opts = append(p.Opts, o)
			}
			// a whole single-dash word can be a long option (-name, -rf…)
			if len(v) > 2 && p.Grammar.TakesValue(v) && !done {
				o := Opt{Name: v, Arg: a}
				if i+1 < len(args) {
					i++
					o.Val, o.HasVal = args[i], true
				}
				p.Opts = append(p.Opts, o)
			} else if len(v) > 2 {
				p.Opts = append(p.Opts, Opt{Name: v, Arg: a})
			}
			continue
		}
		// an operand: a subcommand while the grammar has them
		if len(p.Ops) == 0 && !a.Dynamic && (p.Grammar.Subs != nil || p.Grammar.Tree) {
			if s := p.Grammar.Subs[a.Value]; s != nil {
				p.Grammar = s
				p.Chain = append(p.Chain, s)
				p.Path = append(p.Path, a.Value)
				continue
			}
			if p.Grammar.Tree && len(p.TreeVerb) < 4 && !p.verbDone() && !LocalPathLike(a.Value) && !RemoteOperand(a.Value) && !strings.ContainsAny(a.Value, "=@:") {
				p.TreeVerb = append(p.TreeVerb, a.Value)
				p.Path = append(p.Path, a.Value)
				continue
			}
			if p.Grammar.Mutating && !p.Grammar.Tree && p.Unknown == "" && len(p.Chain) == 1 {
				p.Unknown = a.Value
			}
		}
		p.Ops = append(p.Ops, a)
	}
	return p
}

// MetaOpt reports an option that makes the tool print only counts,
// names or a status (grep -c, -l, -q).
func (p *Parsed) MetaOpt() bool {
	for _, o := range p.Opts {
		for _, g := range p.Chain {
			if g.MetaOpts[o.Name] {
				return true
			}
		}
	}
	return false
}

// MetaSkip reports options that give the pattern (grep -e) so that the
// first operand is a path.
func (p *Parsed) MetaSkip() bool {
	for _, o := range p.Opts {
		for _, g := range p.Chain {
			if g.Skip1[o.Name] {
				return true
			}
		}
	}
	return false
}

// DryRun reports --dry-run and friends, and the grammar's dry options
// (rsync -n), as the program reads them: the last one wins, a value
// that undoes it (--dry-run=none) or a negation (--no-dry-run) makes
// the run real again.
func (p *Parsed) DryRun() bool {
	dry := false
	for _, o := range p.Opts {
		if p.isDry(o.Name) {
			dry = !o.HasVal || !undoes(o.Val.Value)
			continue
		}
		if rest, ok := strings.CutPrefix(o.Name, "--no-"); ok && p.isDry(p.Grammar.Complete("--"+rest)) {
			dry = false
		}
	}
	return dry
}

func (p *Parsed) isDry(name string) bool {
	return name == "--dry-run" || name == "--dryrun" || name == "--what-if" || name == "--plan" || p.Grammar.dry(name)
}

// undoes reports a value of a dry-run option that asks for a real run.
func undoes(v string) bool {
	switch strings.ToLower(v) {
	case "none", "false", "0", "no", "off":
		return true
	}
	return false
}

// httpMethods are the HTTP methods; destructive ones are remembered.
var httpMethods = map[string]bool{"GET": false, "HEAD": false, "POST": false, "PUT": false, "PATCH": false, "OPTIONS": false,
	"DELETE": true, "PURGE": true, "TRACE": false, "CONNECT": false}

// HTTPMethod records method v when it destroys and reports whether v is
// an HTTP method at all.
func (p *Parsed) HTTPMethod(v string) bool {
	u := strings.ToUpper(v)
	destroys, ok := httpMethods[u]
	if destroys {
		p.Method = u
	}
	return ok
}

// DryRun reports a command whose options make it a rehearsal that
// changes nothing (git push --dry-run, rsync -n, kubectl --dry-run=client).
func DryRun(c *analyze.Command) bool {
	if c == nil || len(c.Args) < 2 || c.Args[0].Dynamic {
		return false
	}
	g := Lookup(c.Name())
	if g == nil {
		return false
	}
	if !g.anyDry {
		// only the spellings every grammar shares: skip the parse
		// unless one is there
		found := false
		for _, a := range c.Args[1:] {
			v := a.Value
			found = found || strings.HasPrefix(v, "--dry") || strings.HasPrefix(v, "--what-if") || strings.HasPrefix(v, "--plan")
		}
		if !found {
			return false
		}
	}
	return Parse(g, c.Args[1:]).DryRun()
}

// Canonical returns the arguments of program name with long-option
// abbreviations written out (git push --forc → --force), when its
// grammar says it takes abbreviations; otherwise args itself.
func Canonical(name string, args []analyze.Arg) []analyze.Arg {
	g := Lookup(name)
	if g == nil || !g.abbrevAnywhere() {
		return args
	}
	var out []analyze.Arg
	cur := g
	for i, a := range args {
		v := a.Value
		if v == "--" || a.Dynamic {
			if v == "--" {
				break
			}
			continue
		}
		if !strings.HasPrefix(v, "-") {
			if s := cur.Subs[v]; s != nil {
				cur = s
			}
			continue
		}
		if !strings.HasPrefix(v, "--") {
			continue
		}
		n, val, eq := strings.Cut(v, "=")
		full := cur.Complete(n)
		if full == n {
			continue
		}
		if out == nil {
			out = append([]analyze.Arg(nil), args...)
		}
		out[i].Value = full
		if eq {
			out[i].Value += "=" + val
		}
	}
	if out == nil {
		return args
	}
	return out
}

// SoftLocal reports a soft verb (docker rm) used without an option that
// points the CLI at another host.
func (p *Parsed) SoftLocal(words []string) bool {
	g := p.Chain[0]
	if len(g.SoftVerbs) == 0 || !g.SoftVerbs[words[len(words)-1]] || len(words) > 2 {
		return false
	}
	for _, o := range p.Opts {
		if g.RemoteOpts[o.Name] {
			return false
		}
	}
	for _, a := range p.Ops {
		if a.Dynamic {
			return false // every container a substitution lists
		}
	}
	return true
}

// verbDone reports that the subcommand path already holds a verb.
func (p *Parsed) verbDone() bool {
	for _, w := range p.TreeVerb {
		if TreeVerb([]string{w}) != VerbUnknown {
			return true
		}
	}
	return false
}

// Has reports whether one of the options names was given.
func (p *Parsed) Has(names ...string) bool {
	for _, o := range p.Opts {
		for _, n := range names {
			if o.Name == n {
				return true
			}
		}
	}
	return false
}

// HasRoleCode reports an option whose value is code (RoleCode).
func (p *Parsed) HasRoleCode() bool {
	for _, o := range p.Opts {
		if r, ok := p.Grammar.OptRole(o.Name); ok && r == RoleCode {
			return true
		}
	}
	return false
}

// RemoteOperand reports a URL or a host:path operand.
func RemoteOperand(v string) bool {
	return IsURL(v) || IsRemote(v)
}

// LocalPathLike reports operands that name local files: a path, or a
// name with an extension.
func LocalPathLike(v string) bool {
	if LooksLikePath(v) || strings.Contains(v, "/") {
		return true
	}
	if strings.HasPrefix(v, ".") && len(v) > 1 {
		return true
	}
	k := strings.LastIndexByte(v, '.')
	if k <= 0 || k >= len(v)-1 || len(v)-k > 11 {
		return false
	}
	for _, r := range v[k+1:] {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return true // a name with an extension: report.txt, app.tar.gz
		}
	}
	return false
}

// WrappedArgv returns the command line a wrapper program of the grammars
// runs (valgrind, uv run, strace …: the operands after its own options),
// and ok when c is such a wrapper with a command to run.
func WrappedArgv(c *analyze.Command) ([]analyze.Arg, bool) {
	if c == nil || len(c.Args) < 2 {
		return nil, false
	}
	g := Lookup(c.Name())
	if g == nil || !g.wraps() {
		return nil, false
	}
	p := Parse(g, c.Args[1:])
	for _, o := range p.Opts {
		if p.Grammar.describes(o.Name) {
			return nil, false // command -v NAME only looks NAME up
		}
	}
	if len(p.wrapped) > 0 {
		return p.wrapped, true
	}
	if !p.Grammar.Wrapper || len(p.Ops) == 0 {
		return nil, false
	}
	// the operands are the wrapped command with its own arguments:
	// everything from the first operand on, as written
	first := p.Ops[0]
	for k, a := range c.Args {
		if a.Span == first.Span && a.Value == first.Value && k > 0 {
			return c.Args[k:], true
		}
	}
	return p.Ops, true
}

// Subcommand returns the first operand of program name's arguments and
// the arguments after it, skipping the program's global options and the
// values they take (kubectl -n prod delete → "delete"). A program with no
// grammar treats every word starting with "-" as a switch.
func Subcommand(name string, args []analyze.Arg) (string, []analyze.Arg) {
	g := Lookup(name)
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.Value
		if v == "--" {
			if i+1 < len(args) {
				return args[i+1].Value, args[i+2:]
			}
			return "", nil
		}
		if !strings.HasPrefix(v, "-") || a.Dynamic {
			return v, args[i+1:]
		}
		if g == nil || strings.Contains(v, "=") {
			continue
		}
		if g.TakesValue(v) {
			i++ // the option's value
			continue
		}
		// a short option grouped with its value (-nprod) takes none more
	}
	return "", nil
}

func (g *Grammar) InPlaceSet(p *Parsed) bool {
	for _, o := range p.Opts {
		if g.InPlaceOpt(o.Name) {
			return true
		}
	}
	return false
}

// CodeGiven reports a code option in the parsed command (bash -c, python
// -c): the operands are then arguments of that code, not a script.
func (p *Parsed) CodeGiven() bool {
	for _, o := range p.Opts {
		if p.Grammar.Opts[o.Name] == RoleCode {
			return true
		}
	}
	return false
}

// LooksLikePath reports a word written as a path (/, ~, ./, ../, ., ..).
func LooksLikePath(v string) bool {
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(v, "./") ||
		strings.HasPrefix(v, "../") || v == ".." || v == "."
}

// IsURL reports a word that starts with a URL scheme.
func IsURL(v string) bool {
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

// IsRemote reports host:path operands (scp, rsync) and URLs.
func IsRemote(v string) bool {
	if IsURL(v) {
		return true
	}
	k := strings.IndexByte(v, ':')
	if k <= 0 || strings.HasPrefix(v, "/") || strings.HasPrefix(v, ".") || strings.HasPrefix(v, "~") {
		return false
	}
	return !strings.Contains(v[:k], "/")
}
