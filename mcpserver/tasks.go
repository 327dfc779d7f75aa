package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/internal/capture"
)

// listTasks is the task_id that lists the session's tasks.
const listTasks = "*"

// After stdin_text the answer waits for the task to react: for it to read
// the line, then for its next output and until it waits for input again
// or stays quiet for stdinQuiet. stdinSettle bounds a task that is slow
// to read or to answer (a loaded machine can take seconds to schedule
// it), or that answers nothing, within the blocking budget. (A task
// waiting for input again is no sign that it answered nothing: its reply
// may still be on its way through the output filters, which hold a line
// back for a moment.)
const (
	stdinSettle = 10 * time.Second
	stdinQuiet  = 150 * time.Millisecond
	stdinPoll   = 10 * time.Millisecond
)

var (
	// peek reads no output, only where the task stands.
	peek = shellguard.ReadOptions{Since: &shellguard.TaskStatus{StdoutOffset: 1 << 62, StderrOffset: 1 << 62}}
)

func (s *Server) taskOp(ctx context.Context, sess *shellguard.Session, in *input, live *progress) *mcp.CallToolResult {
	if in.TaskID == listTasks {
		return s.list(sess)
	}
	t, err := sess.Task(in.TaskID)
	if errors.Is(err, shellguard.ErrNoTask) {
		return toolError(fmt.Sprintf("task_id: no task %q in this session (task_id \"*\" lists them)", in.TaskID))
	}
	if err != nil {
		return toolError("task_id: " + err.Error())
	}
	// wait and stream block the call: bounded by the blocking budget, so
	// the answer comes before the client's request timeout.
	budget := in.Timeout
	if budget == 0 {
		budget = s.set.DefaultTimeout
	}
	if s.set.BlockingBudget > 0 {
		budget = min(budget, s.set.BlockingBudget)
	}
	// What is new since the last read, unless an offset asks to re-read.
	read := shellguard.ReadOptions{New: true}
	if in.Offset != nil {
		read = shellguard.ReadOptions{Since: &shellguard.TaskStatus{StdoutOffset: *in.Offset, StderrOffset: *in.Offset}}
	}
	var r shellguard.Result
	var warnings []string
	var streamed *capture.Buffer
	switch {
	case in.Kill:
		r = t.Kill()
	default:
		if in.StdinText != nil {
			before := t.Status(peek).Task
			// The Guard appends the newline: one the model put at the end
			// is not sent twice.
			line := strings.TrimSuffix(strings.TrimSuffix(*in.StdinText, "\n"), "\r")
			if err := t.WriteStdin(line); err != nil {
				return toolError("stdin_text: " + taskErr(err).Error())
			}
			bound := stdinSettle
			if s.set.BlockingBudget > 0 {
				bound = min(bound, s.set.BlockingBudget)
			}
			if !settle(ctx, t, before.StdoutOffset+before.StderrOffset, bound) {
				warnings = append(warnings, fmt.Sprintf("stdin_text: the task had not read the line after %s; it is in its stdin, and its reply comes with a later call", secs(bound)))
			}
		}
		switch {
		case in.Wait:
			r = t.Wait(ctx, budget, read)
		case in.Stream:
			streamed = capture.New(s.set.MaxOutput, nil)
			if err := stream(ctx, t, budget, in, live, streamed); err != nil {
				return toolError("stream: " + err.Error())
			}
			r = t.Status(shellguard.ReadOptions{New: true}) // what was streamed counts as read
		default:
			r = t.Status(read)
		}
		if (in.Wait || in.Stream) && r.Task.Running && ctx.Err() == nil {
			warnings = append(warnings, fmt.Sprintf("still running after %s (the bound of one call); call again to keep waiting", secs(budget)))
		}
	}
	if streamed != nil {
		// Progress notifications rarely reach the model: the lines that
		// were streamed are the result's stdout.
		out := streamed.Render()
		r.Stdout, r.Stderr = out.Text, ""
		r.StdoutDroppedBytes, r.StderrDroppedBytes = out.Dropped, 0
		what := "every line"
		if in.StreamPattern != nil {
			what = "the lines matching stream_pattern"
		}
		warnings = append(warnings, "stdout holds "+what+" (stderr lines prefixed [stderr]), also sent as progress notifications")
	}
	r.Warnings = append(r.Warnings, warnings...)
	return result(&r, false)
}

// settle waits, after a line was written to t's stdin, for t to read it,
// then for t's output to move past what it had written by then and for t
// to wait for input again or fall quiet; at most bound, or until t ends
// or ctx is done.
// Output written while the line was still unread answered something
// earlier and does not end the wait. It reports false when the bound
// passed with the line still unread.
func settle(ctx context.Context, t *shellguard.Task, offset int64, bound time.Duration) bool {
	deadline := time.Now().Add(bound)
	last, lastChange := offset, time.Now()
	unread := true
	for time.Now().Before(deadline) && ctx.Err() == nil {
		select {
		case <-t.Done():
			return true
		case <-ctx.Done():
			return true
		case <-time.After(stdinPoll):
		}
		st := t.Status(peek).Task
		now := st.StdoutOffset + st.StderrOffset
		unread = st.StdinUnread > 0
		if unread {
			offset = now
		}
		if now != last {
			last, lastChange = now, time.Now()
			continue
		}
		if last > offset && (st.WaitingForInput || time.Since(lastChange) >= stdinQuiet) {
			return true
		}
	}
	return !unread
}

// stream pushes t's lines (those kept, then new ones) matching the
// pattern to live and out until t ends, budget passes or ctx is done.
// Lines of stderr are prefixed "[stderr] ".
func stream(ctx context.Context, t *shellguard.Task, budget time.Duration, in *input, live *progress, out *capture.Buffer) error {
	sctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	o := shellguard.SubscribeOptions{Replay: true}
	if in.StreamPattern != nil {
		o.Pattern = in.StreamPattern.String()
	}
	lines := make(chan string, 64)
	sub, err := t.Subscribe(o, func(l shellguard.Line) {
		if l.Dropped > 0 {
			select {
			case lines <- fmt.Sprintf("[shellguard: %d lines skipped]", l.Dropped):
			case <-sctx.Done():
				return
			}
		}
		text := l.Text
		if l.Stream == "stderr" {
			text = "[stderr] " + text
		}
		select {
		case lines <- text:
		case <-sctx.Done():
		}
	})
	if err != nil {
		return err
	}
	go func() {
		select {
		case <-sub.Done():
		case <-sctx.Done():
			sub.Cancel()
			<-sub.Done()
		}
		close(lines)
	}()
	for l := range lines {
		live.push(l) // already filtered by the pattern
		out.Write([]byte(l + "\n"))
	}
	live.flush()
	return nil
}

// list answers task_id "*": one line per task of the session, in the
// result's stdout.
func (s *Server) list(sess *shellguard.Session) *mcp.CallToolResult {
	var b strings.Builder
	tasks := sess.Tasks()
	for _, t := range tasks {
		r := t.Status(peek)
		state := "running"
		switch {
		case r.Task.Running && r.Task.WaitingForInput:
			state = "waiting for input"
		case !r.Task.Running && r.ExitCode != nil:
			state = fmt.Sprintf("exited %d", *r.ExitCode)
			if r.Task.EndedBy != "" && r.Task.EndedBy != "exit" {
				state += " (" + r.Task.EndedBy + ")"
			}
		case !r.Task.Running:
			state = "did not run"
		}
		fmt.Fprintf(&b, "%s\tpid %d\t%s\t%.1fs\t%s\n", r.Task.ID, r.Task.Pid, state, r.Duration, oneLine(r.Command, 80))
	}
	r := &shellguard.Result{Stdout: b.String()}
	if len(tasks) == 0 {
		r.Warnings = []string{"no tasks in this session"}
	}
	return result(r, false)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n-3] + "..."
	}
	return s
}
