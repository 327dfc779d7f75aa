package mcpserver

// The adapter between the server and *shellguard.Guard. This file is the
// integration seam: the methods marked INTEGRATE return ErrNotAvailable
// until the Guard grows Check, approval and background tasks. When one is
// filled in, set the matching feature in guardFeatures; the end-to-end
// tests in e2e/ switch on from the same values.

import (
	"context"
	"errors"
	"time"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/policy"
)

// guardFeatures is the single switch for what the Guard adapter supports.
// INTEGRATE: flip each to true as the adapter method below is filled in.
var guardFeatures = Features{
	Policy:         false, // GuardEngine.Check and Run refusing deny
	Approval:       false, // Request.Approve passed to the Guard's approver callback
	Tasks:          false, // guardSession.Start / Task / auto-backgrounding
	DisableSandbox: false, // Request.DisableSandbox honoured by the config
}

// Features are the engine features the Guard adapter supports.
type Features struct {
	Policy, Approval, Tasks, DisableSandbox bool
}

// GuardAdapterFeatures returns guardFeatures; the end-to-end tests gate
// their scenarios on it.
func GuardAdapterFeatures() Features { return guardFeatures }

// GuardEngine adapts a *shellguard.Guard to Engine.
type GuardEngine struct {
	G *shellguard.Guard
}

// NewGuardEngine returns an Engine running commands through g.
func NewGuardEngine(g *shellguard.Guard) *GuardEngine { return &GuardEngine{G: g} }

func (e *GuardEngine) Settings() Settings {
	c := e.G.Config()
	return Settings{
		Workspace:      c.Workspace,
		AllowedRoots:   nil,                   // INTEGRATE: policy allowed_roots (cwd may be there too)
		WritableRoots:  []string{c.Workspace}, // INTEGRATE: from the sandbox config
		DefaultTimeout: c.Timeout,
		MaxTimeout:     c.MaxTimeout,
		MaxOutput:      c.MaxOutput,
		SandboxLayers:  nil,  // INTEGRATE: the layers the sandbox actually applies
		Network:        true, // INTEGRATE: false when the sandbox cuts the network
		AlwaysDenied:   nil,  // INTEGRATE: e.g. "rm -rf of / or ~", "reading ~/.ssh", "sudo"
		Policy:         guardFeatures.Policy,
		Approval:       guardFeatures.Approval,
		Tasks:          guardFeatures.Tasks,
		DisableSandbox: guardFeatures.DisableSandbox,
	}
}

// Check returns the Guard's verdict.
// INTEGRATE: return e.G.Check(ctx, command), nil.
func (e *GuardEngine) Check(ctx context.Context, command string) (policy.Verdict, error) {
	return policy.Verdict{}, ErrNotAvailable
}

func (e *GuardEngine) NewSession() Session { return &guardSession{g: e.G} }

type guardSession struct {
	g *shellguard.Guard
	// INTEGRATE: the Guard's *Session, owning this client's tasks.
}

func (s *guardSession) Run(ctx context.Context, req Request) (Result, error) {
	if req.DisableSandbox && !guardFeatures.DisableSandbox {
		return Result{}, errors.New("running without the sandbox is not allowed by the configuration")
	}
	// INTEGRATE: req.Stdout/req.Stderr feed live progress notifications:
	// the Guard must hand them redacted output, as it does for the Result.
	// Pass req.Approve as the Guard's approver callback and
	// req.DisableSandbox; map a policy refusal to *DeniedError (with
	// Declined for an unapproved ask); fill Verdict and Sandbox from the
	// Result; and when the run was moved to the background, fill Task.
	r, err := s.g.Run(ctx, shellguard.Request{
		Command: req.Command,
		Cwd:     req.Cwd,
		Timeout: req.Timeout,
		Stdout:  req.Stdout,
		Stderr:  req.Stderr,
	})
	return Result{
		Command:             r.Command,
		Cwd:                 r.Cwd,
		Stdout:              r.Stdout,
		Stderr:              r.Stderr,
		ExitCode:            r.ExitCode,
		TimedOut:            r.TimedOut,
		Duration:            time.Duration(r.Duration * float64(time.Second)),
		StdoutDroppedBytes:  r.StdoutDroppedBytes,
		StderrDroppedBytes:  r.StderrDroppedBytes,
		OutputLimitExceeded: r.OutputLimitExceeded,
	}, err
}

// Start starts a background task.
// INTEGRATE: the Guard's Session.Start.
func (s *guardSession) Start(ctx context.Context, req Request) (TaskStatus, error) {
	return TaskStatus{}, ErrNotAvailable
}

// Task looks a task up.
// INTEGRATE: the Guard's Session task table, wrapped to satisfy Task.
func (s *guardSession) Task(id string) (Task, error) {
	return nil, ErrNotAvailable
}

// Close ends the session. INTEGRATE: kill the session's tasks.
func (s *guardSession) Close() error { return nil }
