package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/approvalpage"
	"github.com/shellguard/shellguard/policy"
)

// pageAskTTL is how long an ask stays on the approval page after its call
// returned "waiting for approval": an answer given meanwhile is used by
// the next identical call.
const pageAskTTL = 10 * time.Minute

// pageAsks are the asks of this server on the approval page, by session
// and call, so that a call repeated after "waiting for approval" finds
// the answer given since.
type pageAsks struct {
	mu   sync.Mutex
	asks map[string]*pageAsk
	runs map[string]*pendingRun // review runs waiting on the page, by runKey
}

// runKey names a call by what decides its run: the same call made again
// finds the run it started (awaitPage).
func runKey(sess *shellguard.Session, in *input) string {
	return fmt.Sprintf("%p\x00%q\x00%q\x00%t\x00%q\x00%t", sess, in.Command, in.Cwd, in.DisableSandbox, in.Network, in.Review)
}

// park keeps p for the same call made again, for ttl at most.
func (a *pageAsks) park(p *pendingRun, ttl time.Duration) {
	key := runKey(p.sess, p.in)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.runs == nil {
		a.runs = map[string]*pendingRun{}
	}
	if a.runs[key] == p {
		return
	}
	a.runs[key] = p
	time.AfterFunc(ttl, func() { a.unpark(p) })
}

func (a *pageAsks) unpark(p *pendingRun) {
	key := runKey(p.sess, p.in)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.runs[key] == p {
		delete(a.runs, key)
	}
}

// parked is the run the same call started and left waiting on the page.
func (a *pageAsks) parked(sess *shellguard.Session, in *input) *pendingRun {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.runs[runKey(sess, in)]
}

type pageAsk struct {
	id      int
	answer  <-chan approvalpage.Answer
	expires *time.Timer
}

// askPage puts an ask on the page and waits for the answer within the
// blocking budget. ok is false when no answer came in time: the ask stays
// on the page for pageAskTTL.
func (s *Server) askPage(ctx context.Context, sess *shellguard.Session, in *input, req shellguard.Request, v policy.Verdict) (ans approvalpage.Answer, ok bool) {
	p := s.opts.Page
	key := fmt.Sprintf("%p\x00%q\x00%q\x00%t\x00%q", sess, in.Command, in.Cwd, in.DisableSandbox, in.Network)
	s.page.mu.Lock()
	if s.page.asks == nil {
		s.page.asks = map[string]*pageAsk{}
	}
	a := s.page.asks[key]
	if a == nil {
		id, ch := p.Post(approvalpage.Ask{Command: in.Command, Cwd: in.Cwd, Purpose: in.Description, Verdict: v,
			Offer: policy.Grant(req.Command, v, s.guardOf(sess).Config().Rules), NoAlways: s.guardOf(sess).GrantsError() != nil, Session: fmt.Sprintf("%p", sess)})
		a = &pageAsk{id: id, answer: ch}
		a.expires = time.AfterFunc(pageAskTTL, func() {
			p.Withdraw(id)
			s.page.mu.Lock()
			if s.page.asks[key] == a {
				delete(s.page.asks, key)
			}
			s.page.mu.Unlock()
		})
		s.page.asks[key] = a
	}
	s.page.mu.Unlock()
	budget := s.set.BlockingBudget
	if budget <= 0 {
		budget = 50 * time.Second
	}
	t := time.NewTimer(budget)
	defer t.Stop()
	select {
	case ans = <-a.answer:
		ok = true
	case <-t.C:
	case <-ctx.Done():
	}
	if ok {
		a.expires.Stop()
		s.page.mu.Lock()
		if s.page.asks[key] == a {
			delete(s.page.asks, key)
		}
		s.page.mu.Unlock()
	}
	return ans, ok
}

// pageNetAsk is the network question of a call whose client cannot ask,
// put on the approval page while the connection waits (nil without a
// page): the call goes on waiting within the proxy's bound, and an
// unanswered question is a no, taken off the page.
func (s *Server) pageNetAsk(sess *shellguard.Session, in *input) func(context.Context, shellguard.Grant) (string, error) {
	p := s.opts.Page
	if p == nil {
		return nil
	}
	return func(ctx context.Context, g shellguard.Grant) (string, error) {
		a := approvalpage.Ask{Command: in.Command, Cwd: in.Cwd, Purpose: in.Description,
			NoAlways: s.guardOf(sess).GrantsError() != nil, Session: fmt.Sprintf("%p", sess)}
		switch {
		case len(g.Hosts) == 1 && len(g.Paths) == 0:
			a.Host = g.Hosts[0]
		case len(g.Paths) == 1 && len(g.Hosts) == 0:
			a.Path, a.PathWrite, a.PathRefused = g.Paths[0].Path, g.Paths[0].Write, g.Paths[0].Refused
		default:
			return "", nil
		}
		ans, err := p.Ask(ctx, a)
		if err != nil || !ans.Allow {
			return "", err
		}
		return ans.Scope, nil
	}
}

// recordPage shows a finished call on the page.
func (s *Server) recordPage(r *shellguard.Result) {
	if s.opts.Page == nil || r == nil {
		return
	}
	outcome := r.Error
	switch {
	case r.ExitCode != nil:
		outcome = fmt.Sprintf("exit %d", *r.ExitCode)
	case r.Task != nil:
		outcome = "background task " + r.Task.ID
	}
	if len(outcome) > 120 {
		outcome = outcome[:120] + "…"
	}
	e := approvalpage.Entry{Command: r.Command, Decision: r.Decision.String(), Outcome: outcome,
		AuditSeq: r.AuditSeq, Approved: r.Approved, Redactions: r.Redactions}
	for _, reason := range r.Reasons {
		e.Rules = append(e.Rules, reason.ID)
	}
	if r.Sandbox != nil && !r.Unsandboxed {
		e.Sandbox = r.Sandbox.Names()
	}
	if r.Grant != nil {
		e.Hosts = r.Grant.Hosts
	}
	s.opts.Page.Record(e)
}
