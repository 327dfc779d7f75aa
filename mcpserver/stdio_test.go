package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStdioAnswersEverythingReadBeforeEOF: a client that writes its
// requests and closes its end at once (printf … | shellguard mcp) gets an
// answer to every one of them.
func TestStdioAnswersEverythingReadBeforeEOF(t *testing.T) {
	g, _ := newGuard(t)
	var in bytes.Buffer
	want := map[string]bool{}
	init := func(id int) {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n", id)
		want[fmt.Sprint(id)] = true
	}
	init(1)
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 2; i <= 30; i++ {
		init(i)
	}
	for i := 1; i <= 30; i++ {
		id := 100 + i
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo n%d"}}}`+"\n", id, i)
		want[fmt.Sprint(id)] = true
	}
	var out syncBuf
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Every call gets time to run: the drain's own bound (2 s per command
	// after EOF by default) is TestStdioDrainStopsLongCalls's subject, and
	// on a loaded machine 30 cold sandboxed echos of one session can take
	// longer than that (bench/flaky.sh: 28 of 30 ran, the other two were
	// stopped by the drain, and answered).
	if err := New(g, &Options{DrainTimeout: 45 * time.Second}).RunIO(ctx, &in, &out); err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result *struct {
				Structured struct {
					Stdout string `json:"stdout"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || len(m.ID) == 0 {
			continue
		}
		delete(want, string(m.ID))
		if m.Result != nil && strings.HasPrefix(m.Result.Structured.Stdout, "n") {
			calls++
		} else if m.Result != nil {
			t.Logf("call %s did not run: %.300s", m.ID, line)
		}
	}
	if len(want) > 0 {
		t.Errorf("%d requests unanswered: %v", len(want), want)
	}
	if calls != 30 {
		t.Errorf("%d of 30 tool calls ran", calls)
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// A call still running DrainTimeout after the input ends is stopped and
// answered, and the server returns soon after.
func TestStdioDrainStopsLongCalls(t *testing.T) {
	g, _ := newGuard(t)
	// A client that can answer questions runs its calls as runs that may
	// ask (review.go): the drain stops those too.
	for _, caps := range []string{`{}`, `{"elicitation":{}}`} {
		var in bytes.Buffer
		in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":` + caps + `,"clientInfo":{"name":"t","version":"1"}}}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		in.WriteString(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo started; sleep 30"}}}` + "\n")
		var out syncBuf
		start := time.Now()
		if err := New(g, nil).RunIO(context.Background(), &in, &out); err != nil {
			t.Fatal(err)
		}
		// The command sleeps 30 s: well under that, it was stopped (the
		// bound is loose so that a loaded machine's slow start and
		// teardown do not count).
		if el := time.Since(start); el > 20*time.Second {
			t.Errorf("capabilities %s: RunIO returned after %v", caps, el)
		}
		if !strings.Contains(out.String(), `"id":2`) || !strings.Contains(out.String(), "stopped: the client closed its input") {
			t.Errorf("capabilities %s: the long call was not answered as stopped:\n%s", caps, out.String())
		}
	}
}
