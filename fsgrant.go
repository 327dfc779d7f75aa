package shellguard

// Path grants: after a sandboxed foreground command failed on paths the
// sandbox refused (fsrefused.go), the sandbox approver is asked about
// each one it may lift, as one exact grant (this directory writable, this
// file of the hidden home readable), and the command runs once more with
// exactly the grants given. Never a third run; never for a background
// task, a refused command or without an approver. "session" keeps a grant
// for the Session's later calls, "always" in the grants file for this
// workspace.

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shellguard/shellguard/sandbox"
)

// rerun is what a run made again after path grants carries.
type rerun struct {
	grant    Grant  // the paths granted for it and the widest scope
	approved bool   // the first run's ask was approved
	warning  string // why it ran again
}

// fillRefused reports the paths a failed sandboxed run was refused
// (Sandbox.FSRefused, one warning each) and keeps in tag the grants that
// would lift them.
func (g *Guard) fillRefused(res *Result, tag *runTag) {
	if tag == nil || tag.spec == nil || res.Sandbox == nil || res.Sandbox.Mode == sandbox.Off || res.Unsandboxed ||
		res.ExitCode == nil || *res.ExitCode == 0 {
		return
	}
	text := res.Stderr
	if text == "" {
		text = res.Stdout // one pipe for both (MergeStderr)
	}
	cands := refusedPaths(text, tag.dir)
	if len(cands) == 0 {
		return
	}
	j := g.judgeFor(*tag.spec, res.Sandbox.Has(sandbox.LayerHome))
	for _, c := range cands {
		r, pg := j.judge(c)
		if r.Access == "" {
			continue
		}
		res.Sandbox.FSRefused = append(res.Sandbox.FSRefused, r)
		verb := map[string]string{"read": "reading", "write": "writing"}[r.Access]
		w := "sandbox: the command was refused " + verb + " " + r.Path
		switch {
		case pg != nil:
			tag.pathAsks = append(tag.pathAsks, *pg)
			w += ", which the sandbox keeps from commands; a sandbox approver may allow exactly that"
		default:
			w += "; no grant is offered for it: " + r.Why
		}
		res.Warnings = append(res.Warnings, w)
	}
}

// askPaths asks req's sandbox approver about each grant that would lift a
// refusal of the run that gave res and tag. It returns the request to run
// once more with the grants given, and true, or false when there is none
// to make (nothing granted, no approver, a background task, a run made
// again already, an error).
func (g *Guard) askPaths(ctx context.Context, req Request, res *Result, tag *runTag, err error) (Request, bool) {
	if err != nil || tag == nil || len(tag.pathAsks) == 0 || req.again != nil || res.Task != nil ||
		tag.backgrounded.Load() || ctx.Err() != nil {
		return req, false
	}
	approve := g.sandboxApprover(req)
	if approve == nil {
		return req, false
	}
	var granted []PathGrant
	scope := ""
	for _, pg := range tag.pathAsks {
		sc, err := approve(ctx, Grant{Paths: []PathGrant{pg}})
		if err != nil || ctx.Err() != nil {
			break
		}
		sc = keepGrant(g, req, sc, pg, func(s *Session) *[]PathGrant { return &s.paths }, grantEntry{Paths: []PathGrant{pg}, Command: req.Command})
		if sc == "" {
			res.Warnings = append(res.Warnings, "sandbox: the user declined to allow "+g.message(pg.text())+": the refusal stands")
			continue
		}
		granted = append(granted, pg)
		if scopeRank[sc] > scopeRank[scope] {
			scope = sc
		}
	}
	if len(granted) == 0 {
		return req, false
	}
	names := make([]string, len(granted))
	for i, pg := range granted {
		names[i] = pg.text()
	}
	code := 0
	if res.ExitCode != nil {
		code = *res.ExitCode
	}
	again := req
	again.paths = slices.Concat(req.paths, granted)
	again.again = &rerun{
		grant:    Grant{Paths: granted, Scope: scope},
		approved: tag.approved != nil && *tag.approved,
		warning: fmt.Sprintf("sandbox: ran the command a second time with %s allowed (%s): the first run exited %d after the sandbox refused it",
			strings.Join(names, ", "), scope, code),
	}
	return again, true
}

// withPaths adds path grants to spec: a write grant is a writable root,
// a read grant is brought back into the hidden home directory.
func (g *Guard) withPaths(spec *sandbox.Spec, paths []PathGrant) {
	if len(paths) == 0 {
		return
	}
	home := g.judgeFor(*spec, true).home
	var roots, allow []string
	for _, pg := range paths {
		if pg.Write {
			if !slices.Contains(roots, pg.Path) {
				roots = append(roots, pg.Path)
			}
			continue
		}
		if rel, err := filepath.Rel(home, pg.Path); err == nil && home != "" && rel != "." && !strings.HasPrefix(rel, "..") &&
			!slices.Contains(allow, rel) {
			allow = append(allow, rel)
		}
	}
	spec.WritableRoots = slices.Concat(spec.WritableRoots, roots)
	spec.HomeAllow = slices.Concat(spec.HomeAllow, allow)
}

// pathGrantOK reports whether a remembered grant may be honoured here: a
// path a grant may name now (fsrefused.go), never one a hand edit made
// wider.
func (g *Guard) pathGrantOK(pg PathGrant) bool {
	if !filepath.IsAbs(pg.Path) || filepath.Clean(pg.Path) != pg.Path {
		return false
	}
	if g.cfg.Sandbox == nil {
		return false
	}
	j := g.judgeFor(*g.cfg.Sandbox, true)
	if !pg.Write && (!within(pg.Path, j.home) || pg.Path == j.home) {
		return false
	}
	return j.unsafe(pg.Path, pg.Write) == ""
}
