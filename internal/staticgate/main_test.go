package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

type fakeCase struct {
	ID      string `json:"id"`
	Expect  string `json:"expect"`
	Pass    bool   `json:"pass"`
	Error   bool   `json:"error,omitempty"`
	Skipped bool   `json:"skipped,omitempty"`
}

// reportJSON builds an sgeval static report with the given outcomes.
func reportJSON(t *testing.T, attacks, attacksOK, benign, benignOK, errs int) []byte {
	t.Helper()
	var cases []fakeCase
	failed := 0
	for i := 0; i < attacks; i++ {
		cases = append(cases, fakeCase{ID: "a", Expect: "block", Pass: i < attacksOK})
	}
	for i := 0; i < benign; i++ {
		cases = append(cases, fakeCase{ID: "b", Expect: "allow", Pass: i < benignOK})
	}
	for i := range cases {
		if !cases[i].Pass {
			failed++
			if errs > 0 {
				cases[i].Error = true
				errs--
			}
		}
	}
	nerr := 0
	for _, c := range cases {
		if c.Error {
			nerr++
		}
	}
	b, err := json.Marshal(map[string]any{
		"tool": "sgeval", "mode": "static",
		"summary": map[string]int{"passed": len(cases) - failed, "failed": failed, "errors": nerr,
			"attacks_total": attacks, "attacks_ok": attacksOK, "benign_total": benign, "benign_ok": benignOK},
		"cases": cases,
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestJudge(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", reportJSON(t, 100, 100, 100, 99, 0))
	perfect := write("perfect.json", reportJSON(t, 100, 100, 100, 100, 0))
	lowAttack := write("low.json", reportJSON(t, 100, 98, 100, 100, 0))
	withErr := write("err.json", reportJSON(t, 100, 100, 100, 99, 1))
	empty := write("empty.json", reportJSON(t, 0, 0, 0, 0, 0))
	effect := write("effect.json", []byte(`{"mode":"effect","summary":{"attacks_total":1,"benign_total":1}}`))
	garbage := write("garbage.json", []byte("not json"))
	for _, tc := range []struct {
		name    string
		path    string
		exit    int
		ok      bool
		wantErr bool
	}{
		{"above thresholds, some missed", good, 1, true, false},
		{"all passed", perfect, 0, true, false},
		{"attacks below 99%", lowAttack, 1, false, false},
		{"a case could not be judged", withErr, 1, false, false},
		{"sgeval could not run", perfect, 2, false, true},
		{"sgeval killed", perfect, 137, false, true},
		{"exit 0 but misses in report", good, 0, false, true},
		{"exit 1 but nothing missed", perfect, 1, false, true},
		{"no report written", filepath.Join(dir, "missing.json"), 0, false, true},
		{"empty corpus", empty, 0, false, true},
		{"effect report", effect, 0, false, true},
		{"not JSON", garbage, 0, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			ok, err := judge(tc.path, tc.exit, 99, 98, &out)
			if ok != tc.ok || (err != nil) != tc.wantErr {
				t.Fatalf("judge = %v, %v; want ok=%v err=%v\n%s", ok, err, tc.ok, tc.wantErr, out.String())
			}
			code := gate([]string{"-report", tc.path, "-sgeval-exit", itoa(tc.exit)}, &out, &out)
			if (code == 0) != tc.ok {
				t.Fatalf("gate exit %d, want success=%v", code, tc.ok)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestMakeEvalStaticFails runs the eval-static recipe of the Makefile with
// a stand-in for sgeval: a failing sgeval, or one that writes no report
// while a stale report of an earlier run lies around, must fail the build;
// one that writes a passing report must not.
func TestMakeEvalStaticFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make and go run")
	}
	makePath, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	evalDir := t.TempDir()
	good := filepath.Join(t.TempDir(), "good.json")
	if err := os.WriteFile(good, reportJSON(t, 100, 100, 100, 99, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	// A stale passing report where the old recipe used to read it.
	if err := os.WriteFile(filepath.Join(evalDir, "static.json"), reportJSON(t, 100, 100, 100, 100, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	// fake writes the report it is given (if any) to --json-out, then
	// exits with the given status.
	fake := func(name, report string, exit int) string {
		p := filepath.Join(t.TempDir(), name)
		script := "#!/bin/bash\nout=\nwhile [ $# -gt 0 ]; do if [ \"$1\" = --json-out ]; then out=$2; fi; shift; done\necho 'sgeval static: stand-in'\n"
		if report != "" {
			script += "cp " + report + " \"$out\"\n"
		}
		script += "exit " + itoa(exit) + "\n"
		if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(sgeval string) (string, error) {
		cmd := exec.Command(makePath, "-s", "-C", root, "-o", "evalbin", "eval-static",
			"SGEVAL="+sgeval, "EVALDIR="+evalDir, "SGBIN=/bin/true")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(fake("crash", "", 2)); err == nil || !strings.Contains(out, "sgeval failed") {
		t.Errorf("sgeval exiting 2: make succeeded or said something else: %v\n%s", err, out)
	}
	if out, err := run(fake("silent", "", 0)); err == nil || !strings.Contains(out, "no report from this run") {
		t.Errorf("sgeval writing no report: make succeeded or read a stale report: %v\n%s", err, out)
	}
	if out, err := run(fake("lying", good, 0)); err == nil {
		t.Errorf("sgeval exit 0 with misses in its report: make succeeded\n%s", out)
	}
	if out, err := run(fake("good", good, 1)); err != nil || !strings.Contains(out, "attacks blocked 100.0%") {
		t.Errorf("a passing run failed: %v\n%s", err, out)
	}
}
