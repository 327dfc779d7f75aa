//go:build linux

package shellguard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shellguard/shellguard/internal/testenv"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// reviewGuard is a Guard over a scratch workspace holding edit.txt, with
// the sandbox on and the given reviewer.
func reviewGuard(t *testing.T, sb *sandbox.Spec, review func(context.Context, Request, []sandbox.Change) ([]string, error)) (*Guard, string) {
	t.Helper()
	scratch, err := os.MkdirTemp("/var/tmp", "sg-review-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	ws := filepath.Join(scratch, "ws")
	os.Mkdir(ws, 0o755)
	if err := os.WriteFile(filepath.Join(ws, "edit.txt"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := New(Config{Workspace: ws, Sandbox: sb, ReviewChanges: review,
		Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + scratch}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, ws
}

const reviewEdit = `printf 'a\nB\n' > edit.txt && printf 'x\n' > new.txt`

func readWS(ws, name string) string {
	b, err := os.ReadFile(filepath.Join(ws, name))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// TestGuardReview: a review run shows the reviewer its changes with a
// diff, lands what it picks, and reports every change (without the
// diff) in the Result; a request's own reviewer wins over the Config's.
func TestGuardReview(t *testing.T) {
	var seen []sandbox.Change
	var seenReq Request
	g, ws := reviewGuard(t, &sandbox.Spec{}, func(_ context.Context, req Request, cs []sandbox.Change) ([]string, error) {
		seen, seenReq = cs, req
		return []string{"edit.txt"}, nil
	})
	res, err := g.Run(context.Background(), Request{Command: reviewEdit, Review: true})
	if err != nil {
		t.Fatalf("%v\n%+v", err, res)
	}
	if res.Sandbox == nil || !res.Sandbox.Has(sandbox.LayerOverlay) {
		testenv.SkipOrFail(t, "no copy-on-write workspace here")
	}
	if len(seen) != 2 || seenReq.Command != reviewEdit {
		t.Fatalf("the reviewer saw %+v for %q", seen, seenReq.Command)
	}
	for _, c := range seen {
		if c.Path == "edit.txt" && !strings.Contains(c.Diff, "+B\n") {
			t.Errorf("edit.txt diff %q", c.Diff)
		}
	}
	if got := readWS(ws, "edit.txt"); got != "a\nB\n" {
		t.Errorf("edit.txt = %q: the picked change did not land", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Error("new.txt landed, not picked")
	}
	rv := res.Sandbox.Post.Review
	if rv == nil || len(rv.Changes) != 2 {
		t.Fatalf("Result review %+v", rv)
	}
	for _, c := range rv.Changes {
		if c.Applied != (c.Path == "edit.txt") || c.Diff != "" {
			t.Errorf("Result change %+v", c)
		}
	}
	if !slices.Contains(res.Warnings, "review: 1 of 2 changes applied (edit.txt); discarded: new.txt") {
		t.Errorf("warnings %q", res.Warnings)
	}

	// The request's reviewer, not the Config's.
	own := false
	res, err = g.Run(context.Background(), Request{Command: `printf 'y\n' > own.txt`, Review: true,
		ReviewChanges: func(_ context.Context, cs []sandbox.Change) ([]string, error) {
			own = true
			return nil, errors.New("declined")
		}})
	if err != nil || !own {
		t.Fatalf("own reviewer asked: %v, err %v", own, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "own.txt")); err == nil {
		t.Error("own.txt landed after the reviewer failed")
	}
	if rv := res.Sandbox.Post.Review; rv == nil || !strings.Contains(rv.Note, "declined") {
		t.Errorf("Result review %+v", rv)
	}
}

// TestGuardReviewRefused: a review that nobody can see, or that no
// overlay can hold, is refused before the command runs.
func TestGuardReviewRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		sb   *sandbox.Spec
		rev  func(context.Context, Request, []sandbox.Change) ([]string, error)
		why  string
	}{
		{"no-reviewer", &sandbox.Spec{}, nil, "nobody to show the changes to"},
		{"sandbox-off", nil, func(context.Context, Request, []sandbox.Change) ([]string, error) { return nil, nil }, "the sandbox is off"},
		{"mode-off", &sandbox.Spec{Mode: sandbox.Off}, func(context.Context, Request, []sandbox.Change) ([]string, error) { return nil, nil }, "the sandbox is off"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, ws := reviewGuard(t, c.sb, c.rev)
			_, err := g.Run(context.Background(), Request{Command: reviewEdit, Review: true})
			var le *LimitError
			if !errors.As(err, &le) || le.Field != "review" || !strings.Contains(le.Reason, c.why) {
				t.Fatalf("err = %v, want a review LimitError saying %q", err, c.why)
			}
			if readWS(ws, "edit.txt") != "a\nb\n" {
				t.Error("the command ran")
			}
		})
	}
}

// TestGuardReviewConfigured: Review in the sandbox configuration makes
// every run a review run.
func TestGuardReviewConfigured(t *testing.T) {
	asked := 0
	g, ws := reviewGuard(t, &sandbox.Spec{Review: true}, func(_ context.Context, _ Request, cs []sandbox.Change) ([]string, error) {
		asked++
		return nil, nil
	})
	res, err := g.Run(context.Background(), Request{Command: reviewEdit})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sandbox == nil || !res.Sandbox.Has(sandbox.LayerOverlay) {
		testenv.SkipOrFail(t, "no copy-on-write workspace here")
	}
	if asked != 1 || readWS(ws, "edit.txt") != "a\nb\n" {
		t.Errorf("asked %d times; edit.txt = %q", asked, readWS(ws, "edit.txt"))
	}
	// A run that changes nothing asks nobody.
	if _, err := g.Run(context.Background(), Request{Command: `cat edit.txt`}); err != nil || asked != 1 {
		t.Errorf("a run without changes: asked %d times, %v", asked, err)
	}
}

// TestGuardReviewApprovedAsk: an ask the approver let through is
// reviewed before its changes land when a reviewer exists; an allowed
// command is not.
func TestGuardReviewApprovedAsk(t *testing.T) {
	var asked [][]sandbox.Change
	g, ws := reviewGuard(t, &sandbox.Spec{}, func(_ context.Context, _ Request, cs []sandbox.Change) ([]string, error) {
		asked = append(asked, cs)
		return nil, nil // discard all
	})
	g.cfg.Approver = func(context.Context, Request, policy.Verdict) (bool, error) { return true, nil }
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := g.canReview(); err != nil {
		testenv.SkipOrFail(t, "no review runs here: %v", err)
	}
	const ask = `chmod -R 777 sub && printf 'x\n' > sub/new.txt`
	if v := g.Check(context.Background(), Request{Command: ask}); v.Decision != policy.Ask {
		t.Fatalf("%q is %v, the test needs an ask", ask, v.Decision)
	}
	res, err := g.Run(context.Background(), Request{Command: ask})
	if err != nil || !res.Approved {
		t.Fatalf("%v %+v", err, res)
	}
	if len(asked) != 1 || len(asked[0]) != 2 {
		t.Fatalf("the reviewer saw %+v", asked)
	}
	if fi, _ := os.Stat(filepath.Join(ws, "sub")); fi.Mode().Perm() != 0o755 {
		t.Errorf("sub is %v: a discarded change landed", fi.Mode())
	}
	if _, err := os.Stat(filepath.Join(ws, "sub", "new.txt")); err == nil {
		t.Error("sub/new.txt landed, discarded")
	}
	// Allowed: no review, the change lands.
	if _, err := g.Run(context.Background(), Request{Command: reviewEdit}); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || readWS(ws, "edit.txt") != "a\nB\n" {
		t.Errorf("an allowed command: asked %d times, edit.txt %q", len(asked), readWS(ws, "edit.txt"))
	}
}
