//go:build linux

package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/approvalpage"
	"github.com/shellguard/shellguard/internal/testenv"
	"github.com/shellguard/shellguard/sandbox"
	"github.com/shellguard/shellguard/sandbox/netproxy"
)

// netAskEnv is a fake upstream on 127.0.0.1 that the sandbox's proxy
// knows as up.test (a fake resolver; nothing on its allowlist), and a
// Guard whose commands reach it only through that proxy.
type netAskEnv struct {
	g    *shellguard.Guard
	ws   string
	port string
}

func newNetAskEnv(t *testing.T) *netAskEnv {
	t.Helper()
	up := testenv.NewUpstream(t, "sg-netask-", "up.test")
	scratch, ws := up.Scratch, up.WS
	p := netproxy.New(netproxy.Options{Lookup: up.Lookup})
	t.Cleanup(func() { p.Close() })
	g, err := shellguard.New(shellguard.Config{Workspace: ws, Sandbox: &sandbox.Spec{Proxy: p},
		GrantsFile: filepath.Join(scratch, "config", "grants.json"),
		Environ:    []string{"PATH=" + os.Getenv("PATH"), "HOME=" + scratch}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return &netAskEnv{g: g, ws: ws, port: up.Port}
}

// fetch reaches up.test through the proxy (curl reads HTTP_PROXY) and
// fails when the connection is refused.
func (e *netAskEnv) fetch(path string) string {
	return "curl -sS -m 20 --fail http://up.test:" + e.port + path
}

// netAsker answers the server's forms: the policy's approval always, a
// network question as scripted.
type netAsker struct {
	mu      sync.Mutex
	action  string // accept or decline
	scope   string // the grant's scope when accepted
	asked   []string
	message string
}

func (a *netAsker) handle(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !strings.Contains(r.Params.Message, "network allowlist") {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil // the command's approval
	}
	a.asked = append(a.asked, r.Params.Message)
	a.message = r.Params.Message
	return &mcp.ElicitResult{Action: a.action, Content: map[string]any{rememberKey: a.scope}}, nil
}

func (a *netAsker) set(action, scope string) {
	a.mu.Lock()
	a.action, a.scope, a.asked = action, scope, nil
	a.mu.Unlock()
}

func (a *netAsker) questions() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

// TestNetworkQuestionOverMCP: a connection the sandbox's proxy refuses is
// put to the user while it waits, as a form naming exactly that
// host:port; accepted, the same run reaches it (the command runs once)
// and the grant is in the result; "once" holds for that call only,
// "session" for the session's later calls without asking; declined, it
// stays refused and the result says so; a client that cannot ask is not
// asked and the host is reported refused.
func TestNetworkQuestionOverMCP(t *testing.T) {
	e := newNetAskEnv(t)
	a := &netAsker{}
	cs := connect(t, New(e.g, nil), &mcp.ClientOptions{ElicitationHandler: a.handle})
	hp := "up.test:" + e.port
	marker := filepath.Join(e.ws, "runs")
	reached := func(o shellguard.Result, path string) bool {
		return o.ExitCode != nil && *o.ExitCode == 0 && strings.Contains(o.Stdout, "upstream-ok "+path)
	}

	a.set("accept", "once")
	r := callBash(t, cs, map[string]any{"command": "echo x >> " + marker + "; " + e.fetch("/once"), "detail": true})
	o := structured(t, r)
	if o.Sandbox == nil || o.Sandbox.Network != sandbox.NetAllowlist {
		testenv.SkipOrFail(t, "no allowlist network here: %+v", o.Sandbox)
	}
	if !reached(o, "/once") || a.questions() != 1 {
		t.Fatalf("accepted once: reached %v, %d questions: %s", reached(o, "/once"), a.questions(), textOf(r))
	}
	if !strings.Contains(a.message, hp) || !strings.Contains(a.message, e.fetch("/once")) {
		t.Errorf("the form does not name the destination and the command:\n%s", a.message)
	}
	if b, _ := os.ReadFile(marker); string(b) != "x\n" {
		t.Errorf("the command ran %q times: it must run once", b)
	}
	if o.Grant == nil || o.Grant.Scope != "once" || !slices.Equal(o.Grant.Hosts, []string{hp}) {
		t.Errorf("the grant is not in the result: %+v", o.Grant)
	}

	// once: the next call is asked again; declined, it stays refused.
	a.set("decline", "")
	r = callBash(t, cs, map[string]any{"command": e.fetch("/declined"), "detail": true})
	o = structured(t, r)
	if reached(o, "/declined") || a.questions() != 1 || o.Grant != nil {
		t.Fatalf("declined: reached %v, %d questions, grant %+v: %s", reached(o, "/declined"), a.questions(), o.Grant, textOf(r))
	}
	if !strings.Contains(strings.Join(o.Warnings, "\n"), "declined") {
		t.Errorf("a declined question is not said: %q", o.Warnings)
	}

	// session: allowed now and for the session's later calls, unasked.
	a.set("accept", "session")
	r = callBash(t, cs, map[string]any{"command": e.fetch("/session"), "detail": true})
	if o = structured(t, r); !reached(o, "/session") || a.questions() != 1 || o.Grant == nil || o.Grant.Scope != "session" {
		t.Fatalf("accepted for the session: %d questions, grant %+v: %s", a.questions(), o.Grant, textOf(r))
	}
	a.set("decline", "")
	r = callBash(t, cs, map[string]any{"command": e.fetch("/later"), "detail": true})
	if o = structured(t, r); !reached(o, "/later") || a.questions() != 0 {
		t.Fatalf("the session grant did not hold: %d questions: %s", a.questions(), textOf(r))
	}

	// A client that cannot ask is not asked: the connection is refused
	// at once, and the result names the host. Nor does another session
	// have the first one's grant.
	plain := connect(t, New(e.g, nil), nil)
	r = callBash(t, plain, map[string]any{"command": e.fetch("/plain"), "detail": true})
	o = structured(t, r)
	if reached(o, "/plain") || o.Grant != nil || o.Sandbox == nil || o.Sandbox.Net == nil || !slices.Equal(o.Sandbox.Net.Refused, []string{hp}) || len(o.Sandbox.Net.Asked) != 0 {
		t.Errorf("a client without elicitation: %+v %s", o.Sandbox, textOf(r))
	}
}

// TestNetworkQuestionOnPage: for a client that cannot ask, a refused host
// is put on the approval page while the connection waits; allowed there
// for the session, the same run reaches it and the session's next call
// does without asking.
func TestNetworkQuestionOnPage(t *testing.T) {
	e := newNetAskEnv(t)
	p, err := approvalpage.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cs := connect(t, New(e.g, &Options{Page: p}), nil)
	hp := "up.test:" + e.port
	done := make(chan struct{})
	go func() { defer close(done); pagePost(t, p, "session") }()
	r := callBash(t, cs, map[string]any{"command": e.fetch("/page"), "detail": true})
	<-done
	o := structured(t, r)
	if o.Sandbox == nil || o.Sandbox.Network != sandbox.NetAllowlist {
		testenv.SkipOrFail(t, "no allowlist network here: %+v", o.Sandbox)
	}
	if o.ExitCode == nil || *o.ExitCode != 0 || !strings.Contains(o.Stdout, "upstream-ok /page") || o.Grant == nil || o.Grant.Scope != "session" || !slices.Equal(o.Grant.Hosts, []string{hp}) {
		t.Fatalf("allowed on the page: grant %+v: %s", o.Grant, textOf(r))
	}
	r = callBash(t, cs, map[string]any{"command": e.fetch("/next"), "detail": true})
	if o = structured(t, r); !strings.Contains(o.Stdout, "upstream-ok /next") || p.Pending() != 0 {
		t.Fatalf("the session's next call: pending %d: %s", p.Pending(), textOf(r))
	}
}
