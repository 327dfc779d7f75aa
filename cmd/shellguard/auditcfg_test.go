package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellguard/shellguard/audit"
	"github.com/shellguard/shellguard/policy"
)

func sgcli(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := mainArgs(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestAuditVerifyCLI(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := audit.Open(path, audit.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"ls", "pwd", "make test"} {
		if _, _, err := l.Append(audit.Event{Command: c, Decision: policy.Allow}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	code, out, _ := sgcli("audit", "verify", path)
	if code != 0 || !strings.Contains(out, "OK, 3 lines") {
		t.Fatalf("intact: %d %q", code, out)
	}
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	os.WriteFile(path, []byte(lines[0]+lines[2]), 0o600) // delete line 2
	code, out, _ = sgcli("audit", "verify", path)
	if code != 1 || !strings.Contains(out, path+":2: ") || !strings.Contains(out, "missing") {
		t.Fatalf("deleted line: %d %q", code, out)
	}
	os.WriteFile(path, []byte(strings.Replace(string(data), "make test", "make tesT", 1)), 0o600)
	code, out, _ = sgcli("audit", "verify", path)
	if code != 1 || !strings.Contains(out, path+":3: hash mismatch") {
		t.Fatalf("edited line: %d %q", code, out)
	}
	// Lines dropped from the end: the chain holds, the checkpoint does not.
	os.WriteFile(path, []byte(lines[0]+lines[1]), 0o600)
	code, out, _ = sgcli("audit", "verify", path)
	if code != 1 || !strings.Contains(out, path+":3: ") || !strings.Contains(out, "removed from the end") {
		t.Fatalf("truncated: %d %q", code, out)
	}
	os.WriteFile(path, nil, 0o600)
	code, out, _ = sgcli("audit", "verify", path)
	if code != 1 || !strings.Contains(out, "emptied") {
		t.Fatalf("emptied: %d %q", code, out)
	}
	// No checkpoint: refused unless --no-checkpoint.
	os.WriteFile(path, data, 0o600)
	os.Remove(audit.CheckpointPath(path))
	if code, out, _ = sgcli("audit", "verify", path); code != 1 || !strings.Contains(out, "no checkpoint") {
		t.Fatalf("no checkpoint: %d %q", code, out)
	}
	if code, out, _ = sgcli("audit", "verify", "--no-checkpoint", path); code != 0 || !strings.Contains(out, "OK, 3 lines") {
		t.Fatalf("--no-checkpoint: %d %q", code, out)
	}
	if code, _, _ := sgcli("audit"); code != 2 {
		t.Errorf("usage exit %d", code)
	}
	if code, _, _ := sgcli("audit", "verify", filepath.Join(t.TempDir(), "none")); code != 2 {
		t.Errorf("missing file exit %d", code)
	}
}

func TestConfigCLI(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("rules:\n  deny:\n    - {rule: \"git push --force *\", match: [\"git push --force origin\"]}\n"), 0o644)
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("timeout:\n  max: 5000\n"), 0o644)
	ws := filepath.Join(dir, "ws")
	os.Mkdir(ws, 0o755)
	proj := filepath.Join(ws, ".shellguard.yaml")
	os.WriteFile(proj, []byte("rules:\n  allow: [\"rm *\"]\n"), 0o644)

	if code, out, _ := sgcli("config", "check", good); code != 0 || !strings.Contains(out, "OK") {
		t.Errorf("check good: %d %q", code, out)
	}
	if code, _, errs := sgcli("config", "check", bad); code != 1 || !strings.Contains(errs, bad+":2: timeout.max") {
		t.Errorf("check bad: %d %q", code, errs)
	}
	if code, _, errs := sgcli("config", "check", proj); code != 1 || !strings.Contains(errs, proj+":2: rules.allow: not allowed in a project file") {
		t.Errorf("check project: %d %q", code, errs)
	}
	if code, out, _ := sgcli("config", "show", "--config", good, "--workspace", dir); code != 0 ||
		!strings.Contains(out, "timeout.default = 120") || !strings.Contains(out, "# --config "+good+":3") {
		t.Errorf("show: %d %q", code, out)
	}
	if code, out, _ := sgcli("config", "show", "--json", "--workspace", dir); code != 0 || !strings.Contains(out, `"sources"`) {
		t.Errorf("show json: %d %q", code, out)
	}
	if code, _, errs := sgcli("config", "show", "--workspace", ws); code != 1 || !strings.Contains(errs, "not allowed in a project file") {
		t.Errorf("show with loosening project file: %d %q", code, errs)
	}
	if code, out, _ := sgcli("config", "defaults"); code != 0 || !strings.Contains(out, "timeout: {default: 120, max: 600}") {
		t.Errorf("defaults: %d", code)
	}
	if code, _, _ := sgcli("config", "frobnicate"); code != 2 {
		t.Errorf("unknown subcommand exit %d", code)
	}
}
