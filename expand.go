package shellguard

// Sandbox expansion: after a foreground run whose network proxy refused
// hosts that a grant may let through, the approver is asked for exactly
// those, and when it grants them the command runs again, once, with them
// allowed beyond the allowlist (for that run, the session, or always in
// this workspace).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// expand asks about the accesses the sandbox refused in res (the result
// of run(ctx, req)) and, when they are granted, returns the result of run
// again with them. s keeps a "session" grant (nil: Guard.Run, where it
// holds for the rerun only). Without an approver, for a run that did not
// end in the foreground, or without any refusal a grant may lift, res
// and err are returned as they are.
func (g *Guard) expand(ctx context.Context, s *Session, req Request, res Result, err error, run func(context.Context, Request) (Result, error)) (Result, error) {
	approve := req.ApproveSandbox
	if approve == nil && g.cfg.ApproveSandbox != nil {
		approve = func(ctx context.Context, ask Grant) (string, error) { return g.cfg.ApproveSandbox(ctx, req, ask) }
	}
	hosts := grantableHosts(res)
	var de *DeniedError
	if approve == nil || len(hosts) == 0 || res.Task != nil || ctx.Err() != nil || errors.As(err, &de) ||
		errors.Is(err, ErrSessionClosed) {
		return res, err
	}
	if _, verr := sandbox.NetGrantEntries(hosts); verr != nil {
		return res, err // not a destination a grant can name (redacted, say)
	}
	scope, aerr := approve(ctx, Grant{Hosts: slices.Clone(hosts)})
	switch {
	case aerr != nil:
		res.Warnings = append(res.Warnings, "network: "+strings.Join(hosts, ", ")+" not granted: "+aerr.Error())
		return res, err
	case scope == "" || scope == "deny" || scope == "no":
		res.Warnings = append(res.Warnings, "network: the user was asked to allow "+strings.Join(hosts, ", ")+" and declined; the command was not run again")
		return res, err
	case scope != "once" && scope != "session" && scope != "always":
		res.Warnings = append(res.Warnings, fmt.Sprintf("network: %s not granted: the approver answered %q (the scopes are once, session and always)", strings.Join(hosts, ", "), scope))
		return res, err
	}
	grant := &Grant{Hosts: hosts, Scope: scope}
	var notes []string
	if scope == "always" {
		if rerr := g.rememberAlways(grantEntry{Hosts: hosts, Command: req.Command}); rerr != nil {
			grant.Scope = "session"
			notes = append(notes, "not remembered beyond the session: "+rerr.Error())
		}
	}
	if grant.Scope == "session" {
		if s == nil {
			grant.Scope = "once"
			notes = append(notes, "held for this run only: there is no session to keep it")
		} else {
			s.grantMu.Lock()
			for _, h := range hosts {
				if !slices.Contains(s.hosts, h) {
					s.hosts = append(s.hosts, h)
				}
			}
			s.grantMu.Unlock()
		}
	}
	again := req
	again.hosts = slices.Concat(req.hosts, hosts)
	again.granted = grant
	// Admitted already (it ran): the same answer, not a second question.
	again.Approve = func(context.Context, policy.Verdict) (bool, error) { return true, nil }
	res2, err2 := run(ctx, again)
	note := fmt.Sprintf("network: the sandbox refused %s; the user granted it (%s) and the command ran again: this is that run", strings.Join(hosts, ", "), grant.Scope)
	if len(notes) > 0 {
		note += " (" + strings.Join(notes, "; ") + ")"
	}
	res2.Warnings = append([]string{note}, res2.Warnings...)
	return res2, err2
}

// grantableHosts are the hosts the proxy refused in res that a grant may
// let through.
func grantableHosts(res Result) []string {
	if res.Sandbox == nil || res.Sandbox.Net == nil {
		return nil
	}
	return res.Sandbox.Net.Grantable
}
