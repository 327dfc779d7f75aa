package shellguard

// Admission: the policy's verdict on a request, and approval of an ask.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/shellguard/shellguard/internal/runner"
	"github.com/shellguard/shellguard/policy"
)

// Approver is asked about a command whose verdict is ask. It returns true
// to run the command. An error counts as a refusal.
type Approver func(ctx context.Context, req Request, v policy.Verdict) (bool, error)

// ErrDenied is matched (errors.Is) by every refusal to run a command.
var ErrDenied = errors.New("shellguard: command denied")

// DeniedError is returned when a command was not run because of the
// policy: a deny verdict, or an ask that no approver accepted.
type DeniedError struct {
	Verdict policy.Verdict
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

// Check returns the verdict Run would act on for req, before any
// approval: the policy's verdict for the command (analysed, never run),
// plus a request to run outside the sandbox (a deny without
// Config.AllowUnsandboxed, otherwise at least an ask). It runs nothing.
func (g *Guard) Check(ctx context.Context, req Request) policy.Verdict {
	return g.requestVerdict(ctx, req).verdict
}

// initRules fills in the policy inputs the configuration left empty.
func (g *Guard) initRules() error {
	r := &g.cfg.Rules
	if r.Workspace == "" {
		r.Workspace = g.cfg.Workspace
	}
	if r.Home == "" {
		r.Home = runner.Getenv(g.env, "HOME")
	}
	if r.TempDir == "" {
		r.TempDir = runner.Getenv(g.env, "TMPDIR")
	}
	if r.Resolver == nil {
		r.Resolver = policy.OSResolver{}
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("shellguard: rules: %w", err)
	}
	if _, err := policy.CheckWorkspace(r.Workspace, r.Home); err != nil {
		return fmt.Errorf("shellguard: %w", err)
	}
	return nil
}

// admission is what the policy stage decided about a request.
type admission struct {
	verdict     policy.Verdict
	approved    *bool // nil: nobody was asked
	unsandboxed bool
}

func (g *Guard) requestVerdict(ctx context.Context, req Request) admission {
	a := admission{verdict: policy.CheckContext(ctx, req.Command, g.rulesFor(req))}
	if req.DisableSandbox {
		span := policy.Span{Start: 0, End: len(req.Command)}
		if !g.cfg.AllowUnsandboxed {
			a.verdict.Decision = policy.Deny
			a.verdict.Reasons = append(a.verdict.Reasons, policy.UnsandboxedReason(false, span))
		} else {
			a.unsandboxed = true
			a.verdict.Decision = a.verdict.Decision.Max(policy.Ask)
			a.verdict.Reasons = append(a.verdict.Reasons, policy.UnsandboxedReason(true, span))
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
		if req.again != nil && req.again.approved {
			// The run made again after a path grant: the same command,
			// approved a moment ago, is not asked about twice.
			yes := true
			a.approved = &yes
			break
		}
		approve := req.Approve
		if approve == nil && g.cfg.Approver != nil {
			approve = func(ctx context.Context, v policy.Verdict) (bool, error) { return g.cfg.Approver(ctx, req, v) }
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

// neutralCommands run inside the shell itself and never decide whether a
// command line may leave the sandbox.
var neutralCommands = map[string]bool{
	"cd": true, "echo": true, "printf": true, "true": true, "false": true, "test": true, "[": true,
	"pwd": true, "export": true, "set": true, ":": true, "exit": true,
}

// excluded reports whether every command v found matches one of the
// sandbox exclusion prefixes (neutral builtins aside).
func (g *Guard) excluded(v policy.Verdict) bool {
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
