package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestWireSizes holds what a model receives small: the tool list, and
// the result of a trivial call (structured plus text content).
func TestWireSizes(t *testing.T) {
	g, _ := newGuard(t)
	cs := connect(t, New(g, nil), nil)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(tools)
	t.Logf("tools/list: %d bytes", len(b))
	if len(b) > 6000 {
		t.Errorf("tools/list is %d bytes, more than 6,000:\n%s", len(b), b)
	}
	for i := range 2 {
		r := callBash(t, cs, map[string]any{"command": "echo hi"})
		b, _ = json.Marshal(struct {
			Content           []mcp.Content `json:"content"`
			StructuredContent any           `json:"structuredContent"`
		}{r.Content, r.StructuredContent})
		t.Logf("call %d, echo hi: %d bytes", i+1, len(b))
		if len(b) > 1500 {
			t.Errorf("call %d: the result of echo hi is %d bytes, more than 1,500:\n%s", i+1, len(b), b)
		}
	}
}

// TestCompactResult: the sandbox line comes with the first result of a
// session only, the full report only with detail: true, and output
// beyond the budget is cut from the middle, counted.
func TestCompactResult(t *testing.T) {
	g, _ := newGuard(t)
	srv := New(g, &Options{OutputBudget: 1000})
	for range 2 { // each session hears of the sandbox once
		cs := connect(t, srv, nil)
		r := callBash(t, cs, map[string]any{"command": "echo hi"})
		o := structured(t, r)
		if o.Sandbox != nil {
			t.Errorf("the sandbox report without detail: %+v", o.Sandbox)
		}
		hasLine := strings.HasPrefix(textOf(r), "sandbox: ")
		if len(srv.set.SandboxLayers) > 0 && !hasLine {
			t.Errorf("first result without the sandbox line: %q", textOf(r))
		}
		r = callBash(t, cs, map[string]any{"command": "echo hi", "detail": true})
		if strings.HasPrefix(textOf(r), "sandbox: ") {
			t.Errorf("the sandbox line again: %q", textOf(r))
		}
		if o := structured(t, r); hasLine && o.Sandbox == nil {
			t.Error("detail: true without the sandbox report")
		}
	}
	cs := connect(t, srv, nil)
	o := structured(t, callBash(t, cs, map[string]any{"command": "seq 1 2000; seq 1 10 >&2"}))
	if len(o.Stdout)+len(o.Stderr) > 1000 || o.StdoutDroppedBytes == 0 || o.StderrDroppedBytes != 0 || !strings.HasPrefix(o.Stdout, "1\n2\n") || !strings.HasSuffix(o.Stdout, "1999\n2000\n") {
		t.Errorf("budget 1000: stdout %d bytes (%d dropped), stderr %q", len(o.Stdout), o.StdoutDroppedBytes, o.Stderr)
	}
}

// TestIncrementalTaskReads: a task read returns what is new since the
// previous read; offset re-reads.
func TestIncrementalTaskReads(t *testing.T) {
	g, _ := newGuard(t)
	cs := connect(t, New(g, nil), nil)
	r := callBash(t, cs, map[string]any{"command": "echo one; read x; echo two; read x", "run_in_background": true})
	o := structured(t, r)
	id, first := o.Task.ID, o.Stdout
	var got []string
	o = structured(t, callBash(t, cs, map[string]any{"task_id": id, "stdin_text": "a"}))
	// The reply to stdin_text is what came after the line was written; on
	// a loaded machine the task's "one" may arrive only then and "two" in
	// a later read, so the reads are gathered until both are in: every
	// byte once, in order, whatever the timing.
	seen := first + o.Stdout
	for i := 0; i < 100 && seen != "one\ntwo\n"; i++ {
		time.Sleep(20 * time.Millisecond)
		seen += structured(t, callBash(t, cs, map[string]any{"task_id": id})).Stdout
	}
	got = append(got, seen)
	o = structured(t, callBash(t, cs, map[string]any{"task_id": id}))
	got = append(got, o.Stdout)
	o = structured(t, callBash(t, cs, map[string]any{"task_id": id, "offset": 0}))
	got = append(got, o.Stdout)
	o = structured(t, callBash(t, cs, map[string]any{"task_id": id, "offset": 4}))
	got = append(got, o.Stdout)
	want := []string{"one\ntwo\n", "", "one\ntwo\n", "two\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("reads %q, want %q", got, want)
	}
	r = callBash(t, cs, map[string]any{"command": "echo x", "offset": 0})
	if !r.IsError || !strings.Contains(textOf(r), "offset") {
		t.Errorf("offset without task_id: %s", textOf(r))
	}
}

// TestProgressFloodIsRateLimited: a command that floods its output sends
// a few notifications a second (the newest lines, with a count of those
// skipped), not one per line.
func TestProgressFloodIsRateLimited(t *testing.T) {
	g, _ := newGuard(t)
	var mu sync.Mutex
	var n, bytes int
	var last string
	cs := connect(t, New(g, nil), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			n++
			bytes += len(r.Params.Message)
			last = r.Params.Message
			mu.Unlock()
		},
	})
	p := &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{"command": "for i in $(seq 1 3); do seq 1 200000; sleep 0.3; done; echo the-end"}}
	p.SetProgressToken("flood")
	t0 := time.Now()
	r, err := cs.CallTool(context.Background(), p)
	elapsed := time.Since(t0)
	if err != nil || r.IsError {
		t.Fatalf("%v %s", err, textOf(r))
	}
	// Notifications are handled asynchronously: the last may come later.
	for i := 0; i < 200; i++ {
		mu.Lock()
		done := strings.Contains(last, "the-end")
		mu.Unlock()
		if done {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	limit := int(elapsed/minInterval) + 2
	t.Logf("%d notifications, %d bytes in %v (at most %d allowed)", n, bytes, elapsed, limit)
	if n == 0 || n > limit {
		t.Errorf("%d notifications in %v: want 1 to %d", n, elapsed, limit)
	}
	if bytes > n*(maxMessageBytes+200) {
		t.Errorf("%d bytes in %d notifications", bytes, n)
	}
	if !strings.Contains(last, "the-end") {
		out := structured(t, r).Stdout
		t.Errorf("the last notification lacks the last line: %.200q (the result's stdout ends %q)", last, out[max(0, len(out)-40):])
	}
}

// TestProgressLastLinesSurviveASlowClient: when the connection is slow to
// take a notification, so that the final flush runs out of its time, the
// lines queued meanwhile still go out before the result.
func TestProgressLastLinesSurviveASlowClient(t *testing.T) {
	g, _ := newGuard(t)
	var mu sync.Mutex
	var msgs []string
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			msgs = append(msgs, r.Params.Message)
			mu.Unlock()
		},
	})
	cs := connectClient(t, New(g, nil), c, func(st mcp.Transport) mcp.Transport {
		return &stallTransport{Transport: st, stall: finalFlushBudget + time.Second}
	})
	ctx := context.Background()
	p := &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{"command": "echo first; sleep 0.5; seq 1 3; echo the-end"}}
	p.SetProgressToken("slow")
	r, err := cs.CallTool(ctx, p)
	if err != nil || r.IsError {
		t.Fatalf("%v %s", err, textOf(r))
	}
	var all string
	for i := 0; i < 200; i++ {
		mu.Lock()
		all = strings.Join(msgs, "\n")
		mu.Unlock()
		if strings.Contains(all, "the-end") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(all, "the-end") {
		t.Errorf("the last lines were never sent: %q", all)
	}
}

// stallTransport holds up the first progress notification the server
// writes by stall, as a slow client or a loaded machine would.
type stallTransport struct {
	mcp.Transport
	stall time.Duration
}

func (s *stallTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := s.Transport.Connect(ctx)
	return &stallConn{Connection: c, stall: s.stall}, err
}

type stallConn struct {
	mcp.Connection
	stall time.Duration
	once  sync.Once
}

func (c *stallConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok && r.Method == "notifications/progress" {
		c.once.Do(func() { time.Sleep(c.stall) })
	}
	return c.Connection.Write(ctx, m)
}
