package shellguard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellguard/shellguard/audit"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/redact"
)

func newGuard(t *testing.T, cfg Config) *Guard {
	t.Helper()
	if cfg.Workspace == "" {
		cfg.Workspace = t.TempDir()
	}
	if cfg.Environ == nil {
		cfg.Environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	}
	g, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// A denied command is not started; the result carries the decision and
// the reasons.
func TestRunRefusesDeny(t *testing.T) {
	g := newGuard(t, Config{Rules: policy.Rules{Deny: []string{"touch *"}}})
	res, err := g.Run(context.Background(), Request{Command: "touch made-it"})
	var de *DeniedError
	if !errors.Is(err, ErrDenied) || !errors.As(err, &de) || de.Asked {
		t.Fatalf("err = %v", err)
	}
	if res.Decision != policy.Deny || len(res.Reasons) == 0 || res.ExitCode != nil || res.Task != nil {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(filepath.Join(g.Config().Workspace, "made-it")); err == nil {
		t.Fatal("a denied command ran")
	}
}

// Ask is a denial unless an approver says yes; the request's own Approve
// wins over the configured one.
func TestRunAskNeedsApproval(t *testing.T) {
	asked := 0
	g := newGuard(t, Config{Rules: policy.Rules{Ask: []string{"touch *"}}})
	_, err := g.Run(context.Background(), Request{Command: "touch a"})
	var de *DeniedError
	if !errors.As(err, &de) || !de.Asked || !strings.Contains(err.Error(), "no approver") {
		t.Fatalf("no approver: %v", err)
	}
	no := func(ctx context.Context, v policy.Verdict) (bool, error) { asked++; return false, nil }
	if _, err := g.Run(context.Background(), Request{Command: "touch b", Approve: no}); !errors.Is(err, ErrDenied) {
		t.Fatalf("declined: %v", err)
	}
	yes := func(ctx context.Context, v policy.Verdict) (bool, error) {
		asked++
		if v.Decision != policy.Ask {
			t.Errorf("approver saw %v", v.Decision)
		}
		return true, nil
	}
	res, err := g.Run(context.Background(), Request{Command: "touch c", Approve: yes})
	if err != nil || exitOf(res) != 0 || res.Decision != policy.Ask {
		t.Fatalf("approved: %v %+v", err, res)
	}
	ws := g.Config().Workspace
	for name, want := range map[string]bool{"a": false, "b": false, "c": true} {
		_, err := os.Stat(filepath.Join(ws, name))
		if (err == nil) != want {
			t.Errorf("%s exists=%v, want %v", name, err == nil, want)
		}
	}
	if asked != 2 {
		t.Errorf("approver asked %d times", asked)
	}
	cfgApprover := newGuard(t, Config{Rules: policy.Rules{Ask: []string{"touch *"}},
		Approver: func(ctx context.Context, req Request, v policy.Verdict) (bool, error) {
			return req.Command == "touch ok", nil
		}})
	if _, err := cfgApprover.Run(context.Background(), Request{Command: "touch ok"}); err != nil {
		t.Fatalf("config approver: %v", err)
	}
}

// Secrets in output are redacted before they reach the result or a live
// writer, including values of variables scrubbed from the environment.
func TestRunRedactsOutput(t *testing.T) {
	ws := t.TempDir()
	token := "ghp_" + strings.Repeat("Ab3xY9", 6)
	os.WriteFile(filepath.Join(ws, "leak.txt"), []byte("token="+token+"\nplain line\n"), 0o600)
	g := newGuard(t, Config{Workspace: ws,
		Environ:        []string{"PATH=" + os.Getenv("PATH"), "MY_SERVICE_PASSWORD=correct-horse-battery"},
		RedactPatterns: []redact.Pattern{{Name: "ticket", Regex: `TICKET-[0-9]{6}`, Keywords: []string{"TICKET-"}}}})
	var live strings.Builder
	res, err := g.Run(context.Background(), Request{
		Command: "cat leak.txt; printf 'pw correct-horse-battery\\n'; echo TICKET-123456 >&2",
		Stdout:  &live,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{res.Stdout, res.Stderr, live.String()} {
		if strings.Contains(s, token) || strings.Contains(s, "correct-horse-battery") || strings.Contains(s, "TICKET-123456") {
			t.Fatalf("secret survived: %q", s)
		}
	}
	if res.Redactions < 3 {
		t.Errorf("redactions = %d, want at least 3", res.Redactions)
	}
	if !strings.Contains(res.Stdout, "[REDACTED:") || !strings.Contains(res.Stdout, "plain line") || !strings.Contains(res.Stderr, "[REDACTED:ticket]") {
		t.Fatalf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
}

// Every call, denied or run, is one verified line of the audit log.
func TestAuditTrail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	g := newGuard(t, Config{AuditPath: path, Rules: policy.Rules{Deny: []string{"touch *"}}})
	g.Run(context.Background(), Request{Command: "echo ghp_" + strings.Repeat("Ab3xY9", 6), Session: "s1"})
	g.Run(context.Background(), Request{Command: "touch x"})
	g.Run(context.Background(), Request{Command: "exit 3"})
	g.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// started and ended for each command that ran, ended alone for the
	// denied one.
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines:\n%s", len(lines), b)
	}
	if strings.Contains(string(b), "Ab3xY9Ab3xY9") {
		t.Fatal("audit log holds a secret")
	}
	if !strings.Contains(lines[0], `"session":"s1"`) || !strings.Contains(lines[0], `"phase":"started"`) ||
		!strings.Contains(lines[2], `"decision":"deny"`) || !strings.Contains(lines[2], `"exit_code":null`) ||
		!strings.Contains(lines[4], `"exit_code":3`) || !strings.Contains(lines[4], `"start_seq":4`) {
		t.Fatalf("unexpected lines:\n%s", b)
	}
	f, _ := os.Open(path)
	defer f.Close()
	if err := audit.Verify(f); err != nil {
		t.Fatal(err)
	}
}

// Running outside the sandbox: excluded commands do, marked; a request to
// disable it is denied unless configured, and then always asked.
func TestSandboxExclusionsAndDisable(t *testing.T) {
	g := newGuard(t, Config{ExcludedCommands: []string{"uname *"}})
	res, err := g.Run(context.Background(), Request{Command: "uname -s"})
	if err != nil || !res.Unsandboxed {
		t.Fatalf("excluded: %v %+v", err, res)
	}
	res, _ = g.Run(context.Background(), Request{Command: "uname -s; ls"})
	if res.Unsandboxed {
		t.Fatal("a mixed command line left the sandbox")
	}
	_, err = g.Run(context.Background(), Request{Command: "true", DisableSandbox: true})
	if !errors.Is(err, ErrDenied) {
		t.Fatalf("disable without allow_unsandboxed: %v", err)
	}
	g2 := newGuard(t, Config{AllowUnsandboxed: true})
	_, err = g2.Run(context.Background(), Request{Command: "true", DisableSandbox: true})
	var de *DeniedError
	if !errors.As(err, &de) || !de.Asked {
		t.Fatalf("disable must be asked: %v", err)
	}
	res, err = g2.Run(context.Background(), Request{Command: "true", DisableSandbox: true,
		Approve: func(context.Context, policy.Verdict) (bool, error) { return true, nil }})
	if err != nil || !res.Unsandboxed {
		t.Fatalf("approved disable: %v %+v", err, res)
	}
	// Check gives the same verdict without running anything.
	if v := g.Check(context.Background(), Request{Command: "true", DisableSandbox: true}); v.Decision != policy.Deny {
		t.Fatalf("Check, not allowed: %+v", v)
	}
	if v := g2.Check(context.Background(), Request{Command: "true", DisableSandbox: true}); v.Decision != policy.Ask || v.Reasons[len(v.Reasons)-1].ID != "SG9002" {
		t.Fatalf("Check, allowed: %+v", v)
	}
	if v := g2.Check(context.Background(), Request{Command: "true"}); v.Decision != policy.Allow {
		t.Fatalf("Check, sandboxed: %+v", v)
	}
}

func TestCheck(t *testing.T) {
	g := newGuard(t, Config{})
	if v := g.Check(context.Background(), Request{Command: "ls -la"}); v.Decision != policy.Allow {
		t.Fatalf("ls: %+v", v)
	}
	if v := g.Check(context.Background(), Request{Command: "sudo rm -rf /"}); v.Decision != policy.Deny || len(v.Reasons) == 0 {
		t.Fatalf("sudo rm: %+v", v)
	}
}

// Prepare may run while commands do.
func TestPrepare(t *testing.T) {
	g := newGuard(t, Config{})
	done := make(chan struct{})
	go func() { g.Prepare(); close(done) }()
	res, err := g.Run(context.Background(), Request{Command: "echo x"})
	<-done
	if err != nil || res.Stdout != "x\n" {
		t.Fatalf("%v %+v", err, res)
	}
}
