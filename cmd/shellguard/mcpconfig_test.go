package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPStartsWithABadConfig: a configuration that cannot be loaded (a
// project file with a key it may not set, a missing workspace) does not
// stop `shellguard mcp`: the server starts, and every call is a tool
// error that says what is wrong. `serve` still refuses to start.
func TestMCPStartsWithABadConfig(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	os.WriteFile(filepath.Join(ws, ".shellguard.yaml"), []byte("sandbox:\n  network: true\n"), 0o644)
	for _, tc := range []struct{ workspace, want string }{
		{ws, "sandbox.network: a project file may only make this stricter"},
		{filepath.Join(dir, "missing"), "does not exist"},
	} {
		fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
		gf := addGuardFlags(fs, true)
		lf := addLimitFlags(fs)
		if err := fs.Parse([]string{"--workspace", tc.workspace}); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := startServer(gf, lf, &bytes.Buffer{}, false); err == nil {
			t.Errorf("%s: serve started", tc.workspace)
		}
		var stderr bytes.Buffer
		srv, _, stop, err := startServer(gf, lf, &stderr, true)
		if err != nil {
			t.Fatalf("%s: mcp did not start: %v", tc.workspace, err)
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: stderr %q does not say %q", tc.workspace, stderr.String(), tc.want)
		}
		ctx := context.Background()
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "echo hi"}})
			if err != nil {
				t.Fatal(err)
			}
			text := r.Content[0].(*mcp.TextContent).Text
			if !r.IsError || !strings.Contains(text, tc.want) || !strings.Contains(text, "Nothing was run") {
				t.Errorf("%s: the call answered %v %q", tc.workspace, r.IsError, text)
			}
		}
		cs.Close()
		ss.Wait()
		srv.Close()
		stop()
	}
}

// TestServerKeysReachTheServer: the configuration's server keys bound the
// server unless a flag sets the bound.
func TestServerKeysReachTheServer(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte("server: {max_calls: 3, max_queued: 5, max_sessions: 7}\n"), 0o644)
	for _, tc := range []struct {
		flags                   []string
		calls, queued, sessions int
	}{
		{nil, 3, 5, 7},
		{[]string{"--max-calls", "2", "--max-sessions", "9"}, 2, 5, 9},
	} {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		gf := addGuardFlags(fs, true)
		lf := addLimitFlags(fs)
		fs.IntVar(&lf.sessions, "max-sessions", 0, "")
		if err := fs.Parse(append([]string{"--workspace", ws, "--config", cfg}, tc.flags...)); err != nil {
			t.Fatal(err)
		}
		srv, _, stop, err := startServer(gf, lf, &bytes.Buffer{}, false)
		if err != nil {
			t.Fatal(err)
		}
		if lf.calls != tc.calls || lf.queued != tc.queued || lf.sessions != tc.sessions {
			t.Errorf("flags %q: calls %d queued %d sessions %d, want %d %d %d", tc.flags, lf.calls, lf.queued, lf.sessions, tc.calls, tc.queued, tc.sessions)
		}
		srv.Close()
		stop()
	}
}

// TestMCPInRootWithoutWorkspace: `shellguard mcp` started in / (as an
// editor may) without --workspace serves a client that offers roots in its
// first root, and tells a client without roots what to do.
func TestMCPInRootWithoutWorkspace(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	project, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("/")
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	gf := addGuardFlags(fs, true)
	lf := addLimitFlags(fs)
	fs.Parse(nil)
	var stderr bytes.Buffer
	srv, _, stop, err := startServer(gf, lf, &stderr, true)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !strings.Contains(stderr.String(), "clients that offer roots") {
		t.Errorf("stderr does not say what the server serves: %q", stderr.String())
	}
	ctx := context.Background()
	call := func(caps *mcp.ClientCapabilities, roots ...string) (bool, string) {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{Capabilities: caps})
		for _, r := range roots {
			//lint:ignore SA1019 the server reads roots
			c.AddRoots(&mcp.Root{URI: r})
		}
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.MCP().Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := c.Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { cs.Close(); ss.Wait() }()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": "pwd"}})
		if err != nil {
			t.Fatal(err)
		}
		return r.IsError, r.Content[0].(*mcp.TextContent).Text
	}
	if isErr, text := call(nil, "file://"+project); isErr || !strings.Contains(text, "stdout:\n"+project+"\n") {
		t.Errorf("with the root %s: %v %q", project, isErr, text)
	}
	if isErr, text := call(&mcp.ClientCapabilities{}); !isErr || !strings.Contains(text, "no workspace") || !strings.Contains(text, "--workspace") {
		t.Errorf("without roots: %v %q", isErr, text)
	}
}
