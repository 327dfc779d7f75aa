package shellguard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunResultFields(t *testing.T) {
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, "sub"), 0o755)
	g, err := New(Config{Workspace: ws, Environ: []string{"PATH=" + os.Getenv("PATH"), "GH_TOKEN=very-secret-value"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Run(context.Background(), Request{Command: `pwd; [ -z "${GH_TOKEN-}" ] && echo 0; echo e >&2; exit 4`, Cwd: "sub"})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(ws, "sub")
	if res.Cwd != want || res.Stdout != want+"\n0\n" || res.Stderr != "e\n" || exitOf(res) != 4 || res.TimedOut || res.Duration <= 0 {
		t.Fatalf("%+v", res)
	}
}

func TestRunTimeoutAndErrors(t *testing.T) {
	ws := t.TempDir()
	g, err := New(Config{Workspace: ws, MaxTimeout: time.Second, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Run(context.Background(), Request{Command: "echo start; sleep 7401"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || (exitOf(res) != 143 && exitOf(res) != 137) || res.Stdout != "start\n" || res.Duration > 5 {
		t.Fatalf("%+v", res)
	}
	// Out-of-range limits and a cwd outside the workspace are refused,
	// never clamped: nothing runs.
	for _, req := range []Request{
		{Command: "touch ran", Timeout: time.Hour},
		{Command: "touch ran", Timeout: -time.Second},
		{Command: "touch ran", MaxOutput: -1},
		{Command: "touch ran", MaxOutput: int(defaultMaxTotal) + 1},
		{Command: "touch ran", Cwd: "/nonexistent/dir"},
		{Command: "touch ran", Cwd: os.TempDir()},
	} {
		res, err = g.Run(context.Background(), req)
		var le *LimitError
		if !errors.As(err, &le) || res.ExitCode != nil || res.Task != nil {
			t.Errorf("%+v: err=%v res=%+v", req, err, res)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "ran")); err == nil {
		t.Error("a refused request ran")
	}
	if _, err := New(Config{MaxTimeout: 2 * ceilingTimeout}); err == nil {
		t.Fatal("a max timeout above the ceiling was accepted")
	}
	if _, err := New(Config{Timeout: time.Hour, MaxTimeout: time.Minute}); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Fatalf("default above max accepted: %v", err)
	}
}

// exitOf is a result's exit code, -1 when it has none.
func exitOf(r Result) int {
	if r.ExitCode == nil {
		return -1
	}
	return *r.ExitCode
}
