package mcpserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func post(t *testing.T, url, body string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// /mcp validates Origin as the REST endpoint does: a page of another
// origin is refused with a JSON error; a client without Origin passes.
func TestHTTPOriginOnMCP(t *testing.T) {
	g, _ := newGuard(t)
	srv := New(g, nil)
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
	defer ts.Close()
	for _, path := range []string{"/mcp", "/tools/bash/execute"} {
		code, h, body := post(t, ts.URL+path, initBody, map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
		if code != http.StatusForbidden || !strings.HasPrefix(h.Get("Content-Type"), "application/json") || !strings.Contains(body, "cross-origin") {
			t.Errorf("%s from another origin: %d %s %q", path, code, h.Get("Content-Type"), body)
		}
	}
	if code, _, body := post(t, ts.URL+"/mcp", initBody, nil); code != http.StatusOK {
		t.Errorf("initialize without Origin: %d %s", code, body)
	}
}

// Past MaxSessions a new MCP session is refused with 503; existing ones
// go on.
func TestHTTPMaxSessions(t *testing.T) {
	g, _ := newGuard(t)
	srv := New(g, nil)
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler(HTTPOptions{MaxSessions: 2}))
	defer ts.Close()
	var ids []string
	for i := range 3 {
		code, h, body := post(t, ts.URL+"/mcp", initBody, nil)
		if i < 2 {
			if code != http.StatusOK || h.Get("Mcp-Session-Id") == "" {
				t.Fatalf("session %d: %d %s", i, code, body)
			}
			ids = append(ids, h.Get("Mcp-Session-Id"))
			continue
		}
		var e struct{ Error string }
		if code != http.StatusServiceUnavailable || json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(e.Error, "busy") {
			t.Errorf("third session: %d %s", code, body)
		}
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if code, _, body := post(t, ts.URL+"/mcp", ping, map[string]string{"Mcp-Session-Id": ids[0], "Mcp-Protocol-Version": "2025-06-18"}); code != http.StatusOK {
		t.Errorf("an open session was refused: %d %s", code, body)
	}
}

// Without the token, nothing of the body is waited for: a client that
// announces a body and sends none gets 401 at once and the connection is
// closed.
func TestHTTPUnauthorizedBeforeBody(t *testing.T) {
	g, _ := newGuard(t)
	srv := New(g, nil)
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler(HTTPOptions{Token: "secret-token-123456"}))
	defer ts.Close()
	for _, path := range []string{"/mcp", "/tools/bash/execute"} {
		c, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(20 * time.Second))
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", path)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s: no answer before the body: %v", path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusUnauthorized || !resp.Close || !strings.Contains(string(b), `"error"`) {
			t.Errorf("%s: %d close=%v %s", path, resp.StatusCode, resp.Close, b)
		}
		c.Close()
	}
}

// Every error the HTTP face writes is a JSON object.
func TestHTTPErrorsAreJSON(t *testing.T) {
	g, _ := newGuard(t)
	srv := New(g, nil)
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/nothing-here")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var e struct{ Error string }
	if resp.StatusCode != http.StatusNotFound || json.Unmarshal(b, &e) != nil || e.Error == "" {
		t.Errorf("GET /nothing-here: %d %s", resp.StatusCode, b)
	}
}
