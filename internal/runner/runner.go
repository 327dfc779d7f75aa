// Package runner starts bash commands and makes sure they end.
//
// A command runs as `bash -p -c SCRIPT` in its own process group with stdin
// from /dev/null (or a pipe the caller supplies), an environment built from
// an allow-list, and stdout and stderr drained concurrently into bounded
// head+tail buffers. On timeout, cancellation or a runaway output flood the
// whole group gets SIGTERM, a grace period, then SIGKILL; when the command
// ends, every process it started is killed, including ones that left the
// group with setsid or a double fork (found through the child-subreaper
// attribute or a per-run marker in their environment).
//
// The package does not decide whether a command may run; that is the
// policy's job. It does not apply the sandbox itself either: a Launcher
// (see package sandbox) may wrap the command.
package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/shellguard/shellguard/internal/capture"
	"github.com/shellguard/shellguard/internal/steptime"
)

// Limits on timeouts.
const (
	DefaultTimeout = 120 * time.Second
	MaxTimeout     = 1800 * time.Second // the hard ceiling any configuration may reach
	DefaultGrace   = 2 * time.Second
)

// DefaultMaxTotal is the default total-output budget of one command.
const DefaultMaxTotal = 1 << 30

// drainLimit bounds how long the output of a finished command may keep
// trickling in after everything it started was killed.
const drainLimit = 10 * time.Second

// MarkerVar names the environment variable that tags every process of a run.
const MarkerVar = "SHELLGUARD_RUN"

// ErrBadCwd is returned (wrapped) when the working directory is missing or
// not a directory. Nothing is started.
var ErrBadCwd = errors.New("invalid working directory")

// Options describe one command.
type Options struct {
	Script  string        // passed to bash as one argument
	Dir     string        // working directory; must exist
	Env     []string      // the complete environment (see BuildEnv)
	Stdin   *os.File      // nil: /dev/null (unless StdinPipe or PTY)
	Timeout time.Duration // 0: DefaultTimeout
	Grace   time.Duration // SIGTERM→SIGKILL delay; 0: DefaultGrace

	MaxOutput int   // bytes kept per stream; 0: capture.DefaultMax
	MaxTotal  int64 // total bytes before the command is stopped; 0: DefaultMaxTotal, <0: none

	// Stdout and Stderr, when set, also receive every byte as it arrives
	// (for live streaming). They must not block for long.
	Stdout io.Writer
	Stderr io.Writer

	// MergeStderr sends the command's stderr into its stdout pipe, so
	// that both arrive in the order the command wrote them: everything is
	// then stdout (and goes to Stdout); stderr stays empty.
	MergeStderr bool

	// Filter, when set, is put in front of each stream's capture and tee
	// (e.g. secret redaction), so nothing unfiltered is kept or streamed.
	// It is closed when the stream ends, to flush what it holds back.
	Filter func(io.Writer) io.WriteCloser

	// StdinPipe gives the command a pipe as stdin whose write end is
	// Process.Stdin; it stays open until the command has ended.
	StdinPipe bool
	// PTY runs the command on a new pseudo-terminal (its own session with
	// the terminal as controlling tty): stdin, stdout and stderr all go
	// through it, so everything arrives as stdout, and Process.Stdin
	// writes to the terminal. Not supported on Windows.
	PTY bool
	// PTYRows and PTYCols size the terminal; 0: 24 and 120.
	PTYRows, PTYCols uint16

	// Launcher, when set, builds the process instead of a plain bash
	// (the sandbox). It must return a command that runs `bash -p -c script`.
	Launcher Launcher

	// Tag is the caller's own data about the command, returned by
	// Process.Tag (the runner does not look at it).
	Tag any

	// Reaping, when set, counts the started command until its leader has
	// been waited for (Process.Reaped), which can be after the result is
	// final; a caller that must leave no process behind waits on it.
	Reaping *sync.WaitGroup
}

// A Launcher builds the command that runs a script, e.g. inside a sandbox.
type Launcher interface {
	// Command returns an unstarted command. Setpgid must be set (the
	// runner sets it when SysProcAttr is nil). Started is called right
	// after a successful Start; Report after the process has been started
	// returns what the launcher wants to attach to the result (e.g. the
	// sandbox layers applied) or an error, in which case the run is
	// stopped and the error returned.
	Command(script string, env []string, dir string) (Launch, error)
}

// Launch is a command built by a Launcher.
type Launch struct {
	Cmd     *exec.Cmd
	Started func()
	Report  func() (any, error)
	Close   func()
	// StartFailed, when set, is told that Cmd.Start failed; if it returns
	// true the runner asks the Launcher for a new command and starts that
	// one instead (once). The sandbox uses it to fall back when the kernel
	// refuses to create namespaces.
	StartFailed func(error) bool
	// Send, when set, means Cmd is already running (a warm sandbox helper
	// waiting for its command): instead of starting it, the runner hands
	// it the command's stdin, stdout and stderr. Everything else — the
	// process group, timeout, kill and wait — is as for a started Cmd.
	// A PTY cannot be handed over: such a launch is refused with a PTY.
	Send func(stdin, stdout, stderr *os.File) error
	// Ended, when set, blocks until the leader reports how the command
	// ended before it has exited itself (ok), or until it can no longer
	// do so (not ok: the status is then the leader's own, from its exit).
	// With ok, every process of the command has ended: the result is
	// final without waiting for the leader's exit, which is waited for
	// in the background and then told to Reaped.
	Ended  func() (code int, ok bool)
	Reaped func()
	// Contained, when set, is asked once the leader has been reaped: true
	// means every process the command started lived in a namespace that
	// ended with the leader (the sandbox's pid namespace, whose pid 1 the
	// leader is), so none can be left and the search for escapees is
	// skipped.
	Contained func() bool
	// Tree, when set, returns the pid the command's processes descend
	// from when that is not Cmd's (a sandbox helper started by another
	// process on Cmd's behalf), or 0.
	Tree func() int
}

// StopReason says why the runner ended a command early.
type StopReason int

const (
	NotStopped StopReason = iota
	StopTimeout
	StopCanceled
	StopOutputLimit
	StopKilled
)

func (s StopReason) String() string {
	return [...]string{"", "timeout", "canceled", "output limit exceeded", "killed"}[s]
}

// Result is what a finished command left behind.
type Result struct {
	Pid                 int
	ExitCode            int // 128+n for a signal death, also when the runner stopped it
	Stopped             StopReason
	TimedOut            bool
	OutputLimitExceeded bool
	Duration            time.Duration
	Stdout              capture.Rendered
	Stderr              capture.Rendered
	Launch              any   // what the Launcher reported, if any
	Err                 error // a failure after start (e.g. the launcher failed)
	// NotRun: the launcher failed before the command ran (Err says
	// why); ExitCode is then the launcher's, not the command's.
	NotRun bool
	// Forced reports that the runner had to SIGKILL the command: the
	// leader outlived the grace period and did not end by SIGTERM.
	Forced bool
}

// Process is a started command.
type Process struct {
	opts    Options
	cmd     *exec.Cmd
	launch  Launch
	marker  string
	start   time.Time
	stdout  *capture.Buffer
	stderr  *capture.Buffer
	budget  *capture.Budget
	readers sync.WaitGroup
	pipes   []io.ReadCloser // our read ends
	stdin   *os.File        // our write end of the stdin pipe, or the pty master
	stdinID string          // what /proc/PID/fd/N of the command's stdin links to
	forced  atomic.Bool
	read    atomic.Int64 // bytes drained so far
	sinking atomic.Int32 // drains passing a chunk on (Output.Busy)

	exited chan struct{} // the leader has been reaped, or has reported (Launch.Ended)
	reaped chan struct{} // the leader has been reaped
	done   chan struct{} // everything is over; result is set
	// ended: the leader reported code before its exit (Launch.Ended).
	ended  bool
	code   int
	stopMu sync.Mutex
	stop   StopReason
	stopCh chan StopReason

	waitErr error
	result  Result
}

func bashPath() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/bash"
}

var bashOnce = sync.OnceValue(bashPath)

func newMarker() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Start validates the options and starts the command. It returns an error
// only when nothing was started.
func Start(o Options) (*Process, error) {
	if o.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("runner: %w: %v", ErrBadCwd, err)
		}
		o.Dir = wd
	}
	st, err := os.Stat(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("runner: %w: %s: %v", ErrBadCwd, o.Dir, unwrapPathErr(err))
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("runner: %w: %s: not a directory", ErrBadCwd, o.Dir)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Timeout > MaxTimeout {
		o.Timeout = MaxTimeout
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.MaxTotal == 0 {
		o.MaxTotal = DefaultMaxTotal
	}
	p := &Process{
		opts:   o,
		marker: newMarker(),
		exited: make(chan struct{}),
		reaped: make(chan struct{}),
		done:   make(chan struct{}),
		stopCh: make(chan StopReason, 1),
	}
	p.budget = &capture.Budget{Max: o.MaxTotal, OnExceed: func() { p.requestStop(StopOutputLimit) }}
	// The budget counts the bytes the command wrote, before any filter:
	// output a filter removes (terminal escape sequences) still counts.
	p.stdout = capture.New(o.MaxOutput, nil)
	p.stderr = capture.New(o.MaxOutput, nil)

	env := append(append([]string(nil), o.Env...), MarkerVar+"="+p.marker)
	for attempt := 0; ; attempt++ {
		if o.Launcher != nil {
			l, err := o.Launcher.Command(o.Script, env, o.Dir)
			if err != nil {
				return nil, err
			}
			p.launch = l
			p.cmd = l.Cmd
		} else {
			p.cmd = exec.Command(bashOnce(), "-p", "-c", o.Script)
			p.cmd.Env = env
			p.cmd.Dir = o.Dir
		}
		var tty *os.File // the child's end of the terminal or stdin pipe
		closeAll := func(fs ...*os.File) {
			for _, f := range fs {
				if f != nil {
					f.Close()
				}
			}
		}
		if o.PTY && p.launch.Send != nil {
			err := errors.New("runner: a started process cannot be moved onto a pty")
			if attempt == 0 && p.launch.StartFailed != nil && p.launch.StartFailed(err) {
				continue
			}
			p.closeLaunch()
			return nil, err
		}
		switch {
		case o.PTY:
			master, slave, err := openPTY(p.cmd, o.PTYRows, o.PTYCols)
			if err != nil {
				p.closeLaunch()
				return nil, fmt.Errorf("runner: pty: %w", err)
			}
			p.stdin, tty, p.stdinID = master, slave, slave.Name()
		case o.StdinPipe:
			r, w, err := os.Pipe()
			if err != nil {
				p.closeLaunch()
				return nil, fmt.Errorf("runner: %w", err)
			}
			p.stdin, tty = w, r
			p.stdinID, _ = os.Readlink(fmt.Sprintf("/proc/self/fd/%d", r.Fd()))
			p.cmd.Stdin = r
			setProcessGroup(p.cmd)
		default:
			setProcessGroup(p.cmd)
			if o.Stdin != nil {
				p.cmd.Stdin = o.Stdin
			}
		}

		var outR, errR io.ReadCloser
		var outW, errW *os.File
		closeReaders := func() {
			for _, r := range p.pipes {
				r.Close()
			}
		}
		if o.PTY {
			// Everything the command writes arrives through the master.
			p.pipes = []io.ReadCloser{p.stdin}
		} else {
			if outR, outW, err = outputPipe(); err != nil {
				closeAll(p.stdin, tty)
				p.closeLaunch()
				return nil, fmt.Errorf("runner: %w", err)
			}
			if o.MergeStderr {
				// One pipe for both: the reader sees them in the order
				// the command wrote them.
				p.cmd.Stdout, p.cmd.Stderr = outW, outW
				p.pipes = []io.ReadCloser{outR}
			} else {
				if errR, errW, err = outputPipe(); err != nil {
					outR.Close()
					closeAll(outW, p.stdin, tty)
					p.closeLaunch()
					return nil, fmt.Errorf("runner: %w", err)
				}
				p.cmd.Stdout, p.cmd.Stderr = outW, errW
				p.pipes = []io.ReadCloser{outR, errR}
			}
		}

		p.start = time.Now()
		steptime.Mark("runner.pipes")
		if p.launch.Send != nil {
			err = p.send(tty, outW, errW)
		} else {
			err = startTracked(p.cmd)
		}
		steptime.Mark("runner.start")
		closeAll(outW, errW, tty)
		if err != nil {
			closeReaders() // under a pty, p.stdin
			closeAll(p.stdin)
			p.stdin, p.stdinID = nil, ""
			if attempt == 0 && p.launch.StartFailed != nil && p.launch.StartFailed(err) {
				continue // the launcher fell back to something that can start
			}
			p.closeLaunch()
			return nil, fmt.Errorf("runner: start bash: %w", err)
		}
		break
	}
	if p.launch.Started != nil {
		p.launch.Started()
	}
	if o.PTY {
		p.readers.Add(1)
		go p.drain(p.stdin, p.stdout, o.Stdout)
	} else if o.MergeStderr {
		p.readers.Add(1)
		go p.drain(p.pipes[0], p.stdout, o.Stdout)
	} else {
		p.readers.Add(2)
		go p.drain(p.pipes[0], p.stdout, o.Stdout)
		go p.drain(p.pipes[1], p.stderr, o.Stderr)
	}
	if o.Reaping != nil {
		o.Reaping.Add(1)
	}
	go p.wait()
	go p.supervise()
	return p, nil
}

// send hands an already started launch its stdin (the pipe's read end,
// Options.Stdin, or /dev/null), stdout and stderr.
func (p *Process) send(stdin, stdout, stderr *os.File) error {
	if stdin == nil {
		stdin = p.opts.Stdin
	}
	if stdin == nil {
		null, err := os.Open(os.DevNull)
		if err != nil {
			return err
		}
		defer null.Close()
		stdin = null
	}
	if stderr == nil {
		stderr = stdout // MergeStderr: one pipe for both
	}
	return sendTracked(p.cmd, func() error { return p.launch.Send(stdin, stdout, stderr) })
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (p *Process) closeLaunch() {
	if p.launch.Close != nil {
		p.launch.Close()
	}
}

// Pid returns the process id of the command's leader.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// StartedAt returns when the command was started.
func (p *Process) StartedAt() time.Time { return p.start }

// Done is closed when the command and everything it started have ended
// and the result is final.
func (p *Process) Done() <-chan struct{} { return p.done }

// Result returns the final result; it blocks until Done.
func (p *Process) Result() Result {
	<-p.done
	return p.result
}

// Stdin returns the write end of the command's stdin (Options.StdinPipe)
// or the terminal's master side (Options.PTY), nil otherwise. It is closed
// when the command has ended; writes after that fail with os.ErrClosed.
func (p *Process) Stdin() *os.File { return p.stdin }

// Output returns the output captured so far.
func (p *Process) Output() (stdout, stderr capture.Rendered) {
	return p.stdout.Render(), p.stderr.Render()
}

// Stop ends the command: SIGTERM to everything it started, the grace
// period, then SIGKILL. It returns at once; wait on Done.
func (p *Process) Stop(reason StopReason) { p.requestStop(reason) }

func (p *Process) requestStop(r StopReason) {
	select {
	case p.stopCh <- r:
	default:
	}
}

func (p *Process) drain(r io.Reader, buf *capture.Buffer, tee io.Writer) {
	defer p.readers.Done()
	Output{Buffer: buf, Tee: tee, Budget: p.budget, Filter: p.opts.Filter, Read: &p.read, Busy: &p.sinking}.Copy(r)
}

func (p *Process) wait() {
	if p.launch.Ended != nil {
		if code, ok := p.launch.Ended(); ok {
			p.ended, p.code = true, code
			close(p.exited)
			// A leader that outlives its report by endedGrace is
			// killed (Kill goes by pidfd: never to a reused pid).
			t := time.AfterFunc(endedGrace, func() { p.cmd.Process.Kill() })
			p.waitErr = p.cmd.Wait()
			t.Stop()
			forgetLeader(p.cmd.Process.Pid)
			if p.launch.Reaped != nil {
				p.launch.Reaped()
			}
			p.reapedNow()
			return
		}
	}
	p.waitErr = p.cmd.Wait()
	forgetLeader(p.cmd.Process.Pid)
	close(p.exited)
	p.reapedNow()
}

// endedGrace is how long a leader that reported the command's end may
// stay before it is killed (a variable for tests).
var endedGrace = 5 * time.Second

func (p *Process) reapedNow() {
	close(p.reaped)
	if p.opts.Reaping != nil {
		p.opts.Reaping.Done()
	}
}

// Reaped is closed once the command's leader has been waited for, which
// can be after Done when the leader reported how the command ended
// before its own exit (Launch.Ended).
func (p *Process) Reaped() <-chan struct{} { return p.reaped }

// supervise enforces the timeout and stop requests, then cleans up.
func (p *Process) supervise() {
	timer := time.NewTimer(p.opts.Timeout)
	defer timer.Stop()

	var launchInfo any
	var launchErr error
	if p.launch.Report != nil {
		// The launcher reports once its helper has set up (or failed to).
		type rep struct {
			v   any
			err error
		}
		ch := make(chan rep, 1)
		go func() { v, err := p.launch.Report(); ch <- rep{v, err} }()
		select {
		case r := <-ch:
			launchInfo, launchErr = r.v, r.err
		case <-p.exited:
			r := <-ch
			launchInfo, launchErr = r.v, r.err
		}
		if launchErr != nil {
			p.setStop(StopKilled)
			p.kill(true)
		}
	}

	select {
	case <-p.exited:
	case <-timer.C:
		p.setStop(StopTimeout)
		p.terminate()
	case r := <-p.stopCh:
		p.setStop(r)
		if r == StopOutputLimit {
			p.kill(true) // a flood gets no grace period
		} else {
			p.terminate()
		}
	}
	<-p.exited
	steptime.Mark("runner.exited")
	// The leader is gone: nothing it started may outlive it.
	switch {
	case p.ended && p.launch.Contained != nil && p.launch.Contained():
		// It reported the end of the command (Launch.Ended): every
		// process of its namespace has ended. It may stay a while
		// itself (a warm sandbox helper, until released); wait
		// watches it.
	case p.launch.Contained != nil && p.launch.Contained():
		p.killGroup() // its process group, as kill does
	default:
		p.kill(true)
	}
	steptime.Mark("runner.kill")

	// Wait for the pipes; escapees we could not find may hold them open.
	drained := make(chan struct{})
	go func() { p.readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(500 * time.Millisecond):
		p.kill(true)
		// Everything we can find is dead now, so what still flows is the
		// rest of the pipe buffer reaching a slow reader (a busy tee):
		// wait while it makes progress, for a bounded time.
		limit := time.Now().Add(drainLimit)
		for {
			last := p.read.Load()
			select {
			case <-drained:
			case <-time.After(500 * time.Millisecond):
				if (p.read.Load() != last || p.sinking.Load() > 0) && time.Now().Before(limit) {
					continue
				}
				for _, f := range p.pipes {
					f.Close() // unblocks the readers
				}
				<-drained
			}
			break
		}
	}
	for _, f := range p.pipes {
		f.Close()
	}
	if p.stdin != nil {
		p.stdin.Close() // after the pipes: under a PTY it is one of them
	}
	steptime.Mark("runner.drained")
	p.closeLaunch()
	steptime.Mark("runner.close")

	res := Result{
		Pid:      p.cmd.Process.Pid,
		Duration: time.Since(p.start),
		Stdout:   p.stdout.Render(),
		Stderr:   p.stderr.Render(),
		Launch:   launchInfo,
		Err:      launchErr,
		NotRun:   launchErr != nil,
	}
	res.Stopped = p.getStop()
	if p.ended {
		res.ExitCode = p.code
	} else {
		res.ExitCode = exitCode(p.cmd.ProcessState)
	}
	// The grace period passing says only that the leader's end was not seen
	// in time; on a loaded machine the reaper runs late. A fatal SIGTERM is
	// recorded when it is sent, so a leader whose status is SIGTERM's was
	// ended by it, whatever the clock said.
	res.Forced = p.forced.Load() && res.ExitCode != 128+int(syscall.SIGTERM)
	switch res.Stopped {
	case StopTimeout:
		res.TimedOut = true
	case StopOutputLimit:
		res.OutputLimitExceeded = true
	}
	if p.budget.Exceeded() {
		res.OutputLimitExceeded = true
	}
	p.result = res
	close(p.done)
}

func (p *Process) setStop(r StopReason) {
	p.stopMu.Lock()
	if p.stop == NotStopped {
		p.stop = r
	}
	p.stopMu.Unlock()
}

func (p *Process) getStop() StopReason {
	p.stopMu.Lock()
	defer p.stopMu.Unlock()
	return p.stop
}

// terminate sends SIGTERM to everything, waits up to the grace period for
// the leader, then SIGKILLs everything.
func (p *Process) terminate() {
	p.kill(false)
	select {
	case <-p.exited:
	case <-time.After(p.opts.Grace):
		p.forced.Store(true)
	}
	p.kill(true)
}

// Run starts a command and waits for it. Cancelling ctx stops the command
// (SIGTERM, grace, SIGKILL) and returns its partial result with ctx's error.
// A command that ran, whatever its exit code, is a result, not an error.
func Run(ctx context.Context, o Options) (Result, error) {
	p, err := Start(o)
	if err != nil {
		return Result{}, err
	}
	select {
	case <-p.Done():
	case <-ctx.Done():
		p.Stop(StopCanceled)
		<-p.Done()
		r := p.Result()
		if r.Stopped == StopCanceled {
			return r, ctx.Err()
		}
		return r, r.Err
	}
	r := p.Result()
	return r, r.Err
}
