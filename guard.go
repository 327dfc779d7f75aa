// Package shellguard runs shell commands on behalf of AI agents without
// letting them wreck the machine, steal its secrets or hang it.
//
// A Guard takes the command an agent wants to run and runs it through one
// pipeline, one stage per file: admission (admit.go: analysis on a bash
// syntax tree, a policy verdict of allow, ask or deny with reasons, and
// approval), the run (run.go: a kernel sandbox and a runner that always
// ends the whole process tree), the output (output.go: bounded capture and
// secret redaction) and the audit trail (audit.go). Sessions (session.go)
// keep background tasks. The CLI and the MCP server are thin faces over
// this package, and every face reports a command with the one Result type.
package shellguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/shellguard/shellguard/audit"
	"github.com/shellguard/shellguard/internal/capture"
	"github.com/shellguard/shellguard/internal/runner"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/redact"
	"github.com/shellguard/shellguard/sandbox"
)

// Defaults, as the Config fields state them (Guard.Config reports the
// effective values).
const (
	defaultTimeout    = runner.DefaultTimeout // 120 s
	defaultMaxTimeout = 600 * time.Second
	ceilingTimeout    = runner.MaxTimeout // 1800 s: the largest MaxTimeout a configuration may set
	defaultMaxOutput  = capture.DefaultMax
	defaultMaxTotal   = runner.DefaultMaxTotal
)

// EnvPolicy says how a command's environment is derived from the
// parent's: Allow lists the variables passed on (globs; nil: a safe
// default set), Scrub the ones always dropped. Dropped variables whose
// names look secret are also redacted from output by value.
type EnvPolicy = runner.EnvPolicy

// Config configures a Guard. The zero value is usable: the workspace is the
// current directory, every limit has its default, and there is no sandbox
// (every Result then says so in SandboxWarnings).
type Config struct {
	// Workspace is the project directory commands work in; it is the
	// default cwd. Empty: the current directory. It must exist (New
	// checks).
	Workspace string

	Timeout    time.Duration // default per command; 0: 120 s (at most MaxTimeout)
	MaxTimeout time.Duration // largest a request may ask for; 0: 600 s; at most 1800 s

	MaxOutput      int   // bytes kept per stream (head+tail); 0: 64 KiB
	MaxTotalOutput int64 // bytes a command may write before it is stopped; 0: 1 GiB

	// Env says how a command's environment is derived from Environ.
	Env EnvPolicy
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
	// ApproveSandbox is asked while a sandboxed foreground command runs,
	// when its network proxy refuses a connection that a grant may let
	// through (never a link-local or cloud-metadata address, nor a name
	// resolving to one): ask.Hosts is exactly that destination, as
	// refused (host:port), and the connection waits for the answer (at
	// most 2 minutes, and no longer than the run; each destination is
	// asked about once per run). It returns how long the grant holds:
	// "once" (the connection and the run's later ones to it go through),
	// "session" (also for the later calls of the Session), "always" (also
	// written to GrantsFile for this workspace), or "" to decline (the
	// refusal stands). An error declines. The grant is in the Result
	// (Grant, Sandbox.Net.Asked) and the audit record. Nil, and no
	// Request.ApproveSandbox: nothing is asked. Background tasks are not
	// asked about.
	ApproveSandbox func(ctx context.Context, req Request, ask Grant) (scope string, err error)
	// ReviewChanges is shown what a review run (Request.Review, or
	// Review in Config.Sandbox) changed, after the command ended and
	// before anything of it lands in the workspace: each added,
	// modified, deleted or re-moded entry, with a unified diff for text
	// (sandbox.Change). It returns the paths (Change.Path) to apply; the
	// rest is discarded, and an error discards everything. It is not
	// called when the run changed nothing. The Result says what landed
	// (Sandbox.Post.Review). terminal.ChangeReviewer asks on a terminal.
	// With a reviewer, an ask the approver let through is reviewed too
	// (sed -i, a chmod: what it changed is shown before it lands) where
	// the sandbox can hold its changes; elsewhere it runs as approved.
	ReviewChanges func(ctx context.Context, req Request, changes []sandbox.Change) (apply []string, err error)
	// GrantsFile, when set, keeps approvals given "always in this
	// workspace" (Session.Remember "always", ApproveSandbox): narrow allow
	// rules, each for one exact command, and granted hosts, scoped to the
	// workspace they were given in. It must lie outside every directory a sandboxed
	// command may write. The CLI uses grants.json beside the user's
	// config file.
	GrantsFile string

	// RedactPatterns are custom patterns for output redaction, on top of
	// the built-in rules and the values of scrubbed variables.
	RedactPatterns []redact.Pattern
	// Tasks are the defaults for the background-task sessions of this
	// Guard (a zero field of NewSession's options takes these; a zero
	// BlockingBudget here is 50 s).
	Tasks SessionOptions
	// MaxRunningTasks bounds the background tasks running at once over
	// all sessions of this Guard (one server's), so that no client can
	// hold every process of the machine; 0: 256.
	MaxRunningTasks int

	// KeepEscapes passes terminal control sequences in command output
	// through unchanged. By default (false) everything but SGR colours and
	// attributes is removed: OSC (titles, hyperlinks, the OSC 52
	// clipboard), cursor movement, erase and the other ESC sequences.
	KeepEscapes bool

	// AuditPath, when set, is the hash-chained JSONL audit log every call
	// is appended to.
	AuditPath string
	// AuditKey, when set, signs the audit chain with HMAC-SHA256: whoever
	// lacks the key cannot rewrite the log undetected (audit.ReadKeyFile
	// reads one from a file).
	AuditKey []byte
	// AuditFailOpen runs commands even when the audit log cannot record
	// them (a partial last line, a full disk, a truncated log): each
	// result then warns. By default (false) such a command is refused
	// with ErrAuditUnavailable.
	AuditFailOpen bool
}

// Guard checks and runs commands. It is safe for concurrent use.
type Guard struct {
	cfg     Config
	env     []string
	secrets []string // values of variables dropped from env
	tasks   sessions // background-task sessions (session.go)

	redactOnce sync.Once
	redact     *redact.Redactor
	clean      cleanTexts // texts message passed on unchanged (message.go)

	auditMu   sync.Mutex
	audit     *audit.Logger
	auditEnds sync.WaitGroup // task ends being written (audit.go)

	grantMu   sync.RWMutex
	always    []string    // remembered grants of this workspace (grants.go)
	hosts     []string    // remembered network grants of this workspace
	paths     []PathGrant // remembered file-system grants of this workspace
	grantsErr error       // why they cannot be kept (GrantsError)

	reviewOnce sync.Once
	reviewErr  error // why review runs cannot hold changes here (review.go)
}

// New validates cfg and returns a Guard. In a process started as the
// sandbox helper whose main forgot to call sandbox.Main first, it reports
// sandbox.ErrNoMain to the parent and exits (sandbox.RefuseIfHelper).
func New(cfg Config) (*Guard, error) {
	sandbox.RefuseIfHelper()
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
	if fi, err := os.Stat(ws); err != nil {
		return nil, fmt.Errorf("shellguard: workspace: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("shellguard: workspace %s is not a directory", ws)
	}
	if cfg.Timeout < 0 || cfg.MaxTimeout < 0 {
		return nil, errors.New("shellguard: timeouts must not be negative")
	}
	if cfg.MaxTimeout == 0 {
		cfg.MaxTimeout = defaultMaxTimeout
	}
	if cfg.MaxTimeout > ceilingTimeout {
		return nil, fmt.Errorf("shellguard: max timeout %v exceeds the ceiling of %v", cfg.MaxTimeout, ceilingTimeout)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = min(defaultTimeout, cfg.MaxTimeout)
	}
	if cfg.Timeout > cfg.MaxTimeout {
		return nil, fmt.Errorf("shellguard: default timeout %v exceeds max timeout %v", cfg.Timeout, cfg.MaxTimeout)
	}
	if cfg.MaxOutput < 0 || cfg.MaxTotalOutput < 0 {
		return nil, errors.New("shellguard: output limits must not be negative")
	}
	if cfg.MaxOutput == 0 {
		cfg.MaxOutput = defaultMaxOutput
	}
	if cfg.MaxTotalOutput == 0 {
		cfg.MaxTotalOutput = defaultMaxTotal
	}
	if cfg.Tasks.BlockingBudget == 0 {
		cfg.Tasks.BlockingBudget = defaultBlockingBudget
	}
	if cfg.Sandbox != nil {
		spec := *cfg.Sandbox
		if spec.Workspace == "" {
			spec.Workspace = cfg.Workspace
		}
		cfg.Sandbox = &spec
	}
	environ := cfg.Environ
	if environ == nil {
		environ = os.Environ()
	}
	g := &Guard{cfg: cfg}
	g.env, g.secrets = runner.BuildEnv(environ, cfg.Env)
	if err := g.initRules(); err != nil {
		return nil, err
	}
	g.loadGrants()
	if len(cfg.RedactPatterns) > 0 {
		if _, err := redact.New(redact.Options{Patterns: cfg.RedactPatterns, NoGitleaks: true}); err != nil {
			return nil, fmt.Errorf("shellguard: redaction patterns: %w", err)
		}
	}
	if err := g.openAudit(); err != nil {
		return nil, err
	}
	return g, nil
}

// Config returns the effective configuration: every default filled in,
// and Rules as the policy applies them (workspace, home and resolver
// filled in, e.g. for policy.Suggest).
func (g *Guard) Config() Config { return g.cfg }

// Prepare does now the set-up the Guard otherwise does on first use
// (the redactor's rules and keyword automaton, built for the first output
// or command line that could hold a secret), so that a long-running
// server's first command does not pay for it. Safe to call concurrently
// with Run.
func (g *Guard) Prepare() { g.redactor().NewWriter(io.Discard) }

// Close kills the tasks of every session of the Guard, waits for them to
// end and closes the audit log. Later sessions start closed. A program
// should call it on exit (and on SIGINT/SIGTERM) so that no task outlives
// it.
func (g *Guard) Close() error {
	g.tasks.mu.Lock()
	g.tasks.closed = true
	var all []*Session
	for s := range g.tasks.open {
		all = append(all, s)
	}
	g.tasks.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(func() { s.Close() })
	}
	wg.Wait()
	return g.closeAudit()
}

// EnableSubreaper makes this process the child subreaper (Linux), so that
// processes a command leaves behind (setsid, double fork) are re-parented
// to it and reaped when the command ends; the CLI calls it once at start.
// Without it they are still found, through /proc. It changes a process
// attribute: a library should call it only if it owns the process.
func EnableSubreaper() error { return runner.EnableSubreaper() }
