//go:build linux

package shellguard

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shellguard/shellguard/audit"
	"github.com/shellguard/shellguard/internal/testenv"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// pathEnv is a scratch workspace with a sibling "outside" directory
// holding a canary, a fake HOME and a scripted sandbox approver.
type pathEnv struct {
	scratch, ws, outside, home, canary, grants string

	mu     sync.Mutex
	answer string  // what the sandbox approver answers
	asked  []Grant // what it was asked
}

func newPathEnv(t *testing.T) *pathEnv {
	t.Helper()
	scratch, err := os.MkdirTemp("/var/tmp", "sg-pathgrant-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	e := &pathEnv{scratch: scratch, ws: filepath.Join(scratch, "ws"), outside: filepath.Join(scratch, "outside"),
		home: filepath.Join(scratch, "home"), grants: filepath.Join(scratch, "config", "grants.json")}
	e.canary = filepath.Join(e.outside, "canary")
	for _, d := range []string{e.ws, e.outside, filepath.Join(e.home, ".ssh"), filepath.Join(scratch, "state")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The commands run scripts of the workspace, whose writes and reads
	// the policy cannot see: the sandbox is what refuses them.
	for f, text := range map[string]string{
		e.canary:                                 "canary\n",
		filepath.Join(e.home, ".ssh", "id_test"): "not a key\n",
		filepath.Join(e.ws, "w.sh"):              "echo written >> " + e.canary + "\n",
		filepath.Join(e.ws, "r.sh"):              "head -c 3 \"$HOME/.ssh/id_test\" || exit 1\n",
	} {
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *pathEnv) guard(t *testing.T, approver bool) *Guard {
	t.Helper()
	cfg := Config{Workspace: e.ws, Sandbox: &sandbox.Spec{}, GrantsFile: e.grants, AuditPath: filepath.Join(e.scratch, "state", "audit.jsonl"),
		Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home},
		// The policy asks about a write outside the workspace: approved,
		// so that the sandbox underneath is what refuses it.
		Approver: func(context.Context, Request, policy.Verdict) (bool, error) { return true, nil }}
	if approver {
		cfg.ApproveSandbox = func(_ context.Context, _ Request, ask Grant) (string, error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.asked = append(e.asked, ask)
			return e.answer, nil
		}
	}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func (e *pathEnv) set(answer string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.answer = answer
	return len(e.asked)
}

func (e *pathEnv) asks() []Grant {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.asked)
}

// writes counts the lines the command appended to the canary.
func (e *pathEnv) writes(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(e.canary)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "written\n")
}

func (e *pathEnv) command() string { return "bash ./w.sh" }

// sandboxed fails the test unless the sandbox refused the write (a
// denied write probe before any expansion is tested).
func (e *pathEnv) refused(t *testing.T, res Result) sandbox.FSRefusal {
	t.Helper()
	if res.Sandbox == nil || !res.Sandbox.Has(sandbox.LayerLandlockFS) && !res.Sandbox.Has(sandbox.LayerReadOnlyRoot) {
		testenv.SkipOrFail(t, "no file-system sandbox here: %+v", res.SandboxWarnings)
	}
	if e.writes(t) != 0 || res.ExitCode == nil || *res.ExitCode == 0 {
		t.Fatalf("the write outside was not refused: %+v", res)
	}
	if len(res.Sandbox.FSRefused) != 1 {
		t.Fatalf("want one refused path, got %+v (stderr %q)", res.Sandbox.FSRefused, res.Stderr)
	}
	return res.Sandbox.FSRefused[0]
}

func (e *pathEnv) wantGrant() PathGrant {
	return PathGrant{Path: e.outside, Write: true, Refused: e.canary}
}

func TestPathGrantOnce(t *testing.T) {
	e := newPathEnv(t)
	g := e.guard(t, true)
	// No approver: reported, not asked, not run again.
	bare := e.guard(t, false)
	res, err := bare.Run(context.Background(), Request{Command: e.command()})
	if err != nil {
		t.Fatal(err)
	}
	if r := e.refused(t, res); r.Path != e.canary || r.Access != "write" || !r.Grantable {
		t.Fatalf("refusal %+v", r)
	}
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "refused writing "+e.canary) }) {
		t.Errorf("no plain warning: %q", res.Warnings)
	}
	// Declined: asked once, the refusal stands, no second run.
	e.set("")
	res, err = g.Run(context.Background(), Request{Command: e.command()})
	if err != nil {
		t.Fatal(err)
	}
	e.refused(t, res)
	if asks := e.asks(); len(asks) != 1 || !slices.Equal(asks[0].Paths, []PathGrant{e.wantGrant()}) || len(asks[0].Hosts) != 0 {
		t.Fatalf("asked %+v, want exactly %+v", asks, e.wantGrant())
	}
	if res.Grant != nil || slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "second time") }) {
		t.Fatalf("declined, yet granted: %+v", res)
	}
	// Once: the run made again succeeds, and writes exactly once.
	n := e.set("once")
	res, err = g.Run(context.Background(), Request{Command: e.command()})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode == nil || *res.ExitCode != 0 || e.writes(t) != 1 {
		t.Fatalf("the run made again did not write once (%d writes): %+v", e.writes(t), res)
	}
	if len(e.asks()) != n+1 {
		t.Fatalf("asked %d times, want once", len(e.asks())-n)
	}
	if res.Grant == nil || res.Grant.Scope != "once" || !slices.Equal(res.Grant.Paths, []PathGrant{e.wantGrant()}) {
		t.Fatalf("grant %+v", res.Grant)
	}
	if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "second time with "+e.outside+" (write)") }) {
		t.Errorf("no warning that it ran again: %q", res.Warnings)
	}
	// The audit record of the run made again names the grant.
	b, err := os.ReadFile(filepath.Join(e.scratch, "state", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var granted int
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var ev audit.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		if len(ev.FSGranted) > 0 && ev.Phase == audit.PhaseEnded {
			granted++
			if !slices.Equal(ev.FSGranted, []string{e.outside + " (write)"}) || ev.FSGrantScope != "once" {
				t.Errorf("audit %+v", ev)
			}
		}
	}
	if granted != 1 {
		t.Errorf("%d audit records of an end name a path grant, want 1:\n%s", granted, b)
	}
	// Not kept: the next call is refused and asked about again.
	n = e.set("")
	res, _ = g.Run(context.Background(), Request{Command: e.command()})
	if e.writes(t) != 1 || res.ExitCode == nil || *res.ExitCode == 0 || len(e.asks()) != n+1 {
		t.Fatalf("a once grant outlived its call: %d writes, %+v", e.writes(t), res)
	}
	if b, err := os.ReadFile(e.grants); err == nil && strings.Contains(string(b), e.outside) {
		t.Fatalf("a once grant was written: %s", b)
	}
}

func TestPathGrantSession(t *testing.T) {
	e := newPathEnv(t)
	g := e.guard(t, true)
	s := g.NewSession(SessionOptions{})
	defer s.Close()
	e.set("session")
	res, err := s.Run(context.Background(), Request{Command: e.command()})
	if err != nil || res.ExitCode == nil || *res.ExitCode != 0 || e.writes(t) != 1 {
		t.Fatalf("%v: %+v", err, res)
	}
	if res.Grant == nil || res.Grant.Scope != "session" {
		t.Fatalf("grant %+v", res.Grant)
	}
	// The session's next call has it without asking.
	n := e.set("")
	res, err = s.Run(context.Background(), Request{Command: e.command()})
	if err != nil || res.ExitCode == nil || *res.ExitCode != 0 || e.writes(t) != 2 || len(e.asks()) != n {
		t.Fatalf("the session lost its grant: %v, %d writes, %+v", err, e.writes(t), res)
	}
	// Another session does not.
	s2 := g.NewSession(SessionOptions{})
	defer s2.Close()
	res, _ = s2.Run(context.Background(), Request{Command: e.command()})
	if e.writes(t) != 2 || len(e.asks()) != n+1 {
		t.Fatalf("a session grant leaked: %d writes, %+v", e.writes(t), res)
	}
}

func TestPathGrantAlways(t *testing.T) {
	e := newPathEnv(t)
	g := e.guard(t, true)
	e.set("always")
	res, err := g.Run(context.Background(), Request{Command: e.command()})
	if err != nil || res.ExitCode == nil || *res.ExitCode != 0 || e.writes(t) != 1 {
		t.Fatalf("%v: %+v", err, res)
	}
	if res.Grant == nil || res.Grant.Scope != "always" {
		t.Fatalf("grant %+v", res.Grant)
	}
	b, err := os.ReadFile(e.grants)
	if err != nil {
		t.Fatal(err)
	}
	var f grantsFile
	if err := json.Unmarshal(b, &f); err != nil || len(f.Grants) != 1 || f.Grants[0].Workspace != e.ws ||
		!slices.Equal(f.Grants[0].Paths, []PathGrant{e.wantGrant()}) {
		t.Fatalf("grants file %s (%v)", b, err)
	}
	// A new Guard for this workspace has it from the start.
	n := e.set("")
	res, err = e.guard(t, true).Run(context.Background(), Request{Command: e.command()})
	if err != nil || res.ExitCode == nil || *res.ExitCode != 0 || e.writes(t) != 2 || len(e.asks()) != n {
		t.Fatalf("the grant was not kept: %v, %d writes, %+v", err, e.writes(t), res)
	}
}

// A refused read of a credential store in the (fake) HOME is reported
// and never asked about.
func TestPathGrantNeverCredentials(t *testing.T) {
	e := newPathEnv(t)
	g := e.guard(t, true)
	e.set("always")
	res, _ := g.Run(context.Background(), Request{Command: "bash ./r.sh"})
	if res.Sandbox == nil || !res.Sandbox.Has(sandbox.LayerHome) {
		if res.Decision == policy.Deny {
			t.Skipf("the policy refuses the read before the sandbox: %+v", res.Reasons)
		}
		testenv.SkipOrFail(t, "no hidden HOME here: %+v", res.SandboxWarnings)
	}
	if strings.Contains(res.Stdout, "not") {
		t.Fatalf("the key was read: %+v", res)
	}
	if len(res.Sandbox.FSRefused) != 1 || res.Sandbox.FSRefused[0].Grantable || res.Sandbox.FSRefused[0].Access != "read" {
		t.Fatalf("refused %+v (stderr %q)", res.Sandbox.FSRefused, res.Stderr)
	}
	if len(e.asks()) != 0 || res.Grant != nil {
		t.Fatalf("asked about a credential store: %+v", e.asks())
	}
}

// A file of the hidden HOME is granted read-only, for one run.
func TestPathGrantReadHome(t *testing.T) {
	e := newPathEnv(t)
	notes := filepath.Join(e.home, "notes", "todo.txt")
	if err := os.MkdirAll(filepath.Dir(notes), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notes, []byte("remember the milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.ws, "n.sh"), []byte("cat \"$HOME/notes/todo.txt\" && echo more >> \"$HOME/notes/todo.txt\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := e.guard(t, true)
	e.set("once")
	res, err := g.Run(context.Background(), Request{Command: "bash ./n.sh"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sandbox == nil || !res.Sandbox.Has(sandbox.LayerHome) {
		testenv.SkipOrFail(t, "no hidden HOME here: %+v", res.SandboxWarnings)
	}
	if asks := e.asks(); len(asks) != 1 || !slices.Equal(asks[0].Paths, []PathGrant{{Path: notes}}) {
		t.Fatalf("asked %+v", asks)
	}
	if !strings.Contains(res.Stdout, "remember the milk") || res.Grant == nil || res.Grant.Scope != "once" {
		t.Fatalf("the run made again did not read it: %+v", res)
	}
	// Read-only: the append is refused, and not asked about again (one
	// run made again at most).
	if b, _ := os.ReadFile(notes); string(b) != "remember the milk\n" {
		t.Fatalf("a read grant let the command write: %q", b)
	}
	if res.ExitCode == nil || *res.ExitCode == 0 || len(e.asks()) != 1 {
		t.Fatalf("exit %v, %d asks", res.ExitCode, len(e.asks()))
	}
}
