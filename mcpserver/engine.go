// Package mcpserver exposes shellguard as an MCP server with one tool,
// bash, over stdio or streamable HTTP, and as a plain JSON endpoint
// (POST /tools/bash/execute).
//
// The package parses and validates what clients send, asks the client for
// approval when the policy says "ask", turns results into text for the
// model plus structured content, and streams live output as progress
// notifications. It has no policy logic of its own: every decision comes
// from an Engine, normally a *shellguard.Guard wrapped by NewGuardEngine.
package mcpserver

import (
	"context"
	"errors"
	"io"
	"regexp"
	"time"

	"github.com/shellguard/shellguard/policy"
)

// ErrNotAvailable is returned by an Engine for a feature it does not have
// (yet). The server turns it into a tool error that says so.
var ErrNotAvailable = errors.New("not available in this build")

// ErrNoTask is returned by Session.Task for an unknown task id.
var ErrNoTask = errors.New("no such task")

// Engine is what the server needs from shellguard. One Engine serves every
// session; it must be safe for concurrent use.
type Engine interface {
	// Settings returns the effective limits, used to validate requests
	// and to write the tool description.
	Settings() Settings
	// Check returns the policy verdict for command without running it.
	// An engine without a policy returns ErrNotAvailable.
	Check(ctx context.Context, command string) (policy.Verdict, error)
	// NewSession returns the per-client state (its background tasks).
	// The server closes it when the client goes away.
	NewSession() Session
}

// Session is one client's view of the engine: the commands it runs and
// the background tasks it owns. Close kills every task of the session.
type Session interface {
	// Run runs a foreground command. A command the policy denies (or asks
	// about, without approval) is not run: Run returns a *DeniedError.
	// Cancelling ctx stops the command and returns its partial result.
	Run(ctx context.Context, req Request) (Result, error)
	// Start starts a background task; ErrNotAvailable without tasks.
	Start(ctx context.Context, req Request) (TaskStatus, error)
	// Task looks up a task of this session; ErrNoTask if unknown.
	Task(id string) (Task, error)
	Close() error
}

// Task is a background command of a session.
type Task interface {
	Status() TaskStatus
	// Kill stops the task's process group (SIGTERM, grace, SIGKILL) and
	// returns its final status.
	Kill(ctx context.Context) (TaskStatus, error)
	// WriteStdin writes text to the task's stdin.
	WriteStdin(text string) error
	// Wait blocks until the task exits, ctx is done or timeout passes,
	// and returns its status then.
	Wait(ctx context.Context, timeout time.Duration) (TaskStatus, error)
	// Subscribe delivers new output lines (stdout and stderr) matching
	// pattern (nil: every line) until the task exits or ctx is done; the
	// channel is closed then.
	Subscribe(ctx context.Context, pattern *regexp.Regexp) (<-chan string, error)
}

// Request is one command to run.
type Request struct {
	Command     string
	Description string // what the agent says the command is for
	Cwd         string // absolute, already checked against the roots
	Timeout     time.Duration
	// DisableSandbox asks to run without the sandbox; the engine decides
	// whether its configuration allows that.
	DisableSandbox bool
	// Approve is called when the verdict is ask. Nil, or false: not run.
	Approve func(ctx context.Context, v policy.Verdict) bool
	// Stdout and Stderr receive output live, already redacted.
	Stdout, Stderr io.Writer
	// Foreground keeps Run from moving the command to the background when
	// it outlives the blocking budget: for callers that cannot ask about
	// a task later (the plain HTTP endpoint).
	Foreground bool
}

// Result is the outcome of a foreground command.
type Result struct {
	Command             string
	Cwd                 string
	Stdout              string
	Stderr              string
	ExitCode            int
	TimedOut            bool
	Duration            time.Duration
	StdoutDroppedBytes  int64
	StderrDroppedBytes  int64
	OutputLimitExceeded bool
	Verdict             *policy.Verdict // nil: no policy ran
	Sandbox             any             // what the sandbox applied, as JSON
	// SandboxWarnings say in plain words which sandbox layers are missing.
	SandboxWarnings []string
	// Unsandboxed marks a run outside the sandbox (an excluded command or
	// an approved request to disable it).
	Unsandboxed bool
	// Task is set when a foreground command outlived the blocking budget
	// and was moved to the background.
	Task *TaskStatus
}

// TaskStatus describes a background task.
type TaskStatus struct {
	TaskID    string
	Pid       int
	Command   string
	StartedAt time.Time
	Running   bool
	ExitCode  *int // nil while running
	TimedOut  bool
	Stdout    string
	Stderr    string
	// Bytes of output not in Stdout/Stderr (dropped by the output ring
	// or cut from the middle to fit the output cap).
	StdoutDroppedBytes  int64
	StderrDroppedBytes  int64
	OutputLimitExceeded bool
	WaitingForInput     bool
	Uptime              time.Duration
	// EndedBy says how it ended: "exit", "sigterm" or "sigkill" (killed),
	// "timeout", "output_limit", "session_closed", "error"; empty while
	// running.
	EndedBy string
}

// DeniedError is returned by Session.Run and Session.Start when the
// command was not run because of the policy.
type DeniedError struct {
	Verdict policy.Verdict
	// Declined is true when the verdict was ask and the approver said no
	// (or there was none); Why then says why, when known.
	Declined bool
	Why      string
}

func (e *DeniedError) Error() string {
	if e.Declined {
		return "command needs approval and was not approved"
	}
	return "command denied by policy"
}

// Settings are the effective limits of an engine.
type Settings struct {
	Workspace string
	// AllowedRoots are further directories a cwd may be in.
	AllowedRoots []string
	// WritableRoots are the directories commands may write to.
	WritableRoots []string

	DefaultTimeout time.Duration
	MaxTimeout     time.Duration
	MaxOutput      int // bytes kept per stream

	// SandboxLayers names the layers actually applied ("namespaces",
	// "landlock", "seccomp", "rlimits"); empty: no sandbox.
	SandboxLayers []string
	Network       bool // commands may use the network
	// AlwaysDenied is a short human list of what is always denied.
	AlwaysDenied []string

	// Features the engine has.
	Policy          bool // Check works and Run enforces it
	Approval        bool // Run honours Request.Approve for ask
	Tasks           bool // Start, Task and auto-backgrounding work
	DisableSandbox  bool // Request.DisableSandbox may be honoured
	BlockingBudget  time.Duration
	MaxCommandBytes int // 0: DefaultMaxCommandBytes
}

// DefaultMaxCommandBytes bounds a command: bash -c receives it as one
// argument, and Linux limits one argument to 128 KiB.
const DefaultMaxCommandBytes = 100_000
