package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// stdioCalls sends an initialize and the given commands as tools/call
// requests, closes the input, and returns each call's answer (structured
// stdout, or the text of a tool error) by command index.
func stdioCalls(t *testing.T, srv *Server, cmds ...string) []string {
	t.Helper()
	var in bytes.Buffer
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i, c := range cmds {
		args, _ := json.Marshal(map[string]any{"command": c})
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"bash","arguments":%s}}`+"\n", 100+i, args)
	}
	var out syncBuf
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := srv.RunIO(ctx, &in, &out); err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(cmds))
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     int `json:"id"`
			Result *struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
				Structured struct {
					Stdout string `json:"stdout"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.ID < 100 || m.ID >= 100+len(cmds) || m.Result == nil {
			continue
		}
		a := m.Result.Structured.Stdout
		if m.Result.IsError && len(m.Result.Content) > 0 {
			a = "ERROR " + m.Result.Content[0].Text
		}
		got[m.ID-100] = a
	}
	return got
}

// A call that waited for a slot after the input ended is not stopped for
// the time the calls before it took: each command gets the drain timeout
// of its own. Four calls of 2 s through one slot take longer than the
// drain timeout (6 s) in all, and every one of them is answered with its
// output. (Each needs its 2 s plus a sandbox start, which a loaded
// machine has taken past 1 s: the drain timeout leaves room for that, and
// the four together still outlast it.)
func TestDrainClockIsPerCommand(t *testing.T) {
	g, _ := newGuard(t)
	const drain = 6 * time.Second
	srv := New(g, &Options{MaxCalls: 1, DrainTimeout: drain})
	var cmds []string
	for i := range 4 {
		cmds = append(cmds, fmt.Sprintf("sleep 2; echo done%d", i))
	}
	start := time.Now()
	got := stdioCalls(t, srv, cmds...)
	for i, a := range got {
		if want := fmt.Sprintf("done%d\n", i); a != want {
			t.Errorf("call %d answered %q, want %q", i, a, want)
		}
	}
	if el := time.Since(start); el < drain {
		t.Errorf("the four calls took %v: they did not wait for the one slot", el)
	}
}

// Past the running slots and the queue, a call is answered at once with a
// "busy" tool error; the others run. (The input ends after the three
// calls: the drain is long enough that a loaded machine runs the two.)
func TestAdmissionBusy(t *testing.T) {
	g, _ := newGuard(t)
	srv := New(g, &Options{MaxCalls: 1, MaxQueued: 1, DrainTimeout: time.Minute})
	got := stdioCalls(t, srv, "sleep 1; echo a", "sleep 1; echo b", "sleep 1; echo c")
	busy, ran := 0, 0
	for _, a := range got {
		switch {
		case strings.HasPrefix(a, "ERROR busy:"):
			busy++
		case a == "a\n" || a == "b\n" || a == "c\n":
			ran++
		default:
			t.Errorf("unexpected answer %q", a)
		}
	}
	if busy != 1 || ran != 2 {
		t.Errorf("%d busy, %d ran (want 1 and 2): %q", busy, ran, got)
	}
}

// A queued call whose client gives up leaves the queue and its slot count
// intact.
func TestAdmissionCancelWhileQueued(t *testing.T) {
	a := newAdmission(1, 4, 0)
	_, held, err := a.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, _, err := a.acquire(ctx); done <- err }()
	for !a.busy() || func() bool { a.mu.Lock(); defer a.mu.Unlock(); return a.queued == 0 }() {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled wait got a slot")
	}
	held.release()
	if a.busy() {
		t.Fatal("the admission is still busy after every call left")
	}
	_, c, err := a.acquire(context.Background())
	if err != nil {
		t.Fatalf("the slot was lost: %v", err)
	}
	c.release()
}
