package shellguard

// Sandbox expansion: while a sandboxed command runs, a connection its
// network proxy refuses only because no allowlist entry names the host
// waits while the approver is asked about exactly that host:port (never
// about a link-local or metadata address). Allowed, the connection goes
// through in the same run: the command is never run twice. The answer
// holds for that run ("once"), the Session's later calls ("session"), or
// also this workspace in the grants file ("always").

import (
	"context"
	"slices"
	"sync"

	"github.com/shellguard/shellguard/sandbox"
)

// liveGrants are the hosts an approver allowed during one run.
type liveGrants struct {
	mu    sync.Mutex
	hosts []string
	scope string // the widest scope given
}

var scopeRank = map[string]int{"once": 1, "session": 2, "always": 3}

func (l *liveGrants) add(hp, scope string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hosts = append(l.hosts, hp)
	if scopeRank[scope] > scopeRank[l.scope] {
		l.scope = scope
	}
}

// grant is what was allowed, as a Result's Grant, or nil.
func (l *liveGrants) grant() *Grant {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.hosts) == 0 {
		return nil
	}
	return &Grant{Hosts: slices.Clone(l.hosts), Scope: l.scope}
}

// sandboxApprover is req's sandbox approver (its own, else
// Config.ApproveSandbox), or nil.
func (g *Guard) sandboxApprover(req Request) func(ctx context.Context, ask Grant) (string, error) {
	if req.ApproveSandbox != nil {
		return req.ApproveSandbox
	}
	if g.cfg.ApproveSandbox != nil {
		return func(ctx context.Context, ask Grant) (string, error) { return g.cfg.ApproveSandbox(ctx, req, ask) }
	}
	return nil
}

// liveAsk is the question the proxy puts while req's command runs
// (sandbox.Handle.OnNetAsk): the sandbox approver (req's, else
// Config.ApproveSandbox) asked about one host:port. Allowed hosts are
// recorded in lg. Nil without an approver.
func (g *Guard) liveAsk(ctx context.Context, req Request, lg *liveGrants) func(context.Context, string) bool {
	approve := g.sandboxApprover(req)
	if approve == nil {
		return nil
	}
	return func(actx context.Context, hp string) bool {
		if _, err := sandbox.NetGrantEntries([]string{hp}); err != nil {
			return false // not a destination a grant can name
		}
		// The question ends with the run (actx) or the request (ctx).
		qctx, cancel := context.WithCancel(actx)
		defer cancel()
		defer context.AfterFunc(ctx, cancel)()
		scope, err := approve(qctx, Grant{Hosts: []string{hp}})
		if err != nil || qctx.Err() != nil {
			return false
		}
		if scope = keepGrant(g, req, scope, hp, func(s *Session) *[]string { return &s.hosts }, grantEntry{Hosts: []string{hp}, Command: req.Command}); scope == "" {
			return false
		}
		lg.add(hp, scope)
		return true
	}
}

// keepGrant keeps one approved grant (a host, a path) for the scope the
// person chose: once (this run), the session (added to its list under
// grantMu) or always (the user config). It returns the scope the grant
// is kept for, "once" when there is no session or the config cannot
// take it, and "" when the answer grants nothing.
func keepGrant[T comparable](g *Guard, req Request, scope string, item T, list func(*Session) *[]T, always grantEntry) string {
	switch scope {
	case "once":
	case "session":
		s := req.sess
		if s == nil {
			return "once" // no session to keep it: this run only
		}
		s.grantMu.Lock()
		if l := list(s); !slices.Contains(*l, item) {
			*l = append(*l, item)
		}
		s.grantMu.Unlock()
	case "always":
		if g.rememberAlways(always) != nil {
			return "once" // not kept: this run only
		}
	default:
		return ""
	}
	return scope
}
