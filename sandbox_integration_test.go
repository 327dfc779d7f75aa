package shellguard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// TestMain makes the test binary its own sandbox helper.
func TestMain(m *testing.M) {
	sandbox.Main()
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
