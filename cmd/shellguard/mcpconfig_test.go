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
