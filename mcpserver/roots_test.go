package mcpserver

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/sandbox"
)

// rootsServer is a server whose sessions run in their client's first
// root; it counts the Guards it built.
func rootsServer(t *testing.T, noWorkspace error) (*Server, string, *int) {
	t.Helper()
	g, ws := newGuard(t)
	built := 0
	srv := New(g, &Options{NoWorkspace: noWorkspace, Roots: func(dir string) (*shellguard.Guard, error) {
		built++
		return shellguard.New(shellguard.Config{Workspace: dir, Sandbox: &sandbox.Spec{}})
	}})
	return srv, ws, &built
}

func fileURI(dir string) string { return (&url.URL{Scheme: "file", Path: dir}).String() }

// connectWithRoots connects a client that offers roots.
func connectWithRoots(t *testing.T, srv *Server, roots ...string) (*mcp.Client, *mcp.ClientSession) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	for _, r := range roots {
		//lint:ignore SA1019 the server reads roots (roots.go)
		c.AddRoots(&mcp.Root{URI: r})
	}
	return c, connectClient(t, srv, c, nil)
}

func tempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRootsChooseTheWorkspace: a session runs in its client's first root,
// and in the new first root after the client says its roots changed; the
// Guard of a directory is built once.
func TestRootsChooseTheWorkspace(t *testing.T) {
	srv, _, built := rootsServer(t, nil)
	a, b := tempDir(t), tempDir(t)
	c, cs := connectWithRoots(t, srv, fileURI(a))
	if got := structured(t, callBash(t, cs, map[string]any{"command": "pwd"})).Stdout; got != a+"\n" {
		t.Fatalf("pwd in the session of root %s: %q", a, got)
	}
	// A write outside the root is outside the workspace.
	callBash(t, cs, map[string]any{"command": "touch " + filepath.Join(b, "x")})
	if _, err := os.Stat(filepath.Join(b, "x")); err == nil {
		t.Errorf("a command of the session of root %s wrote into %s", a, b)
	}
	//lint:ignore SA1019 the server reads roots (roots.go)
	c.RemoveRoots(fileURI(a))
	//lint:ignore SA1019 the server reads roots (roots.go)
	c.AddRoots(&mcp.Root{URI: fileURI(b)})
	var got string
	for i := 0; i < 100 && got != b+"\n"; i++ { // the notification is asynchronous
		got = structured(t, callBash(t, cs, map[string]any{"command": "pwd"})).Stdout
		if got != b+"\n" {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if got != b+"\n" {
		t.Fatalf("after roots/list_changed, pwd is %q, want %s", got, b)
	}
	callBash(t, cs, map[string]any{"command": "true"})
	if *built != 2 {
		t.Errorf("%d Guards built for 2 roots", *built)
	}
}

// TestRootsRefused: a first root that is /, missing, a file or not a
// file: URI is answered with a tool error that says so, and nothing runs.
func TestRootsRefused(t *testing.T) {
	file := filepath.Join(tempDir(t), "f")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct{ uri, want string }{
		{"file:///", "file system's root"},
		{fileURI("/nonexistent-shellguard-root"), "does not exist"},
		{fileURI(file), "not a directory"},
		{"https://example.com/repo", "not a file: URI"},
		{"file://otherhost/srv", "not a file: URI"},
	} {
		t.Run(tc.uri, func(t *testing.T) {
			srv, _, _ := rootsServer(t, nil)
			_, cs := connectWithRoots(t, srv, tc.uri)
			r := callBash(t, cs, map[string]any{"command": "echo ran"})
			if !r.IsError || !strings.Contains(textOf(r), tc.want) || !strings.Contains(textOf(r), "nothing was run") {
				t.Errorf("root %s: %v %s", tc.uri, r.IsError, textOf(r))
			}
		})
	}
}

// TestNoRootsUsesTheServerWorkspace: a client without roots runs in the
// server's workspace; when the server has none (started in /), it is told
// what to do.
func TestNoRootsUsesTheServerWorkspace(t *testing.T) {
	srv, ws, built := rootsServer(t, nil)
	cs := connect(t, srv, nil)
	if got := structured(t, callBash(t, cs, map[string]any{"command": "pwd"})).Stdout; got != ws+"\n" {
		t.Errorf("pwd without roots: %q, want the server's workspace %s", got, ws)
	}
	if *built != 0 {
		t.Errorf("%d Guards built without roots", *built)
	}
	srv, _, _ = rootsServer(t, errors.New(`workspace "/": the workspace is the root`))
	cs = connect(t, srv, nil)
	r := callBash(t, cs, map[string]any{"command": "echo ran"})
	if !r.IsError || !strings.Contains(textOf(r), "no workspace") || !strings.Contains(textOf(r), "--workspace") {
		t.Errorf("no roots and no workspace: %s", textOf(r))
	}
}
