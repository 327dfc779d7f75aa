package shellguard

// Sessions: background tasks, each going through the same admission, run,
// output and audit stages as Guard.Run, owned by one agent connection.

import (
	"cmp"
	"context"
	"io"
	"sync"
	"time"

	"github.com/shellguard/shellguard/internal/runner"
	"github.com/shellguard/shellguard/internal/safe"
	"github.com/shellguard/shellguard/internal/steptime"
	"github.com/shellguard/shellguard/sandbox"
)

// defaultBlockingBudget is how long Session.Run blocks before it moves a
// command to the background: under the 60 s most MCP clients allow.
const defaultBlockingBudget = 50 * time.Second

// Task errors, for errors.Is.
var (
	ErrTooManyTasks  = runner.ErrTooManyTasks // the session's running-task limit is reached
	ErrNoTask        = runner.ErrNoTask       // unknown task id, or finished and dropped
	ErrSessionClosed = runner.ErrTableClosed  // the session (or the Guard) was closed
	ErrNoStdin       = runner.ErrNoStdin      // WriteStdin on an auto-backgrounded run
	ErrNotRunning    = runner.ErrNotRunning   // WriteStdin after the task ended
	ErrStdinBlocked  = runner.ErrStdinBlocked // the task does not read its stdin
)

// ReadOptions select the output a task's status carries. The zero value
// is everything still kept.
type ReadOptions struct {
	// New selects what is new since the previous New read of this task,
	// and moves the task's read position there (Since is then ignored).
	New bool
	// Since selects what is past the output of an earlier status of the
	// task (its StdoutOffset and StderrOffset); it moves nothing.
	Since *TaskStatus
}

// runner translates o into the runner's read options.
func (o ReadOptions) runner() runner.ReadOptions {
	switch {
	case o.New:
		return runner.ReadOptions{Mode: runner.ReadNew}
	case o.Since != nil:
		return runner.ReadOptions{Mode: runner.ReadSince, Since: runner.Cursor{Stdout: o.Since.StdoutOffset, Stderr: o.Since.StderrOffset}}
	}
	return runner.ReadOptions{Mode: runner.ReadAll}
}

// Subscribing to a task's output.
type (
	// Line is one line of output pushed to a subscriber.
	Line = runner.Line
	// SubscribeOptions: Pattern (RE2; empty: every line) and Replay (first
	// deliver the lines still kept).
	SubscribeOptions = runner.SubscribeOptions
	// Subscription is a running delivery of lines; Cancel stops it and
	// Done is closed after the last callback.
	Subscription = runner.Subscription
)

// SessionOptions bound the background tasks of one session (one agent
// connection). The zero value uses the defaults.
type SessionOptions struct {
	MaxTasks    int           // running tasks at once; 0: 64
	OutputLines int           // lines kept per stream of a task; 0: 10 000
	OutputBytes int           // bytes kept per stream of a task; 0: 1 MiB
	Retain      time.Duration // how long a finished task stays readable; 0: 10 min
	// BlockingBudget is how long Session.Run blocks before moving the
	// command to the background; 0: Config.Tasks.BlockingBudget (50 s
	// unless set); < 0: never.
	BlockingBudget time.Duration
	// TmpOf, when set, makes the session's sandboxed commands share the
	// private /tmp of that session (e.g. two sessions of one client)
	// instead of having one of their own.
	TmpOf *Session
	// OwnNetworks gives each sandboxed command of the session a network
	// namespace of its own, as Guard.Run does, instead of the one the
	// session's commands share (where a server one of them starts on
	// loopback answers the next). For a session that runs one command.
	OwnNetworks bool
}

// TaskOptions are the options of a background task.
type TaskOptions struct {
	// PTY runs the task on a pseudo-terminal (for interactive programs
	// such as REPLs): stdout and stderr arrive together as stdout, shown
	// as a terminal would (line endings, carriage returns and backspaces
	// applied, colours and other escape sequences removed).
	PTY        bool
	Rows, Cols uint16 // terminal size; 0: 24×120
}

// TaskStatus is what a Result of a background task adds: which task, and
// where it stands. The task's output and exit code are the Result's.
type TaskStatus struct {
	ID        string    `json:"id"`
	Pid       int       `json:"pid"`
	StartedAt time.Time `json:"started_at"`
	Running   bool      `json:"running"`
	// WaitingForInput: the task is blocked reading its stdin.
	WaitingForInput bool `json:"waiting_for_input"`
	// StdinUnread counts the bytes written to the task's stdin that it
	// has not read yet (0 under a PTY, where it is not known).
	StdinUnread int  `json:"stdin_unread_bytes,omitempty" jsonschema:"bytes written to stdin that the task has not read yet"`
	PTY         bool `json:"pty"`
	// Backgrounded: a Session.Run moved the command to the background
	// when it outlived the blocking budget.
	Backgrounded bool `json:"backgrounded" jsonschema:"a foreground run outlived the blocking budget and became this task"`
	// EndedBy is empty while running, then how the task ended: "exit",
	// "sigterm" or "sigkill" (killed by Kill), "timeout", "output_limit",
	// "session_closed" or "error" (the sandbox launcher failed).
	EndedBy string `json:"ended_by" jsonschema:"empty while running; exit, sigterm, sigkill, timeout, output_limit, session_closed or error"`
	// Offsets just past this status's output, for ReadOptions.Since.
	StdoutOffset int64 `json:"stdout_offset"`
	StderrOffset int64 `json:"stderr_offset"`
}

// A Session owns background tasks: at most MaxTasks running at once, all
// of them killed by Close. It is safe for concurrent use.
type Session struct {
	g      *Guard
	table  *runner.Table
	budget time.Duration

	// The private /tmp and /dev/shm of the session's sandboxed commands,
	// created on first use and removed by Close (see sandbox.SessionTmp).
	tmpMu sync.Mutex
	tmp   *sandbox.SessionTmp
	// net is the network namespace the session's sandboxed commands
	// share (loopback: a server one starts answers the next), created
	// with tmp and closed by Close (see sandbox.SessionNet).
	net    *sandbox.SessionNet
	tmpOf  *Session
	ownNet bool
	closed bool
	// pool keeps warm sandbox helpers for the session's commands, from
	// its second sandboxed command on (a session that runs one command,
	// like the HTTP endpoint's, warms none); sandboxed counts them.
	pool      *sandbox.Pool
	sandboxed int

	grantMu sync.Mutex
	hosts   []string    // network grants for the session (expand.go)
	paths   []PathGrant // file-system grants for the session (fsgrant.go)
	grants  []string    // approvals remembered for the session (grants.go)
}

// sessions is the Guard's record of its open sessions.
type sessions struct {
	mu     sync.Mutex
	open   map[*Session]struct{}
	closed bool
	// running bounds the tasks of all of them (Config.MaxRunningTasks).
	running     *runner.Slots
	runningOnce sync.Once
}

// defaultMaxRunningTasks is Config.MaxRunningTasks when unset.
const defaultMaxRunningTasks = 256

// runningSlots is the bound shared by every session of g.
func (g *Guard) runningSlots() *runner.Slots {
	g.tasks.runningOnce.Do(func() {
		g.tasks.running = runner.NewSlots(cmp.Or(g.cfg.MaxRunningTasks, defaultMaxRunningTasks))
	})
	return g.tasks.running
}

// NewSession returns a new session. Close it when the agent goes away;
// Guard.Close closes every session of the Guard.
func (g *Guard) NewSession(o SessionOptions) *Session {
	d := g.cfg.Tasks
	o.MaxTasks = cmp.Or(o.MaxTasks, d.MaxTasks)
	o.OutputLines = cmp.Or(o.OutputLines, d.OutputLines)
	o.OutputBytes = cmp.Or(o.OutputBytes, d.OutputBytes)
	o.Retain = cmp.Or(o.Retain, d.Retain)
	o.BlockingBudget = cmp.Or(o.BlockingBudget, d.BlockingBudget, defaultBlockingBudget)
	s := &Session{
		g: g,
		table: runner.NewTable(runner.TableOptions{
			MaxTasks: o.MaxTasks,
			MaxLines: o.OutputLines,
			MaxBytes: o.OutputBytes,
			Retain:   o.Retain,
			Shared:   g.runningSlots(),
		}),
		budget: o.BlockingBudget,
		tmpOf:  o.TmpOf,
		ownNet: o.OwnNetworks,
	}
	g.tasks.mu.Lock()
	defer g.tasks.mu.Unlock()
	if g.tasks.closed {
		s.table.Close()
		return s
	}
	if g.tasks.open == nil {
		g.tasks.open = map[*Session]struct{}{}
	}
	g.tasks.open[s] = struct{}{}
	return s
}

// Close kills every task of the session (SIGTERM, grace, SIGKILL, all at
// once), including a foreground Run in progress, waits for them to end and
// refuses new ones. Safe to call more than once.
func (s *Session) Close() error {
	err := s.table.Close()
	s.tmpMu.Lock()
	s.closed = true
	pool := s.pool
	s.pool = nil
	s.tmpMu.Unlock()
	pool.Close() // before the private /tmp its helpers hold goes away
	s.tmpMu.Lock()
	s.net.Close()
	s.net = nil
	s.tmp.Close()
	s.tmp = nil
	s.tmpMu.Unlock()
	s.g.tasks.mu.Lock()
	delete(s.g.tasks.open, s)
	s.g.tasks.mu.Unlock()
	return err
}

// Start starts req in the background and returns at once. The command
// goes through the same pipeline and options as Guard.Run, with these
// differences: its stdin is a pipe (or a terminal with TaskOptions.PTY)
// fed by Task.WriteStdin; a zero req.Timeout means the configured maximum
// timeout rather than the default; req.Stdout and req.Stderr, when set,
// receive its output live for as long as it runs. ctx bounds starting
// only, not the task. It fails with ErrTooManyTasks when the session has
// MaxTasks running tasks. A refused request returns a *DeniedError.
func (s *Session) Start(ctx context.Context, req Request, o TaskOptions) (*Task, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Timeout == 0 {
		req.Timeout = s.g.cfg.MaxTimeout
	}
	req = s.withGrants(req)
	opts, a, res, err := s.g.prepare(ctx, req)
	if err != nil {
		s.g.record(req, a, &res, err, 0)
		return nil, err
	}
	if l, ok := opts.Launcher.(sandboxLauncher); ok {
		// A task's connections are not put to the approver: it runs on
		// after the call, where a question would come out of context.
		l.netAsk = nil
		opts.Launcher = l
	}
	opts.PTY, opts.PTYRows, opts.PTYCols = o.PTY, o.Rows, o.Cols
	if err := s.useTmp(&opts, !o.PTY); err != nil {
		s.g.record(req, a, &res, err, 0)
		return nil, err
	}
	started, err := s.g.auditStart(req, a, &res)
	if err != nil {
		s.g.record(req, a, &res, err, 0)
		return nil, err
	}
	t, err := s.table.Start(opts)
	if err != nil {
		s.g.record(req, a, &res, err, started)
		return nil, err
	}
	task := s.wrap(t)
	s.recordWhenDone(req, task, started)
	return task, nil
}

// recordWhenDone writes the audit line of a task's end when it ends.
func (s *Session) recordWhenDone(req Request, task *Task, started int64) {
	s.g.recordWhenDone(task.Done(), func() (Request, admission, Result) {
		return req, task.tag.admission, task.Status(ReadOptions{})
	}, started)
}

// useTmp points a sandboxed command at the session's private /tmp,
// creating it on first use, and, when warm is set, at the session's pool
// of warm helpers (a command on a PTY always starts cold: its terminal
// must be there when the helper starts).
func (s *Session) useTmp(opts *runner.Options, warm bool) error {
	l, ok := opts.Launcher.(sandboxLauncher)
	if !ok {
		return nil
	}
	if warm {
		s.tmpMu.Lock()
		if s.closed {
			s.tmpMu.Unlock()
			return ErrSessionClosed
		}
		s.sandboxed++
		if s.pool == nil && s.sandboxed > 1 && l.spec.Mode != sandbox.Off {
			s.pool = sandbox.NewPool(l.spec.Pool)
		}
		l.pool = s.pool
		s.tmpMu.Unlock()
	}
	owner := s
	if s.tmpOf != nil {
		owner = s.tmpOf
	}
	owner.tmpMu.Lock()
	defer owner.tmpMu.Unlock()
	if owner.closed {
		return ErrSessionClosed
	}
	if owner.tmp == nil {
		t, err := sandbox.NewSessionTmp()
		if err != nil {
			return err
		}
		owner.tmp = t
	}
	if owner.net == nil && !s.ownNet {
		owner.net = sandbox.NewSessionNet()
	}
	l.spec.SessionTmp = owner.tmp.Dir()
	if !s.ownNet {
		l.spec.SessionNet = owner.net
	}
	opts.Launcher = l
	return nil
}

// Task returns the task with the given id.
func (s *Session) Task(id string) (*Task, error) {
	t, err := s.table.Get(id)
	if err != nil {
		return nil, err
	}
	return s.wrap(t), nil
}

// Tasks returns the session's tasks (running, and finished ones not yet
// dropped), oldest first.
func (s *Session) Tasks() []*Task {
	var out []*Task
	for _, t := range s.table.List() {
		out = append(out, s.wrap(t))
	}
	return out
}

func (s *Session) wrap(t *runner.Task) *Task {
	tag, _ := t.Process().Tag().(*runTag)
	if tag == nil {
		tag = &runTag{}
	}
	return &Task{g: s.g, t: t, tag: tag}
}

// Run runs req like Guard.Run, with the foreground's /dev/null stdin, but
// when the command is still running after the session's blocking budget
// it is moved to the session's tasks instead of being killed: Run returns
// at once with the output so far and Result.Task set (Backgrounded, the
// task id), and the command goes on until it ends or its own timeout
// expires. If the session has no room for another task, Run keeps waiting
// as Guard.Run would. Cancelling ctx before that stops the command;
// closing the session stops it too and Run returns ErrSessionClosed.
func (s *Session) Run(ctx context.Context, req Request) (Result, error) {
	req = s.withGrants(req)
	res, tag, err := s.run(ctx, req)
	if again, ok := s.g.askPaths(ctx, req, &res, tag, err); ok {
		res, _, err = s.run(ctx, again)
	}
	return res, err
}

// run is Run once, req with the session's grants. tag is nil when
// nothing ran in the foreground.
func (s *Session) run(ctx context.Context, req Request) (res Result, tag *runTag, err error) {
	defer safe.Recover("Session.Run", nil, func(e error) { err, res.Error = e, e.Error() })
	safe.Point("Session.Run")
	steptime.Mark("run.begin")
	opts, a, res, err := s.g.prepare(ctx, req)
	steptime.Mark("run.prepare")
	var started int64
	defer func() {
		if tag != nil && tag.backgrounded.Load() {
			return // its end is written when it ends
		}
		s.g.record(req, a, &res, err, started)
		steptime.Mark("run.record")
	}()
	if err != nil {
		return res, tag, err
	}
	if err = s.useTmp(&opts, true); err != nil {
		return res, tag, err
	}
	if started, err = s.g.auditStart(req, a, &res); err != nil {
		return res, tag, err
	}
	tag = opts.Tag.(*runTag)
	outW, errW := detachable(req.Stdout), detachable(req.Stderr)
	opts.Stdout, opts.Stderr = outW.writer(), errW.writer()
	t, err := s.table.StartUnlisted(opts)
	if err != nil {
		return res, tag, err
	}
	steptime.Mark("run.started")
	var budget <-chan time.Time
	// A review run stays in the foreground: its review is part of its
	// result, and a task's end has nobody to show the changes to.
	if l, ok := opts.Launcher.(sandboxLauncher); s.budget > 0 && !(ok && l.spec.Review) {
		timer := time.NewTimer(s.budget)
		defer timer.Stop()
		budget = timer.C
	}
	for {
		select {
		case <-t.Done():
			steptime.Mark("run.ran")
			rr := t.Process().Result()
			s.g.fill(&res, rr, tag)
			if t.Status(runner.ReadOptions{}).EndedBy == runner.EndedSessionClosed {
				return res, tag, ErrSessionClosed
			}
			return res, tag, rr.Err
		case <-ctx.Done():
			t.Process().Stop(runner.StopCanceled)
			<-t.Done()
			rr := t.Process().Result()
			s.g.fill(&res, rr, tag)
			if rr.Stopped == runner.StopCanceled {
				return res, tag, ctx.Err()
			}
			return res, tag, rr.Err
		case <-budget:
			budget = nil
			if s.table.Adopt(t) != nil {
				continue // no room (or closing): block as a foreground run
			}
			outW.detach()
			errW.detach()
			tag.backgrounded.Store(true)
			maxOut := s.g.cfg.MaxOutput
			if req.MaxOutput > 0 {
				maxOut = req.MaxOutput
			}
			warnings := res.Warnings
			res = s.wrap(t).result(t.Status(runner.ReadOptions{Mode: runner.ReadNew}), maxOut)
			res.Warnings = warnings
			s.recordWhenDone(req, s.wrap(t), started)
			return res, tag, nil
		}
	}
}

// switchWriter forwards to w until detached; it never fails, so a caller's
// writer that went away cannot stop the command.
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func detachable(w io.Writer) *switchWriter { return &switchWriter{w: w} }

func (d *switchWriter) writer() io.Writer {
	if d.w == nil {
		return nil
	}
	return d
}

func (d *switchWriter) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.w != nil {
		d.w.Write(p)
	}
	return len(p), nil
}

func (d *switchWriter) detach() {
	d.mu.Lock()
	d.w = nil
	d.mu.Unlock()
}

// Task is a background task of a session.
type Task struct {
	g   *Guard
	t   *runner.Task
	tag *runTag
}

// ID returns the task id.
func (t *Task) ID() string { return t.t.ID() }

// Done is closed when the task has ended and its status is final.
func (t *Task) Done() <-chan struct{} { return t.t.Done() }

// Status returns a snapshot of the task with the output o selects, each
// stream cut to Config.MaxOutput (head and tail) like any Result.
// Reading is non-destructive except that New moves the task's read
// position. Under a PTY the unfinished last line (a prompt) is always
// included.
func (t *Task) Status(o ReadOptions) Result {
	return t.result(t.t.Status(o.runner()), t.g.cfg.MaxOutput)
}

func (t *Task) result(st runner.TaskStatus, max int) Result {
	p := t.t.Process()
	res := Result{Command: t.g.redactor().String(p.Script()), Cwd: p.Dir()}
	res.admitted(t.tag.admission)
	res.Stdout, res.StdoutDroppedBytes = bound(st.Stdout, max, st.StdoutDropped)
	res.Stderr, res.StderrDroppedBytes = bound(st.Stderr, max, st.StderrDropped)
	res.ExitCode = st.ExitCode
	res.TimedOut = st.TimedOut
	res.OutputLimitExceeded = st.OutputLimitExceeded
	res.Duration = st.Uptime.Seconds()
	res.Redactions = int(t.tag.redactions.Load())
	res.Task = &TaskStatus{
		ID:              st.ID,
		Pid:             st.Pid,
		StartedAt:       st.StartedAt,
		Running:         st.Running,
		WaitingForInput: st.WaitingForInput,
		StdinUnread:     st.StdinUnread,
		PTY:             st.PTY,
		Backgrounded:    t.tag.backgrounded.Load(),
		EndedBy:         st.EndedBy,
		StdoutOffset:    st.Next.Stdout,
		StderrOffset:    st.Next.Stderr,
	}
	if !st.Running {
		hintExitCode(&res, t.tag.verdict)
		t.g.fillSandbox(&res, p.Result().Launch)
		if err := p.Result().Err; err != nil {
			res.Error = t.g.message(err.Error())
		}
	}
	return res
}

// Kill ends the task: SIGTERM to its process group and everything it
// started, 2 s (the grace period), then SIGKILL. It returns once the task
// has ended, with its output as Status(ReadOptions{}) has it; EndedBy says whether SIGTERM sufficed ("sigterm") or
// SIGKILL was needed ("sigkill"). A task that had already ended is
// returned as it is.
func (t *Task) Kill() Result { return t.result(t.t.Kill(), t.g.cfg.MaxOutput) }

// WriteStdin writes text and a newline to the task's stdin (a carriage
// return under a PTY, as the Enter key sends). It fails with ErrNoStdin
// for an auto-backgrounded run (its stdin is /dev/null), ErrNotRunning
// after the task ended and ErrStdinBlocked when the task does not read
// and the pipe stays full for 5 s.
func (t *Task) WriteStdin(text string) error { return t.t.WriteStdin(text) }

// Wait blocks until the task ends, timeout passes or ctx is done, and then
// returns its status like Status. timeout <= 0 means no bound besides
// ctx; a server should pass one below its client's request timeout.
func (t *Task) Wait(ctx context.Context, timeout time.Duration, o ReadOptions) Result {
	return t.result(t.t.Wait(ctx, timeout, o.runner()), t.g.cfg.MaxOutput)
}

// Subscribe calls fn with each line of output matching o.Pattern as it
// appears, in order per stream, from a goroutine of its own (one call at a
// time). Delivery ends when the task has ended and every line has been
// delivered, or on Cancel. Lines are not lost unless fn falls more than
// 131 072 lines behind (then Line.Dropped counts the skipped ones).
func (t *Task) Subscribe(o SubscribeOptions, fn func(Line)) (*Subscription, error) {
	return t.t.Subscribe(o, fn)
}
