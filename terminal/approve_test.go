package terminal

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/policy"
)

// fakeTTY is a terminal whose person types answer.
type fakeTTY struct {
	io.Reader
	out    bytes.Buffer
	closed bool
}

func (f *fakeTTY) Write(b []byte) (int, error) { return f.out.Write(b) }
func (f *fakeTTY) Close() error                { f.closed = true; return nil }

const askCmd = "curl -X DELETE https://api.example.com/items/1"

func guard(t *testing.T) *shellguard.Guard {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	g, err := shellguard.New(shellguard.Config{Workspace: ws, GrantsFile: filepath.Join(dir, "grants.json")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// TestApprover: the person sees the command explained and the rule
// "always" would keep; yes runs once, always runs and remembers (the next
// check allows), anything else refuses; a terminal that cannot be opened
// is an error.
func TestApprover(t *testing.T) {
	ctx := context.Background()
	req := shellguard.Request{Command: askCmd}
	for _, tc := range []struct {
		typed      string
		ok, stored bool
	}{
		{"y\n", true, false},
		{"n\n", false, false},
		{"\n", false, false},
		{"sure\n", false, false},
		{"a\n", true, true},
	} {
		g := guard(t)
		v := g.Check(ctx, req)
		if v.Decision != policy.Ask {
			t.Fatalf("%s is %s, not ask", askCmd, v.Decision)
		}
		tty := &fakeTTY{Reader: strings.NewReader(tc.typed)}
		var asking []bool
		ok, err := Approver(g, &Options{Open: func() (io.ReadWriteCloser, error) { return tty, nil }, OnAsk: func(a bool) { asking = append(asking, a) }})(ctx, req, v)
		if err != nil || ok != tc.ok {
			t.Errorf("typed %q: %v %v, want %v", tc.typed, ok, err, tc.ok)
		}
		shown := tty.out.String()
		if !strings.Contains(shown, askCmd) || !strings.Contains(shown, "^") || !strings.Contains(shown, "[a]lways in this workspace allows exactly:") {
			t.Errorf("typed %q: the question shown was %q", tc.typed, shown)
		}
		if !tty.closed || len(asking) != 2 || !asking[0] || asking[1] {
			t.Errorf("typed %q: terminal closed %v, OnAsk %v", tc.typed, tty.closed, asking)
		}
		if after := g.Check(ctx, req).Decision; (after == policy.Allow) != tc.stored {
			t.Errorf("typed %q: the next check is %s", tc.typed, after)
		}
	}
	g := guard(t)
	_, err := Approver(g, &Options{Open: func() (io.ReadWriteCloser, error) { return nil, errors.New("no tty") }})(ctx, req, g.Check(ctx, req))
	if err == nil || !strings.Contains(err.Error(), "no tty") {
		t.Errorf("without a terminal: %v", err)
	}
}

// TestSandboxApprover: the person sees the command and exactly the
// refused hosts; y, s and a answer once, session and always (s left out
// with NoSession, a without a grants file), anything else declines.
func TestSandboxApprover(t *testing.T) {
	ctx := context.Background()
	req := shellguard.Request{Command: "curl https://up.test/x"}
	ask := shellguard.Grant{Hosts: []string{"up.test:443"}}
	for _, tc := range []struct {
		typed, want string
		noSession   bool
	}{
		{"y\n", "once", false}, {"s\n", "session", false}, {"a\n", "always", false},
		{"n\n", "", false}, {"\n", "", false}, {"always please\n", "", false},
		{"s\n", "", true}, {"a\n", "always", true},
	} {
		tty := &fakeTTY{Reader: strings.NewReader(tc.typed)}
		scope, err := SandboxApprover(guard(t), &Options{Open: func() (io.ReadWriteCloser, error) { return tty, nil }, NoSession: tc.noSession})(ctx, req, ask)
		if err != nil || scope != tc.want {
			t.Errorf("typed %q (no session %v): %q %v, want %q", tc.typed, tc.noSession, scope, err, tc.want)
		}
		shown := tty.out.String()
		if !strings.Contains(shown, req.Command) || !strings.Contains(shown, "up.test:443") || strings.Contains(shown, "[s]ession") == tc.noSession || !tty.closed {
			t.Errorf("typed %q: the question shown was %q", tc.typed, shown)
		}
	}
	// A path: the refused path and the directory granted are named.
	for _, tc := range []struct {
		grant shellguard.PathGrant
		shown []string
	}{
		{shellguard.PathGrant{Path: "/srv/out", Write: true, Refused: "/srv/out/new/f"}, []string{"refused writing /srv/out/new/f", "write in /srv/out (its nearest existing directory)"}},
		{shellguard.PathGrant{Path: "/srv/out", Write: true}, []string{"writing in /srv/out"}},
		{shellguard.PathGrant{Path: "/home/u/notes.txt"}, []string{"refused reading /home/u/notes.txt", "(read-only)"}},
	} {
		tty := &fakeTTY{Reader: strings.NewReader("y\n")}
		scope, err := SandboxApprover(guard(t), &Options{Open: func() (io.ReadWriteCloser, error) { return tty, nil }, NoSession: true})(ctx, req, shellguard.Grant{Paths: []shellguard.PathGrant{tc.grant}})
		shown := tty.out.String()
		if err != nil || scope != "once" || !strings.Contains(shown, req.Command) || !strings.Contains(shown, "[y]es for this run, [a]lways in this workspace, [N]o") {
			t.Errorf("%+v: %q %v, shown %q", tc.grant, scope, err, shown)
		}
		for _, s := range tc.shown {
			if !strings.Contains(shown, s) {
				t.Errorf("%+v: %q not shown in %q", tc.grant, s, shown)
			}
		}
	}
	g, err := shellguard.New(shellguard.Config{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	tty := &fakeTTY{Reader: strings.NewReader("a\n")}
	if scope, _ := SandboxApprover(g, &Options{Open: func() (io.ReadWriteCloser, error) { return tty, nil }})(ctx, req, ask); scope != "" || strings.Contains(tty.out.String(), "[a]lways") {
		t.Errorf("without a grants file: %q, shown %q", scope, tty.out.String())
	}
	if _, err := SandboxApprover(g, &Options{Open: func() (io.ReadWriteCloser, error) { return nil, errors.New("no tty") }})(ctx, req, ask); err == nil {
		t.Error("without a terminal: no error")
	}
}
