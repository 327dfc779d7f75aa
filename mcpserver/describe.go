package mcpserver

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shellguard/shellguard"
)

// settings are what the server tells clients and checks their input
// against, taken once from the Guard and its sandbox.
type settings struct {
	Workspace string
	// AllowedRoots are further directories a cwd may be in.
	AllowedRoots []string
	// WritableRoots are the directories sandboxed commands may write, as
	// the sandbox resolved them.
	WritableRoots []string

	DefaultTimeout time.Duration
	MaxTimeout     time.Duration
	MaxOutput      int // bytes kept per stream
	OutputBudget   int // bytes of stdout and stderr together per result; <= 0: none

	// SandboxLayers names the protections the sandbox applied, in a few
	// words each; empty: no sandbox.
	SandboxLayers []string
	Network       string // "on", "allowlist" (through the proxy) or "off"
	// netModes are the modes a call may narrow the network to, and
	// narrowNet reads one (the sandbox Spec's; nil without a sandbox).
	netModes  []string
	narrowNet func(string) (string, error)
	// AlwaysDenied is a short human list of what is always denied.
	AlwaysDenied []string

	DisableSandbox  bool          // dangerously_disable_sandbox may be honoured
	BlockingBudget  time.Duration // 0: never moved to the background
	MaxCommandBytes int           // 0: defaultMaxCommandBytes
}

// defaultMaxCommandBytes bounds a command: bash -c receives it as one
// argument, and Linux limits one argument to 128 KiB.
const defaultMaxCommandBytes = 100_000

// alwaysDenied is what the policy floor denies whatever the
// configuration says, in a few words (the Floor findings of
// policy.Catalog).
var alwaysDenied = []string{
	"rm -r of /, system dirs or home",
	"disk formatting or block-device writes",
	"sudoers edits",
	"curl | sh",
	"shutdown, reboot, kill -1",
	"fork bombs",
}

// settingsOf reads the Guard's configuration and asks its sandbox what it
// enforces (one sandboxed `exit 0`, a few ms).
func settingsOf(g *shellguard.Guard, so shellguard.SessionOptions) settings {
	c := g.Config()
	s := settings{
		Workspace:      c.Workspace,
		AllowedRoots:   c.Rules.AllowedRoots,
		DefaultTimeout: c.Timeout,
		MaxTimeout:     c.MaxTimeout,
		MaxOutput:      c.MaxOutput,
		Network:        "on",
		AlwaysDenied:   alwaysDenied,
		DisableSandbox: c.AllowUnsandboxed,
	}
	// The Guard's effective configuration has its default budget filled in.
	if b := cmp.Or(so.BlockingBudget, c.Tasks.BlockingBudget); b > 0 {
		s.BlockingBudget = b
	}
	if c.Sandbox != nil {
		s.netModes, s.narrowNet = c.Sandbox.NetModes(), c.Sandbox.WithNetModeName
	}
	if a, _ := g.ProbeSandbox(); a != nil {
		s.SandboxLayers = a.Words()
		if len(s.SandboxLayers) > 0 {
			s.WritableRoots = a.Writable
		}
		switch a.Network {
		case "none":
			s.Network = "off"
		case "allowlist":
			s.Network = "allowlist"
		}
	}
	return s
}

// networkModes are the network modes a call may choose under s, the
// configured one last; none without a sandbox.
func (s settings) networkModes() []string {
	if len(s.SandboxLayers) == 0 || s.narrowNet == nil {
		return nil
	}
	return s.netModes
}

// describe writes the tool description from the effective settings: what
// a model needs to know to not waste turns, and nothing else.
func describe(s settings) string {
	var b strings.Builder
	b.WriteString("Run a bash command (bash -c) and get its exit code, stdout and stderr. ")
	b.WriteString("Each call is a fresh shell: cd and exports do not carry over; use cwd. ")
	fmt.Fprintf(&b, "Default cwd: %s.\n", s.Workspace)
	fmt.Fprintf(&b, "Limits: timeout %s by default, at most %s (timeout, in seconds); ", secs(s.DefaultTimeout), secs(s.MaxTimeout))
	if s.OutputBudget > 0 && s.OutputBudget < 2*s.MaxOutput {
		fmt.Fprintf(&b, "stdout and stderr keep %s together (first and last part). ", size(s.OutputBudget))
	} else {
		fmt.Fprintf(&b, "each stream keeps its first and last %s. ", size(s.MaxOutput/2))
	}
	b.WriteString("No terminal and no stdin: interactive programs fail; pass flags like -y.\n")
	if len(s.SandboxLayers) > 0 {
		fmt.Fprintf(&b, "Sandbox: %s. ", strings.Join(s.SandboxLayers, ", "))
		if len(s.WritableRoots) > 0 {
			fmt.Fprintf(&b, "Writable: %s. ", strings.Join(s.WritableRoots, ", "))
		}
	} else {
		b.WriteString("Sandbox: none available; commands run as the server's user. ")
	}
	switch s.Network {
	case "on":
		b.WriteString("Network: on.\n")
	case "allowlist":
		b.WriteString("Network: configured package registries and hosts the user listed, via a proxy (HTTP_PROXY is set). Others get a 403: ask the user to add them to sandbox.network_allow.\n")
	default:
		b.WriteString("Network: off (loopback only; package managers are set to offline).\n")
	}
	if s.DisableSandbox && len(s.SandboxLayers) > 0 {
		b.WriteString("dangerously_disable_sandbox: true runs a command outside the sandbox, only with the user's approval; use it only when the sandbox itself breaks the command.\n")
	}
	b.WriteString("A policy checks each command: a denied one is not run and returns an error with reasons; do not retry or work around it. Some need the user's approval.\n")
	if len(s.AlwaysDenied) > 0 {
		fmt.Fprintf(&b, "Always denied: %s.\n", strings.Join(s.AlwaysDenied, "; "))
	}
	b.WriteString("Servers, watchers, prompts: run_in_background: true returns a task_id. task_id alone gives its status and the output new since the last read; add kill, stdin_text (a line to its stdin; returns with the reply), wait (until it exits) or stream (its lines, filtered by stream_pattern); task_id \"*\" lists tasks. A server a task starts on 127.0.0.1 answers this session's later commands.")
	if s.BlockingBudget > 0 {
		fmt.Fprintf(&b, " wait and stream return within %s; a command still running after %s moves to the background.", secs(s.BlockingBudget), secs(s.BlockingBudget))
	}
	b.WriteString(" Tasks end when this session does.\n")
	return strings.TrimRight(b.String(), "\n ")
}

func size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// inputSchema is written by hand rather than derived: the server accepts
// numbers and booleans sent as strings, which a derived schema would make
// the SDK reject before the handler runs. The schema advertises the
// canonical types; dangerously_disable_sandbox appears only when the
// configuration allows it.
func inputSchema(s settings) *jsonschema.Schema {
	f := func(v float64) *float64 { return &v }
	maxT := s.MaxTimeout.Seconds() // the Guard's effective maximum, never 0
	props := map[string]*jsonschema.Schema{
		"command":     {Type: "string", Description: "The bash command to run."},
		"description": {Type: "string", Description: "What the command does, in a few words (shown when the user is asked)."},
		"timeout": {Type: "number", ExclusiveMinimum: f(0), Maximum: f(maxT),
			Description: fmt.Sprintf("Seconds before the command and all it started are stopped: above 0, at most %s. Default %s.", secs(s.MaxTimeout), secs(s.DefaultTimeout))},
		"cwd": {Type: "string", Description: "Working directory, absolute or relative to the workspace, inside it" + rootsNote(s) + "."},
	}
	props["detail"] = &jsonschema.Schema{Type: "boolean", Description: "The sandbox's full report in the structured result."}
	order := []string{"command", "description", "timeout", "cwd", "detail"}
	if modes := s.networkModes(); len(modes) > 1 {
		enum := make([]any, len(modes))
		for i, m := range modes {
			enum[i] = m
		}
		props["network"] = &jsonschema.Schema{Type: "string", Enum: enum,
			Description: "Narrow the network for this command (default " + modes[len(modes)-1] + "): off is loopback only (and the session's servers)."}
		order = append(order, "network")
	}
	if len(s.networkModes()) > 0 { // a sandbox, whose overlay can hold the changes
		props["review"] = &jsonschema.Schema{Type: "boolean", Description: "Show the user the diffs; only what they pick lands."}
		order = append(order, "review")
	}
	if s.DisableSandbox {
		props["dangerously_disable_sandbox"] = &jsonschema.Schema{Type: "boolean", Description: "Run outside the sandbox. Only when the sandbox itself breaks the command; the user is told."}
		order = append(order, "dangerously_disable_sandbox")
	}
	{
		props["run_in_background"] = &jsonschema.Schema{Type: "boolean", Description: "Start as a background task; returns its task_id at once."}
		props["task_id"] = &jsonschema.Schema{Type: "string", Description: "A background task to act on (instead of command). Alone: its status and new output. \"*\": list the tasks."}
		props["kill"] = &jsonschema.Schema{Type: "boolean", Description: "With task_id: stop the task and all it started."}
		props["stdin_text"] = &jsonschema.Schema{Type: "string", Description: "With task_id: a line for the task's stdin (newline added)."}
		props["wait"] = &jsonschema.Schema{Type: "boolean", Description: "With task_id: block until the task exits (bounded by timeout" + budgetNote(s) + ")."}
		props["stream"] = &jsonschema.Schema{Type: "boolean", Description: "With task_id: its lines (kept, then new) as progress notifications until it exits (bounded by timeout" + budgetNote(s) + "), and in stdout."}
		props["stream_pattern"] = &jsonschema.Schema{Type: "string", Description: "With stream: only lines matching this regular expression (RE2)."}
		props["offset"] = &jsonschema.Schema{Type: "integer", Minimum: f(0), Description: "With task_id: re-read from this byte offset of each stream (0: all kept)."}
		order = append(order, "run_in_background", "task_id", "kill", "stdin_text", "wait", "stream", "stream_pattern", "offset")
	}
	return &jsonschema.Schema{
		Type:                 "object",
		Properties:           props,
		PropertyOrder:        order,
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

func rootsNote(s settings) string {
	if len(s.AllowedRoots) == 0 {
		return ""
	}
	return " or in " + strings.Join(s.AllowedRoots, ", ")
}

func budgetNote(s settings) string {
	if s.BlockingBudget <= 0 {
		return ""
	}
	return " and " + secs(s.BlockingBudget)
}
