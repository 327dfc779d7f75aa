package mcpserver

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard/internal/capture"
	"github.com/shellguard/shellguard/policy"
)

// ToolName is the name of the one tool.
const ToolName = "bash"

// Options configure a Server. The zero value is usable.
type Options struct {
	Name, Version string // reported to clients; defaults "shellguard", "dev"
	Logger        *slog.Logger
}

// Server is the MCP server. Create it with New; serve it with RunStdio or
// Handler.
type Server struct {
	eng    Engine
	mcp    *mcp.Server
	logger *slog.Logger
	key    []byte // signs RequestState of approval round trips

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]Session
	closed   bool
	wg       sync.WaitGroup
}

// New returns a server for eng.
func New(eng Engine, opts *Options) *Server {
	if opts == nil {
		opts = &Options{}
	}
	name, version := opts.Name, opts.Version
	if name == "" {
		name = "shellguard"
	}
	if version == "" {
		version = "dev"
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{eng: eng, logger: logger, sessions: map[*mcp.ServerSession]Session{}}
	s.key = make([]byte, 32)
	rand.Read(s.key)
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: name, Version: version}, &mcp.ServerOptions{
		Logger:       logger,
		Instructions: "Run shell commands through the bash tool; it enforces a policy and a sandbox.",
	})
	set := eng.Settings()
	s.mcp.AddTool(&mcp.Tool{
		Name:         ToolName,
		Title:        "Run a bash command (shellguard)",
		Description:  Describe(set),
		InputSchema:  inputSchema(set),
		OutputSchema: outputSchema(),
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: boolp(true), OpenWorldHint: boolp(set.Network)},
	}, s.handle)
	return s
}

func boolp(b bool) *bool { return &b }

// MCP returns the underlying go-sdk server.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Close ends every MCP session, closes their engine state (killing their
// tasks) and waits for that to finish.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	sess := s.sessions
	s.sessions = map[*mcp.ServerSession]Session{}
	s.mu.Unlock()
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	for _, x := range sess {
		x.Close()
	}
	s.wg.Wait()
}

// session returns the engine session of ss, creating it on first use.
func (s *Server) session(ss *mcp.ServerSession) (Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("server is shutting down")
	}
	if x, ok := s.sessions[ss]; ok {
		return x, nil
	}
	x := s.eng.NewSession()
	s.sessions[ss] = x
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ss.Wait()
		s.mu.Lock()
		_, ok := s.sessions[ss]
		delete(s.sessions, ss)
		s.mu.Unlock()
		if ok {
			x.Close()
		}
	}()
	return x, nil
}

func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

func result(o *Output, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError:           isError,
		Content:           []mcp.Content{&mcp.TextContent{Text: o.text()}},
		StructuredContent: o,
	}
}

func (s *Server) deniedResult(in *Input, v policy.Verdict, declined bool, why string) *mcp.CallToolResult {
	o := &Output{Command: in.Command, Decision: v.Decision.String(), Reasons: reasonsOf(&v),
		Warnings: v.Warnings, Error: "not run"}
	if declined || why != "" {
		o.Error = "not approved"
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: denialText(in.Command, v, declined, why, s.howToAllow(in.Command, v))}},
		StructuredContent: o,
	}
}

// check returns the engine's verdict for the call: for the whole request
// when the engine can (a request to leave the sandbox changes it).
func (s *Server) check(ctx context.Context, in *Input) (policy.Verdict, error) {
	if rc, ok := s.eng.(RequestChecker); ok {
		return rc.CheckRequest(ctx, Request{Command: in.Command, Cwd: in.Cwd, DisableSandbox: in.DisableSandbox})
	}
	return s.eng.Check(ctx, in.Command)
}

// howToAllow is the engine's advice on allowing a refused command, if it
// has any.
func (s *Server) howToAllow(command string, v policy.Verdict) string {
	if a, ok := s.eng.(AllowAdvisor); ok {
		return a.HowToAllow(command, v)
	}
	return ""
}

const approveKey = "shellguard_approve"

func (s *Server) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	set := s.eng.Settings()
	in, err := ParseInput(req.Params.Arguments, set)
	if err != nil {
		return toolError(err.Error()), nil
	}
	sess, err := s.session(req.Session)
	if err != nil {
		return toolError(err.Error()), nil
	}
	live := newProgress(ctx, req.Session, req.Params.GetProgressToken(), in.StreamPattern)
	defer live.close()
	if in.TaskID != "" {
		return s.taskOp(ctx, sess, in, set, live), nil
	}

	if in.DisableSandbox && !set.DisableSandbox {
		return toolError(disableSandboxRefused), nil
	}
	approved := false
	var verdict *policy.Verdict
	v, err := s.check(ctx, in)
	switch {
	case errors.Is(err, ErrNotAvailable):
	case err != nil:
		return toolError("checking the command failed: " + err.Error()), nil
	default:
		verdict = &v
		switch v.Decision {
		case policy.Deny:
			return s.deniedResult(in, v, false, ""), nil
		case policy.Ask:
			state := s.sign(in, time.Now())
			if resp, ok := req.Params.InputResponses[approveKey]; ok {
				if !s.verify(in, req.Params.RequestState) {
					return toolError("the approval does not match this call (or expired); call the tool again to be asked again"), nil
				}
				er, _ := resp.(*mcp.ElicitResult)
				if er == nil || er.Action != "accept" {
					action := "no answer"
					if er != nil {
						action = er.Action
					}
					return s.deniedResult(in, v, true, "the user was asked to approve the command and answered "+strconv.Quote(action)+"."), nil
				}
				approved = true
				break
			}
			if !set.Approval {
				return s.deniedResult(in, v, true, "the command needs the user's approval, and approval is not available in this build."), nil
			}
			if !canAsk(req.Session) {
				return s.deniedResult(in, v, true, "the command needs the user's approval, and this MCP client supports neither elicitation nor input requests, so the user cannot be asked."), nil
			}
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{approveKey: approvalRequest(in, v)},
				RequestState:  state,
			}, nil
		}
	}
	o, isErr := s.run(ctx, sess, in, set, verdict, approved, live, false)
	return result(o, isErr), nil
}

// run runs a foreground or background command that the policy allows (or
// the user approved) and returns the output and whether it is an error.
// foreground keeps a long command from being moved to the background.
func (s *Server) run(ctx context.Context, sess Session, in *Input, set Settings, verdict *policy.Verdict, approved bool, live *progress, foreground bool) (*Output, bool) {
	if in.DisableSandbox && !set.DisableSandbox {
		return &Output{Command: in.Command, Error: disableSandboxRefused}, true
	}
	req := Request{
		Command:        in.Command,
		Description:    in.Description,
		Cwd:            in.Cwd,
		Timeout:        in.Timeout,
		DisableSandbox: in.DisableSandbox,
		Approve:        func(context.Context, policy.Verdict) bool { return approved },
		Foreground:     foreground,
	}
	var warnings []string
	if in.TimeoutClamped {
		warnings = append(warnings, fmt.Sprintf("timeout clamped to the configured maximum of %s", secs(set.MaxTimeout)))
	}
	if in.RunInBackground {
		if !set.Tasks {
			return &Output{Command: in.Command, Error: "run_in_background: background tasks are not available in this build; run the command in the foreground (timeout up to " + secs(set.MaxTimeout) + ")"}, true
		}
		st, err := sess.Start(ctx, req)
		if o, ok := s.denied(in, err); ok {
			return o, true
		}
		if err != nil {
			return &Output{Command: in.Command, Error: err.Error()}, true
		}
		o := &Output{Command: in.Command}
		fillTask(o, st, false)
		o.Warnings = warnings
		o.Approved = approved
		return o, false
	}
	req.Stdout, req.Stderr = live.writer(""), live.writer("[stderr] ")
	res, err := sess.Run(ctx, req)
	live.flush()
	if o, ok := s.denied(in, err); ok {
		return o, true
	}
	if res.Duration == 0 && err != nil { // nothing ran
		return &Output{Command: in.Command, Error: err.Error()}, true
	}
	o := outputOfResult(res)
	if o.Decision == "" && verdict != nil {
		o.Decision, o.Reasons = verdict.Decision.String(), reasonsOf(verdict)
	}
	o.Approved = approved
	o.Warnings = append(warnings, o.Warnings...)
	if err != nil {
		switch {
		case errors.Is(err, context.Canceled):
			o.Error = "cancelled by the client: the command was stopped"
		default:
			o.Error = err.Error()
		}
		return o, true
	}
	return o, false
}

// disableSandboxRefused answers dangerously_disable_sandbox when the
// configuration does not allow it.
const disableSandboxRefused = "dangerously_disable_sandbox: not allowed by the configuration (sandbox.allow_unsandboxed is off); run the command inside the sandbox"

// denied maps a *DeniedError to a denial output.
func (s *Server) denied(in *Input, err error) (*Output, bool) {
	var de *DeniedError
	if !errors.As(err, &de) {
		return nil, false
	}
	why := ""
	if de.Declined && de.Why != "" {
		why = "the command needs the user's approval and was not approved (" + de.Why + ")."
	}
	o := &Output{Command: in.Command, Decision: de.Verdict.Decision.String(), Reasons: reasonsOf(&de.Verdict),
		Warnings: de.Verdict.Warnings, Error: denialText(in.Command, de.Verdict, de.Declined, why, s.howToAllow(in.Command, de.Verdict))}
	return o, true
}

func (s *Server) taskOp(ctx context.Context, sess Session, in *Input, set Settings, live *progress) *mcp.CallToolResult {
	if !set.Tasks {
		return toolError("task_id: background tasks are not available in this build")
	}
	t, err := sess.Task(in.TaskID)
	if errors.Is(err, ErrNoTask) {
		return toolError(fmt.Sprintf("task_id: no task %q in this session", in.TaskID))
	}
	if err != nil {
		return toolError("task_id: " + err.Error())
	}
	// wait and stream block the call: bounded by the blocking budget, so
	// the answer comes before the client's request timeout.
	budget := in.Timeout
	if budget == 0 {
		budget = set.DefaultTimeout
	}
	if set.BlockingBudget > 0 {
		budget = min(budget, set.BlockingBudget)
	}
	var st TaskStatus
	var warnings []string
	var streamed *capture.Buffer
	switch {
	case in.Kill:
		st, err = t.Kill(ctx)
	default:
		if in.StdinText != nil {
			if err = t.WriteStdin(*in.StdinText); err != nil {
				return toolError("stdin_text: " + err.Error())
			}
		}
		switch {
		case in.Wait:
			st, err = t.Wait(ctx, budget)
		case in.Stream:
			sctx, cancel := context.WithTimeout(ctx, budget)
			var lines <-chan string
			lines, err = t.Subscribe(sctx, in.StreamPattern)
			if err == nil {
				streamed = capture.New(set.MaxOutput, nil)
				for l := range lines {
					live.push(l) // already filtered by the pattern
					streamed.Write([]byte(l + "\n"))
				}
			}
			cancel()
			live.flush()
			st = t.Status()
		default:
			st = t.Status()
		}
		if (in.Wait || in.Stream) && st.Running && ctx.Err() == nil {
			warnings = append(warnings, fmt.Sprintf("still running after %s (the bound of one call); call again to keep waiting", secs(budget)))
		}
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return toolError(err.Error())
	}
	o := outputOfTask(st)
	if streamed != nil {
		// Progress notifications rarely reach the model: the lines that
		// were streamed are the result's stdout.
		r := streamed.Render()
		o.Stdout, o.Stderr = r.Text, ""
		o.StdoutDroppedBytes, o.StderrDroppedBytes = r.Dropped, 0
		what := "every line"
		if in.StreamPattern != nil {
			what = "the lines matching stream_pattern"
		}
		warnings = append(warnings, "stdout holds "+what+" (stderr lines prefixed [stderr]), also sent as progress notifications")
	}
	o.Warnings = append(o.Warnings, warnings...)
	return result(o, false)
}

// canAsk reports whether the client can answer an approval request. The
// request is an elicitation either way: sent by the SDK during the call on
// protocols before 2026-07-28, returned as an input request (SEP-2322) on
// later ones; both need the client's elicitation capability.
func canAsk(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

func approvalRequest(in *Input, v policy.Verdict) *mcp.ElicitParams {
	var b strings.Builder
	b.WriteString("Allow this command to run?\n\n")
	b.WriteString(in.Command)
	b.WriteString("\n")
	if in.Description != "" {
		fmt.Fprintf(&b, "\nPurpose: %s\n", in.Description)
	}
	for _, r := range v.Reasons {
		fmt.Fprintf(&b, "\n%s: %s", r.ID, r.Message)
	}
	return &mcp.ElicitParams{
		Mode:            "form",
		Message:         b.String(),
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`),
	}
}

// sign binds an approval round trip to the parts of the call that decide
// what runs, for ten minutes.
func (s *Server) sign(in *Input, now time.Time) string {
	ts := strconv.FormatInt(now.Unix(), 10)
	return ts + "." + s.mac(in, ts)
}

func (s *Server) verify(in *Input, state string) bool {
	ts, mac, ok := strings.Cut(state, ".")
	if !ok {
		return false
	}
	n, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(n, 0)) > 10*time.Minute {
		return false
	}
	return hmac.Equal([]byte(mac), []byte(s.mac(in, ts)))
}

func (s *Server) mac(in *Input, ts string) string {
	h := hmac.New(sha256.New, s.key)
	fmt.Fprintf(h, "%s\x00%q\x00%q\x00%d\x00%t\x00%t", ts, in.Command, in.Cwd, in.Timeout, in.RunInBackground, in.DisableSandbox)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

func secs(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}
