package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
)

// A session runs in its client's first root when the server was given a
// way to build a Guard for a directory (Options.Roots): the client says
// where the user's project is, so a server started from an editor's
// working directory (often the home directory or /) still confines
// commands to the project. The roots are asked once per session and again
// after the client says they changed (roots/list_changed); a session whose
// client offers no roots runs in the server's own workspace.
//
// Roots are deprecated from protocol 2026-07-28 on (SEP-2577), and remain
// functional for at least a year; the clients of today send them, and
// they are the only way a client says where the project is without
// configuration. A client that has none keeps working as before.

// binding is the shellguard session of one MCP session, with the Guard
// and root it runs in.
type binding struct {
	x     *shellguard.Session
	g     *shellguard.Guard
	dir   string // the root; "": the server's workspace
	stale bool   // the client's roots changed since
}

// declaresRoots reports whether the client said it would notify changes
// of its roots (the only part of the roots capability a server sees).
func declaresRoots(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	//lint:ignore SA1019 roots are what clients send today (see above)
	return p != nil && p.Capabilities != nil && p.Capabilities.Roots.ListChanged
}

// rootsKey names the roots request in a call's input requests.
const rootsKey = "shellguard_roots"

// workspaceOf returns the Guard a new or stale session of req's client
// runs in, and the root it was built for ("" for the server's Guard). The
// roots are asked for as an input request of the call, as approvals are
// (on protocols before 2026-07-28 the SDK sends roots/list during the
// call): ask is the result that asks, to be returned as it is. Only a
// client that declared roots is asked; the others run in the server's
// workspace.
func (s *Server) workspaceOf(req *mcp.CallToolRequest) (g *shellguard.Guard, dir string, ask *mcp.CallToolResult, err error) {
	if s.opts.Roots == nil || !declaresRoots(req.Session) {
		g, dir, err = s.serverGuard()
		return g, dir, nil, err
	}
	resp, ok := req.Params.InputResponses[rootsKey]
	if !ok {
		//lint:ignore SA1019 roots are what clients send today (see above)
		return nil, "", &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsKey: &mcp.ListRootsParams{}}}, nil
	}
	//lint:ignore SA1019 roots are what clients send today (see above)
	lr, _ := resp.(*mcp.ListRootsResult)
	switch {
	case lr == nil:
		return nil, "", nil, fmt.Errorf("the client answered the roots request with a %T; nothing was run", resp)
	case len(lr.Roots) == 0:
		g, dir, err = s.serverGuard()
		return g, dir, nil, err
	}
	uri := lr.Roots[0].URI
	if dir, err = rootDir(uri); err != nil {
		return nil, "", nil, fmt.Errorf("the client's first root %q: %v; nothing was run. Open a project folder in the client, or start the server with --workspace DIR", uri, err)
	}
	if g, err = s.rootGuard(dir); err != nil {
		return nil, "", nil, fmt.Errorf("the client's first root %s: %v; nothing was run", dir, err)
	}
	return g, dir, nil, nil
}

// serverGuard is the server's own Guard, unless it has no usable
// workspace of its own (Options.NoWorkspace).
func (s *Server) serverGuard() (*shellguard.Guard, string, error) {
	if s.opts.NoWorkspace != nil {
		return nil, "", fmt.Errorf("no workspace: %v; and the client offers no roots (MCP roots) to take the project folder from. Nothing was run. Start the server with --workspace DIR, or from the project directory", s.opts.NoWorkspace)
	}
	return s.g, "", nil
}

// rootDir turns a root's URI into a directory: a file: URI of an absolute
// path to an existing directory other than /.
func rootDir(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	if u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return "", errors.New("not a file: URI on this machine")
	}
	if !filepath.IsAbs(u.Path) {
		return "", errors.New("not an absolute path")
	}
	dir := filepath.Clean(u.Path)
	if dir == "/" {
		return "", errors.New("it is the file system's root, which cannot be a workspace")
	}
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, os.ErrNotExist):
		return "", errors.New("it does not exist")
	case err != nil:
		return "", err
	case !fi.IsDir():
		return "", errors.New("it is not a directory")
	}
	return dir, nil
}

// rootGuard returns the Guard of dir, built once (Options.Roots) and kept
// until the server closes. A failure is not kept: the next call tries
// again.
func (s *Server) rootGuard(dir string) (*shellguard.Guard, error) {
	s.mu.Lock()
	g, ok := s.roots[dir]
	s.mu.Unlock()
	if ok {
		return g, nil
	}
	g, err := s.opts.Roots(dir)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.roots[dir]; ok { // built meanwhile by another call
		g.Close()
		return old, nil
	}
	if s.closed {
		g.Close()
		return nil, errors.New("server is shutting down")
	}
	if s.roots == nil {
		s.roots = map[string]*shellguard.Guard{}
	}
	s.roots[dir] = g
	return g, nil
}

// rootsChanged marks the session of ss to be bound again at its next call.
func (s *Server) rootsChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.sessions[req.Session]; ok {
		b.stale = true
	}
}
