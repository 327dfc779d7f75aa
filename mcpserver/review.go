package mcpserver

// Review runs over MCP. The command runs; when it ends with changes, the
// call returns an input request (an elicitation form listing each change
// with its diff) while the changes wait in the run's copy-on-write layer.
// The client calls again with the answer (on protocols before 2026-07-28
// the SDK does so itself, within the call); the run then applies what was
// picked and that call returns its result. A review nobody answers within
// reviewTTL lands nothing.

import (
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

// pendingReview is a review run, and once it ended with changes, their
// wait for an answer.
type pendingReview struct {
	in      *input
	sess    *shellguard.Session
	cancel  context.CancelFunc // ends the run, or its wait for the answer
	answer  chan reviewAnswer  // to the run's reviewer
	done    chan runOut        // the run's result
	expires time.Time
	granted func(*shellguard.Result) // adds what the approval granted
}

type reviewAnswer struct {
	all   bool
	paths []string
	err   error
}

type runOut struct {
	res *shellguard.Result
	err error
}

// reviews holds a server's review runs, and by id those waiting for an
// answer.
type reviews struct {
	mu  sync.Mutex
	m   map[string]*pendingReview
	run map[*pendingReview]bool
}

func (r *reviews) start(p *pendingReview) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.run == nil {
		r.run = map[*pendingReview]bool{}
	}
	r.run[p] = true
}

func (r *reviews) end(p *pendingReview) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.run, p)
}

// drop ends the review runs of sess (nil: all): a session that closes
// leaves no run waiting for an answer nobody can give; nothing of them
// lands.
func (r *reviews) drop(sess *shellguard.Session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for p := range r.run {
		if sess == nil || p.sess == sess {
			p.cancel()
		}
	}
	for id, p := range r.m {
		if sess == nil || p.sess == sess {
			delete(r.m, id)
		}
	}
}

func (r *reviews) put(p *pendingReview) string {
	var b [18]byte
	rand.Read(b[:])
	id := base64.RawURLEncoding.EncodeToString(b[:])
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]*pendingReview{}
	}
	now := time.Now()
	for k, x := range r.m {
		if now.After(x.expires) {
			delete(r.m, k) // its reviewer gave up: nothing landed
		}
	}
	r.m[id] = p
	return id
}

func (r *reviews) take(id string) *pendingReview {
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

// runReviewed runs a review run. It returns the result when the run
// changed nothing (or failed), else an input request for the review.
func (s *Server) runReviewed(ctx context.Context, ss *mcp.ServerSession, sess *shellguard.Session, in *input, approve func(context.Context, policy.Verdict) (bool, error), live *progress, granted func(*shellguard.Result)) *mcp.CallToolResult {
	if in.RunInBackground {
		return toolError("review: a review is shown when the command ends, so it runs in the foreground; leave run_in_background out")
	}
	if !canAsk(ss) {
		return toolError("review: this MCP client cannot show a review (it supports neither elicitation nor input requests), so the command was not run; run it without review, or from a client that can ask")
	}
	changes := make(chan []shellguard.Change, 1)
	// The run outlives this call when it returns the review: it ends
	// when the answer arrives (or reviewTTL passes, or its session
	// closes), not with the call.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p := &pendingReview{in: in, sess: sess, cancel: cancel, answer: make(chan reviewAnswer, 1), done: make(chan runOut, 1), granted: granted}
	s.reviews.start(p)
	review := func(rctx context.Context, cs []shellguard.Change) ([]string, error) {
		changes <- cs
		t := time.NewTimer(reviewTTL)
		defer t.Stop()
		select {
		case a := <-p.answer:
			if a.all {
				for _, c := range cs {
					a.paths = append(a.paths, c.Path)
				}
			}
			return a.paths, a.err
		case <-t.C:
			return nil, fmt.Errorf("nobody answered within %s", reviewTTL)
		case <-rctx.Done():
			return nil, rctx.Err()
		}
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.reviews.end(p)
		defer cancel()
		res, err := s.run(runCtx, sess, in, approve, live, review)
		p.granted(res)
		s.recordPage(res)
		p.done <- runOut{res, err}
	}()
	select {
	case out := <-p.done: // nothing to review
		return result(out.res, out.err != nil)
	case cs := <-changes:
		p.expires = time.Now().Add(reviewTTL)
		id := s.reviews.put(p)
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{reviewKey: reviewRequest(in, cs)},
			RequestState:  s.signReview(in, id, time.Now()),
		}
	case <-ctx.Done():
		cancel() // the command is stopped; what it changed does not land
		p.answer <- reviewAnswer{err: errors.New("the client cancelled the call")}
		out := <-p.done
		return result(out.res, true)
	}
}

// answerReview takes the answer to a review and returns the run's result.
func (s *Server) answerReview(ctx context.Context, in *input, resp mcp.InputResponse, state string) *mcp.CallToolResult {
	id, ok := s.verifyReview(in, state)
	var p *pendingReview
	if ok {
		p = s.reviews.take(id)
	}
	if p == nil {
		return toolError("review: this answer does not match a pending review of this call (it was answered already, or expired after " + reviewTTL.String() + ": then nothing of the run landed); run the command again")
	}
	a := reviewAnswer{}
	er, _ := resp.(*mcp.ElicitResult)
	switch {
	case er == nil || er.Action != "accept":
		action := "no answer"
		if er != nil {
			action = er.Action
		}
		a.err = errors.New("the user answered " + strconv.Quote(action))
	default:
		a.all, a.paths = pickedPaths(er.Content)
	}
	p.answer <- a
	select {
	case out := <-p.done:
		return result(out.res, out.err != nil)
	case <-ctx.Done():
		// The run ends on its own (the answer is in); its result is lost
		// with this call.
		return toolError("review: the client cancelled the call after answering; the answer was applied")
	}
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
