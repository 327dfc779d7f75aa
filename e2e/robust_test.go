package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/internal/testenv"
)

// rawClient speaks newline-delimited JSON-RPC to `shellguard mcp` with no
// client library in between, so it can send what no library would.
type rawClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	exited chan struct{} // closed when the server has exited
}

func startRaw(t *testing.T, ws string) *rawClient {
	t.Helper()
	cmd := exec.Command(binPath, "mcp", "--workspace", ws)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &rawClient{t: t, cmd: cmd, stdin: stdin, lines: make(chan []byte, 1024), exited: make(chan struct{})}
	go func() {
		br := bufio.NewReaderSize(stdout, 1<<20)
		for {
			l, err := br.ReadBytes('\n')
			if len(l) > 0 {
				c.lines <- l
			}
			if err != nil {
				close(c.lines)
				cmd.Wait()
				close(c.exited)
				return
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-c.exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("shellguard mcp did not exit within 10 s of stdin closing")
		}
	})
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	c.recv(`"init"`)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// recv returns the response whose id is id (as JSON text), skipping
// notifications and other responses.
func (c *rawClient) recv(id string) rpcResponse {
	c.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("server closed stdout while waiting for id %s", id)
			}
			var r rpcResponse
			if err := json.Unmarshal(l, &r); err != nil {
				c.t.Fatalf("server wrote a line that is not JSON: %q", l)
			}
			if string(r.ID) == id {
				return r
			}
		case <-timeout:
			c.t.Fatalf("no response with id %s", id)
		}
	}
}

func (c *rawClient) call(id int, args any) rpcResponse {
	c.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "bash", "arguments": args}})
	c.send(string(b))
	return c.recv(fmt.Sprint(id))
}

func (c *rawClient) alive(id int) {
	c.t.Helper()
	r := c.call(id, map[string]any{"command": "echo alive"})
	if r.Result == nil || r.Result.StructuredContent["stdout"] != "alive\n" {
		c.t.Fatalf("server no longer serves: %+v", r)
	}
}

func TestRobustMalformed(t *testing.T) {
	setup(t)
	c := startRaw(t, workspace(t))
	for i, tc := range []struct {
		line string
		id   string
		code int
	}{
		{`garbage{`, "null", -32700},
		{`{"jsonrpc":"2.0","id":7,"method":`, "null", -32700},
		{`{"foo":1,"id":9}`, "9", -32600},
		{`{"jsonrpc":"1.0","id":10,"method":"tools/list"}`, "10", -32600},
		{`[]`, "null", -32600},
		{`{"jsonrpc":"2.0","id":11,"method":"no/such/method"}`, "11", -32601},
		{`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":"nonsense"}`, "12", -32602},
		{`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, "13", -32602},
	} {
		c.send(tc.line)
		r := c.recv(tc.id)
		if r.Error == nil || r.Error.Code != tc.code {
			t.Errorf("%d: %s: got %+v, want error code %d", i, tc.line, r.Error, tc.code)
		}
		c.alive(100 + i)
	}
	// Arguments that are not an object are a tool error, not a protocol one.
	c.send(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"bash","arguments":[1,2]}}`)
	if r := c.recv("20"); r.Result == nil || !r.Result.IsError {
		t.Errorf("array arguments: %+v %+v", r.Result, r.Error)
	}
	c.alive(21)
}

func TestRobustHugeCommand(t *testing.T) {
	setup(t)
	c := startRaw(t, workspace(t))
	r := c.call(1, map[string]any{"command": "echo " + strings.Repeat("x", 1<<20)})
	if r.Result == nil || !r.Result.IsError || !strings.Contains(r.Result.Content[0].Text, "command: 1048581 bytes is longer than the limit") {
		t.Fatalf("1 MB command: %+v %+v", r.Result, r.Error)
	}
	c.alive(2)
	// A message beyond the stdio limit is refused without ending the session.
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash","arguments":{"command":"` + strings.Repeat("y", 9<<20) + `"}}}`)
	if r := c.recv("null"); r.Error == nil || r.Error.Code != -32600 {
		t.Fatalf("9 MB message: %+v", r)
	}
	c.alive(4)
}

func TestRobustInvalidUTF8(t *testing.T) {
	setup(t)
	c := startRaw(t, workspace(t))
	// Raw invalid bytes inside a JSON string of the request.
	c.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"bash\",\"arguments\":{\"command\":\"echo \xff\xfe ok\"}}}")
	r := c.recv("1")
	if r.Result == nil && r.Error == nil {
		t.Fatalf("no answer to invalid UTF-8")
	}
	// Invalid UTF-8 in the output of a command.
	r = c.call(2, map[string]any{"command": `printf 'a\377\376b\n'`})
	if r.Result == nil || r.Result.IsError {
		t.Fatalf("invalid UTF-8 output: %+v %+v", r.Result, r.Error)
	}
	if out := r.Result.StructuredContent["stdout"].(string); !strings.HasPrefix(out, "a") || !strings.HasSuffix(out, "b\n") {
		t.Errorf("stdout = %q", out)
	}
	c.alive(3)
}

func TestRobustDisconnectMidCall(t *testing.T) {
	setup(t)
	c := startRaw(t, workspace(t))
	marker := fmt.Sprintf("43.%06d", rand.IntN(1000000))
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "bash", "arguments": map[string]any{"command": "sleep " + marker}}})
	c.send(string(b))
	waitFor(t, func() bool { return len(testenv.ProcessesWithArgs("sleep", marker)) > 0 }, "the command to start")
	c.stdin.Close() // the client goes away mid-call
	select {
	case <-c.exited:
	case <-time.After(5 * time.Second):
		t.Fatal("server did not exit after its client went away")
	}
	noProcessesOf(t, "sleep", marker)
}

func TestRobustHTTPDisconnectMidCall(t *testing.T) {
	setup(t)
	base := startServe(t, workspace(t))
	marker := fmt.Sprintf("44.%06d", rand.IntN(1000000))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := fmt.Sprintf(`{"command":"sleep %s","timeout":"60"}`, marker)
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/tools/bash/execute", strings.NewReader(body))
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	waitFor(t, func() bool { return len(testenv.ProcessesWithArgs("sleep", marker)) > 0 }, "the command to start")
	cancel()
	<-errc
	noProcessesOf(t, "sleep", marker)
	// Still serving, and the plain endpoint validates its input.
	for _, tc := range []struct {
		method, body, host string
		status             int
		want               string
	}{
		{"POST", `{"command":"echo hi"}`, "", 200, `"stdout":"hi\n"`},
		{"POST", `{"command":"echo hi","timeout":"abc"}`, "", 400, "timeout: must be a number"},
		{"POST", `{"command":"true","run_in_background":true}`, "", 400, "unknown field"},
		{"POST", `not json`, "", 400, "JSON object"},
		{"GET", ``, "", 405, "use POST"},
		{"POST", `{"command":"echo hi"}`, "evil.example:80", 403, "DNS-rebinding"},
		{"POST", `{"command":"` + strings.Repeat("z", 5<<20) + `"}`, "", 413, "larger than"},
	} {
		req, _ := http.NewRequest(tc.method, base+"/tools/bash/execute", strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/json")
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !bytes.Contains(got, []byte(tc.want)) {
			t.Errorf("%s %.60s: %d %s; want %d containing %q", tc.method, tc.body, resp.StatusCode, got, tc.status, tc.want)
		}
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for i := 0; i < 250; i++ {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}
