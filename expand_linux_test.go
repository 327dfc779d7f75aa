//go:build linux

package shellguard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shellguard/shellguard/internal/testenv"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
	"github.com/shellguard/shellguard/sandbox/netproxy"
)

// expandEnv is a fake upstream on 127.0.0.1 that the proxy knows as
// up.test (a fake resolver; nothing on its allowlist) and a scripted
// sandbox approver.
type expandEnv struct {
	port    string
	ws      string
	grants  string // the grants file
	proxy   *netproxy.Proxy
	mu      sync.Mutex
	answer  string     // what the approver answers
	asked   [][]string // the hosts of each ask
	policyQ int        // policy asks put to the approver
}

func newExpandEnv(t *testing.T) *expandEnv {
	t.Helper()
	up := testenv.NewUpstream(t, "sg-expand-", "up.test", "other.test")
	e := &expandEnv{port: up.Port, ws: up.WS, grants: filepath.Join(up.Scratch, "config", "grants.json")}
	e.proxy = netproxy.New(netproxy.Options{Lookup: up.Lookup})
	t.Cleanup(func() { e.proxy.Close() })
	return e
}

func (e *expandEnv) guard(t *testing.T) *Guard {
	t.Helper()
	scratch := filepath.Dir(e.ws)
	g, err := New(Config{
		Workspace: e.ws, Sandbox: &sandbox.Spec{Proxy: e.proxy}, GrantsFile: e.grants,
		Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + scratch},
		Approver: func(context.Context, Request, policy.Verdict) (bool, error) {
			e.mu.Lock()
			e.policyQ++
			e.mu.Unlock()
			return true, nil
		},
		ApproveSandbox: func(_ context.Context, _ Request, ask Grant) (string, error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.asked = append(e.asked, ask.Hosts)
			return e.answer, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// set scripts the next answer and forgets the asks so far.
func (e *expandEnv) set(answer string) {
	e.mu.Lock()
	e.answer, e.asked = answer, nil
	e.mu.Unlock()
}

func (e *expandEnv) asks() [][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.asked)
}

// fetch is a command that reaches up.test through the proxy (curl reads
// HTTP_PROXY) and fails when it is refused.
func (e *expandEnv) fetch(host, path string) string {
	return "curl -sS -m 10 --fail http://" + host + ":" + e.port + path
}

// needAllowlist skips (or fails under strict tests) without the
// allowlist network.
func needAllowlist(t *testing.T, r Result) {
	t.Helper()
	if r.Sandbox == nil || r.Sandbox.Network != sandbox.NetAllowlist || r.Sandbox.Net == nil {
		testenv.SkipOrFail(t, "no allowlist network: %+v", r.Sandbox)
	}
}

func reached(r Result, path string) bool {
	return r.ExitCode != nil && *r.ExitCode == 0 && strings.Contains(r.Stdout, "upstream-ok "+path)
}

// TestExpandOnce: "once" lets the waiting connection through to exactly
// the refused host in the same run (the command runs once); the next call
// is refused and asked again.
func TestExpandOnce(t *testing.T) {
	e := newExpandEnv(t)
	g := e.guard(t)
	ctx := context.Background()
	e.set("once")
	marker := filepath.Join(e.ws, "runs")
	r, err := g.Run(ctx, Request{Command: "echo x >> " + marker + "; " + e.fetch("up.test", "/once") + "; " + e.fetch("up.test", "/again")})
	needAllowlist(t, r)
	hp := "up.test:" + e.port
	if err != nil || !reached(r, "/once") || !reached(r, "/again") {
		t.Fatalf("the waiting connection did not reach the granted host: %v %+v", err, r)
	}
	if b, _ := os.ReadFile(marker); string(b) != "x\n" {
		t.Fatalf("the command ran %q times: once is the whole point", b)
	}
	if a := e.asks(); len(a) != 1 || !slices.Equal(a[0], []string{hp}) {
		t.Fatalf("asks %v, want one for exactly %s", a, hp)
	}
	if r.Grant == nil || r.Grant.Scope != "once" || !slices.Equal(r.Grant.Hosts, []string{hp}) ||
		len(r.Sandbox.Net.Refused) != 0 || fmt.Sprint(r.Sandbox.Net.Asked) != "["+hp+"]" || fmt.Sprint(r.Sandbox.Net.Granted) != "["+hp+"]" {
		t.Fatalf("grant not in the result: %+v %+v", r.Grant, r.Sandbox.Net)
	}
	if !slices.Contains(r.Warnings, "network: the user allowed "+hp+" while the command ran") {
		t.Errorf("warnings %q", r.Warnings)
	}
	if e.policyQ > 1 {
		t.Errorf("the policy ask was put %d times for one call", e.policyQ)
	}
	e.set("")
	r, _ = g.Run(ctx, Request{Command: e.fetch("up.test", "/next")})
	if reached(r, "/next") || r.Grant != nil || !slices.Equal(r.Sandbox.Net.Refused, []string{hp}) {
		t.Fatalf("a once grant held for the next call: %+v %+v", r.Grant, r.Sandbox.Net)
	}
	if a := e.asks(); len(a) != 1 {
		t.Fatalf("the next call was not asked again: %v", a)
	}
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "declined") {
		t.Errorf("a declined grant is not said: %q", r.Warnings)
	}
}

// TestExpandSession: "session" holds for the later calls of that session
// without asking, not for another session or a plain Guard.Run.
func TestExpandSession(t *testing.T) {
	e := newExpandEnv(t)
	g := e.guard(t)
	ctx := context.Background()
	s := g.NewSession(SessionOptions{})
	defer s.Close()
	e.set("session")
	r, err := s.Run(ctx, Request{Command: e.fetch("up.test", "/s1")})
	needAllowlist(t, r)
	if err != nil || !reached(r, "/s1") || r.Grant == nil || r.Grant.Scope != "session" {
		t.Fatalf("session grant: %v %+v", err, r)
	}
	e.set("")
	r, err = s.Run(ctx, Request{Command: e.fetch("up.test", "/s2")})
	if err != nil || !reached(r, "/s2") || len(e.asks()) != 0 {
		t.Fatalf("a later call of the session: %v asks %v %+v", err, e.asks(), r)
	}
	if r.Grant != nil || !slices.Equal(r.Sandbox.Net.Granted, []string{"up.test:" + e.port}) {
		t.Errorf("the session's grant in force is not in the result: %+v", r.Sandbox.Net)
	}
	// Only that host: another is still refused (and offered).
	r, _ = s.Run(ctx, Request{Command: e.fetch("other.test", "/o")})
	if reached(r, "/o") || len(e.asks()) != 1 || !slices.Equal(e.asks()[0], []string{"other.test:" + e.port}) {
		t.Fatalf("another host: asks %v %+v", e.asks(), r.Sandbox.Net)
	}
	e.set("")
	s2 := g.NewSession(SessionOptions{})
	defer s2.Close()
	for _, run := range []func(context.Context, Request) (Result, error){s2.Run, g.Run} {
		r, _ = run(ctx, Request{Command: e.fetch("up.test", "/s3")})
		if reached(r, "/s3") || !slices.Equal(r.Sandbox.Net.Refused, []string{"up.test:" + e.port}) {
			t.Fatalf("a session grant held outside its session: %+v", r.Sandbox.Net)
		}
	}
}

// TestExpandAlways: "always" is written to the grants file, and a new
// Guard with that file reaches the host without asking; the file holds
// exactly the host, for this workspace.
func TestExpandAlways(t *testing.T) {
	e := newExpandEnv(t)
	g := e.guard(t)
	ctx := context.Background()
	e.set("always")
	r, err := g.Run(ctx, Request{Command: e.fetch("up.test", "/a1")})
	needAllowlist(t, r)
	if err != nil || !reached(r, "/a1") || r.Grant == nil || r.Grant.Scope != "always" {
		t.Fatalf("always grant: %v %+v", err, r)
	}
	b, err := os.ReadFile(e.grants)
	if err != nil {
		t.Fatal(err)
	}
	var f grantsFile
	if err := json.Unmarshal(b, &f); err != nil || len(f.Grants) != 1 || f.Grants[0].Workspace != e.ws ||
		!slices.Equal(f.Grants[0].Hosts, []string{"up.test:" + e.port}) || len(f.Grants[0].Allow) != 0 {
		t.Fatalf("grants file: %v\n%s", err, b)
	}
	e.set("")
	g2 := e.guard(t)
	r, err = g2.Run(ctx, Request{Command: e.fetch("up.test", "/a2")})
	if err != nil || !reached(r, "/a2") || len(e.asks()) != 0 {
		t.Fatalf("a new Guard with the grants file: %v asks %v %+v", err, e.asks(), r)
	}
}

// TestExpandDeclinedAndNever: a declined ask leaves one run and the
// refusal; a metadata address is never offered; without an approver
// nothing is asked; a background task is never asked about.
func TestExpandDeclinedAndNever(t *testing.T) {
	e := newExpandEnv(t)
	g := e.guard(t)
	ctx := context.Background()
	e.set("")
	marker := filepath.Join(e.ws, "runs")
	r, _ := g.Run(ctx, Request{Command: "echo x >> " + marker + "; " + e.fetch("up.test", "/d")})
	needAllowlist(t, r)
	if b, _ := os.ReadFile(marker); string(b) != "x\n" {
		t.Fatalf("declined: the command ran %q", b)
	}
	if reached(r, "/d") || r.Grant != nil || len(e.asks()) != 1 || !slices.Equal(r.Sandbox.Net.Refused, []string{"up.test:" + e.port}) {
		t.Fatalf("declined: asks %v %+v", e.asks(), r)
	}

	e.set("always")
	// The address is read at run time: the policy denies it when it
	// sees it (also when the line builds it from parts), and this is
	// about the proxy's refusal.
	if err := os.WriteFile(filepath.Join(e.ws, "addr.txt"), []byte("169.254.169.254\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, _ = g.Run(ctx, Request{Command: `a=$(cat addr.txt); curl -sS -m 10 --fail "http://$a/x"`})
	needAllowlist(t, r)
	if len(e.asks()) != 0 || r.Grant != nil || !slices.Equal(r.Sandbox.Net.Refused, []string{"169.254.169.254:80"}) || len(r.Sandbox.Net.Grantable) != 0 {
		t.Fatalf("a metadata address was offered: asks %v %+v", e.asks(), r.Sandbox.Net)
	}
	if _, err := os.Stat(e.grants); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("grants file written: %v", err)
	}

	// The request's own approver decides instead of the configured one.
	var own []Grant
	r, _ = g.Run(ctx, Request{Command: e.fetch("up.test", "/own"), ApproveSandbox: func(_ context.Context, ask Grant) (string, error) {
		own = append(own, ask)
		return "", nil
	}})
	if len(own) != 1 || len(e.asks()) != 0 || reached(r, "/own") {
		t.Fatalf("request approver: %v, configured asked %v", own, e.asks())
	}

	s := g.NewSession(SessionOptions{})
	defer s.Close()
	task, err := s.Start(ctx, Request{Command: e.fetch("up.test", "/bg")}, TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	<-task.Done()
	if len(e.asks()) != 0 {
		t.Fatalf("a background task was offered a grant: %v", e.asks())
	}

	ng, err := New(Config{Workspace: e.ws, Sandbox: &sandbox.Spec{Proxy: e.proxy},
		Environ:  []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Dir(e.ws)},
		Approver: func(context.Context, Request, policy.Verdict) (bool, error) { return true, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer ng.Close()
	r, _ = ng.Run(ctx, Request{Command: e.fetch("up.test", "/none")})
	if reached(r, "/none") || r.Grant != nil || !slices.Equal(r.Sandbox.Net.Refused, []string{"up.test:" + e.port}) {
		t.Fatalf("without an approver: %+v", r.Sandbox.Net)
	}
}
