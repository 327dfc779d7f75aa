package shellguard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellguard/shellguard/policy"
)

// The command the tests ask about, and a neighbour its grant must not
// cover (only static checks: nothing here runs a command).
const (
	askCmd      = "curl -X DELETE https://api.example.com/items/1"
	neighbourOf = "curl -X DELETE https://api.example.com/items/2"
)

func grantGuard(t *testing.T, ws, grants string) *Guard {
	t.Helper()
	g, err := New(Config{Workspace: ws, GrantsFile: grants})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func decision(t *testing.T, s *Session, cmd string) policy.Decision {
	t.Helper()
	return s.Check(context.Background(), Request{Command: cmd}).Decision
}

// An approval for the session lets the same command run without asking
// for the rest of the session, and nothing else: not a neighbour, not in
// another session.
func TestRememberForSession(t *testing.T) {
	g := grantGuard(t, t.TempDir(), "")
	s, other := g.NewSession(SessionOptions{}), g.NewSession(SessionOptions{})
	defer s.Close()
	defer other.Close()
	v := s.Check(context.Background(), Request{Command: askCmd})
	if v.Decision != policy.Ask {
		t.Fatalf("%q: %v, want ask", askCmd, v.Decision)
	}
	rules := policy.Grant(askCmd, v, g.Config().Rules)
	if len(rules) != 1 || strings.Contains(rules[0], "*") {
		t.Fatalf("offer %q: want one exact rule", rules)
	}
	if err := s.Remember("session", askCmd, rules); err != nil {
		t.Fatal(err)
	}
	if d := decision(t, s, askCmd); d != policy.Allow {
		t.Errorf("after the grant: %v", d)
	}
	if d := decision(t, s, neighbourOf); d != policy.Ask {
		t.Errorf("the grant covers %q: %v", neighbourOf, d)
	}
	if d := decision(t, other, askCmd); d != policy.Ask {
		t.Errorf("another session inherits the grant: %v", d)
	}
	if err := s.Remember("always", askCmd, rules); err == nil {
		t.Error("always without a grants file succeeded")
	}
}

// "Always" is written to the grants file, holds for a new Guard of the
// same workspace (a restart), and not for another workspace.
func TestRememberAlways(t *testing.T) {
	home := t.TempDir()
	grants := filepath.Join(home, "config", "grants.json")
	ws, ws2 := t.TempDir(), t.TempDir()
	g := grantGuard(t, ws, grants)
	s := g.NewSession(SessionOptions{})
	defer s.Close()
	v := s.Check(context.Background(), Request{Command: askCmd})
	if err := s.Remember("always", askCmd, policy.Grant(askCmd, v, g.Config().Rules)); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(grants); err != nil || st.Mode().Perm()&0o077 != 0 {
		t.Fatalf("grants file: %v %v", st, err)
	}
	if d := decision(t, g.NewSession(SessionOptions{}), askCmd); d != policy.Allow {
		t.Errorf("another session of the same Guard: %v", d)
	}
	restarted := grantGuard(t, ws, grants)
	if d := decision(t, restarted.NewSession(SessionOptions{}), askCmd); d != policy.Allow {
		t.Errorf("after a restart: %v", d)
	}
	if d := decision(t, restarted.NewSession(SessionOptions{}), neighbourOf); d != policy.Ask {
		t.Errorf("after a restart, the neighbour: %v", d)
	}
	elsewhere := grantGuard(t, ws2, grants)
	if d := decision(t, elsewhere.NewSession(SessionOptions{}), askCmd); d != policy.Ask {
		t.Errorf("in another workspace: %v", d)
	}
}

// Nothing that no rule may lift is ever offered, and only exact rules are
// remembered.
func TestRememberRefusesWideAndFloor(t *testing.T) {
	g := grantGuard(t, t.TempDir(), "")
	s := g.NewSession(SessionOptions{})
	defer s.Close()
	for _, cmd := range []string{"rm -rf /", "curl -X DELETE https://api.example.com/x && cat ~/.ssh/id_rsa"} {
		v := s.Check(context.Background(), Request{Command: cmd})
		if got := policy.Grant(cmd, v, g.Config().Rules); got != nil {
			t.Errorf("offer for %q [%v]: %q", cmd, v.Decision, got)
		}
	}
	for _, r := range []string{"curl *", "curl -X DELETE https://api.example.com/*", " "} {
		if err := s.Remember("session", "x", []string{r}); err == nil {
			t.Errorf("Remember(%q) succeeded", r)
		}
	}
}

// A grants file a sandboxed command could write is refused, and so is
// one others may write: a command must never grant itself anything.
func TestGrantsFilePlacement(t *testing.T) {
	ws := t.TempDir()
	inside := filepath.Join(ws, ".cfg", "grants.json")
	if err := os.MkdirAll(filepath.Dir(inside), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inside, []byte(`{"grants":[{"workspace":"`+ws+`","allow":["`+askCmd+`"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	g := grantGuard(t, ws, inside)
	s := g.NewSession(SessionOptions{})
	defer s.Close()
	if err := g.GrantsError(); err == nil || !strings.Contains(err.Error(), "may write") {
		t.Errorf("a grants file in the workspace: %v", err)
	}
	if d := decision(t, s, askCmd); d != policy.Ask {
		t.Errorf("a grant planted in the workspace was honoured: %v", d)
	}
	if err := s.Remember("always", askCmd, []string{askCmd}); err == nil {
		t.Error("an always grant was written into the workspace")
	}
	p := filepath.Join(t.TempDir(), "grants.json")
	if err := os.WriteFile(p, []byte(`{"grants":[{"workspace":"`+ws+`","allow":["`+askCmd+`"]}]}`), 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o666)
	g = grantGuard(t, ws, p)
	if err := g.GrantsError(); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a world-writable grants file: %v", err)
	}
	if d := decision(t, g.NewSession(SessionOptions{}), askCmd); d != policy.Ask {
		t.Errorf("a grant in a world-writable file was honoured: %v", d)
	}
	wide := filepath.Join(t.TempDir(), "grants.json")
	if err := os.WriteFile(wide, []byte(`{"grants":[{"workspace":"`+ws+`","allow":["curl *"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	g = grantGuard(t, ws, wide)
	if d := decision(t, g.NewSession(SessionOptions{}), askCmd); d != policy.Ask {
		t.Errorf("a hand-widened grant was honoured: %v", d)
	}
}
