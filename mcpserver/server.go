// Package mcpserver exposes a *shellguard.Guard as an MCP server with one
// tool, bash, over stdio or streamable HTTP, and as a plain JSON endpoint
// (POST /tools/bash/execute).
//
// The package parses and validates what clients send, asks the client for
// approval when the policy says "ask", turns results into text for the
// model plus structured content (a shellguard.Result), and streams live
// output as progress notifications. It has no policy, sandbox or task
// logic of its own: every decision and every run is the Guard's.
package mcpserver

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/shellguard/shellguard/internal/steptime"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/approvalpage"
	"github.com/shellguard/shellguard/policy"
)

// ToolName is the name of the one tool.
const ToolName = "bash"

// Options configure a Server. The zero value is usable.
type Options struct {
	Name, Version string // reported to clients; defaults "shellguard", "dev"
	Logger        *slog.Logger
	// Sessions bounds the background tasks of each MCP session; a zero
	// field takes the Guard's configuration (Config.Tasks), then the
	// library's defaults (64 tasks, 50 s blocking budget).
	Sessions shellguard.SessionOptions
	// MaxCalls bounds the commands the server runs at once, over all
	// sessions (0: twice the CPUs, at least 4); MaxQueued bounds the
	// calls waiting for one of those slots (0: 64). A call past both is
	// answered at once with a "busy" tool error.
	MaxCalls, MaxQueued int
	// Page, when set, is where asks go that the client cannot put to the
	// user (no elicitation): the call waits for the answer there within
	// the blocking budget, and otherwise returns "waiting for approval"
	// with the page's address; the ask stays there, and the next
	// identical call gets the answer given meanwhile.
	Page *approvalpage.Page
	// OutputBudget bounds the bytes of stdout and stderr together in one
	// result sent to the model (cut from the middle); 0:
	// DefaultOutputBudget, < 0: only the Guard's per-stream limit.
	OutputBudget int
	// Roots, when set, makes each MCP session whose client offers roots
	// run in the first of them (asked again after roots/list_changed):
	// Roots builds the Guard for that directory, once per directory. A
	// root that is not a local directory, or is /, is refused with a tool
	// error. Set it when the server was not given a workspace explicitly.
	Roots func(dir string) (*shellguard.Guard, error)
	// NoWorkspace, when set, says why the server's own Guard has no
	// usable workspace (it was started in /, say): a session whose client
	// offers no roots is answered with it, and the plain endpoint too.
	// The Guard passed to New then only describes the tool.
	NoWorkspace error
	// DrainTimeout is how long each command may go on running after the
	// client's input on stdio has ended; 0: DrainTimeout (2 s).
	DrainTimeout time.Duration
}

// Server is the MCP server. Create it with New; serve it with RunStdio or
// Handler.
type Server struct {
	g      *shellguard.Guard
	opts   Options
	set    settings
	mcp    *mcp.Server
	logger *slog.Logger
	key    []byte // signs RequestState of approval round trips
	admit  *admission
	page   pageAsks
	// failed, when set, is why the server has no Guard (NewFailed): every
	// call answers it.
	failed error
	layers layersSeen // the sandbox line last sent to each session
	// asking are the runs that may ask, and those whose question the
	// client holds (review.go).
	asking asking

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*binding
	roots    map[string]*shellguard.Guard // Options.Roots, by directory
	closed   bool
	wg       sync.WaitGroup
}

// New returns a server running commands through g. It runs one command in
// g's sandbox to learn what the sandbox enforces, for the tool
// description.
func New(g *shellguard.Guard, opts *Options) *Server {
	if opts == nil {
		opts = &Options{}
	}
	o := *opts
	if o.Name == "" {
		o.Name = "shellguard"
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{g: g, opts: o, logger: logger, sessions: map[*mcp.ServerSession]*binding{},
		admit: newAdmission(o.MaxCalls, o.MaxQueued, o.DrainTimeout)}
	s.set = settingsOf(g, o.Sessions)
	s.set.OutputBudget = o.OutputBudget
	if o.OutputBudget == 0 {
		s.set.OutputBudget = DefaultOutputBudget
	}
	s.key = make([]byte, 32)
	rand.Read(s.key)
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: o.Version}, &mcp.ServerOptions{
		Logger:       logger,
		Instructions: "Run shell commands through the bash tool; it enforces a policy and a sandbox.",
		//lint:ignore SA1019 roots are what clients send today (roots.go)
		RootsListChangedHandler: s.rootsChanged,
	})
	s.mcp.AddTool(&mcp.Tool{
		Name:         ToolName,
		Title:        "Run a bash command (shellguard)",
		Description:  describe(s.set),
		InputSchema:  inputSchema(s.set),
		OutputSchema: outputSchema(),
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: boolp(true), OpenWorldHint: boolp(s.set.Network != "off")},
	}, s.recovered(s.handle))
	return s
}

// NewFailed returns a server that has no Guard because it could not be
// built (typically a configuration file in error, such as a project's
// .shellguard.yaml with a key it may not set): it starts, lists the bash
// tool, and answers every call with a tool error that says what is wrong,
// so that the client shows the reason rather than a closed connection.
func NewFailed(err error, opts *Options) *Server {
	if opts == nil {
		opts = &Options{}
	}
	o := *opts
	o.Name, o.Version = cmp.Or(o.Name, "shellguard"), cmp.Or(o.Version, "dev")
	logger := cmp.Or(o.Logger, slog.New(slog.DiscardHandler))
	s := &Server{opts: o, logger: logger, sessions: map[*mcp.ServerSession]*binding{},
		admit: newAdmission(o.MaxCalls, o.MaxQueued, o.DrainTimeout), failed: err}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: o.Name, Version: o.Version}, &mcp.ServerOptions{Logger: logger})
	s.mcp.AddTool(&mcp.Tool{
		Name:        ToolName,
		Title:       "Run a bash command (shellguard)",
		Description: "Unavailable: " + s.failedText(),
		InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"command": {Type: "string"}}},
		Annotations: &mcp.ToolAnnotations{DestructiveHint: boolp(true)},
	}, s.handle)
	return s
}

// failedText says why a NewFailed server runs nothing, and what to do.
func (s *Server) failedText() string {
	return "shellguard is not running commands: its configuration could not be loaded: " + s.failed.Error() +
		". Nothing was run. Tell the user: fix the configuration, then restart the shellguard MCP server; do not try to run the command another way."
}

func boolp(b bool) *bool { return &b }

// MCP returns the underlying go-sdk server.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Close ends every MCP session, closes their Guard sessions (killing their
// tasks) and the Guards of the clients' roots, and waits for that.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	sess := s.sessions
	s.sessions = map[*mcp.ServerSession]*binding{}
	roots := s.roots
	s.roots = nil
	s.mu.Unlock()
	s.asking.drop(nil)
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	for _, b := range sess {
		b.x.Close()
	}
	s.wg.Wait()
	for _, g := range roots {
		g.Close()
	}
}

// session returns the Guard session of req's MCP session, creating it on
// first use in the workspace of its client (workspaceOf), and again in a
// new one when the client's roots changed to another directory (the tasks
// of the old one are ended: they belong to a project the client has
// left). ask, when set, is the result to return instead: it asks the
// client for its roots.
func (s *Server) session(req *mcp.CallToolRequest) (x *shellguard.Session, ask *mcp.CallToolResult, err error) {
	ss := req.Session
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil, errors.New("server is shutting down")
	}
	if b, ok := s.sessions[ss]; ok && !b.stale {
		s.mu.Unlock()
		return b.x, nil, nil
	}
	s.mu.Unlock()
	g, dir, ask, err := s.workspaceOf(req)
	if err != nil || ask != nil {
		return nil, ask, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, errors.New("server is shutting down")
	}
	if b, ok := s.sessions[ss]; ok {
		b.stale = false
		if b.g != g {
			s.asking.drop(b.x)
			go b.x.Close()
			b.x, b.g, b.dir = g.NewSession(s.opts.Sessions), g, dir
			s.layers.forget(ss) // the next result says where it runs now
		}
		return b.x, nil, nil
	}
	b := &binding{x: g.NewSession(s.opts.Sessions), g: g, dir: dir}
	s.sessions[ss] = b
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ss.Wait()
		s.mu.Lock()
		b, ok := s.sessions[ss]
		delete(s.sessions, ss)
		s.mu.Unlock()
		s.layers.forget(ss)
		if ok {
			s.asking.drop(b.x)
			b.x.Close()
		}
	}()
	return b.x, nil, nil
}

// guardOf is the Guard sess belongs to, whose rules the "how to allow it"
// hints and the rules offered to remember are made of.
func (s *Server) guardOf(sess *shellguard.Session) *shellguard.Guard {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.sessions {
		if b.x == sess {
			return b.g
		}
	}
	return s.g
}

func toolError(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

func result(r *shellguard.Result, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError:           isError,
		Content:           []mcp.Content{&mcp.TextContent{Text: text(r)}},
		StructuredContent: r,
	}
}

// refused is the result of a command the policy refused before it ran:
// why is set when it was asked about and not approved.
func (s *Server) refused(g *shellguard.Guard, in *input, v policy.Verdict, why string) *shellguard.Result {
	r := &shellguard.Result{Command: in.Command, Cwd: in.Cwd, Decision: v.Decision, Reasons: v.Reasons,
		Warnings: v.Warnings, Classification: v.Classification}
	r.Error = denialText(in.Command, v, why, policy.Suggest(in.Command, v, g.Config().Rules))
	return r
}

const approveKey = "shellguard_approve"

func (s *Server) handle(ctx context.Context, req *mcp.CallToolRequest) (r *mcp.CallToolResult, err error) {
	steptime.Mark("mcp.handle")
	defer steptime.Mark("mcp.handled")
	if s.failed != nil {
		return toolError(s.failedText()), nil
	}
	var in *input
	defer func() {
		if in != nil {
			r = s.compact(req.Session, r, in.Detail)
		}
	}()
	in, err = parseInput(req.Params.Arguments, s.set)
	if err != nil {
		return toolError(err.Error()), nil
	}
	sess, ask, err := s.session(req)
	switch {
	case err != nil:
		return toolError(err.Error()), nil
	case ask != nil:
		return ask, nil
	}
	g := s.guardOf(sess)
	live := newProgress(ctx, req.Session, req.Params.GetProgressToken(), in.StreamPattern)
	defer live.close()
	if in.TaskID != "" {
		return s.taskOp(ctx, sess, in, live), nil
	}
	for _, k := range []string{reviewKey, netKey, pathKey} {
		if resp, ok := req.Params.InputResponses[k]; ok {
			return s.answerRun(ctx, in, resp, req.Params.RequestState), nil
		}
	}
	if in.DisableSandbox && !s.set.DisableSandbox {
		return toolError(disableSandboxRefused), nil
	}
	// A run parked on the approval page (its review unanswered when its
	// call returned) is this call's: its result, or the wait for it. It
	// was checked, and approved if it asked, when it started.
	if p := s.page.parked(sess, in); p != nil {
		return s.awaitPage(ctx, p, false), nil
	}
	approved := false
	var remember map[string]any // the approval form's answer
	req0 := shellguard.Request{Command: in.Command, Cwd: in.Cwd, DisableSandbox: in.DisableSandbox}
	v := sess.Check(ctx, req0)
	switch v.Decision {
	case policy.Deny:
		return result(s.refused(g, in, v, ""), true), nil
	case policy.Ask:
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
				return result(s.refused(g, in, v, "the user was asked to approve the command and answered "+strconv.Quote(action)+"."), true), nil
			}
			approved, remember = true, er.Content
			break
		}
		if !canAsk(req.Session) {
			if s.opts.Page == nil {
				return result(s.refused(g, in, v, "the command needs the user's approval, and this MCP client supports neither elicitation nor input requests, so the user cannot be asked."), true), nil
			}
			ans, ok := s.askPage(ctx, sess, in, req0, v)
			switch {
			case !ok:
				r := s.refused(g, in, v, "")
				r.Error = fmt.Sprintf("WAITING FOR APPROVAL: the command was not run yet. Ask the user to answer it on the approval page, %s , then call the tool again with the same command; the answer given there is used then (for %s).", s.opts.Page.URL(), pageAskTTL)
				s.recordPage(r)
				return result(r, true), nil
			case !ans.Allow:
				r := s.refused(g, in, v, "the user was asked on the approval page and denied it.")
				s.recordPage(r)
				return result(r, true), nil
			}
			approved, remember = true, map[string]any{rememberKey: ans.Scope}
			break
		}
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{approveKey: approvalRequest(in, v, policy.Grant(in.Command, v, g.Config().Rules), g.GrantsError() == nil)},
			RequestState:  s.sign(in, time.Now()),
		}, nil
	}
	rctx, slot, err := s.admit.acquire(ctx)
	if err != nil {
		if errors.Is(err, errBusy) {
			return toolError(err.Error()), nil
		}
		return result(s.cancelled(in, err), true), nil
	}
	defer slot.release()
	approve := func(context.Context, policy.Verdict) (bool, error) { return approved, nil }
	// An approval is remembered once the call has run as approved (before,
	// the run would find the rule and not be an approved ask); what it
	// granted goes into the result, whichever call returns it.
	granted := func(*shellguard.Result) {}
	if approved {
		granted = func(res *shellguard.Result) {
			grant, gerr := s.remember(g, sess, req0, v, remember)
			if gerr != nil {
				res.Warnings = append(res.Warnings, "the approval holds for this call only: "+gerr.Error())
			}
			// A grant of hosts or paths the sandbox refused (the
			// library's Config.ApproveSandbox) stays: a warning says it
			// too.
			if grant != nil || res.Grant == nil || len(res.Grant.Hosts) == 0 && len(res.Grant.Paths) == 0 {
				res.Grant = grant
			}
		}
	}
	// An approved ask is reviewed before its changes land where someone
	// can be shown them (the client asks, or the approval page that
	// approved it) and the sandbox can hold them (the Guard decides the
	// latter); a review asked for always is.
	// The foreground call of a client that can answer may ask while it
	// runs (a host the sandbox refused); a review run asks at its end.
	review := s.wantsReview(g, in) || (approved && (canAsk(req.Session) || s.opts.Page != nil) && !in.RunInBackground)
	if review || (canAsk(req.Session) && !in.RunInBackground) {
		return s.runAsking(rctx, req.Session, sess, in, approve, live, granted, review), nil
	}
	// A client that cannot ask: a refused host is put on the approval
	// page, if there is one, while the connection waits.
	var netAsk func(context.Context, shellguard.Grant) (string, error)
	if !in.RunInBackground {
		netAsk = s.pageNetAsk(sess, in)
	}
	res, err := s.run(rctx, sess, in, approve, live, nil, netAsk)
	defer s.recordPage(res)
	granted(res)
	return result(res, err != nil), nil
}

// cancelled is the result of a call whose context ended before its
// command could start.
func (s *Server) cancelled(in *input, err error) *shellguard.Result {
	return &shellguard.Result{Command: in.Command, Cwd: in.Cwd, Error: "cancelled by the client before the command started: " + err.Error()}
}

// run runs a foreground or background command that the policy allows (or
// approve accepts; nil: the Guard's Approver decides). The error says the
// result is one: the command was refused, did not start, or was cancelled.
func (s *Server) run(ctx context.Context, sess *shellguard.Session, in *input, approve func(context.Context, policy.Verdict) (bool, error), live *progress, review func(context.Context, []shellguard.Change) ([]string, error), netAsk func(context.Context, shellguard.Grant) (string, error)) (*shellguard.Result, error) {
	req := shellguard.Request{
		ApproveSandbox: netAsk,
		Command:        in.Command,
		Cwd:            in.Cwd,
		Timeout:        in.Timeout,
		DisableSandbox: in.DisableSandbox,
		Network:        in.Network,
		Approve:        approve,
		Review:         in.Review, // without a reviewer: refused
		ReviewChanges:  review,
	}
	var warnings []string
	var r shellguard.Result
	var err error
	if in.RunInBackground {
		var t *shellguard.Task
		if t, err = sess.Start(ctx, req, shellguard.TaskOptions{}); err == nil {
			r = t.Status(shellguard.ReadOptions{New: true})
		}
	} else {
		req.Stdout, req.Stderr = live.writer(""), live.writer("[stderr] ")
		r, err = sess.Run(ctx, req)
		live.flush()
	}
	if r.Command == "" {
		r.Command, r.Cwd = in.Command, in.Cwd
	}
	r.Warnings = append(warnings, r.Warnings...)
	var de *shellguard.DeniedError
	switch {
	case errors.As(err, &de):
		r.Decision, r.Reasons = de.Verdict.Decision, de.Verdict.Reasons
		why := ""
		if de.Asked {
			why = "the command needs the user's approval and was not approved (" + de.Reason + ")."
		}
		r.Error = denialText(in.Command, de.Verdict, why, policy.Suggest(in.Command, de.Verdict, s.guardOf(sess).Config().Rules))
	case errors.Is(context.Cause(ctx), errDrained):
		r.Error = fmt.Sprintf("stopped: %v %s after that", errDrained, secs(s.admit.drainAfter))
	case errors.Is(err, context.Canceled):
		r.Error = "cancelled by the client: the command was stopped"
	case err != nil:
		r.Error = taskErr(err).Error()
	}
	return &r, err
}

// disableSandboxRefused answers dangerously_disable_sandbox when the
// configuration does not allow it.
const disableSandboxRefused = "dangerously_disable_sandbox: not allowed by the configuration (sandbox.allow_unsandboxed is off); run the command inside the sandbox"

// taskErr says a task error in words a model can act on.
func taskErr(err error) error {
	switch {
	case errors.Is(err, shellguard.ErrTooManyTasks):
		return fmt.Errorf("%w: kill a task you no longer need (task_id with kill: true) and try again", err)
	case errors.Is(err, shellguard.ErrSessionClosed):
		return errors.New("the session is closing; no new commands run")
	case errors.Is(err, shellguard.ErrNoStdin):
		return errors.New("this task has no stdin: it was moved to the background from a foreground run, whose stdin is /dev/null; start the command with run_in_background to talk to it")
	case errors.Is(err, shellguard.ErrNotRunning):
		return errors.New("the task has ended; nothing was written")
	case errors.Is(err, shellguard.ErrStdinBlocked):
		return errors.New("the task does not read its stdin (the pipe stayed full); nothing more was written")
	}
	return err
}

// canAsk reports whether the client can answer an approval request. The
// request is an elicitation either way: sent by the SDK during the call on
// protocols before 2026-07-28, returned as an input request (SEP-2322) on
// later ones; both need the client's elicitation capability.
func canAsk(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// rememberKey is the approval form's field for how long it holds.
const rememberKey = "remember"

// remember applies the scope the user chose in the approval form.
func (s *Server) remember(g *shellguard.Guard, sess *shellguard.Session, req shellguard.Request, v policy.Verdict, content map[string]any) (*shellguard.Grant, error) {
	scope, _ := content[rememberKey].(string)
	if scope == "" || scope == "once" {
		return nil, nil
	}
	rules := policy.Grant(req.Command, v, g.Config().Rules)
	if err := sess.Remember(scope, req.Command, rules); err != nil {
		return nil, err
	}
	return &shellguard.Grant{Rules: rules, Scope: scope}, nil
}

func approvalRequest(in *input, v policy.Verdict, offer []string, always bool) *mcp.ElicitParams {
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
	schema := json.RawMessage(`{"type":"object","properties":{}}`)
	if offer != nil {
		choices := []string{"once", "session"}
		names := []string{"Only this time", "For this session"}
		if always {
			choices = append(choices, "always")
			names = append(names, "Always in this workspace")
		}
		fmt.Fprintf(&b, "\n\nTo remember the answer, choose how long it holds; it then allows exactly: %s", strings.Join(offer, "; "))
		schema, _ = json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
			rememberKey: map[string]any{"type": "string", "title": "Remember", "enum": choices, "enumNames": names, "default": "once"},
		}})
	}
	return &mcp.ElicitParams{
		Mode:            "form",
		Message:         b.String(),
		RequestedSchema: schema,
	}
}

// sign binds an approval round trip to the parts of the call that decide
// what runs, for ten minutes.
func (s *Server) sign(in *input, now time.Time) string {
	ts := strconv.FormatInt(now.Unix(), 10)
	return ts + "." + s.mac(in, ts)
}

func (s *Server) verify(in *input, state string) bool {
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

func (s *Server) mac(in *input, ts string) string {
	h := hmac.New(sha256.New, s.key)
	fmt.Fprintf(h, "%s\x00%q\x00%q\x00%d\x00%t\x00%t\x00%q", ts, in.Command, in.Cwd, in.Timeout, in.RunInBackground, in.DisableSandbox, in.Network)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

func secs(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}
