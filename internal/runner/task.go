package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/shellguard/shellguard/internal/safe"
)

// Task table defaults.
const (
	DefaultMaxTasks     = 64
	DefaultTaskLines    = 10000
	DefaultTaskBytes    = 1 << 20
	DefaultRetain       = 10 * time.Minute
	DefaultMaxFinished  = 256
	DefaultStdinTimeout = 5 * time.Second
	// MaxQueuedLines bounds the lines waiting for one slow subscriber;
	// beyond it lines are dropped and counted in Line.Dropped.
	MaxQueuedLines = 1 << 17
)

// Task table errors, for errors.Is.
var (
	ErrTooManyTasks = errors.New("too many running tasks")
	ErrNoTask       = errors.New("no such task")
	ErrTableClosed  = errors.New("task table is closed")
	ErrNoStdin      = errors.New("task has no stdin (it was not started as a background task)")
	ErrNotRunning   = errors.New("task is not running")
	ErrStdinBlocked = errors.New("task is not reading its stdin")
)

// How a task ended (TaskStatus.EndedBy).
const (
	EndedExit          = "exit"           // it exited by itself
	EndedSIGTERM       = "sigterm"        // Kill: it ended within the grace period after SIGTERM
	EndedSIGKILL       = "sigkill"        // Kill: it outlived SIGTERM and the grace period
	EndedTimeout       = "timeout"        // its timeout expired
	EndedOutputLimit   = "output_limit"   // it wrote more than the total output budget
	EndedSessionClosed = "session_closed" // the table was closed
	EndedError         = "error"          // the launcher failed after start
)

// TableOptions bound a task table. The zero value uses the defaults.
type TableOptions struct {
	MaxTasks    int           // running tasks at once; 0: DefaultMaxTasks
	MaxLines    int           // lines kept per stream of a task; 0: DefaultTaskLines
	MaxBytes    int           // bytes kept per stream of a task; 0: DefaultTaskBytes
	Retain      time.Duration // how long a finished task stays; 0: DefaultRetain
	MaxFinished int           // finished tasks kept at most; 0: DefaultMaxFinished
	// Shared, when set, also bounds the running tasks of every table
	// that shares it (one server's sessions).
	Shared *Slots
}

// Slots bound running tasks over several tables. It is safe for
// concurrent use.
type Slots struct {
	mu   sync.Mutex
	max  int
	used int
}

// NewSlots returns room for max running tasks (<= 0: DefaultMaxTasks).
func NewSlots(max int) *Slots {
	if max <= 0 {
		max = DefaultMaxTasks
	}
	return &Slots{max: max}
}

// take reserves a place; nil s always has one.
func (s *Slots) take() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used >= s.max {
		return fmt.Errorf("runner: %w: %d tasks are running over all sessions, the limit of this server; kill or wait for one first", ErrTooManyTasks, s.max)
	}
	s.used++
	return nil
}

func (s *Slots) put() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.used--
	s.mu.Unlock()
}

// Table holds the background tasks of one session. It is safe for
// concurrent use.
type Table struct {
	opts TableOptions

	mu       sync.Mutex
	next     int
	tasks    map[string]*Task
	unlisted map[*Task]struct{} // started, not (yet) in the table
	live     int                // running tasks in the table
	closed   bool
	// reaping counts started commands whose leader has not been waited
	// for yet (it may outlive its result: Launch.Ended); Close waits.
	reaping sync.WaitGroup
}

// NewTable returns an empty table.
func NewTable(o TableOptions) *Table {
	if o.MaxTasks <= 0 {
		o.MaxTasks = DefaultMaxTasks
	}
	if o.MaxLines <= 0 {
		o.MaxLines = DefaultTaskLines
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultTaskBytes
	}
	if o.Retain <= 0 {
		o.Retain = DefaultRetain
	}
	if o.MaxFinished <= 0 {
		o.MaxFinished = DefaultMaxFinished
	}
	return &Table{opts: o, tasks: map[string]*Task{}, unlisted: map[*Task]struct{}{}}
}

// Options returns the effective bounds.
func (tb *Table) Options() TableOptions { return tb.opts }

// Start starts a background task and lists it. Unless o.PTY is set the
// task gets a stdin pipe (o.Stdin is ignored). It fails with
// ErrTooManyTasks when MaxTasks tasks are running.
func (tb *Table) Start(o Options) (*Task, error) {
	if !o.PTY {
		o.StdinPipe = true
		o.Stdin = nil
	}
	tb.mu.Lock()
	if tb.closed {
		tb.mu.Unlock()
		return nil, ErrTableClosed
	}
	tb.pruneLocked(time.Now())
	if tb.live >= tb.opts.MaxTasks {
		tb.mu.Unlock()
		return nil, tb.tooMany()
	}
	if err := tb.opts.Shared.take(); err != nil {
		tb.mu.Unlock()
		return nil, err
	}
	tb.live++ // reserved while starting
	tb.mu.Unlock()

	t, err := tb.start(o, true)
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if err != nil {
		tb.live--
		tb.opts.Shared.put()
		return nil, err
	}
	tb.tasks[t.id] = t
	return t, nil
}

func (tb *Table) tooMany() error {
	return fmt.Errorf("runner: %w: %d tasks are running, the limit of this session; kill or wait for one first", ErrTooManyTasks, tb.opts.MaxTasks)
}

// StartUnlisted starts a task that is not in the table (a foreground run
// that may later be moved there with Adopt). Close still stops it.
func (tb *Table) StartUnlisted(o Options) (*Task, error) {
	tb.mu.Lock()
	if tb.closed {
		tb.mu.Unlock()
		return nil, ErrTableClosed
	}
	tb.mu.Unlock()
	t, err := tb.start(o, false)
	if err != nil {
		return nil, err
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.closed {
		t.stop(EndedSessionClosed)
	}
	if !t.isFinished() {
		tb.unlisted[t] = struct{}{}
	}
	return t, nil
}

// Adopt lists a task started with StartUnlisted. It fails with
// ErrTooManyTasks when the table is full; the task then stays unlisted.
func (tb *Table) Adopt(t *Task) error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.closed {
		return ErrTableClosed
	}
	if t.listed {
		return nil
	}
	tb.pruneLocked(time.Now())
	running := !t.isFinished()
	if running && tb.live >= tb.opts.MaxTasks {
		return tb.tooMany()
	}
	if running {
		if err := tb.opts.Shared.take(); err != nil {
			return err
		}
		tb.live++
	}
	delete(tb.unlisted, t)
	tb.nameLocked(t)
	tb.tasks[t.id] = t
	return nil
}

// nameLocked gives t its id and marks it listed. A listed task releases
// its place among the running ones when it ends.
func (tb *Table) nameLocked(t *Task) {
	tb.next++
	t.mu.Lock()
	t.id = "t" + strconv.Itoa(tb.next)
	t.mu.Unlock()
	t.listed = true
}

func (tb *Table) start(o Options, listed bool) (*Task, error) {
	t := &Task{
		table:  tb,
		pty:    o.PTY,
		stdinT: DefaultStdinTimeout,
		done:   make(chan struct{}),
	}
	for i := range t.rings {
		t.rings[i] = ring{maxBytes: tb.opts.MaxBytes, maxLines: tb.opts.MaxLines}
	}
	if o.PTY {
		t.term = &termFilter{emit: func(b []byte) { t.appendLocked(0, b) }}
	}
	if listed {
		// Named before it starts, so that finish sees it listed.
		tb.mu.Lock()
		tb.nameLocked(t)
		tb.mu.Unlock()
	}
	o.Stdout = teeTo(&streamWriter{t: t, stream: 0}, o.Stdout)
	o.Stderr = teeTo(&streamWriter{t: t, stream: 1}, o.Stderr)
	o.Reaping = &tb.reaping
	p, err := Start(o)
	if err != nil {
		return nil, err
	}
	t.proc = p
	go t.finish()
	return t, nil
}

func teeTo(w, also io.Writer) io.Writer {
	if also == nil {
		return w
	}
	return io.MultiWriter(w, also)
}

// finished is called by a listed task when it has ended.
func (tb *Table) finished(t *Task) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if t.listed {
		tb.live--
		tb.opts.Shared.put()
	}
	delete(tb.unlisted, t)
	tb.pruneLocked(time.Now())
}

// pruneLocked drops finished tasks older than Retain and the oldest beyond
// MaxFinished.
func (tb *Table) pruneLocked(now time.Time) {
	var fin []*Task
	for id, t := range tb.tasks {
		end, ok := t.endedAt()
		if !ok {
			continue
		}
		if now.Sub(end) > tb.opts.Retain {
			delete(tb.tasks, id)
			continue
		}
		fin = append(fin, t)
	}
	if len(fin) > tb.opts.MaxFinished {
		sort.Slice(fin, func(i, j int) bool {
			a, _ := fin[i].endedAt()
			b, _ := fin[j].endedAt()
			return a.Before(b)
		})
		for _, t := range fin[:len(fin)-tb.opts.MaxFinished] {
			delete(tb.tasks, t.id)
		}
	}
}

// Get returns the listed task with the given id.
func (tb *Table) Get(id string) (*Task, error) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.pruneLocked(time.Now())
	t, ok := tb.tasks[id]
	if !ok {
		return nil, fmt.Errorf("runner: %w: %q (unknown, or finished and dropped)", ErrNoTask, id)
	}
	return t, nil
}

// List returns the listed tasks, oldest first.
func (tb *Table) List() []*Task {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.pruneLocked(time.Now())
	out := make([]*Task, 0, len(tb.tasks))
	for _, t := range tb.tasks {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := strconv.Atoi(out[i].id[1:])
		b, _ := strconv.Atoi(out[j].id[1:])
		return a < b
	})
	return out
}

// Running returns the number of listed tasks still running.
func (tb *Table) Running() int {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.live
}

// Close stops every task, listed or not (SIGTERM, grace, SIGKILL, all at
// once), waits until they have ended, and refuses new ones. It is safe to
// call more than once.
func (tb *Table) Close() error {
	tb.mu.Lock()
	tb.closed = true
	var all []*Task
	for _, t := range tb.tasks {
		all = append(all, t)
	}
	for t := range tb.unlisted {
		all = append(all, t)
	}
	tb.mu.Unlock()
	for _, t := range all {
		t.stop(EndedSessionClosed)
	}
	for _, t := range all {
		<-t.done
	}
	tb.reaping.Wait()
	return nil
}

// A Task is a command in a table.
type Task struct {
	table  *Table
	id     string // guarded by mu and table.mu (both held to write)
	listed bool   // guarded by table.mu
	proc   *Process
	pty    bool
	stdinT time.Duration

	stdinMu sync.Mutex // one line at a time

	mu       sync.Mutex
	rings    [2]ring
	partial  [2][]byte // the unfinished last line of each stream, for subscribers
	term     *termFilter
	subs     []*Subscription
	cursor   Cursor // the read position for ReadNew
	stopWhy  string
	result   *Result
	endedBy  string
	finished time.Time

	done chan struct{} // closed after the result is final
}

// ID returns the task id ("t1", "t2", ...), empty while it is unlisted.
func (t *Task) ID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.id
}

// Process returns the underlying process.
func (t *Task) Process() *Process { return t.proc }

// Done is closed when the task has ended and its status is final.
func (t *Task) Done() <-chan struct{} { return t.done }

func (t *Task) isFinished() bool {
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

func (t *Task) endedAt() (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.finished, t.result != nil
}

type streamWriter struct {
	t      *Task
	stream int
}

func (w *streamWriter) Write(p []byte) (int, error) {
	t := w.t
	t.mu.Lock()
	if t.term != nil && w.stream == 0 {
		t.term.write(p)
	} else {
		t.appendLocked(w.stream, p)
	}
	t.mu.Unlock()
	return len(p), nil
}

// appendLocked adds output to a stream's ring and hands finished lines to
// the subscribers.
func (t *Task) appendLocked(stream int, p []byte) {
	t.rings[stream].write(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.partial[stream] = append(t.partial[stream], p...)
			if len(t.partial[stream]) >= maxTermLine { // an endless line: deliver in pieces
				t.lineLocked(stream, t.partial[stream])
				t.partial[stream] = t.partial[stream][:0]
			}
			return
		}
		if len(t.partial[stream]) > 0 {
			t.partial[stream] = append(t.partial[stream], p[:i]...)
			t.lineLocked(stream, t.partial[stream])
			t.partial[stream] = t.partial[stream][:0]
		} else {
			t.lineLocked(stream, p[:i])
		}
		p = p[i+1:]
	}
}

func (t *Task) lineLocked(stream int, line []byte) {
	if len(t.subs) == 0 {
		return
	}
	// Matching here, on the pipe reader, slows the command down through
	// its pipe rather than filling the queues with lines nobody wants.
	var s string
	for _, sub := range t.subs {
		if sub.re != nil && !sub.re.Match(line) {
			continue
		}
		if s == "" {
			s = string(line)
		}
		sub.push(Line{Stream: streamName(stream), Text: s})
	}
}

func streamName(i int) string {
	if i == 0 {
		return "stdout"
	}
	return "stderr"
}

// finish records the end of the task.
func (t *Task) finish() {
	settled, counted := false, false
	defer safe.Recover("a task's goroutine", nil, func(e error) {
		// the task ends with the error, and whoever waits for it is told
		if !settled {
			t.mu.Lock()
			t.result = &Result{Err: e}
			t.finished = time.Now()
			t.endedBy = EndedError
			subs := t.subs
			t.subs = nil
			t.mu.Unlock()
			for _, s := range subs {
				s.close()
			}
		}
		if !counted {
			t.table.finished(t)
		}
		close(t.done)
	})
	<-t.proc.Done()
	safe.Point("task")
	res := t.proc.Result()
	t.mu.Lock()
	defer func() {
		if !settled {
			t.mu.Unlock()
		}
	}()
	if t.term != nil && t.term.pending() != "" {
		t.appendLocked(0, []byte(t.term.pending()))
		t.term.line = t.term.line[:0]
	}
	for i := range t.partial {
		if len(t.partial[i]) > 0 {
			t.lineLocked(i, t.partial[i])
			t.partial[i] = nil
		}
	}
	t.result = &res
	t.finished = time.Now()
	switch {
	case t.stopWhy == EndedSessionClosed && res.Stopped != NotStopped:
		t.endedBy = EndedSessionClosed
	case res.Err != nil:
		t.endedBy = EndedError
	case res.Stopped == StopTimeout:
		t.endedBy = EndedTimeout
	case res.Stopped == StopOutputLimit:
		t.endedBy = EndedOutputLimit
	case res.Stopped == StopKilled || res.Stopped == StopCanceled:
		t.endedBy = EndedSIGTERM
		if res.Forced {
			t.endedBy = EndedSIGKILL
		}
	default:
		t.endedBy = EndedExit
	}
	subs := t.subs
	t.subs = nil
	settled = true
	t.mu.Unlock()
	for _, s := range subs {
		s.close()
	}
	counted = true
	t.table.finished(t)
	close(t.done)
}

func (t *Task) stop(why string) {
	t.mu.Lock()
	if t.stopWhy == "" && t.result == nil {
		t.stopWhy = why
	}
	t.mu.Unlock()
	r := StopKilled
	if why == EndedSessionClosed {
		r = StopCanceled
	}
	t.proc.Stop(r)
}

// Script returns the command's script as requested.
func (p *Process) Script() string { return p.opts.Script }

// Dir returns the command's working directory.
func (p *Process) Dir() string { return p.opts.Dir }

// Tag returns Options.Tag.
func (p *Process) Tag() any { return p.opts.Tag }

// Cursor is a read position in a task's output: bytes of each stream.
type Cursor struct {
	Stdout int64
	Stderr int64
}

// ReadMode selects the output a status carries.
type ReadMode int

const (
	ReadAll   ReadMode = iota // everything kept; does not move the task's cursor
	ReadNew                   // what is new since the last ReadNew; moves the cursor
	ReadSince                 // what is new since ReadOptions.Since; does not move the cursor
)

// ReadOptions select what Status returns.
type ReadOptions struct {
	Mode  ReadMode
	Since Cursor // for ReadSince
}

// TaskStatus is a snapshot of a task.
type TaskStatus struct {
	ID              string
	Pid             int
	StartedAt       time.Time
	Stdout, Stderr  string
	Running         bool
	ExitCode        *int // nil while running, and when the command never ran (Result.NotRun)
	Uptime          time.Duration
	WaitingForInput bool
	// StdinUnread: bytes written to the stdin pipe the task has not read.
	StdinUnread int
	// Bytes written (after the read position) that the status does not
	// carry because the ring dropped them.
	StdoutDropped, StderrDropped int64
	TimedOut                     bool
	OutputLimitExceeded          bool
	EndedBy                      string // "" while running; see the Ended constants
	PTY                          bool
	// Next is the cursor after this status's output, for ReadSince.
	Next Cursor
}

// Status returns a snapshot. Under a PTY the unfinished last line (such as
// a prompt) is always appended to Stdout, but it is not consumed by
// ReadNew until it ends.
func (t *Task) Status(o ReadOptions) TaskStatus {
	waiting, stdin := false, false
	if !t.isFinished() && (t.proc.stdinID != "") {
		waiting, stdin = t.proc.WaitingForInput(), true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	from := Cursor{}
	switch o.Mode {
	case ReadNew:
		from = t.cursor
	case ReadSince:
		from = o.Since
	}
	out, outDrop := t.rings[0].since(from.Stdout)
	errb, errDrop := t.rings[1].since(from.Stderr)
	next := Cursor{Stdout: t.rings[0].end(), Stderr: t.rings[1].end()}
	// After the offsets: input still unread now was unread when the
	// output up to next was written, so that output did not answer it.
	unread := 0
	if stdin {
		unread = t.proc.StdinPending()
	}
	if o.Mode == ReadNew {
		t.cursor = next
	}
	st := TaskStatus{
		ID:              t.id,
		Pid:             t.proc.Pid(),
		StartedAt:       t.proc.StartedAt(),
		Stdout:          toValidText(out),
		Stderr:          toValidText(errb),
		StdoutDropped:   outDrop,
		StderrDropped:   errDrop,
		PTY:             t.pty,
		Next:            next,
		Running:         t.result == nil,
		WaitingForInput: waiting && t.result == nil,
		StdinUnread:     unread,
		EndedBy:         t.endedBy,
	}
	if t.term != nil {
		st.Stdout += t.term.pending()
	}
	if t.result != nil {
		if !t.result.NotRun {
			code := t.result.ExitCode
			st.ExitCode = &code
		}
		st.Uptime = t.result.Duration
		st.TimedOut = t.result.TimedOut
		st.OutputLimitExceeded = t.result.OutputLimitExceeded
	} else {
		st.Uptime = time.Since(st.StartedAt)
	}
	return st
}

func toValidText(b []byte) string {
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}

// Kill stops the task: SIGTERM to its process group and every process it
// started, the grace period, then SIGKILL. It waits until the task has
// ended and returns its status; EndedBy says whether SIGTERM sufficed. A
// task that had already ended is returned as it is.
func (t *Task) Kill() TaskStatus {
	t.stop(EndedSIGTERM)
	<-t.done
	return t.Status(ReadOptions{})
}

// WriteStdin writes text and a newline (a carriage return under a PTY,
// as the Enter key sends) to the task's stdin. It fails with ErrNoStdin
// for a task without a stdin pipe, ErrNotRunning once the task has ended
// and ErrStdinBlocked when the pipe stays full (the task is not reading).
func (t *Task) WriteStdin(text string) error {
	f := t.proc.Stdin()
	if f == nil {
		return ErrNoStdin
	}
	if t.isFinished() {
		return ErrNotRunning
	}
	eol := "\n"
	if t.pty {
		eol = "\r"
	}
	t.stdinMu.Lock()
	defer t.stdinMu.Unlock()
	f.SetWriteDeadline(time.Now().Add(t.stdinT))
	_, err := f.WriteString(text + eol)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("runner: %w: stdin stayed full for %v", ErrStdinBlocked, t.stdinT)
	case errors.Is(err, os.ErrClosed), t.isFinished():
		return ErrNotRunning
	}
	return fmt.Errorf("runner: write stdin: %w", err)
}

// Wait blocks until the task ends, timeout passes (<= 0: no bound) or ctx
// is done, and returns the status (with everything kept, as ReadAll).
func (t *Task) Wait(ctx context.Context, timeout time.Duration, o ReadOptions) TaskStatus {
	var tc <-chan time.Time
	if timeout > 0 {
		tm := time.NewTimer(timeout)
		defer tm.Stop()
		tc = tm.C
	}
	select {
	case <-t.done:
	case <-tc:
	case <-ctx.Done():
	}
	return t.Status(o)
}

// Line is a line of a task's output delivered to a subscriber, without
// its newline.
type Line struct {
	Stream string `json:"stream"` // "stdout" or "stderr"
	Text   string `json:"text"`
	// Dropped counts matching lines skipped before this one because
	// the subscriber fell more than MaxQueuedLines behind.
	Dropped int `json:"dropped,omitempty"`
}

// SubscribeOptions select the lines a subscriber gets.
type SubscribeOptions struct {
	// Pattern is a regular expression (RE2) a line must match; empty:
	// every line.
	Pattern string
	// Replay first delivers the complete lines still kept in the output
	// rings (stdout, then stderr), so nothing written before the
	// subscription is missed.
	Replay bool
}

// Subscription delivers lines to one callback, in order, from its own
// goroutine.
type Subscription struct {
	re      *regexp.Regexp
	fn      func(Line)
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []Line
	dropped int
	closed  bool // no more lines will come
	cancel  bool // deliver nothing more
	done    chan struct{}
	task    *Task
}

// Subscribe calls fn with every line of the task's output matching the
// pattern as it appears, in order and without loss unless the callback
// falls MaxQueuedLines behind. fn runs on a goroutine of its own, one call
// at a time; it ends after the task has ended and every line was
// delivered, or after Cancel.
func (t *Task) Subscribe(o SubscribeOptions, fn func(Line)) (*Subscription, error) {
	var re *regexp.Regexp
	if o.Pattern != "" {
		var err error
		if re, err = regexp.Compile(o.Pattern); err != nil {
			return nil, fmt.Errorf("runner: stream pattern: %w", err)
		}
	}
	s := &Subscription{re: re, fn: fn, done: make(chan struct{}), task: t}
	s.cond = sync.NewCond(&s.mu)
	t.mu.Lock()
	if o.Replay {
		for i := range t.rings {
			for _, l := range bytes.SplitAfter(t.rings[i].completeLines(), []byte{'\n'}) {
				if len(l) == 0 {
					continue
				}
				l = l[:len(l)-1]
				if re == nil || re.Match(l) {
					s.push(Line{Stream: streamName(i), Text: string(l)})
				}
			}
		}
	}
	if t.result != nil {
		s.closed = true
	} else {
		t.subs = append(t.subs, s)
	}
	t.mu.Unlock()
	go s.deliver()
	return s, nil
}

func (s *Subscription) push(l Line) {
	s.mu.Lock()
	if len(s.queue) >= MaxQueuedLines {
		s.dropped++
	} else {
		if s.dropped > 0 {
			l.Dropped, s.dropped = s.dropped, 0
		}
		s.queue = append(s.queue, l)
		if len(s.queue) == 1 {
			s.cond.Signal()
		}
	}
	s.mu.Unlock()
}

func (s *Subscription) close() {
	s.mu.Lock()
	s.closed = true
	s.cond.Signal()
	s.mu.Unlock()
}

func (s *Subscription) deliver() {
	defer close(s.done)
	var batch []Line
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && !s.closed && !s.cancel {
			s.cond.Wait()
		}
		if s.cancel || (len(s.queue) == 0 && s.closed) {
			s.mu.Unlock()
			return
		}
		batch, s.queue = s.queue, batch[:0]
		s.mu.Unlock()
		for _, l := range batch {
			s.fn(l)
		}
		clear(batch)
	}
}

// Cancel stops delivery; it does not wait for a callback in progress.
func (s *Subscription) Cancel() {
	t := s.task
	t.mu.Lock()
	for i, x := range t.subs {
		if x == s {
			t.subs = append(t.subs[:i], t.subs[i+1:]...)
			break
		}
	}
	t.mu.Unlock()
	s.mu.Lock()
	s.cancel = true
	s.cond.Signal()
	s.mu.Unlock()
}

// Done is closed when the subscription has delivered its last line.
func (s *Subscription) Done() <-chan struct{} { return s.done }
