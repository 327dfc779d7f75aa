package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shellguard/shellguard"
)

// input is the validated input of one call of the bash tool.
type input struct {
	Command         string
	Description     string
	RunInBackground bool
	TaskID          string
	Kill            bool
	StdinText       *string
	Wait            bool
	Stream          bool
	StreamPattern   *regexp.Regexp
	Timeout         time.Duration // 0: the default
	Cwd             string        // absolute; empty: the workspace
	DisableSandbox  bool
	Detail          bool   // the sandbox's full report in the structured result
	Network         string // "": the configured mode; else off, allowlist or on, no wider
	Review          bool   // a review run: the user picks what of its changes land
	Offset          *int64 // task reads: from this offset; nil: what is new
}

// inputError says which field of the input is wrong and why.
type inputError struct {
	Field  string
	Reason string
}

func (e *inputError) Error() string {
	if e.Field == "" {
		return "invalid input: " + e.Reason
	}
	return fmt.Sprintf("invalid input: %s: %s", e.Field, e.Reason)
}

func fieldErr(field, format string, args ...any) *inputError {
	return &inputError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Limits on text fields.
const (
	maxDescriptionBytes = 4096
	maxTaskIDBytes      = 128
	maxStdinBytes       = 64 << 10
	maxPatternBytes     = 1024
)

var knownFields = []string{
	"command", "description", "run_in_background", "task_id", "kill", "stdin_text",
	"wait", "stream", "stream_pattern", "offset", "timeout", "cwd", "detail", "network", "review", "dangerously_disable_sandbox",
}

// shownFields are the fields the input schema offers under s: an error
// lists only these (dangerously_disable_sandbox is accepted, to say why
// it is refused, but not offered when the configuration forbids it).
func shownFields(s settings) []string {
	if s.DisableSandbox {
		return knownFields
	}
	return knownFields[:len(knownFields)-1]
}

// parseInput parses and validates raw tool arguments against settings.
// Numbers and booleans may be sent as strings ("120", "true").
func parseInput(raw json.RawMessage, s settings) (*input, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, &inputError{Reason: `no arguments; give at least "command" (or "task_id")`}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &inputError{Reason: "arguments must be a JSON object: " + err.Error()}
	}
	var unknown []string
	for k := range m {
		if !isKnown(k) {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, &inputError{Field: strings.Join(unknown, ", "),
			Reason: "unknown field; the fields are " + strings.Join(shownFields(s), ", ")}
	}

	in := &input{}
	var err error
	var set = func(f string) bool { v, ok := m[f]; return ok && !isNull(v) }

	if in.Command, err = str(m, "command"); err != nil {
		return nil, err
	}
	if in.Description, err = str(m, "description"); err != nil {
		return nil, err
	}
	if len(in.Description) > maxDescriptionBytes {
		return nil, fieldErr("description", "%d bytes is longer than the limit of %d", len(in.Description), maxDescriptionBytes)
	}
	if in.TaskID, err = str(m, "task_id"); err != nil {
		return nil, err
	}
	in.TaskID = strings.TrimSpace(in.TaskID)
	if len(in.TaskID) > maxTaskIDBytes {
		return nil, fieldErr("task_id", "longer than %d bytes; use the task_id a background start returned", maxTaskIDBytes)
	}
	for _, b := range []struct {
		name string
		dst  *bool
	}{
		{"run_in_background", &in.RunInBackground}, {"kill", &in.Kill}, {"wait", &in.Wait},
		{"stream", &in.Stream}, {"dangerously_disable_sandbox", &in.DisableSandbox}, {"detail", &in.Detail}, {"review", &in.Review},
	} {
		if *b.dst, err = boolean(m, b.name); err != nil {
			return nil, err
		}
	}
	if set("stdin_text") {
		t, err := str(m, "stdin_text")
		if err != nil {
			return nil, err
		}
		if len(t) > maxStdinBytes {
			return nil, fieldErr("stdin_text", "%d bytes is longer than the limit of %d", len(t), maxStdinBytes)
		}
		in.StdinText = &t
	}
	if set("stream_pattern") {
		p, err := str(m, "stream_pattern")
		if err != nil {
			return nil, err
		}
		if len(p) > maxPatternBytes {
			return nil, fieldErr("stream_pattern", "longer than %d bytes", maxPatternBytes)
		}
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fieldErr("stream_pattern", "not a valid regular expression (RE2 syntax): %v", err)
		}
		in.StreamPattern = re
		if set("stream") && !in.Stream {
			return nil, fieldErr("stream_pattern", "given with stream: false; drop one of them")
		}
		in.Stream = true
	}
	if set("offset") {
		n, err := number(m, "offset")
		if err != nil {
			return nil, err
		}
		if n < 0 || n != math.Trunc(n) || n > 1<<53 {
			return nil, fieldErr("offset", "must be a whole number of bytes, 0 or more")
		}
		o := int64(n)
		in.Offset = &o
	}
	if set("timeout") {
		secs, err := number(m, "timeout")
		if err != nil {
			return nil, err
		}
		// The rule every face applies: refused with the range, never
		// clamped; 0 is not "the default" (leave the field out for that).
		d := time.Duration(secs * float64(time.Second))
		if secs > 1e9 {
			d = math.MaxInt64 // out of range either way; no overflow
		}
		if err := shellguard.CheckTimeout(d, s.MaxTimeout); err != nil {
			return nil, limitErr(err)
		}
		in.Timeout = d
	}
	if in.Network, err = str(m, "network"); err != nil {
		return nil, err
	}
	if in.Network = strings.TrimSpace(in.Network); in.Network != "" {
		modes := s.networkModes()
		mode, err := "", error(nil)
		if len(modes) > 0 {
			mode, err = s.narrowNet(in.Network)
		}
		if len(modes) == 0 || err != nil {
			if len(modes) == 0 {
				return nil, fieldErr("network", "there is no sandbox here to narrow the network of; leave network out")
			}
			return nil, fieldErr("network", "give one of %s (the configured mode is %s; a call may only narrow it)", strings.Join(modes, ", "), modes[len(modes)-1])
		}
		in.Network = mode
	}
	cwd, err := str(m, "cwd")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(cwd) != "" {
		if in.Cwd, err = shellguard.ResolveCwd(cwd, s.Workspace, s.AllowedRoots); err != nil {
			return nil, limitErr(err)
		}
	}

	// Modes.
	hasCommand := strings.TrimSpace(in.Command) != ""
	switch {
	case in.TaskID != "" && set("command"):
		return nil, fieldErr("command", "give either command (to run one) or task_id (to act on a background task), not both")
	case in.TaskID == "" && !hasCommand:
		if set("command") {
			return nil, fieldErr("command", "empty; give the bash command to run")
		}
		for _, f := range []string{"kill", "stdin_text", "wait", "offset"} {
			if set(f) {
				return nil, fieldErr(f, "needs task_id: it acts on a background task")
			}
		}
		return nil, fieldErr("command", "missing; give the bash command to run (or task_id for a background task)")
	}
	if hasCommand {
		limit := s.MaxCommandBytes
		if limit <= 0 {
			limit = defaultMaxCommandBytes
		}
		if len(in.Command) > limit {
			return nil, fieldErr("command", "%d bytes is longer than the limit of %d; write a long script to a file and run that", len(in.Command), limit)
		}
		if strings.IndexByte(in.Command, 0) >= 0 {
			return nil, fieldErr("command", "contains a NUL byte, which bash cannot receive")
		}
		for _, f := range []string{"kill", "stdin_text", "wait", "offset"} {
			if set(f) {
				return nil, fieldErr(f, "needs task_id, not command: it acts on a background task")
			}
		}
		if in.RunInBackground && in.Stream {
			return nil, fieldErr("stream", "start the task with run_in_background first, then stream it by task_id")
		}
		return in, nil
	}
	// A task operation.
	if in.RunInBackground {
		return nil, fieldErr("run_in_background", "given with task_id; to start a task give command instead")
	}
	if set("cwd") {
		return nil, fieldErr("cwd", "given with task_id; a task keeps the cwd it was started in")
	}
	if in.Kill && (in.StdinText != nil || in.Wait || in.Stream) {
		return nil, fieldErr("kill", "cannot be combined with stdin_text, wait or stream")
	}
	if in.Offset != nil && (in.Kill || in.Stream || in.TaskID == listTasks) {
		return nil, fieldErr("offset", "reads a task's output: not with kill, stream or task_id \"*\"")
	}
	if in.Wait && in.Stream {
		return nil, fieldErr("wait", "cannot be combined with stream; pick one")
	}
	if in.TaskID == listTasks && (in.Kill || in.StdinText != nil || in.Wait || in.Stream) {
		return nil, fieldErr("task_id", `"*" lists the tasks; act on one task by its id`)
	}
	return in, nil
}

func isKnown(k string) bool {
	for _, f := range knownFields {
		if f == k {
			return true
		}
	}
	return false
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

// str returns a string field; absent or null is "".
func str(m map[string]json.RawMessage, f string) (string, error) {
	v, ok := m[f]
	if !ok || isNull(v) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fieldErr(f, "must be a string, got %s", kind(v))
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s, nil
}

// boolean accepts true/false and the strings "true"/"false" (also "1",
// "0", "yes", "no", any case).
func boolean(m map[string]json.RawMessage, f string) (bool, error) {
	v, ok := m[f]
	if !ok || isNull(v) {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(v, &b); err == nil {
		return b, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "1", "yes":
			return true, nil
		case "false", "0", "no", "":
			return false, nil
		}
		return false, fieldErr(f, "must be a boolean (true or false), got the string %q", s)
	}
	return false, fieldErr(f, "must be a boolean (true or false), got %s", kind(v))
}

// number accepts a JSON number or a numeric string.
func number(m map[string]json.RawMessage, f string) (float64, error) {
	v := m[f]
	var n float64
	if err := json.Unmarshal(v, &n); err == nil {
		return n, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err == nil {
		n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err == nil && !math.IsNaN(n) && !math.IsInf(n, 0) {
			return n, nil
		}
		return 0, fieldErr(f, "must be a number of seconds, got the string %q", s)
	}
	return 0, fieldErr(f, "must be a number of seconds, got %s", kind(v))
}

func kind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// limitErr turns the library's *LimitError into the field error the
// tool reports.
func limitErr(err error) error {
	var le *shellguard.LimitError
	if errors.As(err, &le) {
		return fieldErr(le.Field, "%s", le.Reason)
	}
	return err
}
