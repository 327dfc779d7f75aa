package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
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

func guardEngine(t testing.TB) (*GuardEngine, string) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g, err := shellguard.New(shellguard.Config{Workspace: ws, Sandbox: &sandbox.Spec{}})
	if err != nil {
		t.Fatal(err)
	}
	return NewGuardEngine(g), ws
}

// connect serves srv over in-memory transports and returns a client
// session; everything is closed at cleanup.
func connect(t testing.TB, srv *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, ct, nil)
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

func structured(t testing.TB, r *mcp.CallToolResult) Output {
	t.Helper()
	var o Output
	b, _ := json.Marshal(r.StructuredContent)
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return o
}

// TestNoLeaks: 1000 sequential and 32 concurrent calls leave no process,
// goroutine or file descriptor behind.
func TestNoLeaks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	fds := testenv.OpenFDs()
	eng, _ := guardEngine(t)
	func() {
		srv := New(eng, nil)
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
	eng, _ := guardEngine(t)
	var mu sync.Mutex
	var msgs []string
	cs := connect(t, New(eng, nil), &mcp.ClientOptions{
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

// fakeEngine has every feature, for the paths the Guard adapter cannot
// reach yet: commands containing "forbidden" are denied, "needs-ok" asked
// about; tasks are simulated.
type fakeEngine struct {
	*GuardEngine
	mu    sync.Mutex
	ran   []string
	tasks map[string]*fakeTask
}

func (e *fakeEngine) Settings() Settings {
	s := e.GuardEngine.Settings()
	s.Policy, s.Approval, s.Tasks = true, true, true
	s.BlockingBudget = 50 * time.Second
	return s
}

func (e *fakeEngine) Check(_ context.Context, cmd string) (policy.Verdict, error) {
	if i := strings.Index(cmd, "forbidden"); i >= 0 {
		return policy.Verdict{Decision: policy.Deny, Reasons: []policy.Reason{{ID: "SG900", Decision: policy.Deny, Message: "forbidden word", Span: policy.Span{Start: i, End: i + 9}}}}, nil
	}
	if i := strings.Index(cmd, "needs-ok"); i >= 0 {
		return policy.Verdict{Decision: policy.Ask, Reasons: []policy.Reason{{ID: "SG901", Decision: policy.Ask, Message: "needs approval", Span: policy.Span{Start: i, End: i + 8}}}}, nil
	}
	return policy.Verdict{Decision: policy.Allow}, nil
}

// CheckRequest and HowToAllow hide the Guard adapter's: the fake's
// verdicts come from Check alone.
func (e *fakeEngine) CheckRequest(ctx context.Context, req Request) (policy.Verdict, error) {
	return e.Check(ctx, req.Command)
}

func (e *fakeEngine) HowToAllow(string, policy.Verdict) string { return "" }

func (e *fakeEngine) NewSession() Session {
	return &fakeSession{e: e, Session: e.GuardEngine.NewSession()}
}

type fakeSession struct {
	Session
	e *fakeEngine
}

func (s *fakeSession) Run(ctx context.Context, req Request) (Result, error) {
	v, _ := s.e.Check(ctx, req.Command)
	if v.Decision == policy.Deny || (v.Decision == policy.Ask && !req.Approve(ctx, v)) {
		return Result{}, &DeniedError{Verdict: v, Declined: v.Decision == policy.Ask}
	}
	s.e.mu.Lock()
	s.e.ran = append(s.e.ran, req.Command)
	s.e.mu.Unlock()
	r, err := s.Session.Run(ctx, req)
	r.Verdict = &v
	return r, err
}

func (s *fakeSession) Start(ctx context.Context, req Request) (TaskStatus, error) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if s.e.tasks == nil {
		s.e.tasks = map[string]*fakeTask{}
	}
	id := fmt.Sprintf("t%d", len(s.e.tasks)+1)
	ft := &fakeTask{st: TaskStatus{TaskID: id, Pid: 4242, Command: req.Command, StartedAt: time.Now(), Running: true}}
	s.e.tasks[id] = ft
	return ft.st, nil
}

func (s *fakeSession) Task(id string) (Task, error) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if t, ok := s.e.tasks[id]; ok {
		return t, nil
	}
	return nil, ErrNoTask
}

type fakeTask struct {
	mu sync.Mutex
	st TaskStatus
}

func (f *fakeTask) Status() TaskStatus { f.mu.Lock(); defer f.mu.Unlock(); return f.st }
func (f *fakeTask) Kill(context.Context) (TaskStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.st.Running, f.st.ExitCode = false, intp(-1)
	return f.st, nil
}
func (f *fakeTask) WriteStdin(text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.st.Stdout += "got:" + text
	return nil
}
func (f *fakeTask) Wait(context.Context, time.Duration) (TaskStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.st.Running, f.st.ExitCode = false, intp(4)
	return f.st, nil
}
func (f *fakeTask) Subscribe(ctx context.Context, re *regexp.Regexp) (<-chan string, error) {
	ch := make(chan string)
	go func() {
		defer close(ch)
		for _, l := range []string{"tick1", "tock1", "tick2"} {
			if re == nil || re.MatchString(l) {
				select {
				case ch <- l:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return ch, nil
}

func TestDenyAndApproval(t *testing.T) {
	eng, _ := guardEngine(t)
	fe := &fakeEngine{GuardEngine: eng}
	for _, tc := range []struct {
		name    string
		answer  string // "" = client without elicitation
		command string
		isError bool
		want    string
		ran     bool
	}{
		{"deny", "accept", "echo forbidden", true, "DENIED", false},
		{"accept", "accept", "echo needs-ok", false, "approved by the user", true},
		{"decline", "decline", "echo needs-ok", true, `answered "decline"`, false},
		{"cancel", "cancel", "echo needs-ok", true, `answered "cancel"`, false},
		{"no-elicitation", "", "echo needs-ok", true, "supports neither", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe.ran = nil
			var opts *mcp.ClientOptions
			asked := 0
			if tc.answer != "" {
				opts = &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked++
					if !strings.Contains(r.Params.Message, tc.command) {
						t.Errorf("approval message %q lacks the command", r.Params.Message)
					}
					return &mcp.ElicitResult{Action: tc.answer}, nil
				}}
			}
			cs := connect(t, New(fe, nil), opts)
			r := callBash(t, cs, map[string]any{"command": tc.command})
			if r.IsError != tc.isError || !strings.Contains(textOf(r), tc.want) {
				t.Errorf("isError=%v text=%q", r.IsError, textOf(r))
			}
			if ran := len(fe.ran) > 0; ran != tc.ran {
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

func TestTasks(t *testing.T) {
	eng, _ := guardEngine(t)
	fe := &fakeEngine{GuardEngine: eng}
	var mu sync.Mutex
	var msgs []string
	cs := connect(t, New(fe, nil), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			msgs = append(msgs, r.Params.Message)
			mu.Unlock()
		},
	})
	r := callBash(t, cs, map[string]any{"command": "sleep 9", "run_in_background": "true"})
	o := structured(t, r)
	if r.IsError || o.TaskID != "t1" || o.Pid != 4242 || o.StartedAt == "" {
		t.Fatalf("start: %s %+v", textOf(r), o)
	}
	o = structured(t, callBash(t, cs, map[string]any{"task_id": "t1"}))
	if !*o.IsRunning || o.ExitCode != nil {
		t.Errorf("status %+v", o)
	}
	o = structured(t, callBash(t, cs, map[string]any{"task_id": "t1", "stdin_text": "hi\n"}))
	if o.Stdout != "got:hi\n" {
		t.Errorf("stdin: %+v", o)
	}
	p := &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{"task_id": "t1", "stream": true, "stream_pattern": "^tick"}}
	p.SetProgressToken(7)
	if _, err := cs.CallTool(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	var got string
	for i := 0; i < 100; i++ { // notifications are handled asynchronously by the client
		mu.Lock()
		got = strings.Join(msgs, "\n")
		mu.Unlock()
		if strings.Contains(got, "tick2") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(got, "tick1") || !strings.Contains(got, "tick2") || strings.Contains(got, "tock") {
		t.Errorf("stream: %q", got)
	}
	o = structured(t, callBash(t, cs, map[string]any{"task_id": "t1", "wait": "true"}))
	if *o.ExitCode != 4 || *o.IsRunning {
		t.Errorf("wait: %+v", o)
	}
	o = structured(t, callBash(t, cs, map[string]any{"task_id": "t1", "kill": true}))
	if *o.ExitCode != -1 {
		t.Errorf("kill: %+v", o)
	}
	r = callBash(t, cs, map[string]any{"task_id": "zzz"})
	if !r.IsError || !strings.Contains(textOf(r), `no task "zzz"`) {
		t.Errorf("unknown task: %s", textOf(r))
	}
}

// noTasks is the Guard engine without background tasks.
type noTasks struct{ *GuardEngine }

func (e noTasks) Settings() Settings {
	s := e.GuardEngine.Settings()
	s.Tasks, s.BlockingBudget = false, 0
	return s
}

func TestToolsWithoutFeatures(t *testing.T) {
	eng, _ := guardEngine(t)
	cs := connect(t, New(noTasks{eng}, nil), nil)
	r := callBash(t, cs, map[string]any{"command": "true", "run_in_background": true})
	if !r.IsError || !strings.Contains(textOf(r), "run_in_background: background tasks are not available") {
		t.Errorf("%s", textOf(r))
	}
	r = callBash(t, cs, map[string]any{"task_id": "t1"})
	if !r.IsError || !strings.Contains(textOf(r), "task_id: background tasks are not available") {
		t.Errorf("%s", textOf(r))
	}
}

func TestHTTPHandler(t *testing.T) {
	eng, _ := guardEngine(t)
	fe := &fakeEngine{GuardEngine: eng}
	srv := New(fe, nil)
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
		{"secret-token-123456", `{"command":"echo forbidden"}`, 403, `"SG900"`},
		{"secret-token-123456", `{"command":"echo needs-ok"}`, 403, `cannot ask`},
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
