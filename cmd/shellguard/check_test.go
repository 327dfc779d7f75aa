package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/internal/hostile"
)

// These commands are only checked, never run.
func TestCheckExitCodes(t *testing.T) {
	ws := t.TempDir()
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--workspace", ws, "--", "ls", "-la"}, 0},
		{[]string{"--workspace", ws, "--", "git push --force-with-lease"}, 1},
		{[]string{"--workspace", ws, "--", "rm -rf /"}, 2},
		{[]string{"--workspace", ws}, 3},
		{[]string{"--bogus"}, 3},
		{[]string{"--file", filepath.Join(ws, "missing")}, 3},
		{[]string{"--file", "x", "--", "ls"}, 3},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if got := checkMain(tt.args, &out, &errb); got != tt.code {
			t.Errorf("%q: exit %d, want %d (%s%s)", tt.args, got, tt.code, out.String(), errb.String())
		}
	}
}

func TestCheckJSON(t *testing.T) {
	var out, errb bytes.Buffer
	code := checkMain([]string{"--json", "--workspace", t.TempDir(), "--", "echo ok; sh -c 'rm -rf /'"}, &out, &errb)
	if code != 2 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var v struct {
		Decision string `json:"decision"`
		Reasons  []struct {
			ID, Decision, Message string
			Span                  struct{ Start, End int }
		} `json:"reasons"`
		Warnings       []string   `json:"warnings"`
		Classification string     `json:"classification"`
		Commands       [][]string `json:"commands"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if v.Decision != "deny" || len(v.Reasons) == 0 || !strings.HasPrefix(v.Reasons[0].ID, "SG") || v.Warnings == nil {
		t.Fatalf("%+v", v)
	}
	if len(v.Commands) != 3 || strings.Join(v.Commands[2], " ") != "rm -rf /" {
		t.Fatalf("commands %q", v.Commands)
	}
}

func TestCheckFileWithNUL(t *testing.T) {
	f := filepath.Join(t.TempDir(), "cmd")
	if err := os.WriteFile(f, []byte("ls\x00 -la"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := checkMain([]string{"--json", "--file", f}, &out, &errb); code != 2 || !strings.Contains(out.String(), "SG1002") {
		t.Fatalf("exit %d: %s", code, out.String())
	}
}

func TestCheckTextCaret(t *testing.T) {
	var out, errb bytes.Buffer
	checkMain([]string{"--workspace", t.TempDir(), "--", "ls && git push -f"}, &out, &errb)
	want := "deny\nSG3101 deny: git push --force rewrites remote history\n    ls && git push -f\n          ^^^^^^^^^^^\n"
	if !strings.HasPrefix(out.String(), want) {
		t.Fatalf("got:\n%s\nwant prefix:\n%s", out.String(), want)
	}
}

func TestCheckTextClipsLongLines(t *testing.T) {
	var out, errb bytes.Buffer
	src := strings.Repeat("echo hi; ", 2000) + "git push -f"
	checkMain([]string{"--workspace", t.TempDir(), "--", src}, &out, &errb)
	for _, l := range strings.Split(out.String(), "\n") {
		if len(l) > 400 {
			t.Fatalf("line of %d bytes", len(l))
		}
	}
	if !strings.Contains(out.String(), "git push -f") {
		t.Fatalf("span text missing:\n%s", out.String())
	}
}

// TestCheckHostileFiles: check --file answers the reported pathological
// texts (written to files here, only checked) with ask (exit 1) or deny
// (exit 2), naming a bound or the budget, within a generous time.
func TestCheckHostileFiles(t *testing.T) {
	ws := t.TempDir()
	for _, in := range hostile.Reported() {
		p := filepath.Join(ws, in.Name+".sh")
		if err := os.WriteFile(p, []byte(in.Src), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		start := time.Now()
		done := make(chan int, 1)
		go func() { done <- checkMain([]string{"--json", "--workspace", ws, "--file", p}, &out, &errb) }()
		select {
		case code := <-done:
			if code != 1 && code != 2 {
				t.Errorf("%s: exit %d, want ask or deny: %s%s", in.Name, code, out.String(), errb.String())
			}
			if !regexp.MustCompile(`"SG10(10|1[5-8])"`).MatchString(out.String()) {
				t.Errorf("%s: no reason names a bound: %.300s", in.Name, out.String())
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no answer within 20 s", in.Name)
		}
		t.Logf("%s: %s", in.Name, time.Since(start).Round(time.Millisecond))
	}
}
