package shellguard

import (
	"cmp"
	"context"
	"io"
	"sync"
	"time"

	"github.com/shellguard/shellguard/internal/capture"
	"github.com/shellguard/shellguard/runner"
	"github.com/shellguard/shellguard/sandbox"
)

// DefaultBlockingBudget is how long Session.Run blocks before it moves a
// command to the background: under the 60 s most MCP clients allow.
const DefaultBlockingBudget = 50 * time.Second

// Task errors, for errors.Is.
var (
	ErrTooManyTasks  = runner.ErrTooManyTasks // the session's running-task limit is reached
	ErrNoTask        = runner.ErrNoTask       // unknown task id, or finished and dropped
	ErrSessionClosed = runner.ErrTableClosed  // the session (or the Guard) was closed
	ErrNoStdin       = runner.ErrNoStdin      // WriteStdin on an auto-backgrounded run
	ErrNotRunning    = runner.ErrNotRunning   // WriteStdin after the task ended
	ErrStdinBlocked  = runner.ErrStdinBlocked // the task does not read its stdin
)

// How a task ended (TaskStatus.EndedBy).
const (
	EndedExit          = runner.EndedExit          // it exited by itself
	EndedSIGTERM       = runner.EndedSIGTERM       // killed; it ended within the grace period after SIGTERM
	EndedSIGKILL       = runner.EndedSIGKILL       // killed; it needed SIGKILL
	EndedTimeout       = runner.EndedTimeout       // its timeout expired
	EndedOutputLimit   = runner.EndedOutputLimit   // it exceeded the total output budget
	EndedSessionClosed = runner.EndedSessionClosed // its session was closed
	EndedError         = runner.EndedError         // the sandbox launcher failed after start
)

// Reading a task's output.
type (
	// ReadOptions select the output a status carries: everything kept
	// (ReadAll, the zero value), what is new since the previous ReadNew
	// of this task, or what is new since an offset pair (ReadSince with
	// Since set from TaskStatus.StdoutOffset/StderrOffset).
	ReadOptions = runner.StatusOptions
	ReadMode    = runner.ReadMode
	Cursor      = runner.Cursor
	// Line is one line of output pushed to a subscriber.
	Line = runner.Line
	// SubscribeOptions: Pattern (RE2; empty: every line) and Replay (first
	// deliver the lines still kept).
	SubscribeOptions = runner.SubscribeOptions
	// Subscription is a running delivery of lines; Cancel stops it and
	// Done is closed after the last callback.
	Subscription = runner.Subscription
)

// Read modes.
const (
	ReadAll   = runner.ReadAll
	ReadNew   = runner.ReadNew
	ReadSince = runner.ReadSince
)

// SessionOptions bound the background tasks of one session (one agent
// connection). The zero value uses the defaults.
type SessionOptions struct {
	MaxTasks    int           // running tasks at once; 0: 64
	OutputLines int           // lines kept per stream of a task; 0: 10 000
	OutputBytes int           // bytes kept per stream of a task; 0: 1 MiB
	Retain      time.Duration // how long a finished task stays readable; 0: 10 min
	// BlockingBudget is how long Session.Run blocks before moving the
	// command to the background; 0: DefaultBlockingBudget; < 0: never.
	BlockingBudget time.Duration
	// TmpOf, when set, makes the session's sandboxed commands share the
	// private /tmp of that session (e.g. two sessions of one client)
	// instead of having one of their own.
	TmpOf *Session
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

// A Session owns background tasks: at most MaxTasks running at once, all
// of them killed by Close. It is safe for concurrent use.
type Session struct {
	g      *Guard
	table  *runner.Table
	budget time.Duration

	// The private /tmp and /dev/shm of the session's sandboxed commands,
	// created on first use and removed by Close (see sandbox.SessionTmp).
	tmpMu  sync.Mutex
	tmp    *sandbox.SessionTmp
	tmpOf  *Session
	closed bool
}

// sessions is the Guard's record of its open sessions.
type sessions struct {
	mu     sync.Mutex
	def    *Session
	open   map[*Session]struct{}
	closed bool
}

// NewSession returns a new session. Close it when the agent goes away;
// Guard.Close closes every session of the Guard.
func (g *Guard) NewSession(o SessionOptions) *Session {
	d := g.cfg.Tasks
	o.MaxTasks = cmp.Or(o.MaxTasks, d.MaxTasks)
	o.OutputLines = cmp.Or(o.OutputLines, d.OutputLines)
	o.OutputBytes = cmp.Or(o.OutputBytes, d.OutputBytes)
	o.Retain = cmp.Or(o.Retain, d.Retain)
	o.BlockingBudget = cmp.Or(o.BlockingBudget, d.BlockingBudget)
	s := &Session{
		g: g,
		table: runner.NewTable(runner.TableOptions{
			MaxTasks: o.MaxTasks,
			MaxLines: o.OutputLines,
			MaxBytes: o.OutputBytes,
			Retain:   o.Retain,
		}),
		budget: o.BlockingBudget,
		tmpOf:  o.TmpOf,
	}
	if s.budget == 0 {
		s.budget = DefaultBlockingBudget
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

// DefaultSession returns the Guard's own session, which Guard.Start uses.
func (g *Guard) DefaultSession() *Session {
	g.tasks.mu.Lock()
	s := g.tasks.def
	g.tasks.mu.Unlock()
	if s != nil {
		return s
	}
	s = g.NewSession(SessionOptions{})
	g.tasks.mu.Lock()
	defer g.tasks.mu.Unlock()
	if g.tasks.def == nil {
		g.tasks.def = s
		return s
	}
	delete(g.tasks.open, s) // lost a race: use the winner
	s.table.Close()
	return g.tasks.def
}

// Start starts req as a background task in the Guard's default session.
func (g *Guard) Start(ctx context.Context, req Request, o TaskOptions) (*Task, error) {
	return g.DefaultSession().Start(ctx, req, o)
}

// Close kills the tasks of every session of the Guard, waits for them to
// end and closes the audit log. Later sessions start closed. A program should call it on exit
// (and on SIGINT/SIGTERM) so that no task outlives it.
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
		wg.Add(1)
		go func() { defer wg.Done(); s.Close() }()
	}
	wg.Wait()
	g.auditMu.Lock()
	defer g.auditMu.Unlock()
	if g.audit != nil {
		err := g.audit.Close()
		g.audit = nil
		return err
	}
	return nil
}

// Close kills every task of the session (SIGTERM, grace, SIGKILL, all at
// once), including a foreground Run in progress, waits for them to end and
// refuses new ones. Safe to call more than once.
func (s *Session) Close() error {
	err := s.table.Close()
	s.tmpMu.Lock()
	s.closed = true
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
// MaxTasks running tasks.
func (s *Session) Start(ctx context.Context, req Request, o TaskOptions) (*Task, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Timeout == 0 {
		req.Timeout = s.g.cfg.MaxTimeout
	}
	opts, a, res, err := s.g.prepare(ctx, req)
	if err != nil {
		s.g.record(req, a, res, err, "")
		return nil, err
	}
	opts.PTY, opts.PTYRows, opts.PTYCols = o.PTY, o.Rows, o.Cols
	if err := s.useTmp(&opts); err != nil {
		s.g.record(req, a, res, err, "")
		return nil, err
	}
	t, err := s.table.Start(opts)
	if err != nil {
		s.g.record(req, a, res, err, "")
		return nil, err
	}
	res.started = true
	res.ExitCode = -1
	s.g.record(req, a, res, nil, t.ID())
	return &Task{g: s.g, t: t, command: req.Command, cwd: opts.Dir}, nil
}

// useTmp points a sandboxed command at the session's private /tmp,
// creating it on first use.
func (s *Session) useTmp(opts *runner.Options) error {
	l, ok := opts.Launcher.(sandboxLauncher)
	if !ok {
		return nil
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
	l.spec.SessionTmp = owner.tmp.Dir()
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

// Running returns the number of running tasks.
func (s *Session) Running() int { return s.table.Running() }

func (s *Session) wrap(t *runner.Task) *Task {
	// The command and cwd are kept with the runner task's options.
	return &Task{g: s.g, t: t, command: t.Process().Script(), cwd: t.Process().Dir()}
}

// RunResult is the outcome of Session.Run: a Result, or, when the command
// outlived the blocking budget, a task that keeps running.
type RunResult struct {
	Result
	// Backgrounded is set when the command was moved to the background:
	// Stdout and Stderr hold the output so far, ExitCode is -1 and
	// Duration the time it has run; TaskID names the task to ask next
	// (its next ReadNew status starts after the output returned here).
	Backgrounded bool   `json:"backgrounded,omitempty"`
	TaskID       string `json:"task_id,omitempty"`
	Pid          int    `json:"pid,omitempty"`
}

// Run runs req like Guard.Run, with the foreground's /dev/null stdin, but
// when the command is still running after the session's blocking budget
// it is moved to the session's tasks instead of being killed: Run returns
// at once with Backgrounded, the task id and the output so far, and the
// command goes on until it ends or its own timeout expires. If the
// session has no room for another task, Run keeps waiting as Guard.Run
// would. Cancelling ctx before that stops the command; closing the
// session stops it too and Run returns ErrSessionClosed.
func (s *Session) Run(ctx context.Context, req Request) (res RunResult, err error) {
	opts, a, pres, err := s.g.prepare(ctx, req)
	res = RunResult{Result: pres}
	defer func() { s.g.record(req, a, res.Result, err, res.TaskID) }()
	if err != nil {
		return res, err
	}
	if err = s.useTmp(&opts); err != nil {
		return res, err
	}
	outW, errW := detachable(req.Stdout), detachable(req.Stderr)
	opts.Stdout, opts.Stderr = outW.writer(), errW.writer()
	t, err := s.table.StartUnlisted(opts)
	if err != nil {
		res.ExitCode = -1
		return res, err
	}
	var budget <-chan time.Time
	if s.budget > 0 {
		timer := time.NewTimer(s.budget)
		defer timer.Stop()
		budget = timer.C
	}
	for {
		select {
		case <-t.Done():
			rr := t.Process().Result()
			s.g.fill(&res.Result, rr)
			res.Redactions = int(a.redactions.Load())
			if t.Status(ReadOptions{}).EndedBy == EndedSessionClosed {
				return res, ErrSessionClosed
			}
			return res, rr.Err
		case <-ctx.Done():
			t.Process().Stop(runner.StopCanceled)
			<-t.Done()
			rr := t.Process().Result()
			s.g.fill(&res.Result, rr)
			res.Redactions = int(a.redactions.Load())
			if rr.Stopped == runner.StopCanceled {
				return res, ctx.Err()
			}
			return res, rr.Err
		case <-budget:
			budget = nil
			if s.table.Adopt(t) != nil {
				continue // no room (or closing): block as a foreground run
			}
			outW.detach()
			errW.detach()
			st := t.Status(ReadOptions{Mode: ReadNew})
			maxOut := s.g.cfg.MaxOutput
			if req.MaxOutput > 0 {
				maxOut = req.MaxOutput
			}
			res.Stdout, res.StdoutDroppedBytes = bound(s.g.taskText(st.Stdout), maxOut, st.StdoutDropped)
			res.Stderr, res.StderrDroppedBytes = bound(s.g.taskText(st.Stderr), maxOut, st.StderrDropped)
			res.ExitCode = -1
			res.Duration = st.Uptime.Seconds()
			res.Backgrounded = true
			res.TaskID = st.ID
			res.Pid = st.Pid
			return res, nil
		}
	}
}

// bound cuts text to max bytes (head and tail) like a Result's output.
func bound(text string, max int, dropped int64) (string, int64) {
	if len(text) <= max {
		return text, dropped
	}
	b := capture.New(max, nil)
	b.Write([]byte(text))
	r := b.Render()
	return r.Text, dropped + r.Dropped
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

// taskText is the one place task output leaves the library (statuses,
// streamed lines, backgrounded results); the output-safety stage hooks
// in here.
func (g *Guard) taskText(s string) string { return s }

// Task is a background task of a session.
type Task struct {
	g       *Guard
	t       *runner.Task
	command string
	cwd     string
}

// TaskStarted is the answer to starting a task.
type TaskStarted struct {
	TaskID    string    `json:"task_id"`
	Pid       int       `json:"pid"`
	StartedAt time.Time `json:"started_at"`
}

// TaskStatus is a snapshot of a task.
type TaskStatus struct {
	TaskID    string    `json:"task_id"`
	Command   string    `json:"command"`
	Cwd       string    `json:"cwd"`
	Pid       int       `json:"pid"`
	StartedAt time.Time `json:"started_at"`
	Stdout    string    `json:"stdout"`
	Stderr    string    `json:"stderr"`
	ExitCode  *int      `json:"exit_code"` // null while running
	// UptimeSeconds is how long it has run (until it ended, once ended).
	UptimeSeconds   float64 `json:"uptime_seconds"`
	IsRunning       bool    `json:"is_running"`
	WaitingForInput bool    `json:"waiting_for_input"`
	PTY             bool    `json:"pty,omitempty"`
	// Bytes after the read position that are not in Stdout/Stderr
	// because the output ring dropped them.
	StdoutDroppedBytes  int64 `json:"stdout_dropped_bytes"`
	StderrDroppedBytes  int64 `json:"stderr_dropped_bytes"`
	TimedOut            bool  `json:"timed_out"`
	OutputLimitExceeded bool  `json:"output_limit_exceeded,omitempty"`
	// EndedBy is empty while running, then one of the Ended constants.
	EndedBy string `json:"ended_by"`
	// Offsets just past this status's output, for ReadSince.
	StdoutOffset int64 `json:"stdout_offset"`
	StderrOffset int64 `json:"stderr_offset"`
}

// ID returns the task id.
func (t *Task) ID() string { return t.t.ID() }

// Started returns the task id, pid and start time.
func (t *Task) Started() TaskStarted {
	p := t.t.Process()
	return TaskStarted{TaskID: t.t.ID(), Pid: p.Pid(), StartedAt: p.StartedAt()}
}

// Done is closed when the task has ended and its status is final.
func (t *Task) Done() <-chan struct{} { return t.t.Done() }

// Status returns a snapshot of the task with the output o selects.
// Reading is non-destructive except that ReadNew moves the task's read
// position. Under a PTY the unfinished last line (a prompt) is always
// included.
func (t *Task) Status(o ReadOptions) TaskStatus { return t.status(t.t.Status(o)) }

func (t *Task) status(st runner.TaskStatus) TaskStatus {
	return TaskStatus{
		TaskID:              st.ID,
		Command:             t.command,
		Cwd:                 t.cwd,
		Pid:                 st.Pid,
		StartedAt:           st.StartedAt,
		Stdout:              t.g.taskText(st.Stdout),
		Stderr:              t.g.taskText(st.Stderr),
		ExitCode:            st.ExitCode,
		UptimeSeconds:       st.Uptime.Seconds(),
		IsRunning:           st.Running,
		WaitingForInput:     st.WaitingForInput,
		PTY:                 st.PTY,
		StdoutDroppedBytes:  st.StdoutDropped,
		StderrDroppedBytes:  st.StderrDropped,
		TimedOut:            st.TimedOut,
		OutputLimitExceeded: st.OutputLimitExceeded,
		EndedBy:             st.EndedBy,
		StdoutOffset:        st.Next.Stdout,
		StderrOffset:        st.Next.Stderr,
	}
}

// Kill ends the task: SIGTERM to its process group and everything it
// started, 2 s (the grace period), then SIGKILL. It returns once the task
// has ended, with everything kept of its output; EndedBy says whether
// SIGTERM sufficed (EndedSIGTERM) or SIGKILL was needed (EndedSIGKILL). A
// task that had already ended is returned as it is.
func (t *Task) Kill() TaskStatus { return t.status(t.t.Kill()) }

// WriteStdin writes text and a newline to the task's stdin (a carriage
// return under a PTY, as the Enter key sends). It fails with ErrNoStdin
// for an auto-backgrounded run (its stdin is /dev/null), ErrNotRunning
// after the task ended and ErrStdinBlocked when the task does not read
// and the pipe stays full for 5 s.
func (t *Task) WriteStdin(text string) error { return t.t.WriteStdin(text) }

// Wait blocks until the task ends, timeout passes or ctx is done, and then
// returns its status. timeout <= 0 means no bound besides ctx; a server
// should pass one below its client's request timeout.
func (t *Task) Wait(ctx context.Context, timeout time.Duration, o ReadOptions) TaskStatus {
	return t.status(t.t.Wait(ctx, timeout, o))
}

// Subscribe calls fn with each line of output matching o.Pattern as it
// appears, in order per stream, from a goroutine of its own (one call at a
// time). Delivery ends when the task has ended and every line has been
// delivered, or on Cancel. Lines are not lost unless fn falls more than
// 131 072 lines behind (then Line.Dropped counts the skipped ones).
func (t *Task) Subscribe(o SubscribeOptions, fn func(Line)) (*Subscription, error) {
	return t.t.Subscribe(o, func(l Line) {
		l.Text = t.g.taskText(l.Text)
		fn(l)
	})
}
