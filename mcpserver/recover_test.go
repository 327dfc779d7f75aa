package mcpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard/internal/safe"
)

// panicOnce makes the boundary where panic the next time it is passed.
func panicOnce(t *testing.T, where string) {
	var done atomic.Bool
	safe.SetHook(func(w string) {
		if w == where && done.CompareAndSwap(false, true) {
			panic("injected at " + where)
		}
	})
	t.Cleanup(func() { safe.SetHook(nil) })
}

// TestToolCallPanic: a panic in a tool call (in the handler, or in the
// library's Session.Run under it) is that call's error result; the
// server, the session and another session go on.
func TestToolCallPanic(t *testing.T) {
	g, _ := newGuard(t, testRules)
	srv := New(g, nil)
	one, two := connect(t, srv, nil), connect(t, srv, nil)
	for _, where := range []string{"mcp tool call", "Session.Run"} {
		panicOnce(t, where)
		res := callBash(t, one, map[string]any{"command": "echo hi"})
		if !res.IsError || !strings.Contains(textOf(res), "internal error in "+where) {
			t.Fatalf("%s: the call that panicked: %v %q", where, res.IsError, textOf(res))
		}
		for i, c := range []*mcp.ClientSession{one, two} {
			if res := callBash(t, c, map[string]any{"command": "echo hi"}); res.IsError || !strings.Contains(textOf(res), "hi") {
				t.Fatalf("%s: session %d after the panic: %v %q", where, i+1, res.IsError, textOf(res))
			}
		}
	}
}

// TestHTTPPanic: a panic in an HTTP request (the handler, or the library
// under it) is a 500 with a JSON error for that request; the next
// request is served.
func TestHTTPPanic(t *testing.T) {
	g, _ := newGuard(t, testRules)
	srv := New(g, nil)
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
	defer ts.Close()
	post := func() (int, string) {
		resp, err := http.Post(ts.URL+"/tools/bash/execute", "application/json", strings.NewReader(`{"command":"echo hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for where, want := range map[string]int{"HTTP request": 500, "Session.Run": 500} {
		panicOnce(t, where)
		if status, body := post(); status != want || !strings.Contains(body, "internal error in "+where) {
			t.Fatalf("%s: the request that panicked: %d %s", where, status, body)
		}
		if status, body := post(); status != 200 || !strings.Contains(body, `"stdout":"hi\n"`) {
			t.Fatalf("%s: the next request: %d %s", where, status, body)
		}
	}
}
