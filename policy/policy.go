// Package policy turns the facts of package analyze and the user's rules
// into a verdict: allow, ask or deny, with reasons.
//
// Evaluation is pure: it reads no files and runs nothing. The one place that
// may look at the file system is the optional Resolver in Rules, used to
// follow symlinks for path confinement; without it paths are resolved
// lexically. Every finding is emitted through a row of Catalog, the rule
// table, which states its stable ID ("SG" + number), tier and decision
// once; a finding adds a one-line message and the span of the command text
// it is about. The strictest decision wins and rule order never matters.
// Findings of the floor cannot be lowered by any rule; defaults can be
// lowered for the subcommand an allow rule matches, and only for it.
package policy

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/effects"
)

// Resolver resolves symbolic links of an absolute path (like
// filepath.EvalSymlinks). It is only called with absolute paths.
type Resolver interface {
	EvalSymlinks(path string) (string, error)
}

// MaxCommands is the complexity budget: more commands than this ask.
const MaxCommands = 50

// MaxCommandSize is the review budget: a longer command text asks
// (SG1012), whatever else it holds. Texts up to analyze.MaxInput (1 MiB)
// are still analysed, so a deny inside them is found; longer ones are
// not analysed at all.
const MaxCommandSize = 64 << 10

// Check analyses command text and evaluates it against rules.
func Check(src string, rules Rules) Verdict {
	return CheckContext(context.Background(), src, rules)
}

// CheckContext is Check that stops analysing when ctx ends: the verdict
// is then ask (SG1017), as it is past any other bound of the analysis.
func CheckContext(ctx context.Context, src string, rules Rules) (v Verdict) {
	defer func() {
		if r := recover(); r != nil {
			v = internalError(r, len(src))
		}
	}()
	return Evaluate(analyze.AnalyzeContext(ctx, src, AnalyzeOptions(rules)), rules)
}

// AnalyzeOptions returns the analysis options that match rules.
func AnalyzeOptions(rules Rules) analyze.Options {
	o := analyze.Options{Home: homeOf(rules), Workspace: workspaceOf(rules)}
	if rules.TempDir != "" {
		o.Env = map[string]string{"TMPDIR": rules.TempDir}
	}
	return o
}

func homeOf(r Rules) string {
	if r.Home != "" {
		return path.Clean("/" + r.Home)
	}
	return "/home/user"
}

func workspaceOf(r Rules) string {
	if r.Workspace != "" {
		// a relative workspace cannot confine anything: anchor it
		return path.Clean("/" + r.Workspace)
	}
	return "/workspace"
}

// finding is one observation before rules are applied: a catalog row,
// the message about this case and where it is.
type finding struct {
	row  *Finding
	msg  string
	span analyze.Span
	cmd  int // command index or -1
	rule string
}

type evaluator struct {
	// aliases are variables assigned a secret's value (secretVar)
	aliases        map[string]bool
	downloadedDirs []string
	res            *analyze.Result
	rules          Rules
	ws, home       string
	wsSystem       bool // the workspace is "/" or a system directory: it confines nothing
	roots          []string
	fs             []finding
	downloaded     map[string]bool
	written        map[string]writtenFile // files the line wrote through redirects (written.go)
	compiled       *compiledRules
	effs           map[int][]effects.Effect // effects by command index
	depth          int                      // nesting of command lines held in options
	nested         *int                     // nested evaluations so far, shared by the whole check
	wrappers       map[string]bool          // programs analyze unwrapped (built on first use)
	resolved       map[string]string        // resolve's answers, by path
	resolveSpent   bool                     // resolve met maxResolved
}

// Evaluate applies rules to the facts of one command text. It never
// panics: an internal error becomes an ask verdict (SG1099).
func Evaluate(res *analyze.Result, rules Rules) (v Verdict) {
	defer func() {
		if r := recover(); r != nil {
			v = internalError(r, len(res.Src))
		}
	}()
	return evaluate(res, rules)
}

// internalError is the verdict on a command of n bytes whose check
// panicked: ask (SG1099).
func internalError(r any, n int) Verdict {
	return Verdict{Decision: Ask, Reasons: []Reason{{ID: sg1099.ID, Decision: sg1099.Decision,
		Message: fmt.Sprintf("internal error while checking the command: %v", r),
		Span:    Span{Start: 0, End: n}}}, Warnings: []string{}, Commands: [][]string{}}
}

func evaluate(res *analyze.Result, rules Rules) Verdict {
	return evaluateAt(res, rules, 0, new(int))
}

// nestedBudget bounds how many command lines held in options, wrapper
// arguments and runner arguments one check evaluates, and how long each
// may be: past it they ask instead of being judged.
const (
	nestedBudget = 16
	nestedMaxLen = 4096
)

// evaluateAt evaluates at a nesting depth: command lines held in options
// (nix-shell --run, script -c) are evaluated as commands of their own.
func evaluateAt(res *analyze.Result, rules Rules, depth int, nested *int) Verdict {
	e := &evaluator{res: res, rules: rules, home: homeOf(rules), downloaded: map[string]bool{}, depth: depth, nested: nested}
	e.ws = e.resolve(workspaceOf(rules))
	e.wsSystem = systemWorkspace(e.ws, e.home)
	e.roots = []string{"/tmp"} // like the sandbox: workspace, /tmp, $TMPDIR, configured roots
	if !e.wsSystem {
		e.roots = append(e.roots, e.ws)
	}
	if rules.TempDir != "" {
		e.roots = append(e.roots, e.resolve(path.Clean(rules.TempDir)))
	}
	for _, r := range rules.AllowedRoots {
		if path.IsAbs(r) {
			e.roots = append(e.roots, e.resolve(path.Clean(r)))
		}
	}
	e.compiled = compileRules(rules)
	e.notes()
	e.effectsOf()
	for i, c := range res.Commands {
		e.command(i, c)
	}
	for _, r := range res.Redirects {
		e.redirect(r)
	}
	e.compoundReads()
	e.userRules()
	return e.verdict()
}

// emit reports the catalog row r about command cmd (-1 for the whole
// text) at span, with msg saying what in this command triggered it
// (the row's summary when msg is empty).
func (e *evaluator) emit(r *Finding, cmd int, span analyze.Span, msg string) {
	if msg == "" {
		msg = r.Summary
	}
	for _, f := range e.fs {
		if f.row.ID == r.ID && f.row.Decision == r.Decision && f.span == span {
			return // one concept at one place is said once, whichever check found it first
		}
	}
	e.fs = append(e.fs, finding{row: r, msg: msg, span: span, cmd: cmd})
}

func (e *evaluator) notes() {
	if n := len(e.res.Src); n > MaxCommandSize && n <= analyze.MaxInput {
		e.emit(sg1012, -1, analyze.Span{Start: 0, End: n}, fmt.Sprintf("command text of %d bytes is over the %d-byte review budget", n, MaxCommandSize))
	}
	if e.res.SimpleCommands > MaxCommands {
		e.emit(sg1010, -1, analyze.Span{Start: 0, End: len(e.res.Src)}, "more than 50 commands: too complex to review automatically")
	}
	for _, nt := range e.res.Notes {
		sp := nt.Span
		switch nt.Kind {
		case analyze.NoteParseError:
			e.emit(sg1001, -1, sp, "bash cannot parse this command: "+nt.Detail)
		case analyze.NoteUnparsedCode:
			e.emit(sg1013, -1, sp, "code passed to a shell or eval does not parse: "+nt.Detail)
		case analyze.NoteNUL:
			e.emit(sg1002, -1, sp, "NUL byte in the command")
		case analyze.NoteControl:
			e.emit(sg1003, -1, sp, "control character "+nt.Detail+" in the command")
		case analyze.NoteCR:
			e.emit(sg1004, -1, sp, "carriage return can hide part of the command on a terminal")
		case analyze.NoteBidi:
			e.emit(sg1005, -1, sp, "bidirectional override character "+nt.Detail+" changes how the command is displayed")
		case analyze.NoteZeroWidth:
			e.emit(sg1006, -1, sp, "zero-width character "+nt.Detail+" hidden in the command")
		case analyze.NoteUnicodeSpace:
			e.emit(sg1007, -1, sp, "non-ASCII whitespace "+nt.Detail+": what runs is not what is shown")
		case analyze.NoteInvalidUTF8:
			e.emit(sg1008, -1, sp, "invalid UTF-8 in the command")
		case analyze.NoteNonASCIIName:
			e.emit(sg1009, nt.Cmd, sp, "command name "+quote(nt.Detail)+" contains non-ASCII letters (possible homoglyph)")
		case analyze.NoteDepthLimit:
			e.emit(sg1011, -1, sp, "commands nested too deeply to follow")
		case analyze.NoteTooLarge:
			e.emit(sg1012, -1, sp, "command text too large to analyse ("+nt.Detail+")")
			e.emit(sg1018, -1, sp, "command text "+nt.Detail+": not analysed")
		case analyze.NoteTooManyCommands:
			e.emit(sg1010, -1, sp, "too many commands to analyse")
		case analyze.NoteTooDeep:
			e.emit(sg1015, -1, sp, "command text "+nt.Detail+": not analysed")
		case analyze.NoteWorkBudget:
			e.emit(sg1016, -1, sp, "analysis stopped at its work budget ("+nt.Detail+"): the rest is not analysed")
		case analyze.NoteCancelled:
			e.emit(sg1017, -1, sp, "analysis stopped ("+nt.Detail+"): the rest is not analysed")
		case analyze.NoteDynamicCode:
			// eval, sh -c and shells reading here-documents are judged
			// with what fed them (codeRunner); other wrappers ask here
			if nt.Wrapper.Via == analyze.ViaShell {
				continue
			}
			e.emit(sg2305, -1, sp, quote(nt.Wrapper.Text)+" runs code that is only known at run time")
		case analyze.NoteHistory:
			e.emit(sg2406, -1, sp, "history expansion "+quote(nt.Detail)+" runs text that is not shown")
		case analyze.NoteForkBomb:
			e.emit(sg3001, -1, sp, "function "+quote(nt.Detail)+" calls itself in a pipeline or in the background: fork bomb")
		case analyze.NoteRecursiveFunc:
			e.emit(sg3002, -1, sp, "function "+quote(nt.Detail)+" calls itself")
		case analyze.NoteFuncDef:
			if nt.Detail == "command_not_found_handle" {
				e.emit(sg3504, -1, sp, "redefines command_not_found_handle: any mistyped command runs this code")
			} else if knownCommand(nt.Detail) {
				e.emit(sg3501, -1, sp, "function redefines the command "+quote(nt.Detail))
			}
		}
	}
}

func quote(s string) string {
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return "'" + s + "'"
}

func (e *evaluator) verdict() Verdict {
	v := Verdict{Reasons: []Reason{}, Warnings: []string{}, Commands: [][]string{}}
	seen := map[string]bool{}
	sort.SliceStable(e.fs, func(i, j int) bool {
		if e.fs[i].span.Start != e.fs[j].span.Start {
			return e.fs[i].span.Start < e.fs[j].span.Start
		}
		return e.fs[i].row.ID < e.fs[j].row.ID
	})
	for _, f := range e.fs {
		key := f.row.ID + "|" + f.msg
		if seen[key] {
			continue
		}
		seen[key] = true
		if f.cmd >= 0 && f.cmd < len(e.res.Commands) {
			f.msg += e.stdinLine(e.res.Commands[f.cmd], f.span)
		}
		v.Decision = v.Decision.Max(f.row.Decision)
		v.Reasons = append(v.Reasons, Reason{ID: f.row.ID, Decision: f.row.Decision, Floor: f.row.Tier == Floor,
			Message: f.msg, Span: Span{Start: f.span.Start, End: f.span.End}, Rule: f.rule})
	}
	for _, c := range e.res.Commands {
		if c.FuncDef != "" || len(c.Argv) == 0 {
			continue
		}
		v.Commands = append(v.Commands, append([]string(nil), c.Argv...))
	}
	v.Classification = classify(e.res)
	if ws, notes := warnings(e.res); ws != nil || notes != nil {
		v.Warnings, v.ExitCodeNotes = ws, notes
	}
	if e.ws == e.home {
		w, _ := CheckWorkspace(e.ws, e.home)
		v.Warnings = append(v.Warnings, w)
	}
	return v
}

// stdinLine quotes the line a finding is about when its command came in
// the text a shell reads on standard input (a here-document, text piped
// into it): "bash <<EOF" alone does not say what is wrong. When the span
// is that line (the text is in the source verbatim), the source line is
// quoted; otherwise the command as analysed.
func (e *evaluator) stdinLine(c *analyze.Command, sp analyze.Span) string {
	stdin := false
	for _, w := range c.Wrappers {
		stdin = stdin || w.Stdin
	}
	if !stdin {
		return ""
	}
	src := e.res.Src
	if sp.Start >= 0 && sp.End <= len(src) && sp.Start <= sp.End && !strings.Contains(src[sp.Start:sp.End], "\n") {
		start, end := lineAround(src, sp.Start)
		return "; line: " + quote(strings.TrimSpace(src[start:end]))
	}
	return "; line: " + quote(strings.Join(c.Argv, " "))
}

// ---- user rules ----

type prefixRule struct {
	text   string
	tokens []string
	rest   bool
}

type compiledRules struct {
	allow, ask, deny []prefixRule
	denyRe, allowRe  []*regexp.Regexp
	allowed, blocked map[string]bool
	invalid          []string // patterns that do not compile
}

func compilePrefix(list []string) []prefixRule {
	var out []prefixRule
	for _, s := range list {
		t := strings.Fields(s)
		p := prefixRule{text: s}
		if len(t) > 0 && t[len(t)-1] == "*" {
			p.rest = true
			t = t[:len(t)-1]
		} else if len(t) > 0 && strings.HasSuffix(t[len(t)-1], ":*") {
			p.rest = true
			t[len(t)-1] = strings.TrimSuffix(t[len(t)-1], ":*")
			if t[len(t)-1] == "" {
				t = t[:len(t)-1]
			}
		}
		p.tokens = t
		if len(t) > 0 || p.rest {
			out = append(out, p)
		}
	}
	return out
}

func compileRules(r Rules) *compiledRules {
	c := &compiledRules{allow: compilePrefix(r.Allow), ask: compilePrefix(r.Ask), deny: compilePrefix(r.Deny),
		allowed: map[string]bool{}, blocked: map[string]bool{}}
	// A pattern that does not compile is never dropped in silence: the
	// Guard refuses it at construction (Validate), and a direct caller
	// of Check gets a deny (SG3706) for every command.
	for _, p := range r.CustomDenyPatterns {
		if re, err := regexp.Compile(p); err == nil {
			c.denyRe = append(c.denyRe, re)
		} else {
			c.invalid = append(c.invalid, p)
		}
	}
	for _, p := range r.CustomAllowPatterns {
		if re, err := regexp.Compile(p); err == nil {
			c.allowRe = append(c.allowRe, re)
		} else {
			c.invalid = append(c.invalid, p)
		}
	}
	for _, n := range r.AllowedCommands {
		c.allowed[n] = true
	}
	for _, n := range r.BlockedCommands {
		c.blocked[n] = true
	}
	return c
}

// Validate reports rules that cannot be compiled. Callers that build
// rules from configuration call it once and refuse invalid rules;
// Check denies every command under rules that do not validate.
func (r Rules) Validate() error {
	for _, p := range append(append([]string(nil), r.CustomDenyPatterns...), r.CustomAllowPatterns...) {
		if _, err := regexp.Compile(p); err != nil {
			return fmt.Errorf("policy: custom pattern %q: %w", p, err)
		}
	}
	return nil
}

func (p prefixRule) match(argv []string) bool {
	if len(argv) < len(p.tokens) {
		return false
	}
	if !p.rest && len(argv) != len(p.tokens) {
		return false
	}
	for i, t := range p.tokens {
		a := argv[i]
		if i == 0 && t != a && path.Base(a) == t {
			continue
		}
		if t == a {
			continue
		}
		if ok, _ := path.Match(t, a); ok && strings.ContainsAny(t, "*?[") {
			continue
		}
		return false
	}
	return true
}

func (e *evaluator) userRules() {
	cr := e.compiled
	for _, p := range cr.invalid {
		e.fs = append(e.fs, finding{row: sg3706, msg: "the custom pattern " + quote(p) + " does not compile: every command is denied until it is fixed",
			span: analyze.Span{Start: 0, End: len(e.res.Src)}, cmd: -1, rule: p})
	}
	for _, re := range cr.denyRe {
		if loc := re.FindStringIndex(e.res.Src); loc != nil {
			e.fs = append(e.fs, finding{row: sg3703, msg: "matches custom deny pattern " + quote(re.String()),
				span: analyze.Span{Start: loc[0], End: loc[1]}, cmd: -1, rule: re.String()})
		}
	}
	allowedCmd := map[int]string{}
	for i, c := range e.res.Commands {
		if len(c.Argv) == 0 {
			continue
		}
		name := c.Name()
		for _, p := range cr.deny {
			if p.match(c.Argv) {
				e.fs = append(e.fs, finding{row: sg3701, msg: "matches deny rule " + quote(p.text), span: c.Span, cmd: i, rule: p.text})
			}
		}
		for _, p := range cr.ask {
			if p.match(c.Argv) {
				e.fs = append(e.fs, finding{row: sg3702, msg: "matches ask rule " + quote(p.text), span: c.Span, cmd: i, rule: p.text})
			}
		}
		if name != "" && cr.blocked[name] {
			e.fs = append(e.fs, finding{row: sg3704, msg: quote(name) + " is a blocked command", span: c.Span, cmd: i, rule: "blocked_commands"})
		}
		if len(cr.allowed) > 0 && !c.Builtin && (name == "" || !cr.allowed[name]) {
			n := name
			if n == "" {
				n = c.Argv[0]
			}
			e.fs = append(e.fs, finding{row: sg3705, msg: quote(n) + " is not in allowed_commands", span: c.Span, cmd: i, rule: "allowed_commands"})
		}
		for _, p := range cr.allow {
			if p.match(c.Argv) {
				allowedCmd[i] = p.text
			}
		}
		if _, ok := allowedCmd[i]; !ok {
			text := strings.Join(c.Argv, " ")
			for _, re := range cr.allowRe {
				if re.MatchString(text) {
					allowedCmd[i] = re.String()
				}
			}
		}
	}
	// Lower the overridable findings of commands an allow rule matched.
	// Findings about other commands, global findings, the floor and the
	// user's own deny/ask rules stay.
	kept := e.fs[:0]
	for _, f := range e.fs {
		if f.row.Tier == Default {
			if e.rules.DisableDefaults {
				continue
			}
			if _, ok := allowedCmd[f.cmd]; ok && f.cmd >= 0 {
				continue
			}
		}
		kept = append(kept, f)
	}
	e.fs = kept
}
