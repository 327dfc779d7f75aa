package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/shellguard/shellguard/sandbox"
)

// TestMain makes the test binary its own sandbox helper: `shellguard run`
// defaults to --sandbox auto, which re-executes this binary. Started as
// "shellguard" (by the txtar scripts, script_test.go), it is the CLI.
func TestMain(m *testing.M) {
	sandbox.Main()
	testscript.Main(m, map[string]func(){"shellguard": main})
}

func TestRunSandboxFlags(t *testing.T) {
	code, _, errs := cli(t, "run", "--sandbox", "bogus", "--", "true")
	if code != exitUsage || !strings.Contains(errs, "unknown mode") {
		t.Fatalf("bad mode: code=%d err=%q", code, errs)
	}
	code, out, _ := cli(t, "run", "--sandbox", "off", "--json", "--", "grep '^Seccomp:' /proc/self/status")
	if code != 0 || !strings.Contains(out, `"mode": "off"`) {
		t.Fatalf("off: code=%d out=%s", code, out)
	}
}

func TestRunSandboxAutoContains(t *testing.T) {
	scratch, err := os.MkdirTemp("/var/tmp", "sg-cli-test-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(scratch)
	ws := filepath.Join(scratch, "ws")
	outside := filepath.Join(scratch, "outside")
	os.Mkdir(ws, 0o755)
	os.Mkdir(outside, 0o755)
	// The write outside hides in a script the policy cannot read (it is
	// data in a file), so the sandbox is what must stop it.
	if err := os.WriteFile(filepath.Join(ws, "build.sh"), []byte("echo out > "+outside+"/x.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := cli(t, "run", "--json", "--workspace", ws, "--cwd", ws, "--",
		"echo in > inside.txt; bash build.sh; grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status")
	if code != 0 {
		t.Fatalf("code %d: %s", code, out)
	}
	var r struct {
		Stdout  string           `json:"stdout"`
		Stderr  string           `json:"stderr"`
		Sandbox *sandbox.Applied `json:"sandbox"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err, out)
	}
	if strings.Contains(out, `"decision": "deny"`) || strings.Contains(out, `"decision": "ask"`) {
		t.Fatalf("the policy refused the fixture, so the sandbox was not exercised: %s", out)
	}
	if r.Sandbox == nil || !r.Sandbox.Has(sandbox.LayerLandlockFS) {
		if sandboxStrict() {
			t.Fatalf("no Landlock: %s", out)
		}
		t.Skipf("sandbox layers missing here: %s", out)
	}
	if !strings.Contains(r.Stdout, "Seccomp:\t2") || !strings.Contains(r.Stdout, "NoNewPrivs:\t1") {
		t.Fatalf("not sandboxed: %s", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); err == nil {
		t.Fatal("wrote outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(ws, "inside.txt")); err != nil {
		t.Fatal("could not write inside the workspace")
	}
}

func TestRunSandboxRequired(t *testing.T) {
	code, out, errs := cli(t, "run", "--sandbox", "required", "--json", "--", "echo ran")
	r := sandbox.Probe()
	if r.RequiredOK {
		if code != 0 || !strings.Contains(out, `"stdout": "ran\n"`) {
			t.Fatalf("required should run here: code=%d out=%s err=%s", code, out, errs)
		}
		return
	}
	if code != exitFailure || strings.Contains(out, `"stdout": "ran\n"`) {
		t.Fatalf("required must fail closed: code=%d out=%s", code, out)
	}
}

func TestDoctor(t *testing.T) {
	code, out, _ := cli(t, "doctor", "--json")
	var r sandbox.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Layers) == 0 {
		t.Fatalf("doctor --json: %v %s", err, out)
	}
	if (code == 0) != r.RequiredOK {
		t.Fatalf("exit %d but required_ok=%v", code, r.RequiredOK)
	}
	_, text, _ := cli(t, "doctor")
	if !strings.Contains(text, "landlock-fs") {
		t.Fatalf("doctor text: %s", text)
	}
}

func sandboxStrict() bool { return os.Getenv("SHELLGUARD_STRICT_TESTS") == "1" }
