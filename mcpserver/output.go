package mcpserver

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shellguard/shellguard/policy"
)

// Output is the structured content of a bash tool result and the body of
// the HTTP endpoint's answer. Which fields are set depends on the mode:
// a foreground run fills the command fields, a background start or a task
// operation the task fields.
type Output struct {
	Command             string   `json:"command,omitempty"`
	Cwd                 string   `json:"cwd,omitempty"`
	Stdout              string   `json:"stdout"`
	Stderr              string   `json:"stderr"`
	ExitCode            *int     `json:"exit_code" jsonschema:"null while the command runs or when it did not run"`
	TimedOut            bool     `json:"timed_out"`
	Duration            float64  `json:"duration,omitempty" jsonschema:"seconds"`
	StdoutDroppedBytes  int64    `json:"stdout_dropped_bytes,omitempty"`
	StderrDroppedBytes  int64    `json:"stderr_dropped_bytes,omitempty"`
	OutputLimitExceeded bool     `json:"output_limit_exceeded,omitempty"`
	Decision            string   `json:"decision,omitempty" jsonschema:"allow, ask or deny; empty when no policy ran"`
	Approved            bool     `json:"approved,omitempty" jsonschema:"the user approved a command the policy asked about"`
	Reasons             []Reason `json:"reasons,omitempty"`
	Warnings            []string `json:"warnings,omitempty"`
	Sandbox             any      `json:"sandbox,omitempty" jsonschema:"what the sandbox applied"`
	Unsandboxed         bool     `json:"unsandboxed,omitempty" jsonschema:"the command ran outside the sandbox (an excluded command or an approved dangerously_disable_sandbox)"`
	TaskID              string   `json:"task_id,omitempty"`
	Pid                 int      `json:"pid,omitempty"`
	StartedAt           string   `json:"started_at,omitempty"`
	IsRunning           *bool    `json:"is_running,omitempty"`
	UptimeSeconds       *float64 `json:"uptime_seconds,omitempty"`
	WaitingForInput     *bool    `json:"waiting_for_input,omitempty"`
	Backgrounded        bool     `json:"backgrounded,omitempty" jsonschema:"the command outlived the blocking budget and now runs as task_id"`
	EndedBy             string   `json:"ended_by,omitempty" jsonschema:"how a task ended: exit, sigterm or sigkill (killed), timeout, output_limit, session_closed, error"`
	Error               string   `json:"error,omitempty"`
}

// Reason is one policy finding.
type Reason struct {
	ID       string `json:"id"`
	Decision string `json:"decision"`
	Message  string `json:"message"`
	Start    int    `json:"start" jsonschema:"byte offset of the finding in the command"`
	End      int    `json:"end"`
	Rule     string `json:"rule,omitempty"`
}

// outputSchema is built on first use: the binary also starts as the
// sandbox helper, which never serves MCP.
var outputSchema = sync.OnceValue(func() *jsonschema.Schema {
	s, err := jsonschema.For[Output](nil)
	if err != nil {
		panic(err)
	}
	return s
})

func intp(i int) *int { return &i }

func reasonsOf(v *policy.Verdict) []Reason {
	if v == nil {
		return nil
	}
	out := make([]Reason, 0, len(v.Reasons))
	for _, r := range v.Reasons {
		out = append(out, Reason{ID: r.ID, Decision: r.Decision.String(), Message: r.Message,
			Start: r.Span.Start, End: r.Span.End, Rule: r.Rule})
	}
	return out
}

func outputOfResult(r Result) *Output {
	o := &Output{
		Command:             r.Command,
		Cwd:                 r.Cwd,
		Stdout:              r.Stdout,
		Stderr:              r.Stderr,
		ExitCode:            intp(r.ExitCode),
		TimedOut:            r.TimedOut,
		Duration:            r.Duration.Seconds(),
		StdoutDroppedBytes:  r.StdoutDroppedBytes,
		StderrDroppedBytes:  r.StderrDroppedBytes,
		OutputLimitExceeded: r.OutputLimitExceeded,
		Sandbox:             r.Sandbox,
		Unsandboxed:         r.Unsandboxed,
	}
	if r.Verdict != nil {
		o.Decision = r.Verdict.Decision.String()
		o.Reasons = reasonsOf(r.Verdict)
		o.Warnings = append(o.Warnings, r.Verdict.Warnings...)
	}
	o.Warnings = append(o.Warnings, r.SandboxWarnings...)
	if r.Unsandboxed {
		o.Warnings = append(o.Warnings, "ran outside the sandbox")
	}
	if r.Task != nil {
		o.Backgrounded = true
		o.ExitCode = nil
		fillTask(o, *r.Task, false)
	}
	return o
}

func outputOfTask(t TaskStatus) *Output {
	o := &Output{Command: t.Command}
	fillTask(o, t, true)
	return o
}

func fillTask(o *Output, t TaskStatus, withOutput bool) {
	o.TaskID = t.TaskID
	o.Pid = t.Pid
	if !t.StartedAt.IsZero() {
		o.StartedAt = t.StartedAt.UTC().Format(time.RFC3339Nano)
	}
	running, waiting := t.Running, t.WaitingForInput
	up := t.Uptime.Seconds()
	o.IsRunning, o.WaitingForInput, o.UptimeSeconds = &running, &waiting, &up
	if withOutput {
		o.Stdout, o.Stderr = t.Stdout, t.Stderr
		o.StdoutDroppedBytes, o.StderrDroppedBytes = t.StdoutDroppedBytes, t.StderrDroppedBytes
		o.OutputLimitExceeded = t.OutputLimitExceeded
		o.ExitCode = t.ExitCode
		o.TimedOut = t.TimedOut
		o.EndedBy = t.EndedBy
	}
}

// text renders an output for the model.
func (o *Output) text() string {
	if o.Error != "" && o.ExitCode == nil && o.TaskID == "" {
		return o.Error // nothing ran
	}
	var b strings.Builder
	if o.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", o.Error)
	}
	switch {
	case o.TaskID != "" && o.Backgrounded:
		fmt.Fprintf(&b, "still running after the blocking budget: moved to the background as task_id %s (pid %d); ask for its status with task_id, or wait/kill it\n", o.TaskID, o.Pid)
	case o.TaskID != "":
		fmt.Fprintf(&b, "task_id %s (pid %d): ", o.TaskID, o.Pid)
		if o.IsRunning != nil && *o.IsRunning {
			fmt.Fprintf(&b, "running for %.1fs", deref(o.UptimeSeconds))
			if o.WaitingForInput != nil && *o.WaitingForInput {
				b.WriteString(", waiting for input (send stdin_text)")
			}
			b.WriteString("\n")
		} else if o.ExitCode != nil {
			fmt.Fprintf(&b, "exited with code %d%s\n", *o.ExitCode, endedBy(o.EndedBy))
		} else {
			b.WriteString("finished\n")
		}
	case o.ExitCode != nil:
		fmt.Fprintf(&b, "exit code: %d (%.3fs)\n", *o.ExitCode, o.Duration)
	}
	if o.Approved {
		b.WriteString("approved by the user\n")
	}
	if o.TimedOut {
		b.WriteString("timed out: the command and everything it started were stopped; output so far:\n")
	}
	if o.OutputLimitExceeded {
		b.WriteString("output limit exceeded: the command was stopped\n")
	}
	for _, w := range o.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	if o.Stdout == "" && o.Stderr == "" {
		if o.TaskID == "" || o.ExitCode != nil || o.Backgrounded {
			b.WriteString("(no output)\n")
		} else {
			b.WriteString("(no output yet)\n")
		}
		return b.String()
	}
	section := func(name, s string, dropped int64) {
		if s == "" {
			return
		}
		fmt.Fprintf(&b, "%s:\n%s", name, s)
		if !strings.HasSuffix(s, "\n") {
			b.WriteString("\n[no newline at end]\n")
		}
		if dropped > 0 {
			fmt.Fprintf(&b, "[%s truncated: %d bytes dropped from the middle]\n", name, dropped)
		}
	}
	section("stdout", o.Stdout, o.StdoutDroppedBytes)
	section("stderr", o.Stderr, o.StderrDroppedBytes)
	return b.String()
}

// endedBy explains how a task ended when it did not simply exit.
func endedBy(how string) string {
	switch how {
	case "sigterm":
		return " (killed: it ended after SIGTERM)"
	case "sigkill":
		return " (killed: it ignored SIGTERM and got SIGKILL)"
	case "timeout":
		return " (its timeout expired)"
	case "output_limit":
		return " (stopped: too much output)"
	case "session_closed":
		return " (stopped: the session closed)"
	case "error":
		return " (the launcher failed)"
	}
	return ""
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// denialText explains a command that was not run.
func denialText(command string, v policy.Verdict, declined bool, why, howToAllow string) string {
	var b strings.Builder
	switch {
	case why != "":
		fmt.Fprintf(&b, "NOT RUN: %s\n", why)
	case declined:
		b.WriteString("NOT RUN: the command needs the user's approval and was not approved.\n")
	default:
		b.WriteString("DENIED by the shellguard policy: the command was not run.\n")
	}
	for _, r := range v.Reasons {
		frag := ""
		if r.Span.Start >= 0 && r.Span.End > r.Span.Start && r.Span.End <= len(command) {
			frag = command[r.Span.Start:r.Span.End]
			if len(frag) > 80 {
				frag = frag[:77] + "..."
			}
			frag = fmt.Sprintf(" at %d-%d %q", r.Span.Start, r.Span.End, frag)
		}
		rule := ""
		if r.Rule != "" {
			rule = fmt.Sprintf(" (rule %q)", r.Rule)
		}
		fmt.Fprintf(&b, "- %s [%s]%s: %s%s\n", r.ID, r.Decision, frag, r.Message, rule)
	}
	for _, w := range v.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	switch {
	case declined || why != "":
		b.WriteString("Do not retry it unchanged.")
		if howToAllow == "" {
			b.WriteString(" If the user wants it to run without asking, they can add an allow rule for it to the shellguard configuration.")
		}
	default:
		b.WriteString("Do not retry it or work around it.")
		if howToAllow == "" {
			b.WriteString(" If the user wants it to run, they can allow it in the shellguard configuration (rules named above can be changed; the built-in floor cannot be lifted).")
		}
	}
	b.WriteString("\n")
	b.WriteString(howToAllow)
	return b.String()
}
