package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/internal/testenv"
	"github.com/shellguard/shellguard/sandbox"
)

// TestApprovalPagePublished: a server started with --approval-page
// publishes the page's secret address for `shellguard doctor` (0600, in a
// 0700 directory beside the user file), which lists it; a sandboxed
// command cannot read it; the record goes when the server stops, and a
// record whose page no longer answers is dropped by the listing.
func TestApprovalPagePublished(t *testing.T) {
	// Not under /tmp: a sandboxed command has a /tmp of its own, and the
	// record must be where it could otherwise read it.
	dir, err := os.MkdirTemp("/var/tmp", "shellguard-pages-")
	if err != nil {
		dir = t.TempDir()
	} else {
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	xdg := filepath.Join(dir, "xdg")
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("HOME", filepath.Join(dir, "home"))
	os.Mkdir(filepath.Join(dir, "home"), 0o755)
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	pages := filepath.Join(xdg, "shellguard", "pages")

	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	gf := addGuardFlags(fs, true)
	lf := addLimitFlags(fs)
	if err := fs.Parse([]string{"--workspace", ws, "--approval-page"}); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	srv, _, stop, err := startServer(gf, lf, &stderr, false)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	m := regexp.MustCompile(`approve commands at (\S+)`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no page address on stderr: %s", stderr.String())
	}
	url := m[1]
	record := filepath.Join(pages, strconv.Itoa(os.Getpid())+".json")
	fi, err := os.Stat(record)
	if err != nil {
		t.Fatalf("the page is not published: %v (stderr %s)", err, stderr.String())
	}
	di, err := os.Stat(pages)
	if err != nil || fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("record %v, directory %v (%v): want 0600 in 0700", fi.Mode(), di.Mode(), err)
	}
	var out bytes.Buffer
	printPages(&out, pages)
	if !strings.Contains(out.String(), url) || !strings.Contains(out.String(), ws) {
		t.Errorf("doctor's listing lacks the page:\n%s", out.String())
	}

	// A command in the sandbox cannot read the address.
	if runtime.GOOS == "linux" {
		ctx := context.Background()
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		call := func(command string) shellguard.Result {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": command, "detail": true}})
			if err != nil {
				t.Fatal(err)
			}
			var res shellguard.Result
			b, _ := json.Marshal(r.StructuredContent)
			json.Unmarshal(b, &res)
			return res
		}
		// The sandbox is active, with the mount namespace masks need.
		if res := call("true"); res.Sandbox == nil || !res.Sandbox.Has(sandbox.LayerMountNS) {
			testenv.SkipOrFail(t, "no mount namespace here: %+v", res.Sandbox)
		}
		res := call("cat " + record)
		secret := url[strings.LastIndex(strings.TrimSuffix(url, "/"), "/")+1:]
		if res.ExitCode == nil || *res.ExitCode == 0 || strings.Contains(res.Stdout+res.Stderr, strings.TrimSuffix(secret, "/")) || !strings.Contains(res.Stderr, "ermission denied") {
			t.Errorf("a sandboxed command read the page's record: exit %v, stdout %q, stderr %q, error %q", res.ExitCode, res.Stdout, res.Stderr, res.Error)
		}
	}

	stop()
	stopped = true
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("the record outlived the server: %v", err)
	}

	// A record left by a server that was killed: its page does not
	// answer, so the listing drops it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/gone/"
	ln.Close()
	b, _ := json.Marshal(pageRecord{URL: dead, Pid: 1, Started: time.Now()})
	stale := filepath.Join(pages, "1.json")
	if err := os.WriteFile(stale, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	printPages(&out, pages)
	if strings.Contains(out.String(), dead) || !strings.Contains(out.String(), "none running") {
		t.Errorf("a dead page is listed:\n%s", out.String())
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead page's record was kept: %v", err)
	}
}
