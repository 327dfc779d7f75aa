package shellguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shellguard/shellguard/audit"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/redact"
	"github.com/shellguard/shellguard/runner"
)

// Verdict is the policy's answer for one command: a decision and the
// reasons for it.
type Verdict = policy.Verdict

// Approver is asked about a command whose verdict is ask. It returns true
// to run the command. An error counts as a refusal.
type Approver func(ctx context.Context, req Request, v Verdict) (bool, error)

// ErrDenied is matched (errors.Is) by every refusal to run a command.
var ErrDenied = errors.New("shellguard: command denied")

// DeniedError is returned when a command was not run because of the
// policy: a deny verdict, or an ask that no approver accepted.
type DeniedError struct {
	Verdict Verdict
	// Asked is set when the verdict was ask; Reason then says why it was
	// not approved.
	Asked  bool
	Reason string
}

func (e *DeniedError) Error() string {
	var b strings.Builder
	if e.Asked {
		fmt.Fprintf(&b, "shellguard: command needs approval and was not run: %s", e.Reason)
	} else {
		b.WriteString("shellguard: command denied")
	}
	for _, r := range e.Verdict.Reasons {
		if r.Decision >= e.Verdict.Decision {
			fmt.Fprintf(&b, "; %s: %s", r.ID, r.Message)
		}
	}
	return b.String()
}

func (e *DeniedError) Unwrap() error { return ErrDenied }

// Check analyses command and returns the policy's verdict. It runs nothing.
func (g *Guard) Check(ctx context.Context, command string) Verdict {
	return policy.Check(command, g.rules)
}

// neutralCommands run inside the shell itself and never decide whether a
// command line may leave the sandbox.
var neutralCommands = map[string]bool{
	"cd": true, "echo": true, "printf": true, "true": true, "false": true, "test": true, "[": true,
	"pwd": true, "export": true, "set": true, ":": true, "exit": true,
}

// excluded reports whether every command v found matches one of the
// sandbox exclusion prefixes (neutral builtins aside).
func (g *Guard) excluded(v Verdict) bool {
	if len(g.cfg.ExcludedCommands) == 0 || len(v.Commands) == 0 {
		return false
	}
	matched := false
	for _, argv := range v.Commands {
		if len(argv) == 0 {
			return false
		}
		if neutralCommands[argv[0]] {
			continue
		}
		ok := false
		for _, rule := range g.cfg.ExcludedCommands {
			if policy.MatchPrefix(rule, argv) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
		matched = true
	}
	return matched
}

// admission is what the policy stage decided about a request.
type admission struct {
	verdict     Verdict
	approved    *bool
	unsandboxed bool
	redactions  *atomic.Int64 // secrets redacted from the run's output
}

// CheckRequest returns the verdict Run would act on for req, before any
// approval: the policy's verdict for the command, plus a request to run
// outside the sandbox (a deny without Config.AllowUnsandboxed, otherwise
// at least an ask). It runs nothing.
func (g *Guard) CheckRequest(ctx context.Context, req Request) Verdict {
	return g.requestVerdict(ctx, req).verdict
}

// Rules returns the effective policy rules (workspace, home and resolver
// filled in), for callers that explain a verdict.
func (g *Guard) Rules() policy.Rules { return g.rules }

func (g *Guard) requestVerdict(ctx context.Context, req Request) admission {
	a := admission{verdict: g.Check(ctx, req.Command), redactions: new(atomic.Int64)}
	if req.DisableSandbox {
		if !g.cfg.AllowUnsandboxed {
			a.verdict.Decision = policy.Deny
			a.verdict.Reasons = append(a.verdict.Reasons, policy.Reason{
				ID: "SG9001", Decision: policy.Deny,
				Message: "running outside the sandbox is not enabled (sandbox.allow_unsandboxed is false)",
				Span:    policy.Span{Start: 0, End: len(req.Command)},
			})
		} else {
			a.unsandboxed = true
			if a.verdict.Decision < policy.Ask {
				a.verdict.Decision = policy.Ask
			}
			a.verdict.Reasons = append(a.verdict.Reasons, policy.Reason{
				ID: "SG9002", Decision: policy.Ask,
				Message: "the command asks to run outside the sandbox",
				Span:    policy.Span{Start: 0, End: len(req.Command)},
			})
		}
	}
	return a
}

// admit runs the policy stage: deny refuses, ask needs an approver, and a
// request to run outside the sandbox is honoured only when configured,
// and then always as ask.
func (g *Guard) admit(ctx context.Context, req Request) (admission, error) {
	a := g.requestVerdict(ctx, req)
	switch a.verdict.Decision {
	case policy.Deny:
		return a, &DeniedError{Verdict: a.verdict}
	case policy.Ask:
		approve := req.Approve
		if approve == nil && g.cfg.Approver != nil {
			approve = func(ctx context.Context, v Verdict) (bool, error) { return g.cfg.Approver(ctx, req, v) }
		}
		if approve == nil {
			no := false
			a.approved = &no
			return a, &DeniedError{Verdict: a.verdict, Asked: true, Reason: "no approver is available"}
		}
		ok, err := approve(ctx, a.verdict)
		a.approved = &ok
		if err != nil {
			return a, &DeniedError{Verdict: a.verdict, Asked: true, Reason: err.Error()}
		}
		if !ok {
			return a, &DeniedError{Verdict: a.verdict, Asked: true, Reason: "the approver declined"}
		}
	}
	if g.excluded(a.verdict) {
		a.unsandboxed = true
	}
	return a, nil
}

// prepare admits req and builds its runner options. The returned Result
// carries the decision and reasons whether or not the request may run.
func (g *Guard) prepare(ctx context.Context, req Request) (runner.Options, admission, Result, error) {
	res := Result{Command: req.Command, Cwd: g.resolveCwd(req.Cwd), ExitCode: -1}
	a, err := g.admit(ctx, req)
	res.Decision = a.verdict.Decision.String()
	res.Reasons = a.verdict.Reasons
	res.Warnings = a.verdict.Warnings
	res.Classification = a.verdict.Classification
	res.Unsandboxed = a.unsandboxed
	if err != nil {
		return runner.Options{}, a, res, err
	}
	opts, err := g.options(req)
	if err != nil {
		return opts, a, res, err
	}
	if a.unsandboxed {
		opts.Launcher = nil
	}
	opts.Filter = g.filter(a.redactions)
	return opts, a, res, nil
}

// redactor is built on first use: commands without output never pay for
// compiling the rules.
func (g *Guard) redactor() *redact.Redactor {
	g.redactOnce.Do(func() {
		r, err := redact.New(redact.Options{Secrets: g.secrets, Patterns: g.cfg.RedactPatterns})
		if err != nil {
			// Patterns were validated in New; fall back to the defaults
			// rather than leave output unredacted.
			r, _ = redact.New(redact.Options{Secrets: g.secrets})
		}
		g.redact = r
	})
	return g.redact
}

// Prepare does now the set-up the Guard otherwise does on first use
// (compiling the redaction rules, ~100 ms), so that a long-running server's
// first command does not pay for it. Safe to call concurrently with Run.
func (g *Guard) Prepare() { g.redactor() }

// filter returns a Filter for runner.Options that puts the redactor in
// front of each stream and counts its redactions in n. The redactor is
// only built when a stream carries a first byte.
func (g *Guard) filter(n *atomic.Int64) func(io.Writer) io.WriteCloser {
	return func(w io.Writer) io.WriteCloser { return &lazyRedact{g: g, dst: w, n: n} }
}

type lazyRedact struct {
	g     *Guard
	dst   io.Writer
	n     *atomic.Int64 // redactions of the run
	mu    sync.Mutex
	w     *redact.Writer
	timer *time.Timer
	nl    bool // the last byte written was a newline
	done  bool
}

// The redactor holds back a little output in case a secret continues.
// When the command pauses, what is held back is passed on: soon after a
// line ends, a little later for a partial line such as a prompt.
const (
	idleFlushLine    = 50 * time.Millisecond
	idleFlushPartial = 400 * time.Millisecond
)

func (l *lazyRedact) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		l.w = l.g.redactor().NewWriter(l.dst)
	}
	n, err := l.w.Write(p)
	if len(p) > 0 {
		l.nl = p[len(p)-1] == '\n'
	}
	if l.w.Buffered() > 0 {
		d := idleFlushPartial
		if l.nl {
			d = idleFlushLine
		}
		if l.timer == nil {
			l.timer = time.AfterFunc(d, l.idle)
		} else {
			l.timer.Reset(d)
		}
	}
	return n, err
}

func (l *lazyRedact) idle() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done && l.w != nil {
		l.w.Flush()
	}
}

func (l *lazyRedact) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = true
	if l.timer != nil {
		l.timer.Stop()
	}
	if l.w == nil {
		return nil
	}
	err := l.w.Close()
	l.n.Add(int64(l.w.Redactions()))
	return err
}

// record appends one audit event; it never fails the call.
func (g *Guard) record(req Request, a admission, res Result, runErr error, taskID string) {
	if g.audit == nil {
		return
	}
	ev := audit.Event{
		Time:         time.Now(),
		Session:      req.Session,
		Command:      req.Command,
		Cwd:          res.Cwd,
		Decision:     a.verdict.Decision.String(),
		Reasons:      a.verdict.Reasons,
		Approved:     a.approved,
		Unsandboxed:  res.Unsandboxed,
		DurationMS:   int64(res.Duration * 1000),
		TimedOut:     res.TimedOut,
		BytesDropped: res.StdoutDroppedBytes + res.StderrDroppedBytes,
		TaskID:       taskID,
		Redactions:   res.Redactions,
	}
	ev.SandboxMode = "off"
	if g.cfg.Sandbox != nil && !res.Unsandboxed {
		ev.SandboxMode = g.cfg.Sandbox.Mode.String()
	}
	if res.Sandbox != nil {
		ev.SandboxApplied = res.Sandbox.Names()
	}
	if res.Started() {
		code := res.ExitCode
		ev.ExitCode = &code
	}
	if runErr != nil {
		ev.Error = runErr.Error()
	}
	g.auditMu.Lock()
	defer g.auditMu.Unlock()
	g.audit.Append(ev)
}

// guardExtras are the pipeline's parts of a Guard (kept apart from the
// fields New fills in directly).
type guardExtras struct {
	rules      policy.Rules
	redactOnce sync.Once
	redact     *redact.Redactor
	audit      *audit.Logger
	auditMu    sync.Mutex
}

// applyPipelineConfig validates the pipeline parts of cfg and fills g.
func (g *Guard) applyPipelineConfig() error {
	g.rules = g.cfg.Rules
	if g.rules.Workspace == "" {
		g.rules.Workspace = g.cfg.Workspace
	}
	if g.rules.Home == "" {
		g.rules.Home = runner.Getenv(g.env, "HOME")
	}
	if g.rules.TempDir == "" {
		g.rules.TempDir = runner.Getenv(g.env, "TMPDIR")
	}
	if g.rules.Resolver == nil {
		g.rules.Resolver = policy.OSResolver{}
	}
	if err := g.rules.Validate(); err != nil {
		return fmt.Errorf("shellguard: rules: %w", err)
	}
	if _, err := policy.CheckWorkspace(g.rules.Workspace, g.rules.Home); err != nil {
		return fmt.Errorf("shellguard: %w", err)
	}
	if len(g.cfg.RedactPatterns) > 0 {
		if _, err := redact.New(redact.Options{Patterns: g.cfg.RedactPatterns, NoGitleaks: true}); err != nil {
			return fmt.Errorf("shellguard: redaction patterns: %w", err)
		}
	}
	if g.cfg.AuditPath != "" {
		l, err := audit.Open(g.cfg.AuditPath, audit.Options{Redactor: g.redactor()})
		if err != nil {
			return fmt.Errorf("shellguard: audit log: %w", err)
		}
		g.audit = l
	}
	return nil
}
