//go:build ignore

// soak_run drives a running `shellguard serve` on 127.0.0.1 with thousands
// of calls of mixed kinds from several clients at once, and samples the
// server's resident memory, descriptors and threads from /proc as it goes.
// bench/soak.sh starts the server and runs it.
//
//	go run bench/soak_run.go -addr 127.0.0.1:PORT -pid PID [-calls 4000] [-clients 4]
//
// The kinds, in turn: a quick command, a command with 20 KB of output, a
// failing command, a denied one (403), an ask the endpoint cannot put to
// anyone (403), a malformed body (400), and an MCP session opened, used for
// one call and closed. It prints a table of samples and exits 1 when the
// server's memory, descriptors or threads grew past the bounds at the end
// (RSS more than 1.5× and 16 MB over the first sample after warm-up,
// descriptors or threads more than 16 over it), or when any answer was not
// the one its kind expects.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type sample struct {
	calls            int
	rssKB, fds, thrs int
	at               time.Duration
}

func read(pid int) (rss, fds, thr int) {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "VmRSS:" {
			rss, _ = strconv.Atoi(f[1])
		}
		if len(f) >= 2 && f[0] == "Threads:" {
			thr, _ = strconv.Atoi(f[1])
		}
	}
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return rss, len(ents), thr
}

func main() {
	addr := flag.String("addr", "", "the server's HOST:PORT")
	pid := flag.Int("pid", 0, "the server's pid")
	calls := flag.Int("calls", 4000, "calls in all")
	clients := flag.Int("clients", 4, "clients at once")
	flag.Parse()
	base := "http://" + *addr
	hc := &http.Client{Timeout: 2 * time.Minute}
	post := func(path, body string, hdr map[string]string) (int, http.Header, string, error) {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, nil, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b), nil
	}
	exec := func(cmd string) (int, string, error) {
		b, _ := json.Marshal(map[string]any{"command": cmd, "timeout": 30})
		code, _, body, err := post("/tools/bash/execute", string(b), nil)
		return code, body, err
	}
	mcpSession := func(i int) error {
		code, h, body, err := post("/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}`, nil)
		if err != nil || code != 200 {
			return fmt.Errorf("initialize: %d %v %.200s", code, err, body)
		}
		sid := h.Get("Mcp-Session-Id")
		hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"}
		post("/mcp", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr)
		code, _, body, err = post("/mcp", fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo mcp%d"}}}`, i), hdr)
		if err != nil || code != 200 || !strings.Contains(body, fmt.Sprintf("mcp%d", i)) {
			return fmt.Errorf("tools/call: %d %v %.300s", code, err, body)
		}
		req, _ := http.NewRequest("DELETE", base+"/mcp", nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
		}
		return nil
	}
	kinds := []func(i int) error{
		func(i int) error {
			code, body, err := exec(fmt.Sprintf("echo quick%d", i))
			if err != nil || code != 200 || !strings.Contains(body, fmt.Sprintf(`"stdout":"quick%d\n`, i)) {
				return fmt.Errorf("quick: %d %v %.200s", code, err, body)
			}
			return nil
		},
		func(i int) error {
			code, body, err := exec("head -c 20000 /dev/zero | tr '\\0' x")
			if err != nil || code != 200 || !strings.Contains(body, "xxxx") {
				return fmt.Errorf("output: %d %v %.200s", code, err, body)
			}
			return nil
		},
		func(i int) error {
			code, body, err := exec("exit 3")
			if err != nil || code != 200 || !strings.Contains(body, `"exit_code":3`) {
				return fmt.Errorf("failing: %d %v %.200s", code, err, body)
			}
			return nil
		},
		func(i int) error {
			code, body, err := exec("cat ~/.ssh/id_rsa")
			if err != nil || code != 403 {
				return fmt.Errorf("deny: %d %v %.200s", code, err, body)
			}
			return nil
		},
		func(i int) error {
			code, body, err := exec("chmod -R 777 .")
			if err != nil || code != 403 || !strings.Contains(body, "cannot ask") {
				return fmt.Errorf("ask: %d %v %.200s", code, err, body)
			}
			return nil
		},
		func(i int) error {
			code, _, body, err := post("/tools/bash/execute", `{"command": 3`, nil)
			if err != nil || code != 400 {
				return fmt.Errorf("malformed: %d %v %.200s", code, err, body)
			}
			return nil
		},
		mcpSession,
	}

	start := time.Now()
	var done, failed atomic.Int64
	var samples []sample
	var smu sync.Mutex
	take := func(n int) {
		rss, fds, thr := read(*pid)
		smu.Lock()
		samples = append(samples, sample{n, rss, fds, thr, time.Since(start)})
		smu.Unlock()
	}
	take(0)
	every := max(*calls/20, 1)
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr sync.Once
	for range *clients {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= *calls {
					return
				}
				if err := kinds[i%len(kinds)](i); err != nil {
					failed.Add(1)
					firstErr.Do(func() { fmt.Fprintln(os.Stderr, "first failure:", err) })
				}
				if n := int(done.Add(1)); n%every == 0 {
					take(n)
				}
			}
		})
	}
	wg.Wait()
	time.Sleep(2 * time.Second) // let ended sessions and helpers go
	take(int(done.Load()))

	fmt.Printf("%8s %10s %6s %8s %9s\n", "calls", "rss_kb", "fds", "threads", "seconds")
	for _, s := range samples {
		fmt.Printf("%8d %10d %6d %8d %9.1f\n", s.calls, s.rssKB, s.fds, s.thrs, s.at.Seconds())
	}
	el := time.Since(start)
	fmt.Printf("%d calls from %d clients in %.1f s (%.0f calls/s), %d failed\n", done.Load(), *clients, el.Seconds(), float64(done.Load())/el.Seconds(), failed.Load())
	// The reference is the sample after a tenth of the calls: warm-up
	// (redaction rules, helpers, buffers) is over by then.
	ref := samples[min(2, len(samples)-1)]
	last := samples[len(samples)-1]
	var bad bytes.Buffer
	if float64(last.rssKB) > 1.5*float64(ref.rssKB) && last.rssKB-ref.rssKB > 16<<10 {
		fmt.Fprintf(&bad, "RSS grew %d -> %d KB; ", ref.rssKB, last.rssKB)
	}
	if last.fds > ref.fds+16 {
		fmt.Fprintf(&bad, "descriptors grew %d -> %d; ", ref.fds, last.fds)
	}
	if last.thrs > ref.thrs+16 {
		fmt.Fprintf(&bad, "threads grew %d -> %d; ", ref.thrs, last.thrs)
	}
	if bad.Len() > 0 || failed.Load() > 0 {
		fmt.Printf("NOT FLAT or failed: %s%d failed calls\n", bad.String(), failed.Load())
		os.Exit(1)
	}
	fmt.Println("flat: memory, descriptors and threads stayed within their bounds; every answer was the expected one")
}
