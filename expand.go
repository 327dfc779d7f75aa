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
		switch scope {
		case "once":
		case "session":
			s := req.sess
			if s == nil {
				scope = "once" // no session to keep it: this run only
				break
			}
			s.grantMu.Lock()
			if !slices.Contains(s.hosts, hp) {
				s.hosts = append(s.hosts, hp)
			}
			s.grantMu.Unlock()
		case "always":
			if g.rememberAlways(grantEntry{Hosts: []string{hp}, Command: req.Command}) != nil {
				scope = "once" // not kept: this run only
			}
		default:
			return false
		}
		lg.add(hp, scope)
		return true
	}
}
