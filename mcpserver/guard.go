package mcpserver

// The adapter between the server and *shellguard.Guard. This file is the
// integration seam: the methods marked INTEGRATE return ErrNotAvailable
// until the Guard grows Check, approval and background tasks. When one is
// filled in, set the matching feature in guardFeatures; the end-to-end
// tests in e2e/ switch on from the same values.

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/internal/capture"
	"github.com/shellguard/shellguard/policy"
)

// guardFeatures is the single switch for what the Guard adapter supports.
// INTEGRATE: flip each to true as the adapter method below is filled in.
var guardFeatures = Features{
	Policy:         false, // GuardEngine.Check and Run refusing deny
	Approval:       false, // Request.Approve passed to the Guard's approver callback
	Tasks:          true,  // guardSession.Start / Task / auto-backgrounding
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
	// Sessions bounds the background tasks of each MCP session; the zero
	// value uses the library's defaults (64 tasks, 50 s blocking budget).
	Sessions shellguard.SessionOptions
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
		BlockingBudget: e.blockingBudget(),
	}
}

// blockingBudget is the effective budget of Sessions.BlockingBudget: how
// long a foreground run blocks before it is moved to the background, and
// the bound of wait and stream; 0: never moved.
func (e *GuardEngine) blockingBudget() time.Duration {
	switch b := e.Sessions.BlockingBudget; {
	case !guardFeatures.Tasks, b < 0:
		return 0
	case b == 0:
		return shellguard.DefaultBlockingBudget
	default:
		return b
	}
}

// Check returns the Guard's verdict.
// INTEGRATE: return e.G.Check(ctx, command), nil.
func (e *GuardEngine) Check(ctx context.Context, command string) (policy.Verdict, error) {
	return policy.Verdict{}, ErrNotAvailable
}

// NewSession returns the state of one MCP session: a shellguard.Session
// owning its background tasks, closed (tasks killed) by Close.
func (e *GuardEngine) NewSession() Session {
	return &guardSession{g: e.G, s: e.G.NewSession(e.Sessions)}
}

type guardSession struct {
	g *shellguard.Guard
	s *shellguard.Session // this client's tasks; foreground runs too

	mu     sync.Mutex
	fg     *shellguard.Session // lazily, for Request.Foreground runs
	closed bool
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
	// Result.
	sess := s.s
	if req.Foreground {
		if sess = s.foreground(); sess == nil {
			return Result{Command: req.Command, ExitCode: -1}, shellguard.ErrSessionClosed
		}
	}
	r, err := sess.Run(ctx, shellguard.Request{
		Command: req.Command,
		Cwd:     req.Cwd,
		Timeout: req.Timeout,
		Stdout:  req.Stdout,
		Stderr:  req.Stderr,
	})
	res := Result{
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
	}
	if r.Backgrounded {
		ts := TaskStatus{
			TaskID:  r.TaskID,
			Pid:     r.Pid,
			Command: r.Command,
			Running: true,
			Uptime:  res.Duration,
		}
		if t, err := sess.Task(r.TaskID); err == nil {
			ts.StartedAt = t.Started().StartedAt
		}
		res.Task = &ts
	}
	return res, taskErr(err)
}

// foreground returns a session that never moves a run to the background
// (for callers that cannot ask about a task later), or nil once closed.
func (s *guardSession) foreground() *shellguard.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	if s.fg == nil {
		s.fg = s.g.NewSession(shellguard.SessionOptions{BlockingBudget: -1})
	}
	return s.fg
}

// Start starts a background task.
// INTEGRATE: the same policy, approval and sandbox handling as Run.
func (s *guardSession) Start(ctx context.Context, req Request) (TaskStatus, error) {
	if req.DisableSandbox && !guardFeatures.DisableSandbox {
		return TaskStatus{}, errors.New("running without the sandbox is not allowed by the configuration")
	}
	t, err := s.s.Start(ctx, shellguard.Request{
		Command: req.Command,
		Cwd:     req.Cwd,
		Timeout: req.Timeout,
	}, shellguard.TaskOptions{})
	if err != nil {
		return TaskStatus{}, taskErr(err)
	}
	st := t.Started()
	return TaskStatus{TaskID: st.TaskID, Pid: st.Pid, Command: req.Command, StartedAt: st.StartedAt, Running: true}, nil
}

// Task looks a task of this session up.
func (s *guardSession) Task(id string) (Task, error) {
	t, err := s.s.Task(id)
	if err != nil {
		return nil, taskErr(err)
	}
	return &guardTask{t: t, max: s.g.Config().MaxOutput}, nil
}

// Close kills the session's tasks (and any foreground run) and waits for
// them to end.
func (s *guardSession) Close() error {
	s.mu.Lock()
	fg := s.fg
	s.closed = true
	s.mu.Unlock()
	if fg != nil {
		fg.Close()
	}
	return s.s.Close()
}

// taskErr maps the library's task errors to the server's, with messages a
// model can act on.
func taskErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, shellguard.ErrNoTask):
		return ErrNoTask
	case errors.Is(err, shellguard.ErrTooManyTasks):
		return fmt.Errorf("%w: kill a task you no longer need (task_id with kill: true) and try again", err)
	case errors.Is(err, shellguard.ErrSessionClosed):
		return errors.New("the session is closing; no new commands run")
	}
	return err
}

type guardTask struct {
	t   *shellguard.Task
	max int // bytes of output kept per stream in a status
}

// read is the output a status carries: everything still kept, head and
// tail bounded like a foreground result, so the newest lines are always
// there.
var readAll = shellguard.ReadOptions{Mode: shellguard.ReadAll}

func (t *guardTask) Status() TaskStatus { return t.status(t.t.Status(readAll)) }

func (t *guardTask) Kill(ctx context.Context) (TaskStatus, error) {
	return t.status(t.t.Kill()), nil
}

// WriteStdin writes one line: the library appends the newline, so one
// the model put at the end is not sent twice.
func (t *guardTask) WriteStdin(text string) error {
	text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
	switch err := t.t.WriteStdin(text); {
	case err == nil:
		return nil
	case errors.Is(err, shellguard.ErrNoStdin):
		return errors.New("this task has no stdin: it was moved to the background from a foreground run, whose stdin is /dev/null; start the command with run_in_background to talk to it")
	case errors.Is(err, shellguard.ErrNotRunning):
		return errors.New("the task has ended; nothing was written")
	case errors.Is(err, shellguard.ErrStdinBlocked):
		return errors.New("the task does not read its stdin (the pipe stayed full); nothing more was written")
	default:
		return err
	}
}

func (t *guardTask) Wait(ctx context.Context, timeout time.Duration) (TaskStatus, error) {
	if timeout <= 0 {
		timeout = shellguard.DefaultBlockingBudget
	}
	return t.status(t.t.Wait(ctx, timeout, readAll)), nil
}

// Subscribe delivers the lines still kept and then new ones as they
// appear, so a line written before the call (a server's "listening") is
// not missed. Lines of stderr are prefixed "[stderr] ".
func (t *guardTask) Subscribe(ctx context.Context, pattern *regexp.Regexp) (<-chan string, error) {
	o := shellguard.SubscribeOptions{Replay: true}
	if pattern != nil {
		o.Pattern = pattern.String()
	}
	ch := make(chan string, 64)
	sub, err := t.t.Subscribe(o, func(l shellguard.Line) {
		if l.Dropped > 0 {
			select {
			case ch <- fmt.Sprintf("[shellguard: %d lines skipped]", l.Dropped):
			case <-ctx.Done():
				return
			}
		}
		text := l.Text
		if l.Stream == "stderr" {
			text = "[stderr] " + text
		}
		select {
		case ch <- text:
		case <-ctx.Done():
		}
	})
	if err != nil {
		return nil, err
	}
	go func() {
		select {
		case <-sub.Done():
		case <-ctx.Done():
			sub.Cancel()
			<-sub.Done()
		}
		close(ch)
	}()
	return ch, nil
}

func (t *guardTask) status(st shellguard.TaskStatus) TaskStatus {
	out, outDropped := bound(st.Stdout, t.max, st.StdoutDroppedBytes)
	errOut, errDropped := bound(st.Stderr, t.max, st.StderrDroppedBytes)
	return TaskStatus{
		TaskID:              st.TaskID,
		Pid:                 st.Pid,
		Command:             st.Command,
		StartedAt:           st.StartedAt,
		Running:             st.IsRunning,
		ExitCode:            st.ExitCode,
		TimedOut:            st.TimedOut,
		Stdout:              out,
		Stderr:              errOut,
		StdoutDroppedBytes:  outDropped,
		StderrDroppedBytes:  errDropped,
		OutputLimitExceeded: st.OutputLimitExceeded,
		WaitingForInput:     st.WaitingForInput,
		Uptime:              time.Duration(st.UptimeSeconds * float64(time.Second)),
		EndedBy:             st.EndedBy,
	}
}

// bound keeps the first and last max/2 bytes of text, as a foreground
// result does, and counts what it cut.
func bound(text string, max int, dropped int64) (string, int64) {
	if max <= 0 || len(text) <= max {
		return text, dropped
	}
	b := capture.New(max, nil)
	b.Write([]byte(text))
	r := b.Render()
	return r.Text, dropped + r.Dropped
}
