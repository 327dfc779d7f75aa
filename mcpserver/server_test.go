package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/internal/testenv"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// newGuard returns a Guard with the sandbox in auto mode over a fresh
// workspace; rules, when given, are its policy rules.
func newGuard(t testing.TB, rules ...policy.Rules) (*shellguard.Guard, string) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := shellguard.Config{Workspace: ws, Sandbox: &sandbox.Spec{}}
	if len(rules) > 0 {
		c.Rules = rules[0]
	}
	g, err := shellguard.New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g, ws
}

// connect serves srv over in-memory transports and returns a client
// session; everything is closed at cleanup.
func connect(t testing.TB, srv *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectClient(t, srv, mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts), nil)
}

// connectClient connects c to srv over in-memory transports, the server's
// end wrapped by wrap when it is set; everything is closed at cleanup.
func connectClient(t testing.TB, srv *Server, c *mcp.Client, wrap func(mcp.Transport) mcp.Transport) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	var st mcp.Transport
	st, ct := mcp.NewInMemoryTransports()
	if wrap != nil {
		st = wrap(st)
	}
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		srv.Close()
	})
	return cs
}

func callBash(t testing.TB, cs *mcp.ClientSession, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolName, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%v): %v", args, err)
	}
	return res
}

func textOf(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func structured(t testing.TB, r *mcp.CallToolResult) shellguard.Result {
	t.Helper()
	var o shellguard.Result
	b, _ := json.Marshal(r.StructuredContent)
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return o
}

// TestNoLeaks: 1000 sequential and 32 concurrent calls leave no process,
// goroutine or file descriptor behind.
func TestNoLeaks(t *testing.T) {
	g, _ := newGuard(t)
	// What a process sets up once for all its sandboxed commands (as
	// root, the idmapping's user namespace) is there before the count:
	// alone, this test would otherwise see it as a leak.
	if _, err := g.Run(context.Background(), shellguard.Request{Command: "true"}); err != nil {
		t.Fatal(err)
	}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	fds := testenv.OpenFDs()
	func() {
		srv := New(g, nil)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "leak", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := 1000
		if testing.Short() || raceEnabled {
			n = 100 // every call runs in the sandbox
		}
		for i := 0; i < n; i++ {
			r := callBash(t, cs, map[string]any{"command": "true"})
			if r.IsError {
				t.Fatalf("call %d: %s", i, textOf(r))
			}
		}
		var wg sync.WaitGroup
		for i := 0; i < 32; i++ {
			wg.Go(func() {
				r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolName,
					Arguments: map[string]any{"command": fmt.Sprintf("echo %d", i)}})
				if err != nil || r.IsError || structured(t, r).Stdout != fmt.Sprintf("%d\n", i) {
					t.Errorf("concurrent call %d: %v %+v", i, err, r)
				}
			})
		}
		wg.Wait()
		cs.Close()
		ss.Wait()
		srv.Close()
	}()
	if err := testenv.CheckFDs(fds); err != nil {
		t.Error(err)
	}
}

func TestRunAndProgress(t *testing.T) {
	g, _ := newGuard(t)
	var mu sync.Mutex
	var msgs []string
	cs := connect(t, New(g, nil), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			msgs = append(msgs, r.Params.Message)
			mu.Unlock()
		},
	})
	p := &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{"command": "echo one; sleep 0.1; printf two", "stream_pattern": "o"}}
	p.SetProgressToken("tok")
	r, err := cs.CallTool(context.Background(), p)
	if err != nil || r.IsError {
		t.Fatalf("%v %s", err, textOf(r))
	}
	o := structured(t, r)
	if o.Stdout != "one\ntwo" || *o.ExitCode != 0 {
		t.Errorf("output %+v", o)
	}
	var all string
	for i := 0; i < 100 && !strings.Contains(all, "two"); i++ { // handled asynchronously by the client
		time.Sleep(10 * time.Millisecond)
		mu.Lock()
		all = strings.Join(msgs, "\n")
		mu.Unlock()
	}
	if !strings.Contains(all, "one") || !strings.Contains(all, "two") {
		t.Errorf("progress messages %q", msgs)
	}
}

// testRules deny "touch forbidden" and ask about "touch needs-ok".
var testRules = policy.Rules{Deny: []string{"touch forbidden"}, Ask: []string{"touch needs-ok"}}

func TestDenyAndApproval(t *testing.T) {
	g, ws := newGuard(t, testRules)
	for _, tc := range []struct {
		name    string
		answer  string // "" = client without elicitation
		command string
		isError bool
		want    string
		ran     bool
	}{
		{"deny", "accept", "touch forbidden", true, "DENIED", false},
		{"accept", "accept", "touch needs-ok", false, "approved by the user", true},
		{"decline", "decline", "touch needs-ok", true, `answered "decline"`, false},
		{"cancel", "cancel", "touch needs-ok", true, `answered "cancel"`, false},
		{"no-elicitation", "", "touch needs-ok", true, "supports neither", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(filepath.Join(ws, "forbidden"))
			os.Remove(filepath.Join(ws, "needs-ok"))
			var opts *mcp.ClientOptions
			asked := 0
			if tc.answer != "" {
				opts = &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					if isReviewForm(r) {
						return applyAll(), nil
					}
					asked++
					if !strings.Contains(r.Params.Message, tc.command) {
						t.Errorf("approval message %q lacks the command", r.Params.Message)
					}
					return &mcp.ElicitResult{Action: tc.answer}, nil
				}}
			}
			cs := connect(t, New(g, nil), opts)
			r := callBash(t, cs, map[string]any{"command": tc.command})
			if r.IsError != tc.isError || !strings.Contains(textOf(r), tc.want) {
				t.Errorf("isError=%v text=%q", r.IsError, textOf(r))
			}
			_, statErr := os.Stat(filepath.Join(ws, strings.Fields(tc.command)[1]))
			if ran := statErr == nil; ran != tc.ran {
				t.Errorf("ran = %v, want %v", ran, tc.ran)
			}
			o := structured(t, r)
			if len(o.Reasons) != 1 || o.Reasons[0].End-o.Reasons[0].Start <= 0 {
				t.Errorf("reasons %+v", o.Reasons)
			}
			if tc.name == "no-elicitation" || tc.name == "deny" {
				if asked != 0 {
					t.Errorf("asked %d times", asked)
				}
			} else if asked != 1 {
				t.Errorf("asked %d times, want 1", asked)
			}
		})
	}
}

func TestHTTPHandler(t *testing.T) {
	g, _ := newGuard(t, testRules)
	srv := New(g, nil)
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler(HTTPOptions{Token: "secret-token-123456", MaxBodyBytes: 1 << 16}))
	defer ts.Close()
	for _, tc := range []struct {
		token, body string
		status      int
		want        string
	}{
		{"", `{"command":"echo hi"}`, 401, "unauthorized"},
		{"wrong", `{"command":"echo hi"}`, 401, "unauthorized"},
		{"secret-token-123456", `{"command":"echo hi","timeout":"5"}`, 200, `"stdout":"hi\n"`},
		{"secret-token-123456", `{"command":"touch forbidden"}`, 403, `"SG3701"`},
		{"secret-token-123456", `{"command":"touch needs-ok"}`, 403, `cannot ask`},
		{"secret-token-123456", `{"command":"exit 3"}`, 200, `"exit_code":3`},
		{"secret-token-123456", `{"command":"` + strings.Repeat("a", 1<<17) + `"}`, 413, "larger than"},
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/tools/bash/execute", strings.NewReader(tc.body))
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.want) {
			t.Errorf("%.40s: %d %s, want %d with %q", tc.body, resp.StatusCode, b, tc.status, tc.want)
		}
	}
}

func TestIsLoopbackAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8765": true, "localhost:1": true, "[::1]:80": true, "127.1.2.3:9": true,
		":8765": false, "0.0.0.0:1": false, "192.168.1.2:80": false, "[::]:80": false, "example.com:80": false,
	} {
		if got := IsLoopbackAddr(addr); got != want {
			t.Errorf("IsLoopbackAddr(%q) = %v", addr, got)
		}
	}
}
