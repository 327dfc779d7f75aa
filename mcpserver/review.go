package mcpserver

// Runs that ask, over MCP. A foreground call from a client that can answer
// runs its command in a goroutine that may put questions while it runs: a
// network destination the sandbox's proxy refused (asked while that
// connection waits, so the command runs once) and, for a review run, what
// the command changed, each change with its diff, while the changes wait
// in the run's copy-on-write layer. A question ends the call with an input
// request (an elicitation form); the client calls again with the answer
// (on protocols before 2026-07-28 the SDK does so itself, within the
// call), the run goes on, and that call returns the result or the next
// question. A question nobody answers within reviewTTL (a network one:
// within the proxy's wait for it) is answered no: a review
// lands nothing, a connection stays refused.

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/approvalpage"
	"github.com/shellguard/shellguard/policy"
)

// reviewKey names the review's input request; its form has reviewApply
// ("all", "none", "select") and, for select, reviewPaths.
const (
	reviewKey   = "shellguard_review"
	reviewApply = "apply"
	reviewPaths = "paths"
)

// reviewTTL is how long a review waits for its answer; the approval
// round trip's signature holds as long.
const reviewTTL = 10 * time.Minute

// reviewMaxMessage bounds the form's text (the diffs are cut past it; the
// paths are always listed).
const reviewMaxMessage = 32 << 10

// netKey names a network question's input request, pathKey a path
// question's; their forms have rememberKey (once, session, always) and
// are accepted or declined.
const (
	netKey  = "shellguard_network"
	pathKey = "shellguard_path"
)

// question is what a running command waits on: a review of its changes, a
// network destination, or a path the sandbox refused (the command waits to
// run once more).
type question struct {
	review  bool
	changes []shellguard.Change   // review
	host    string                // network: host:port
	path    *shellguard.PathGrant // a path grant
	reply   chan answer           // holds one answer
}

type answer struct {
	all   bool     // review: apply every change
	paths []string // review: the changes to apply
	scope string   // network: how long the grant holds
	err   error    // declined or not answered
}

// pendingRun is a run of a call that may ask, and while the client holds
// one of its questions, that question.
type pendingRun struct {
	in      *input
	sess    *shellguard.Session
	cancel  context.CancelCauseFunc // ends the run, or its wait for an answer
	asks    chan *question          // from the run
	done    chan runOut             // the run's result
	always  bool                    // a network grant may be kept in the grants file
	expires time.Time
	cur     *question
}

type runOut struct {
	res *shellguard.Result
	err error
}

// asking holds a server's runs that may ask, and by id those whose
// question the client holds.
type asking struct {
	mu  sync.Mutex
	m   map[string]*pendingRun
	run map[*pendingRun]bool
	// waiting counts the questions put and not yet answered; max bounds
	// it (0: maxWaiting). A run waiting for an answer has given its
	// call's slot back yet holds its sandbox (and a review its
	// copy-on-write layer), so past the bound a new question is not put:
	// it is answered no at once, and the result says why.
	waiting, max int
}

// maxWaiting is the default bound of the questions waiting for an answer
// at once, over all sessions of a server.
const maxWaiting = 16

// wait counts a question about to be put; false when the bound is
// reached (the question must not be put).
func (r *asking) wait() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.waiting >= cmp.Or(r.max, maxWaiting) {
		return false
	}
	r.waiting++
	return true
}

// answered undoes wait once the question is answered or given up on.
func (r *asking) answered() {
	r.mu.Lock()
	r.waiting--
	r.mu.Unlock()
}

func (r *asking) start(p *pendingRun) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.run == nil {
		r.run = map[*pendingRun]bool{}
	}
	r.run[p] = true
}

func (r *asking) end(p *pendingRun) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.run, p)
}

// drop ends the runs of sess (nil: all): a session that closes leaves no
// run waiting for an answer nobody can give; nothing of a review lands.
func (r *asking) drop(sess *shellguard.Session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for p := range r.run {
		if sess == nil || p.sess == sess {
			p.cancel(nil)
		}
	}
	for id, p := range r.m {
		if sess == nil || p.sess == sess {
			delete(r.m, id)
		}
	}
}

func (r *asking) put(p *pendingRun) string {
	var b [18]byte
	rand.Read(b[:])
	id := base64.RawURLEncoding.EncodeToString(b[:])
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]*pendingRun{}
	}
	now := time.Now()
	for k, x := range r.m {
		if now.After(x.expires) {
			delete(r.m, k) // nobody answered: the run has gone on without it
		}
	}
	r.m[id] = p
	return id
}

func (r *asking) take(id string) *pendingRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.m[id]
	delete(r.m, id)
	return p
}

// wantsReview says whether the call runs as a review run.
func (s *Server) wantsReview(g *shellguard.Guard, in *input) bool {
	sb := g.Config().Sandbox
	return in.Review || (sb != nil && sb.Review && !in.DisableSandbox)
}

// runAsking runs a foreground command that may ask (a review run when
// review is set) and returns its result or its first question.
func (s *Server) runAsking(ctx context.Context, ss *mcp.ServerSession, sess *shellguard.Session, in *input, approve func(context.Context, policy.Verdict) (bool, error), live *progress, granted func(*shellguard.Result), review bool) *mcp.CallToolResult {
	if review && in.RunInBackground {
		return toolError("review: a review is shown when the command ends, so it runs in the foreground; leave run_in_background out")
	}
	// A client that cannot ask is asked on the approval page, if any.
	var page *approvalpage.Page
	if !canAsk(ss) {
		page = s.opts.Page
	}
	if review && !canAsk(ss) && page == nil {
		return toolError("review: this MCP client cannot show a review (it supports neither elicitation nor input requests), so the command was not run; run it without review, from a client that can ask, or with the approval page (--approval-page)")
	}
	// The run outlives this call when it returns a question: it ends when
	// it is done (its questions answered, or given up on), or when its
	// session closes, not with the call.
	runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	p := &pendingRun{in: in, sess: sess, cancel: cancel, asks: make(chan *question), done: make(chan runOut, 1),
		always: s.guardOf(sess).GrantsError() == nil}
	s.asking.start(p)
	// put hands q to the call (or the next one) and waits for its answer;
	// false when ctx ended first.
	put := func(qctx context.Context, q *question) (answer, bool) {
		if !s.asking.wait() {
			return answer{err: fmt.Errorf("%d questions already wait for the user's answer; answer them first", cmp.Or(s.asking.max, maxWaiting))}, true
		}
		defer s.asking.answered()
		if page != nil {
			return s.askOnPage(qctx, page, p, q)
		}
		q.reply = make(chan answer, 1)
		t := time.NewTimer(reviewTTL)
		defer t.Stop()
		select {
		case p.asks <- q:
		case <-t.C:
			return answer{err: fmt.Errorf("nobody answered within %s", reviewTTL)}, true
		case <-qctx.Done():
			return answer{}, false
		}
		select {
		case a := <-q.reply:
			return a, true
		case <-t.C:
			return answer{err: fmt.Errorf("nobody answered within %s", reviewTTL)}, true
		case <-qctx.Done():
			return answer{}, false
		}
	}
	var reviewer func(context.Context, []shellguard.Change) ([]string, error)
	if review {
		reviewer = func(rctx context.Context, cs []shellguard.Change) ([]string, error) {
			a, ok := put(rctx, &question{review: true, changes: cs})
			if !ok {
				return nil, rctx.Err()
			}
			if a.all {
				for _, c := range cs {
					a.paths = append(a.paths, c.Path)
				}
			}
			return a.paths, a.err
		}
	}
	netAsk := func(qctx context.Context, g shellguard.Grant) (string, error) {
		q := &question{}
		switch {
		case len(g.Hosts) == 1 && len(g.Paths) == 0:
			q.host = g.Hosts[0]
		case len(g.Paths) == 1 && len(g.Hosts) == 0:
			q.path = &g.Paths[0]
		default:
			return "", errors.New("a sandbox question names one destination or one path")
		}
		a, ok := put(qctx, q)
		if !ok {
			return "", qctx.Err()
		}
		return a.scope, a.err
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.asking.end(p)
		defer cancel(nil)
		res, err := s.run(runCtx, sess, in, approve, live, reviewer, netAsk)
		granted(res)
		s.recordPage(res)
		p.done <- runOut{res, err}
	}()
	if page != nil {
		return s.awaitPage(ctx, p, true)
	}
	return s.await(ctx, p, true)
}

// askOnPage puts q on the approval page and waits for the answer
// (reviewTTL at most); false when qctx ended first.
func (s *Server) askOnPage(qctx context.Context, page *approvalpage.Page, p *pendingRun, q *question) (answer, bool) {
	a := approvalpage.Ask{Command: p.in.Command, Cwd: p.in.Cwd, Purpose: p.in.Description, Host: q.host,
		NoAlways: !p.always, Session: fmt.Sprintf("%p", p.sess)}
	if q.path != nil {
		a.Path, a.PathWrite, a.PathRefused = q.path.Path, q.path.Write, q.path.Refused
	}
	if q.review {
		a.Changes = append([]shellguard.Change{}, q.changes...) // never nil: a review
	}
	actx, cancel := context.WithTimeout(qctx, reviewTTL)
	defer cancel()
	ans, err := page.Ask(actx, a)
	switch {
	case qctx.Err() != nil:
		return answer{}, false
	case err != nil:
		return answer{err: fmt.Errorf("nobody answered on the approval page within %s", reviewTTL)}, true
	case !ans.Allow:
		return answer{err: errors.New(`the user answered "deny" on the approval page`)}, true
	case q.review:
		return answer{all: ans.All, paths: ans.Paths}, true
	}
	return answer{scope: ans.Scope}, true
}

// awaitPage returns the result of a run whose questions go to the approval
// page, within the blocking budget. Past it the run is kept (parked by the
// call's key) and the call says where to answer: the same call made again
// then waits for the same run, which lands nothing until it is answered.
func (s *Server) awaitPage(ctx context.Context, p *pendingRun, first bool) *mcp.CallToolResult {
	budget := s.set.BlockingBudget
	if budget <= 0 {
		budget = 50 * time.Second
	}
	t := time.NewTimer(budget)
	defer t.Stop()
	select {
	case out := <-p.done:
		s.page.unpark(p)
		return result(out.res, out.err != nil)
	case <-t.C:
		s.page.park(p, reviewTTL+pageAskTTL)
		r := &shellguard.Result{Command: p.in.Command, Cwd: p.in.Cwd}
		r.Error = fmt.Sprintf("WAITING FOR REVIEW: the command ran, and what it changed waits to land. Ask the user to answer on the approval page, %s , then call the tool again with the same command to get the result (the run waits %s; nothing of it lands without an answer).", s.opts.Page.URL(), reviewTTL)
		return result(r, true)
	case <-ctx.Done():
		if !first {
			return toolError("the client cancelled the call; the run goes on waiting for its answer on the approval page")
		}
		p.cancel(context.Cause(ctx)) // the command is stopped; what it changed does not land
		out := <-p.done
		return result(out.res, true)
	}
}

// await returns the run's result, or its next question as an input
// request. first: the call started the run, and its cancellation stops
// the command (nothing of it lands); a later call only gave an answer.
func (s *Server) await(ctx context.Context, p *pendingRun, first bool) *mcp.CallToolResult {
	select {
	case out := <-p.done:
		return result(out.res, out.err != nil)
	case q := <-p.asks:
		p.cur = q
		p.expires = time.Now().Add(reviewTTL)
		id := s.asking.put(p)
		var req *mcp.ElicitParams
		key := netKey
		switch {
		case q.review:
			key, req = reviewKey, reviewRequest(p.in, q.changes)
		case q.path != nil:
			key, req = pathKey, pathRequest(p.in, *q.path, p.always)
		default:
			req = netRequest(p.in, q.host, p.always)
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{key: req}, RequestState: s.signReview(p.in, id, time.Now())}
	case <-ctx.Done():
		if !first {
			// The run goes on with the answer given; its result is lost
			// with this call, and a further question goes unanswered.
			return toolError("the client cancelled the call after answering; the answer was applied")
		}
		// The command is stopped, for the call's reason (the client
		// cancelled, or the drain after its input ended: the result says
		// which); what it changed does not land.
		p.cancel(context.Cause(ctx))
		out := <-p.done
		return result(out.res, true)
	}
}

// answerRun takes the answer to a run's question and returns the run's
// result or its next question.
func (s *Server) answerRun(ctx context.Context, in *input, resp mcp.InputResponse, state string) *mcp.CallToolResult {
	id, ok := s.verifyReview(in, state)
	var p *pendingRun
	if ok {
		p = s.asking.take(id)
	}
	if p == nil {
		return toolError("this answer does not match a pending review or network question of this call (it was answered already, or expired after " + reviewTTL.String() + ": then nothing of a review landed and the connection stayed refused); run the command again")
	}
	q := p.cur
	a := answer{}
	er, _ := resp.(*mcp.ElicitResult)
	switch {
	case er == nil || er.Action != "accept":
		action := "no answer"
		if er != nil {
			action = er.Action
		}
		a.err = errors.New("the user answered " + strconv.Quote(action))
	case q.review:
		a.all, a.paths = pickedPaths(er.Content)
	default:
		a.scope, _ = er.Content[rememberKey].(string)
		if a.scope == "" || (a.scope == "always" && !p.always) {
			a.scope = "once"
		}
	}
	q.reply <- a
	return s.await(ctx, p, false)
}

// netRequest is the form of a network question: allow the destination
// (once, for the session, always in this workspace) or decline.
func netRequest(in *input, host string, always bool) *mcp.ElicitParams {
	var b strings.Builder
	fmt.Fprintf(&b, "A connection to %s, which the sandbox's network allowlist does not name, waits for your answer (not answered in time is no). It comes from the command\n\n%s\n\nAllow it?\n", host, in.Command)
	if in.Description != "" {
		fmt.Fprintf(&b, "\nPurpose: %s\n", in.Description)
	}
	b.WriteString("\nAccept to allow exactly " + host + " and choose how long that holds; decline to keep it refused.")
	return scopeForm(b.String(), always)
}

// scopeForm is a form asking how long a sandbox grant holds: once, for
// the session, or always in this workspace (when it can be kept).
func scopeForm(message string, always bool) *mcp.ElicitParams {
	choices := []string{"once", "session"}
	names := []string{"For this command", "For this session"}
	if always {
		choices = append(choices, "always")
		names = append(names, "Always in this workspace")
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
		rememberKey: map[string]any{"type": "string", "title": "Allow", "enum": choices, "enumNames": names, "default": "once"},
	}})
	return &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: json.RawMessage(schema)}
}

// pathRequest is the form of a path question: run the command once more
// with exactly that path allowed (once, for the session, always in this
// workspace) or decline.
func pathRequest(in *input, pg shellguard.PathGrant, always bool) *mcp.ElicitParams {
	var b strings.Builder
	fmt.Fprintf(&b, "The sandbox refused the command\n\n%s\n\n%s\n", in.Command, pg.Question())
	if in.Description != "" {
		fmt.Fprintf(&b, "\nPurpose: %s\n", in.Description)
	}
	access := "reading"
	if pg.Write {
		access = "writing"
	}
	b.WriteString("\nAccept to allow exactly " + access + " " + pg.Path + " and choose how long that holds; decline to keep it refused (the command is not run again).")
	return scopeForm(b.String(), always)
}

// pickedPaths reads the review form: all, none, or select with one path
// per line (or comma-separated).
func pickedPaths(c map[string]any) (all bool, paths []string) {
	apply, _ := c[reviewApply].(string)
	switch apply {
	case "all":
		return true, nil
	case "select":
		text, _ := c[reviewPaths].(string)
		var out []string
		for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == ',' }) {
			if p := strings.TrimSpace(line); p != "" {
				out = append(out, p)
			}
		}
		return false, out
	}
	return false, nil
}

// reviewRequest is the form: each change, its diff while the message has
// room, and the choice.
func reviewRequest(in *input, cs []shellguard.Change) *mcp.ElicitParams {
	var b strings.Builder
	fmt.Fprintf(&b, "The command\n\n%s\n\nchanged %d entries of the workspace. Nothing of it has landed yet. Apply which?\n", in.Command, len(cs))
	if in.Description != "" {
		fmt.Fprintf(&b, "\nPurpose: %s\n", in.Description)
	}
	for i, c := range cs {
		fmt.Fprintf(&b, "\n%d. %s %s %s", i+1, c.Op, c.Kind, c.Path)
		if c.Mode != "" {
			fmt.Fprintf(&b, " (%s)", c.Mode)
		}
		b.WriteString("\n")
		switch {
		case c.Diff != "" && b.Len()+len(c.Diff) <= reviewMaxMessage:
			b.WriteString(c.Diff)
		case c.Diff != "":
			b.WriteString("(diff left out: the message is full)\n")
		case c.Note != "":
			fmt.Fprintf(&b, "(%s)\n", c.Note)
		}
	}
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
		reviewApply: map[string]any{"type": "string", "title": "Apply", "enum": []string{"all", "none", "select"},
			"enumNames": []string{"All of them", "None (discard)", "Only the paths below"}, "default": "none"},
		reviewPaths: map[string]any{"type": "string", "title": "Paths to apply (one per line), with Only the paths below"},
	}, "required": []string{reviewApply}})
	return &mcp.ElicitParams{Mode: "form", Message: b.String(), RequestedSchema: json.RawMessage(schema)}
}

// signReview binds a review's answer to the call and the pending run.
func (s *Server) signReview(in *input, id string, now time.Time) string {
	ts := strconv.FormatInt(now.Unix(), 10)
	return "r." + id + "." + ts + "." + s.mac(in, ts+"\x00review\x00"+id)
}

func (s *Server) verifyReview(in *input, state string) (string, bool) {
	rest, ok := strings.CutPrefix(state, "r.")
	if !ok {
		return "", false
	}
	parts := strings.SplitN(rest, ".", 3)
	if len(parts) != 3 {
		return "", false
	}
	id, ts, mac := parts[0], parts[1], parts[2]
	n, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(n, 0)) > reviewTTL {
		return "", false
	}
	return id, hmac.Equal([]byte(mac), []byte(s.mac(in, ts+"\x00review\x00"+id)))
}
