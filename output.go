package shellguard

// The output: the one Result every face reports, bounded capture and
// secret redaction of everything a command writes.

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shellguard/shellguard/internal/capture"
	"github.com/shellguard/shellguard/internal/runner"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/redact"
	"github.com/shellguard/shellguard/sandbox"
)

// Result is the outcome of a request, and the snapshot of a background
// task: the one shape the library, `shellguard run --json`, the MCP tool's
// structured content and the HTTP endpoint report (its JSON Schema is
// docs/result.schema.json). A command that ran is a Result whatever its
// exit code; errors are for requests that could not run.
type Result struct {
	Command string `json:"command" jsonschema:"the command as requested"`
	Cwd     string `json:"cwd" jsonschema:"the working directory (absolute)"`

	// Decision is the policy's verdict (an ask that ran was approved),
	// Reasons its findings, Warnings what the caller should know (always
	// present, maybe empty).
	Decision       policy.Decision `json:"decision" jsonschema:"the policy's verdict; an ask that ran was approved"`
	Reasons        []policy.Reason `json:"reasons" jsonschema:"the policy's findings; start and end are byte offsets in the command"`
	Warnings       []string        `json:"warnings" jsonschema:"what the caller should know; always present"`
	Classification string          `json:"classification,omitempty"`
	// Approved is set when the verdict was ask and an approver said yes.
	Approved bool `json:"approved,omitempty" jsonschema:"the verdict was ask and the user approved"`
	// Grant is set when the approval was remembered beyond this call
	// (Rules), or when the sandbox refused hosts that an approver granted
	// while the command ran (Hosts, Config.ApproveSandbox; any scope).
	Grant *Grant `json:"grant,omitempty" jsonschema:"an approval remembered for the session or always in this workspace (rules), or hosts the sandbox refused and the user allowed while the command ran (hosts)"`

	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// ExitCode is nil when the command did not run or has not ended yet;
	// a command killed by a signal (also by its timeout, the output
	// limit or a kill) reports 128 + the signal: 143 for SIGTERM, 137
	// for SIGKILL.
	ExitCode *int    `json:"exit_code" jsonschema:"null when the command did not run or has not ended; 128+N when killed by signal N (143 SIGTERM, 137 SIGKILL)"`
	TimedOut bool    `json:"timed_out"`
	Duration float64 `json:"duration" jsonschema:"seconds"` // seconds it ran (so far, for a running task)
	// Bytes cut from the middle of each stream to fit the output cap (or
	// dropped by a task's output ring).
	StdoutDroppedBytes  int64 `json:"stdout_dropped_bytes" jsonschema:"bytes cut from the middle of stdout"`
	StderrDroppedBytes  int64 `json:"stderr_dropped_bytes"`
	OutputLimitExceeded bool  `json:"output_limit_exceeded"`
	// Redactions counts the secrets replaced by [REDACTED:…] in the output.
	Redactions int `json:"redactions" jsonschema:"secrets replaced by [REDACTED:rule] in the output"`

	// Sandbox is what the kernel sandbox enforced (nil without one), and
	// SandboxWarnings says in plain words what is missing, including no
	// sandbox at all.
	Sandbox         *sandbox.Applied `json:"sandbox,omitempty" jsonschema:"what the kernel sandbox enforced; absent without one"`
	SandboxWarnings []string         `json:"sandbox_warnings,omitempty" jsonschema:"missing sandbox protection in plain words, including no sandbox at all"`
	// Unsandboxed marks a run outside the sandbox (an excluded command or
	// an approved request to disable it).
	Unsandboxed bool `json:"unsandboxed,omitempty" jsonschema:"ran outside the sandbox (an excluded command or an approved request)"`

	// AuditSeq is the seq of the line the audit log holds for this call's
	// end (0 without an audit log, and for a background task, whose end
	// is written when it ends).
	AuditSeq int64 `json:"audit_seq,omitempty" jsonschema:"the audit log line of this call's end (absent without an audit log, and for tasks)"`

	// Task is set for a background task: one started by Session.Start, or
	// a Session.Run that outlived the blocking budget.
	Task *TaskStatus `json:"task,omitempty" jsonschema:"set for a background task"`
	// Error says why the command did not run or did not end normally
	// (the text of the error returned with the Result); empty otherwise.
	Error string `json:"error,omitempty" jsonschema:"why the command did not run or did not end normally"`
}

// MarshalJSON writes reasons and warnings as arrays even when empty, as
// the schema promises.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	if r.Reasons == nil {
		r.Reasons = []policy.Reason{}
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	return json.Marshal(plain(r))
}

// ResultSchema returns the JSON Schema of Result: the MCP tool's output
// schema, and the shape of `shellguard run --json` and of the HTTP
// endpoint's answers. docs/result.schema.json is this schema.
var ResultSchema = sync.OnceValue(func() *jsonschema.Schema {
	enum := func(vals ...any) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Enum: vals} }
	s, err := jsonschema.For[Result](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{
			reflect.TypeFor[policy.Decision](): enum("allow", "ask", "deny"),
			reflect.TypeFor[sandbox.Mode]():    enum("auto", "required", "strict", "off"),
		},
	})
	if err != nil {
		panic(err) // a bug in the type, caught by the schema test
	}
	s.Schema = "https://json-schema.org/draft/2020-12/schema"
	s.Title = "shellguard result"
	s.Description = "The outcome of one command, or the status of a background task, as every face of shellguard reports it."
	for _, name := range []string{"reasons", "warnings"} { // MarshalJSON writes [] for nil
		if p := s.Properties[name]; p != nil {
			p.Types, p.Type = nil, "array"
		}
	}
	return s
})

// admitted records what admission decided.
func (r *Result) admitted(a admission) {
	r.Decision = a.verdict.Decision
	r.Reasons = a.verdict.Reasons
	r.Warnings = append([]string{}, a.verdict.Warnings...)
	r.Classification = a.verdict.Classification
	r.Approved = a.approved != nil && *a.approved
	r.Unsandboxed = a.unsandboxed
}

// noSandboxWarning is the result's word for a run without a sandbox.
const noSandboxWarning = "no sandbox: the command ran with every right of this process"

// fill copies a finished run into res.
func (g *Guard) fill(res *Result, rr runner.Result, tag *runTag) {
	res.Stdout = rr.Stdout.Text
	res.Stderr = rr.Stderr.Text
	res.StdoutDroppedBytes = rr.Stdout.Dropped
	res.StderrDroppedBytes = rr.Stderr.Dropped
	if !rr.NotRun { // a launcher that failed ran nothing: no exit code
		code := rr.ExitCode
		res.ExitCode = &code
	}
	res.TimedOut = rr.TimedOut
	res.OutputLimitExceeded = rr.OutputLimitExceeded
	res.Duration = rr.Duration.Seconds()
	g.fillSandbox(res, rr.Launch)
	if gr := tag.live.grant(); gr != nil {
		if res.Grant != nil { // a run made again after path grants
			gr.Paths = res.Grant.Paths
			if scopeRank[res.Grant.Scope] > scopeRank[gr.Scope] {
				gr.Scope = res.Grant.Scope
			}
		}
		res.Grant = gr
	}
	g.fillRefused(res, tag)
	res.Redactions = int(tag.redactions.Load())
	hintNetwork(res)
	hintExitCode(res, tag.verdict)
}

// fillSandbox says what sandbox the command ran in.
func (g *Guard) fillSandbox(res *Result, launch any) {
	if a, ok := launch.(sandbox.Applied); ok {
		// The report quotes names the command chose: filtered as its
		// output is, before anything shows or logs them.
		a = a.MapText(g.message)
		res.Sandbox = &a
		res.SandboxWarnings = a.Warnings()
		if a.Post != nil && len(a.Post.Unfinished) > 0 && res.Error == "" {
			// What the command left was not all checked: failed closed.
			res.Error = "the checks after the run did not finish (" + strings.Join(a.Post.Unfinished, ", ") + "): the workspace may hold what the command left unchecked"
		}
		if a.Net != nil {
			for _, hp := range a.Net.Asked {
				if slices.Contains(a.Net.Granted, hp) {
					res.Warnings = append(res.Warnings, "network: the user allowed "+hp+" while the command ran")
				} else {
					res.Warnings = append(res.Warnings, "network: the user was asked about "+hp+" while the command ran and declined: it stayed refused")
				}
			}
		}
		if a.Post != nil && a.Post.Review != nil {
			res.Warnings = append(res.Warnings, reviewSummary(a.Post.Review))
		}
	}
	switch {
	case res.Unsandboxed:
		res.SandboxWarnings = append(res.SandboxWarnings, "ran outside the sandbox")
	case res.Sandbox == nil:
		res.SandboxWarnings = append(res.SandboxWarnings, noSandboxWarning)
	}
}

// reviewSummary says in one line what of a review run landed.
func reviewSummary(r *sandbox.Reviewed) string {
	var in, out []string
	for _, c := range r.Changes {
		if c.Applied {
			in = append(in, c.Path)
		} else {
			out = append(out, c.Path)
		}
	}
	names := func(ps []string) string {
		if len(ps) > 10 {
			return strings.Join(ps[:10], ", ") + fmt.Sprintf(" and %d more", len(ps)-10)
		}
		return strings.Join(ps, ", ")
	}
	s := fmt.Sprintf("review: %d of %d changes applied", len(in), len(r.Changes))
	if len(in) > 0 {
		s += " (" + names(in) + ")"
	}
	if len(out) > 0 {
		s += "; discarded: " + names(out)
	}
	if r.Note != "" {
		s += "; " + r.Note
	}
	return s
}

// bound cuts text to max bytes (head and tail) like a Result's output.
func bound(text string, max int, dropped int64) (string, int64) {
	if max <= 0 || len(text) <= max {
		return text, dropped
	}
	b := capture.New(max, nil)
	b.Write([]byte(text))
	r := b.Render()
	return r.Text, dropped + r.Dropped
}

// redactor is built on first use: commands without output never pay for
// compiling the rules.
func (g *Guard) redactor() *redact.Redactor {
	g.redactOnce.Do(func() {
		r, err := redact.New(redact.Options{Secrets: g.secrets, Patterns: g.cfg.RedactPatterns})
		if err != nil {
			// Patterns were validated in New; fall back to the defaults
			// rather than leave output unredacted.
			r, _ = redact.New(redact.Options{Secrets: g.secrets})
		}
		g.redact = r
	})
	return g.redact
}

// filter returns a Filter for runner.Options that puts the redactor in
// front of each stream and counts its redactions in n. The redactor is
// only built when a stream carries a first byte.
func (g *Guard) filter(n *atomic.Int64) func(io.Writer) io.WriteCloser {
	return func(w io.Writer) io.WriteCloser {
		red := &lazyRedact{g: g, dst: w, n: n}
		if g.cfg.KeepEscapes {
			return red
		}
		// Terminal control sequences go first, so the redactor sees the
		// text as a terminal would show it.
		return &escapeThenRedact{capture.NewEscapeFilter(red), red}
	}
}

// escapeThenRedact neutralises terminal control sequences, then redacts.
type escapeThenRedact struct {
	esc *capture.EscapeFilter
	red *lazyRedact
}

func (e *escapeThenRedact) Write(p []byte) (int, error) { return e.esc.Write(p) }

func (e *escapeThenRedact) Close() error {
	err := e.esc.Close()
	if err2 := e.red.Close(); err == nil {
		err = err2
	}
	return err
}

type lazyRedact struct {
	g     *Guard
	dst   io.Writer
	n     *atomic.Int64 // redactions of the run
	mu    sync.Mutex
	w     *redact.Writer
	timer *time.Timer
	nl    bool // the last byte written was a newline
	done  bool
}

// The redactor holds back a little output in case a secret continues.
// When the command pauses, what is held back is passed on: soon after a
// line ends, a little later for a partial line such as a prompt.
const (
	idleFlushLine    = 50 * time.Millisecond
	idleFlushPartial = 400 * time.Millisecond
)

func (l *lazyRedact) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		l.w = l.g.redactor().NewWriter(l.dst)
	}
	n, err := l.w.Write(p)
	if len(p) > 0 {
		l.nl = p[len(p)-1] == '\n'
	}
	if l.w.Buffered() > 0 {
		d := idleFlushPartial
		if l.nl {
			d = idleFlushLine
		}
		if l.timer == nil {
			l.timer = time.AfterFunc(d, l.idle)
		} else {
			l.timer.Reset(d)
		}
	}
	return n, err
}

func (l *lazyRedact) idle() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done && l.w != nil {
		l.w.Flush()
	}
}

func (l *lazyRedact) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = true
	if l.timer != nil {
		l.timer.Stop()
	}
	if l.w == nil {
		return nil
	}
	err := l.w.Close()
	l.n.Add(int64(l.w.Redactions()))
	return err
}
