// Package shellguard runs shell commands on behalf of AI agents without
// letting them wreck the machine, steal its secrets or hang it.
//
// A Guard takes the command an agent wants to run and runs it through one
// pipeline: analysis on a bash syntax tree, a policy verdict (allow, ask or
// deny, with reasons), approval, a kernel sandbox, a runner that always ends
// the whole process tree, bounded output capture, secret redaction and an
// audit trail. The CLI and the MCP server are thin faces over this package.
package shellguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/shellguard/shellguard/internal/capture"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/redact"
	"github.com/shellguard/shellguard/runner"
	"github.com/shellguard/shellguard/sandbox"
)

// Defaults.
const (
	DefaultTimeout    = runner.DefaultTimeout
	DefaultMaxTimeout = 600 * time.Second
	// CeilingTimeout is the largest MaxTimeout a configuration may set.
	CeilingTimeout   = runner.MaxTimeout
	DefaultMaxOutput = capture.DefaultMax
	DefaultMaxTotal  = runner.DefaultMaxTotal
)

// Config configures a Guard. The zero value is usable: the workspace is the
// current directory and every limit has its default.
type Config struct {
	// Workspace is the project directory commands work in; it is the
	// default cwd. Empty: the current directory.
	Workspace string

	Timeout    time.Duration // default per command; 0: DefaultTimeout
	MaxTimeout time.Duration // largest a request may ask for; 0: DefaultMaxTimeout; at most CeilingTimeout

	MaxOutput      int   // bytes kept per stream (head+tail); 0: DefaultMaxOutput
	MaxTotalOutput int64 // bytes a command may write before it is stopped; 0: DefaultMaxTotal

	// Env says how a command's environment is derived from Environ.
	Env runner.EnvPolicy
	// Environ is the environment commands inherit from (after filtering).
	// Nil: os.Environ().
	Environ []string

	// Sandbox, when set, runs every command in the kernel sandbox it
	// describes (its Workspace defaults to Workspace). Nil: no sandbox.
	// A program using it must call sandbox.Main first thing in main().
	Sandbox *sandbox.Spec
	// ExcludedCommands are prefix rules ("docker *"): a command line whose
	// every command matches one runs outside the sandbox, still under
	// policy and audit, and its Result says so.
	ExcludedCommands []string
	// AllowUnsandboxed lets a request ask to run outside the sandbox
	// (Request.DisableSandbox); such a request is always an ask.
	AllowUnsandboxed bool

	// Rules are the policy inputs (the zero value: built-in defaults,
	// confinement to the workspace).
	Rules policy.Rules
	// Approver decides commands whose verdict is ask. Nil: ask is refused
	// unless the request brings its own Approve.
	Approver Approver

	// RedactPatterns are custom patterns for output redaction, on top of
	// the built-in rules and the values of scrubbed variables.
	RedactPatterns []redact.Pattern
	// Tasks are the defaults for the background-task sessions of this
	// Guard (a zero field of NewSession's options takes these).
	Tasks SessionOptions

	// AuditPath, when set, is the hash-chained JSONL audit log every call
	// is appended to.
	AuditPath string
}

// Guard checks and runs commands. It is safe for concurrent use.
type Guard struct {
	cfg     Config
	env     []string
	secrets []string // values of variables dropped from env
	tasks   sessions // background-task sessions (tasks.go)
	guardExtras
}

// New validates cfg and returns a Guard.
func New(cfg Config) (*Guard, error) {
	if cfg.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("shellguard: workspace: %w", err)
		}
		cfg.Workspace = wd
	}
	ws, err := filepath.Abs(cfg.Workspace)
	if err != nil {
		return nil, fmt.Errorf("shellguard: workspace: %w", err)
	}
	cfg.Workspace = ws
	if cfg.Timeout < 0 || cfg.MaxTimeout < 0 {
		return nil, errors.New("shellguard: timeouts must not be negative")
	}
	if cfg.MaxTimeout == 0 {
		cfg.MaxTimeout = DefaultMaxTimeout
	}
	if cfg.MaxTimeout > CeilingTimeout {
		return nil, fmt.Errorf("shellguard: max timeout %v exceeds the ceiling of %v", cfg.MaxTimeout, CeilingTimeout)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = min(DefaultTimeout, cfg.MaxTimeout)
	}
	if cfg.Timeout > cfg.MaxTimeout {
		return nil, fmt.Errorf("shellguard: default timeout %v exceeds max timeout %v", cfg.Timeout, cfg.MaxTimeout)
	}
	if cfg.MaxOutput < 0 || cfg.MaxTotalOutput < 0 {
		return nil, errors.New("shellguard: output limits must not be negative")
	}
	if cfg.MaxOutput == 0 {
		cfg.MaxOutput = DefaultMaxOutput
	}
	if cfg.MaxTotalOutput == 0 {
		cfg.MaxTotalOutput = DefaultMaxTotal
	}
	environ := cfg.Environ
	if environ == nil {
		environ = os.Environ()
	}
	g := &Guard{cfg: cfg}
	g.env, g.secrets = runner.BuildEnv(environ, cfg.Env)
	if err := g.applyPipelineConfig(); err != nil {
		return nil, err
	}
	return g, nil
}

// Config returns the effective configuration.
func (g *Guard) Config() Config { return g.cfg }

// Request is one command to run.
type Request struct {
	Command string
	// Cwd is the working directory: absolute, or relative to the
	// workspace. Empty: the workspace.
	Cwd string
	// Timeout: 0 means the configured default; larger than the configured
	// maximum is clamped to it.
	Timeout time.Duration
	// MaxOutput overrides the per-stream capture size when > 0.
	MaxOutput int

	// Stdout and Stderr, when set, receive output live as it arrives
	// (redacted, like the Result).
	Stdout io.Writer
	Stderr io.Writer

	// Approve, when set, decides this request if its verdict is ask
	// (instead of Config.Approver).
	Approve func(ctx context.Context, v Verdict) (bool, error)
	// DisableSandbox asks to run outside the sandbox; honoured only with
	// Config.AllowUnsandboxed, and then always as an ask.
	DisableSandbox bool
	// Session names the caller's session in the audit log.
	Session string
}

// Result is the outcome of a request. A command that ran is a Result
// whatever its exit code; errors are for requests that could not run.
type Result struct {
	Command             string  `json:"command"`
	Cwd                 string  `json:"cwd"`
	Stdout              string  `json:"stdout"`
	Stderr              string  `json:"stderr"`
	ExitCode            int     `json:"exit_code"`
	TimedOut            bool    `json:"timed_out"`
	Duration            float64 `json:"duration"` // seconds
	StdoutDroppedBytes  int64   `json:"stdout_dropped_bytes"`
	StderrDroppedBytes  int64   `json:"stderr_dropped_bytes"`
	OutputLimitExceeded bool    `json:"output_limit_exceeded"`
	// Sandbox is what the kernel sandbox enforced (nil without one), and
	// SandboxWarnings says in plain words what is missing.
	Sandbox         *sandbox.Applied `json:"sandbox,omitempty"`
	SandboxWarnings []string         `json:"sandbox_warnings,omitempty"`
	// Unsandboxed marks a run outside the sandbox (an excluded command or
	// an approved request to disable it).
	Unsandboxed bool `json:"unsandboxed,omitempty"`
	// Redactions counts the secrets replaced by [REDACTED:…] in the output.
	Redactions int `json:"redactions,omitempty"`

	// Decision is the policy's verdict ("allow", "ask" or "deny"; an ask
	// that ran was approved), Reasons its findings.
	Decision       string          `json:"decision"`
	Reasons        []policy.Reason `json:"reasons"`
	Warnings       []string        `json:"warnings,omitempty"`
	Classification string          `json:"classification,omitempty"`

	started bool
}

// Started reports whether the command was started.
func (r Result) Started() bool { return r.started }

// Run runs req and waits for it. Cancelling ctx stops the command and
// returns its partial result together with ctx's error.
//
// A denied command, or an ask that no approver accepted, is not started:
// the Result carries the decision and reasons and the error is a
// *DeniedError (errors.Is(err, ErrDenied)).
func (g *Guard) Run(ctx context.Context, req Request) (res Result, err error) {
	opts, a, res, err := g.prepare(ctx, req)
	defer func() { g.record(req, a, res, err, "") }()
	if err != nil {
		return res, err
	}
	rr, err := runner.Run(ctx, opts)
	if rr.Pid == 0 { // nothing was started
		return res, err
	}
	g.fill(&res, rr)
	res.Redactions = int(a.redactions.Load())
	return res, err
}

func (g *Guard) options(req Request) (runner.Options, error) {
	if req.Timeout < 0 {
		return runner.Options{}, errors.New("shellguard: timeout must not be negative")
	}
	timeout := req.Timeout
	if timeout == 0 {
		timeout = g.cfg.Timeout
	}
	timeout = min(timeout, g.cfg.MaxTimeout)
	maxOut := g.cfg.MaxOutput
	if req.MaxOutput > 0 {
		maxOut = req.MaxOutput
	}
	var launcher runner.Launcher
	if g.cfg.Sandbox != nil {
		spec := *g.cfg.Sandbox
		if spec.Workspace == "" {
			spec.Workspace = g.cfg.Workspace
		}
		launcher = sandboxLauncher{spec}
	}
	return runner.Options{
		Launcher:  launcher,
		Script:    req.Command,
		Dir:       g.resolveCwd(req.Cwd),
		Env:       g.env,
		Timeout:   timeout,
		MaxOutput: maxOut,
		MaxTotal:  g.cfg.MaxTotalOutput,
		Stdout:    req.Stdout,
		Stderr:    req.Stderr,
	}, nil
}

func (g *Guard) resolveCwd(cwd string) string {
	if cwd == "" {
		return g.cfg.Workspace
	}
	if !filepath.IsAbs(cwd) {
		cwd = filepath.Join(g.cfg.Workspace, cwd)
	}
	return filepath.Clean(cwd)
}

func (g *Guard) fill(res *Result, rr runner.Result) {
	res.started = true
	res.Stdout = rr.Stdout.Text
	res.Stderr = rr.Stderr.Text
	res.StdoutDroppedBytes = rr.Stdout.Dropped
	res.StderrDroppedBytes = rr.Stderr.Dropped
	res.ExitCode = rr.ExitCode
	res.TimedOut = rr.TimedOut
	res.OutputLimitExceeded = rr.OutputLimitExceeded
	res.Duration = rr.Duration.Seconds()
	if a, ok := rr.Launch.(sandbox.Applied); ok {
		res.Sandbox = &a
		res.SandboxWarnings = a.Warnings()
	}
}

// sandboxLauncher runs commands through the sandbox helper.
type sandboxLauncher struct{ spec sandbox.Spec }

func (l sandboxLauncher) Command(script string, env []string, dir string) (runner.Launch, error) {
	cmd, h, err := sandbox.Command(context.Background(), l.spec, script, env, dir)
	if err != nil {
		return runner.Launch{}, err
	}
	return runner.Launch{
		Cmd:         cmd,
		Started:     h.Started,
		Report:      func() (any, error) { return h.Applied() },
		Close:       func() { h.Close() },
		StartFailed: h.StartFailed,
	}, nil
}
