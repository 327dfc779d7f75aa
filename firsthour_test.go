package shellguard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellguard/shellguard/internal/runner"
)

// TestNewValidatesWorkspace: a workspace that does not exist, or is not a
// directory, is New's error, not the first Run's.
func TestNewValidatesWorkspace(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, ws := range []string{filepath.Join(dir, "missing"), file} {
		if g, err := New(Config{Workspace: ws}); err == nil {
			g.Close()
			t.Errorf("New(%s) accepted it", ws)
		} else if !strings.Contains(err.Error(), ws) {
			t.Errorf("New(%s): the error does not name it: %v", ws, err)
		}
	}
	g, err := New(Config{Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
}

// TestExitCodeNilWhenNothingRan: a run whose launcher failed before the
// command ran (runner.Result.NotRun, e.g. a sandbox helper that could not
// set up) has no exit code, although the runner killed the helper.
func TestExitCodeNilWhenNothingRan(t *testing.T) {
	g, err := New(Config{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var res Result
	g.fill(&res, runner.Result{Pid: 1, ExitCode: 137, NotRun: true, Err: errors.New("sandbox: set-up failed")}, &runTag{})
	if res.ExitCode != nil {
		t.Errorf("exit code %d for a command that never ran", *res.ExitCode)
	}
	g.fill(&res, runner.Result{Pid: 1, ExitCode: 137}, &runTag{})
	if res.ExitCode == nil || *res.ExitCode != 137 {
		t.Errorf("a command killed by SIGKILL: exit code %v, want 137", res.ExitCode)
	}
}

// TestExitCodeNotesOnlyAfterExitOne: what exit code 1 means for grep is
// said only by a result that exited with 1.
func TestExitCodeNotesOnlyAfterExitOne(t *testing.T) {
	g, err := New(Config{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	has := func(r Result) bool {
		for _, w := range r.Warnings {
			if strings.Contains(w, "exit code 1 means") {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		cmd  string
		note bool
	}{
		{"grep -q needle /dev/null", true},
		{"echo needle | grep -q needle", false},
		{"grep -q needle /nonexistent-file", false}, // exit 2: an error, not "no matches"
	} {
		r, _ := g.Run(context.Background(), Request{Command: tc.cmd})
		if has(r) != tc.note {
			t.Errorf("%q (exit %v): note %v, want %v: %q", tc.cmd, r.ExitCode, has(r), tc.note, r.Warnings)
		}
	}
	s := g.NewSession(SessionOptions{})
	defer s.Close()
	task, err := s.Start(context.Background(), Request{Command: "sleep 1; grep -q needle /dev/null"}, TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st := task.Status(ReadOptions{}); has(st) {
		t.Errorf("a running task has the note: %q", st.Warnings)
	}
	<-task.Done()
	if st := task.Status(ReadOptions{}); !has(st) {
		t.Errorf("the task exited with %v and has no note: %q", st.ExitCode, st.Warnings)
	}
}
