package mcpserver

import (
	"fmt"
	"strings"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/policy"
)

// text renders a result for the model.
func text(o *shellguard.Result) string {
	t := o.Task
	if o.Error != "" && o.ExitCode == nil && t == nil {
		return o.Error // nothing ran
	}
	var b strings.Builder
	if o.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", o.Error)
	}
	switch {
	case t != nil && t.Backgrounded && t.Running:
		fmt.Fprintf(&b, "still running after the blocking budget: moved to the background as task_id %s (pid %d); ask for its status with task_id, or wait/kill it\n", t.ID, t.Pid)
	case t != nil:
		fmt.Fprintf(&b, "task_id %s (pid %d): ", t.ID, t.Pid)
		if t.Running {
			fmt.Fprintf(&b, "running for %.1fs", o.Duration)
			if t.WaitingForInput {
				b.WriteString(", waiting for input (send stdin_text)")
			}
			b.WriteString("\n")
		} else if o.ExitCode != nil {
			fmt.Fprintf(&b, "exited with code %d%s\n", *o.ExitCode, endedBy(t.EndedBy))
		} else {
			b.WriteString("did not run\n") // the launcher failed: the error says why
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
	for _, w := range o.SandboxWarnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	if o.Stdout == "" && o.Stderr == "" {
		if t == nil || o.ExitCode != nil || t.Backgrounded {
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

// denialText explains a command that was not run: why is set when it was
// asked about and not approved, howToAllow is policy.Suggest's advice.
func denialText(command string, v policy.Verdict, why, howToAllow string) string {
	var b strings.Builder
	switch {
	case why != "":
		fmt.Fprintf(&b, "NOT RUN: %s\n", why)
	default:
		b.WriteString("DENIED by the shellguard policy: the command was not run.\n")
	}
	for _, r := range v.Reasons {
		frag := ""
		if r.Start >= 0 && r.End > r.Start && r.End <= len(command) {
			frag = command[r.Start:r.End]
			if len(frag) > 80 {
				frag = frag[:77] + "..."
			}
			frag = fmt.Sprintf(" at %d-%d %q", r.Start, r.End, frag)
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
	case why != "":
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
