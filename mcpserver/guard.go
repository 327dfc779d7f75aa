package mcpserver

// The adapter between the server and *shellguard.Guard. The library
// decides everything (policy, approval, sandbox, redaction, audit); the
// adapter passes requests through and maps results and refusals to the
// server's types. guardFeatures says what it supports; the end-to-end
// tests in e2e/ switch on from the same values.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/internal/capture"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// guardFeatures is the single switch for what the Guard adapter supports.
// DisableSandbox is offered to clients only when the configuration also
// sets sandbox.allow_unsandboxed (see Settings).
var guardFeatures = Features{
	Policy:         true, // GuardEngine.Check and Run refusing deny
	Approval:       true, // Request.Approve passed to the Guard as its approver
	Tasks:          true, // guardSession.Start / Task / auto-backgrounding
	DisableSandbox: true, // Request.DisableSandbox passed to the Guard
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
	// Sessions bounds the background tasks of each MCP session; a zero
	// field takes the Guard's configuration (Config.Tasks), then the
	// library's defaults (64 tasks, 50 s blocking budget).
	Sessions shellguard.SessionOptions

	once   sync.Once
	layers []string // what the sandbox enforces here, from sandbox.Probe
	netOff bool     // the sandbox cuts the network
}

// NewGuardEngine returns an Engine running commands through g.
func NewGuardEngine(g *shellguard.Guard) *GuardEngine { return &GuardEngine{G: g} }

// probe finds out once what the configured sandbox enforces on this
// machine: sandbox.Probe runs one real sandboxed command (a few ms).
func (e *GuardEngine) probe() {
	e.once.Do(func() {
		spec := e.G.Config().Sandbox
		if spec == nil || spec.Mode == sandbox.Off {
			return
		}
		r := sandbox.Probe()
		ok := map[string]bool{}
		for _, l := range r.Layers {
			ok[l.Name] = l.OK
		}
		e.layers = layerSummary(ok, spec.Network)
		e.netOff = !spec.Network && (ok[sandbox.LayerNetNS] || ok[sandbox.LayerLandlockNet])
	})
}

// layerSummary names the applied layers in a few words each.
func layerSummary(ok map[string]bool, network bool) []string {
	var out []string
	var ns []string
	for _, n := range []struct{ layer, word string }{
		{sandbox.LayerUserNS, "user"}, {sandbox.LayerMountNS, "mount"}, {sandbox.LayerPidNS, "pid"}, {sandbox.LayerNetNS, "net"},
	} {
		if ok[n.layer] && (n.layer != sandbox.LayerNetNS || !network) {
			ns = append(ns, n.word)
		}
	}
	if len(ns) > 0 {
		out = append(out, "namespaces ("+strings.Join(ns, ", ")+")")
	}
	if ok[sandbox.LayerReadOnlyRoot] {
		out = append(out, "read-only outside the writable roots")
	}
	if ok[sandbox.LayerMasks] {
		out = append(out, "home secrets hidden")
	}
	if ok[sandbox.LayerLandlockFS] {
		out = append(out, "landlock")
	}
	if ok[sandbox.LayerSeccomp] {
		out = append(out, "seccomp")
	}
	if ok[sandbox.LayerCaps] && ok[sandbox.LayerNoNewPrivs] {
		out = append(out, "no privileges")
	}
	if ok[sandbox.LayerRlimits] {
		out = append(out, "rlimits")
	}
	return out
}

// alwaysDenied is what the policy floor denies whatever the
// configuration says, in a few words (see policy.Catalog, Floor).
var alwaysDenied = []string{
	"rm -r of /, system dirs or home",
	"disk formatting or block-device writes",
	"sudoers edits",
	"curl | sh",
	"shutdown, reboot, kill -1",
	"fork bombs",
}

func (e *GuardEngine) Settings() Settings {
	e.probe()
	c := e.G.Config()
	s := Settings{
		Workspace:      c.Workspace,
		AllowedRoots:   c.Rules.AllowedRoots,
		DefaultTimeout: c.Timeout,
		MaxTimeout:     c.MaxTimeout,
		MaxOutput:      c.MaxOutput,
		SandboxLayers:  e.layers,
		Network:        !e.netOff,
		AlwaysDenied:   alwaysDenied,
		Policy:         guardFeatures.Policy,
		Approval:       guardFeatures.Approval,
		Tasks:          guardFeatures.Tasks,
		DisableSandbox: guardFeatures.DisableSandbox && c.AllowUnsandboxed,
		BlockingBudget: e.blockingBudget(),
	}
	if len(e.layers) > 0 {
		s.WritableRoots = writableRoots(c)
	}
	return s
}

// writableRoots are the directories a sandboxed command may write: the
// workspace, the temporary directories and the configured roots.
func writableRoots(c shellguard.Config) []string {
	roots := []string{c.Workspace, "/tmp"}
	if t := os.Getenv("TMPDIR"); t != "" {
		roots = append(roots, filepath.Clean(t))
	}
	if c.Sandbox != nil {
		roots = append(roots, c.Sandbox.WritableRoots...)
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range roots {
		if r != "" && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// blockingBudget is the effective budget of Sessions.BlockingBudget: how
// long a foreground run blocks before it is moved to the background, and
// the bound of wait and stream; 0: never moved.
func (e *GuardEngine) blockingBudget() time.Duration {
	b := e.Sessions.BlockingBudget
	if b == 0 {
		b = e.G.Config().Tasks.BlockingBudget
	}
	switch {
	case !guardFeatures.Tasks, b < 0:
		return 0
	case b == 0:
		return shellguard.DefaultBlockingBudget
	default:
		return b
	}
}

// Check returns the Guard's verdict.
func (e *GuardEngine) Check(ctx context.Context, command string) (policy.Verdict, error) {
	return e.G.Check(ctx, command), nil
}

// CheckRequest returns the verdict the Guard would act on for req,
// including a request to run outside the sandbox.
func (e *GuardEngine) CheckRequest(ctx context.Context, req Request) (policy.Verdict, error) {
	return e.G.CheckRequest(ctx, shellguard.Request{Command: req.Command, Cwd: req.Cwd, DisableSandbox: req.DisableSandbox}), nil
}

// HowToAllow says how the user could let a refused command run: the
// allow rule that would lower the overridable findings (verified by
// checking again with it), and which findings no rule can lift.
func (e *GuardEngine) HowToAllow(command string, v policy.Verdict) string {
	return howToAllow(e.G.Rules(), command, v)
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
	sess := s.s
	if req.Foreground {
		if sess = s.foreground(); sess == nil {
			return Result{Command: req.Command, ExitCode: -1}, shellguard.ErrSessionClosed
		}
	}
	// Stdout and Stderr feed live progress notifications: the Guard
	// redacts what it writes to them, as it does for the Result.
	r, err := sess.Run(ctx, guardRequest(req))
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
		Verdict:             verdictOf(r.Result),
		SandboxWarnings:     r.SandboxWarnings,
		Unsandboxed:         r.Unsandboxed,
	}
	if r.Sandbox != nil {
		res.Sandbox = r.Sandbox
	}
	if de := deniedErr(err); de != nil {
		return res, de
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

// guardRequest is the library's request for req: the server's approval
// callback becomes the Guard's approver for this request.
func guardRequest(req Request) shellguard.Request {
	r := shellguard.Request{
		Command:        req.Command,
		Cwd:            req.Cwd,
		Timeout:        req.Timeout,
		Stdout:         req.Stdout,
		Stderr:         req.Stderr,
		DisableSandbox: req.DisableSandbox,
	}
	if approve := req.Approve; approve != nil {
		r.Approve = func(ctx context.Context, v policy.Verdict) (bool, error) { return approve(ctx, v), nil }
	}
	return r
}

// verdictOf rebuilds the verdict a result carries (nil when no policy
// ran).
func verdictOf(r shellguard.Result) *policy.Verdict {
	if r.Decision == "" {
		return nil
	}
	d, err := policy.ParseDecision(r.Decision)
	if err != nil {
		return nil
	}
	return &policy.Verdict{Decision: d, Reasons: r.Reasons, Warnings: r.Warnings, Classification: r.Classification}
}

// deniedErr maps the library's refusal to the server's; nil for any
// other error.
func deniedErr(err error) *DeniedError {
	var de *shellguard.DeniedError
	if !errors.As(err, &de) {
		return nil
	}
	return &DeniedError{Verdict: de.Verdict, Declined: de.Asked, Why: de.Reason}
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
		// Same client, same private /tmp as its other commands.
		s.fg = s.g.NewSession(shellguard.SessionOptions{BlockingBudget: -1, TmpOf: s.s})
	}
	return s.fg
}

// Start starts a background task, with the same policy, approval and
// sandbox handling as Run.
func (s *guardSession) Start(ctx context.Context, req Request) (TaskStatus, error) {
	gr := guardRequest(req)
	gr.Stdout, gr.Stderr = nil, nil // a task's output is read from the task
	t, err := s.s.Start(ctx, gr, shellguard.TaskOptions{})
	if de := deniedErr(err); de != nil {
		return TaskStatus{}, de
	}
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
