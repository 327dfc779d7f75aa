package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func cli(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = mainArgs(args, &o, &e)
	return code, o.String(), e.String()
}

func TestRunText(t *testing.T) {
	ws := t.TempDir()
	code, out, errs := cli(t, "run", "--workspace", ws, "--cwd", ws, "--", "echo hi; echo err >&2; exit 3")
	if code != 3 || out != "hi\n" || errs != "err\n" {
		t.Fatalf("code=%d out=%q err=%q", code, out, errs)
	}
	code, _, errs = cli(t, "run", "--timeout", "0.3", "--", "sleep 7501")
	if code != 124 || !strings.Contains(errs, "timed out") {
		t.Fatalf("timeout: code=%d err=%q", code, errs)
	}
}

func TestRunJSON(t *testing.T) {
	code, out, _ := cli(t, "run", "--json", "--max-output", "100", "--", "seq 1 10000; exit 1")
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err, out)
	}
	for _, k := range []string{"command", "cwd", "stdout", "stderr", "exit_code", "timed_out", "duration", "stdout_dropped_bytes", "stderr_dropped_bytes", "output_limit_exceeded"} {
		if _, ok := r[k]; !ok {
			t.Errorf("missing %q in %s", k, out)
		}
	}
	if r["exit_code"] != 1.0 || r["stdout_dropped_bytes"].(float64) <= 0 {
		t.Fatalf("%s", out)
	}
}

func TestRunFile(t *testing.T) {
	f := t.TempDir() + "/cmd"
	os.WriteFile(f, []byte("printf 'a\\tb'"), 0o600)
	code, out, _ := cli(t, "run", "--file", f)
	if code != 0 || out != "a\tb" {
		t.Fatalf("code=%d out=%q", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"nosuchcommand"},
		{"run"},
		{"run", "--bogus", "--", "true"},
		{"run", "--timeout", "abc", "--", "true"},
		{"run", "--timeout", "-1", "--", "true"},
		{"run", "--file", "x", "--", "true"},
	} {
		code, _, errs := cli(t, args...)
		if code != 2 || errs == "" {
			t.Errorf("%q: code=%d stderr=%q", args, code, errs)
		}
	}
	code, _, errs := cli(t, "run", "--cwd", "/nonexistent/x", "--", "true")
	if code != 2 || !strings.Contains(errs, "/nonexistent/x") || !strings.Contains(errs, "does not exist") {
		t.Errorf("missing cwd: code=%d stderr=%q", code, errs)
	}
}
