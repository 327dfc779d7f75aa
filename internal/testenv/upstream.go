package testenv

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// An Upstream is a fake server on 127.0.0.1 (it answers "upstream-ok
// PATH") for tests of the sandbox's proxy, with the resolver that gives
// its names that address and a scratch directory under /var/tmp holding
// an empty workspace "ws" (a HOME for the guard).
type Upstream struct {
	Port    string // the server's port
	Scratch string
	WS      string // Scratch/ws
	// Lookup resolves the names given to NewUpstream to 127.0.0.1 and
	// nothing else (netproxy.Options.Lookup).
	Lookup func(context.Context, string) ([]netip.Addr, error)
}

// NewUpstream starts the server for the names; commands reach it with
// curl, so a machine without curl skips the test (fails it in strict mode).
func NewUpstream(t testing.TB, prefix string, names ...string) *Upstream {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		SkipOrFail(t, "curl not installed")
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "upstream-ok "+r.URL.Path)
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	scratch, err := os.MkdirTemp("/var/tmp", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	ws := filepath.Join(scratch, "ws")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return &Upstream{Port: u.Port(), Scratch: scratch, WS: ws,
		Lookup: func(_ context.Context, h string) ([]netip.Addr, error) {
			if slices.Contains(names, h) {
				return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
			}
			return nil, errors.New("no such host")
		}}
}
