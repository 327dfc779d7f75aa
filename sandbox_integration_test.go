package shellguard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/internal/testenv"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// TestMain makes the test binary its own sandbox helper.
func TestMain(m *testing.M) {
	sandbox.Main()
	if os.Getenv("SGTEST_TOOL") == "listen" {
		os.Exit(testenv.ListenTool("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nhello from the dev server\n", true))
	}
	os.Exit(m.Run())
}

func TestRunInSandbox(t *testing.T) {
	scratch, err := os.MkdirTemp("/var/tmp", "sg-guard-test-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(scratch)
	ws, outside := filepath.Join(scratch, "ws"), filepath.Join(scratch, "outside")
	os.Mkdir(ws, 0o755)
	os.Mkdir(outside, 0o755)
	// The policy asks about the write outside; approve it so that the
	// sandbox underneath is what stops it.
	approve := func(context.Context, Request, policy.Verdict) (bool, error) { return true, nil }
	g, err := New(Config{Workspace: ws, Sandbox: &sandbox.Spec{}, Approver: approve, Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + scratch}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Run(context.Background(), Request{Command: "echo x > " + outside + "/y; echo ok > z; cat z"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sandbox == nil {
		t.Fatal("Result.Sandbox is nil")
	}
	t.Logf("%s; warnings: %v", res.Sandbox, res.SandboxWarnings)
	if !res.Sandbox.Has(sandbox.LayerLandlockFS) {
		if os.Getenv("SHELLGUARD_STRICT_TESTS") == "1" {
			t.Fatalf("Landlock missing: %v", res.SandboxWarnings)
		}
		t.Skip("no Landlock here")
	}
	if _, err := os.Stat(filepath.Join(outside, "y")); err == nil {
		t.Fatal("wrote outside the workspace")
	}
	if !strings.Contains(res.Stdout, "ok") {
		t.Fatalf("workspace not writable: %+v", res)
	}
	if len(res.Sandbox.Missing) != len(res.SandboxWarnings) {
		t.Fatalf("one warning per missing layer: %v vs %v", res.Sandbox.Missing, res.SandboxWarnings)
	}
}

// A sandboxed command's detached processes end with it, through the
// runner, which skips its own search for escapees when the command had a
// pid namespace of its own (Launch.Contained).
func TestSandboxedDetachedProcessesEnd(t *testing.T) {
	scratch, err := os.MkdirTemp("/var/tmp", "sg-guard-test-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(scratch)
	g, err := New(Config{Workspace: scratch, Sandbox: &sandbox.Spec{}, Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + scratch},
		Approver: func(context.Context, Request, policy.Verdict) (bool, error) { return true, nil }})
	if err != nil {
		t.Fatal(err)
	}
	marker := "sgdetach" + strconv.FormatInt(time.Now().UnixNano(), 36)
	script := strings.ReplaceAll(`setsid sh -c 'sleep 300; : M' >/dev/null 2>&1 </dev/null &
( ( sh -c 'sleep 300; : M' >/dev/null 2>&1 </dev/null & ) & )
echo started`, "M", marker)
	res, err := g.Run(context.Background(), Request{Command: script})
	if err != nil || !strings.Contains(res.Stdout, "started") {
		t.Fatalf("%v: %+v", err, res)
	}
	if res.Sandbox == nil || !res.Sandbox.Has(sandbox.LayerPidNS) {
		if os.Getenv("SHELLGUARD_STRICT_TESTS") == "1" {
			t.Fatalf("no pid namespace: %v", res.SandboxWarnings)
		}
		t.Skip("no pid namespace here")
	}
	// When Run returns, every process of the command has ended; only the
	// sandbox helper, which carries the script in its argv, may still be
	// exiting, and it is gone shortly after.
	left := func(helpers bool) (pids []int, lines []string) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err != nil || !strings.Contains(string(b), marker) {
				continue
			}
			if !helpers && strings.Contains(string(b), "\x00__shellguard_sandbox_helper\x00") {
				continue
			}
			if pid, err := strconv.Atoi(e.Name()); err == nil {
				pids = append(pids, pid)
				lines = append(lines, fmt.Sprintf("process %d: %q", pid, b))
			}
		}
		return pids, lines
	}
	report := func(pids []int, lines []string) {
		for _, pid := range pids {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
		for _, l := range lines {
			t.Errorf("outlived the command: %s", l)
		}
	}
	if pids, lines := left(false); len(pids) > 0 {
		report(pids, lines)
		return
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		pids, lines := left(true)
		if len(pids) == 0 {
			break
		}
		if time.Now().After(deadline) {
			report(pids, lines)
			break
		}
	}
}
