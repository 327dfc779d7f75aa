package shellguard

// Review runs: a command's writes wait in the sandbox's copy-on-write
// layer until a reviewer picks which land (sandbox.Spec.Review).

import (
	"context"

	"github.com/shellguard/shellguard/sandbox"
)

// Change is one entry a review run would change in the workspace, as the
// reviewer (Config.ReviewChanges, Request.ReviewChanges) sees it.
type Change = sandbox.Change

// reviewer is req's reviewer, bound to ctx, or a *LimitError when it has
// none.
func (g *Guard) reviewer(ctx context.Context, req Request) (func([]sandbox.Change) ([]string, error), error) {
	switch {
	case req.ReviewChanges != nil:
		return func(cs []sandbox.Change) ([]string, error) { return req.ReviewChanges(ctx, cs) }, nil
	case g.cfg.ReviewChanges != nil:
		return func(cs []sandbox.Change) ([]string, error) { return g.cfg.ReviewChanges(ctx, req, cs) }, nil
	}
	return nil, &LimitError{Field: "review", Reason: "nobody to show the changes to: a review needs a reviewer (Config.ReviewChanges; the CLI asks on its terminal)"}
}

// canReview says (once per Guard) whether a review run can hold its
// changes here: an approved ask is reviewed only then, while a review
// asked for is refused without it.
func (g *Guard) canReview() error {
	g.reviewOnce.Do(func() {
		spec := *g.cfg.Sandbox
		if spec.Workspace == "" {
			spec.Workspace = g.cfg.Workspace
		}
		g.reviewErr = sandbox.CanReview(spec, g.env)
	})
	return g.reviewErr
}
