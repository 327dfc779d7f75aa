package shellguard

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/audit"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// auditLines reads the log at path as one map per line.
func auditLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// A command that runs has a "started" line, written before it starts,
// and an "ended" line naming it; a refused one has only its end.
func TestAuditWriteAhead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	g := newGuard(t, Config{AuditPath: path, Rules: policy.Rules{Deny: []string{"touch *"}}})
	ws := g.Config().Workspace
	// The command itself finds its own "started" line already in the log.
	res, err := g.Run(context.Background(), Request{Command: "exit 3"})
	if err != nil && res.ExitCode == nil {
		t.Fatal(err)
	}
	denied, _ := g.Run(context.Background(), Request{Command: "touch x"})
	if _, err := os.Stat(filepath.Join(ws, "x")); err == nil {
		t.Fatal("a denied command ran")
	}
	g.Close()
	ls := auditLines(t, path)
	if len(ls) != 3 {
		t.Fatalf("%d lines: %v", len(ls), ls)
	}
	// Each result names its line: the end of the call.
	for _, c := range []struct {
		r    Result
		line map[string]any
	}{{res, ls[1]}, {denied, ls[2]}} {
		if c.r.AuditSeq == 0 || float64(c.r.AuditSeq) != c.line["seq"] {
			t.Errorf("%q: audit_seq %d, its ended line has seq %v", c.r.Command, c.r.AuditSeq, c.line["seq"])
		}
	}
	if ls[0]["phase"] != "started" || ls[0]["decision"] != "allow" || ls[0]["exit_code"] != nil {
		t.Errorf("line 1: %v", ls[0])
	}
	if ls[1]["phase"] != "ended" || ls[1]["start_seq"] != float64(1) || ls[1]["exit_code"] != float64(3) {
		t.Errorf("line 2: %v", ls[1])
	}
	if ls[2]["phase"] != "ended" || ls[2]["decision"] != "deny" || ls[2]["start_seq"] != nil {
		t.Errorf("line 3: %v", ls[2])
	}
	if _, err := audit.VerifyLog(path, nil); err != nil {
		t.Fatal(err)
	}
}

// A background task's end is logged when it ends, not when it starts.
func TestAuditTaskEnded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	g := newGuard(t, Config{AuditPath: path})
	s := g.NewSession(SessionOptions{})
	task, err := s.Start(context.Background(), Request{Command: "exit 4"}, TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-task.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("task did not end")
	}
	g.Close()
	ls := auditLines(t, path)
	if len(ls) != 2 || ls[0]["phase"] != "started" || ls[1]["phase"] != "ended" ||
		ls[1]["exit_code"] != float64(4) || ls[1]["task_id"] != task.ID() || ls[1]["start_seq"] != float64(1) {
		t.Fatalf("lines: %v", ls)
	}
}

// A log that cannot be appended to stops commands from running, with an
// error that says why, unless AuditFailOpen is set; then the result warns.
func TestAuditFailsClosed(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(t *testing.T, path string)
		before bool // break the log before the Guard opens it
	}{
		{"partial last line", func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("x")
			f.Close()
		}, false},
		{"disk full", func(t *testing.T, path string) {
			// /dev/full answers every write with ENOSPC, as a full file
			// system does.
			os.Remove(path)
			if err := os.Symlink("/dev/full", path); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"emptied", func(t *testing.T, path string) {
			if err := os.Truncate(path, 0); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"last lines dropped", func(t *testing.T, path string) {
			b, _ := os.ReadFile(path)
			lines := strings.SplitAfter(string(b), "\n")
			os.WriteFile(path, []byte(lines[0]), 0o600)
		}, false},
	}
	for _, tc := range cases {
		for _, failOpen := range []bool{false, true} {
			name := tc.name
			if failOpen {
				name += "/fail_open"
			}
			t.Run(name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "audit.jsonl")
				if tc.before {
					tc.break_(t, path)
				}
				g := newGuard(t, Config{AuditPath: path, AuditFailOpen: failOpen})
				ws := g.Config().Workspace
				if !tc.before {
					if _, err := g.Run(context.Background(), Request{Command: "true"}); err != nil {
						t.Fatal(err)
					}
					tc.break_(t, path)
				}
				for i, run := range []func(req Request) (Result, error){
					func(req Request) (Result, error) { return g.Run(context.Background(), req) },
					func(req Request) (Result, error) {
						return g.NewSession(SessionOptions{}).Run(context.Background(), req)
					},
					func(req Request) (Result, error) {
						task, err := g.NewSession(SessionOptions{}).Start(context.Background(), req, TaskOptions{})
						if err != nil {
							return Result{}, err
						}
						<-task.Done()
						return task.Status(ReadOptions{}), nil
					},
				} {
					marker := filepath.Join(ws, "ran"+string(rune('0'+i)))
					res, err := run(Request{Command: "touch " + marker})
					_, statErr := os.Stat(marker)
					if failOpen {
						if err != nil || statErr != nil {
							t.Fatalf("face %d: fail_open did not run: %v %v", i, err, statErr)
						}
						if i < 2 && !strings.Contains(strings.Join(res.Warnings, "\n"), "audit") {
							t.Errorf("face %d: no warning: %v", i, res.Warnings)
						}
						continue
					}
					if !errors.Is(err, ErrAuditUnavailable) || !strings.Contains(err.Error(), "audit") {
						t.Fatalf("face %d: err %v", i, err)
					}
					if statErr == nil {
						t.Fatalf("face %d: the command ran although the log is broken", i)
					}
				}
			})
		}
	}
}

// The log may not lie where commands may write.
func TestAuditLogOutsideWritableRoots(t *testing.T) {
	ws := t.TempDir()
	extra := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(ws, link)
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"workspace", Config{Workspace: ws, AuditPath: filepath.Join(ws, "logs", "audit.jsonl")}},
		{"allowed root", Config{Workspace: ws, AuditPath: filepath.Join(extra, "a.jsonl"),
			Rules: policy.Rules{AllowedRoots: []string{extra}}}},
		{"sandbox root", Config{Workspace: ws, AuditPath: filepath.Join(extra, "a.jsonl"),
			Sandbox: &sandbox.Spec{WritableRoots: []string{extra}}}},
		{"through a symlink", Config{Workspace: ws, AuditPath: filepath.Join(link, "a.jsonl")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := New(tc.cfg)
			if err == nil {
				g.Close()
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), "audit") || !strings.Contains(err.Error(), "writable") {
				t.Fatalf("unclear error: %v", err)
			}
		})
	}
}
