package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Several words after -- are a program and its arguments, passed exactly;
// one word stays a bash command line.
func TestRunArgv(t *testing.T) {
	ws := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"printf", `%s\n`, "c d"}, "c d\n"},
		{[]string{"printf", `[%s]`, "a'b", `$HOME`, "*", "", "x;y"}, `[a'b][$HOME][*][][x;y]`},
		{[]string{"printf", `%s`, "tab\there\nnl"}, "tab\there\nnl"},
		{[]string{"printf '%s\\n' 'c d' | tr c C"}, "C d\n"},
	} {
		args := append([]string{"run", "--sandbox", "off", "--workspace", ws, "--"}, tc.args...)
		code, out, errs := cli(t, args...)
		if code != 0 || out != tc.want {
			t.Errorf("run -- %q: code=%d out=%q want %q (stderr %q)", tc.args, code, out, tc.want, errs)
		}
	}
	// check judges the same quoted command line: the ; inside an argument
	// is data, not a second command.
	code, out, _ := cli(t, "check", "--json", "--workspace", ws, "--", "echo", "x; rm -rf ~")
	var v struct {
		Decision string     `json:"decision"`
		Commands [][]string `json:"commands"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != 0 || v.Decision != "allow" ||
		len(v.Commands) != 1 || len(v.Commands[0]) != 2 || v.Commands[0][1] != "x; rm -rf ~" {
		t.Errorf("check -- echo 'x; rm -rf ~': code=%d %s", code, out)
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, _ := cli(t, args...)
		if code != 0 || !strings.HasPrefix(out, "shellguard ") || len(strings.TrimSpace(out)) <= len("shellguard") {
			t.Errorf("%q: code=%d out=%q", args, code, out)
		}
	}
}

func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"run", "--help"}, {"check", "-h"}, {"doctor", "--help"}, {"audit", "--help"},
		{"audit", "verify", "--help"}, {"config", "--help"}, {"config", "show", "--help"}, {"mcp", "--help"},
		{"serve", "--help"}, {"completion", "--help"}, {"version", "--help"},
	} {
		code, out, errs := cli(t, args...)
		if code != 0 || out == "" || errs != "" {
			t.Errorf("%q: code=%d stdout=%d bytes stderr=%q", args, code, len(out), errs)
		}
	}
}

// A mistake in the arguments is one line plus where the usage is, not the
// whole flag list.
func TestArgumentErrorIsShort(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--bogus", "--", "true"},
		{"run"},
		{"run", "--timeout", "abc", "--", "true"},
		{"check", "--bogus"},
		{"doctor", "--bogus"},
		{"audit", "verify"},
		{"audit", "frobnicate"},
		{"config", "show", "--bogus"},
		{"serve", "--bogus"},
		{"mcp", "extra"},
		{"completion", "tcsh"},
		{"nosuchcommand"},
	} {
		code, out, errs := cli(t, args...)
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if code == 0 || out != "" || len(lines) != 2 || !strings.Contains(lines[1], "--help") {
			t.Errorf("%q: code=%d stdout=%q stderr=%q", args, code, out, errs)
		}
	}
}

func TestServeBadAddr(t *testing.T) {
	for _, addr := range []string{"nonsense", "127.0.0.1:http", "127.0.0.1:99999", ":"} {
		code, _, errs := cli(t, "serve", "--addr", addr)
		if code != exitUsage || !strings.Contains(errs, "not a valid address") {
			t.Errorf("--addr %q: code=%d stderr=%q", addr, code, errs)
		}
	}
}

func TestServeTokenFile(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte("0123456789abcdef0123456789abcdef\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := cli(t, "serve", "--addr", "127.0.0.1:0", "--token-file", tok, "--workspace", dir)
	if code != exitUsage || !strings.Contains(errs, "chmod 600") {
		t.Errorf("token readable by others: code=%d stderr=%q", code, errs)
	}
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("abc"), 0o600)
	code, _, errs = cli(t, "serve", "--addr", "127.0.0.1:0", "--token-file", short, "--workspace", dir)
	if code != exitUsage || !strings.Contains(errs, "at least 16") {
		t.Errorf("short token: code=%d stderr=%q", code, errs)
	}
	if p, err := readTokenFile(tok); err == nil {
		t.Errorf("readTokenFile accepted a 0644 file: %q", p)
	}
	os.Chmod(tok, 0o600)
	if p, err := readTokenFile(tok); err != nil || p != "0123456789abcdef0123456789abcdef" {
		t.Errorf("readTokenFile(0600) = %q, %v", p, err)
	}
}

// The README's token recipe works on a machine without ~/.config/shellguard
// and leaves a file serve accepts.
func TestReadmeTokenSnippet(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var snippet string
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.Contains(line, "/dev/urandom") && strings.Contains(line, "shellguard/token") {
			snippet = line
			break
		}
	}
	if snippet == "" {
		t.Fatal("README has no token recipe")
	}
	home := t.TempDir()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", snippet)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", snippet, err, out)
	}
	if _, err := readTokenFile(filepath.Join(home, ".config/shellguard/token")); err != nil {
		t.Fatalf("the recipe's token file is refused: %v", err)
	}
}

func TestWorkspaceMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	for _, sub := range []string{"run", "check"} {
		_, _, errs := cli(t, sub, "--workspace", missing, "--", "true")
		if !strings.Contains(errs, missing+" does not exist") {
			t.Errorf("%s: stderr=%q", sub, errs)
		}
	}
}

// Out-of-range limits are refused with the range, never clamped or taken
// as the default; so is a cwd outside the workspace.
func TestRunLimitsRefused(t *testing.T) {
	ws := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--timeout", "0"}, "--timeout: 0 is out of range: give seconds above 0, at most 600"},
		{[]string{"--timeout", "601"}, "--timeout: 601 is out of range"},
		{[]string{"--max-output", "0"}, "--max-output: 0 is out of range: give bytes from 1 to"},
		{[]string{"--max-output", "-5"}, "--max-output: -5 is out of range"},
		{[]string{"--cwd", "/etc"}, `--cwd: "/etc" is outside the workspace`},
		{[]string{"--cwd", ".."}, `--cwd: ".." is outside the workspace`},
	} {
		args := append(append([]string{"run", "--sandbox", "off", "--workspace", ws}, tc.args...), "--", "echo ran")
		code, out, errs := cli(t, args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: code=%d out=%q stderr=%q", tc.args, code, out, errs)
		}
	}
	os.Mkdir(filepath.Join(ws, "sub"), 0o755)
	code, out, _ := cli(t, "run", "--sandbox", "off", "--workspace", ws, "--cwd", "sub", "--timeout", "600", "--", "pwd")
	if code != 0 || strings.TrimSpace(out) != filepath.Join(ws, "sub") {
		t.Errorf("cwd inside: code=%d out=%q", code, out)
	}
}

// An ask with no terminal to put it to says so in words.
func TestAskWithoutTerminal(t *testing.T) {
	ws := t.TempDir()
	code, _, errs := cli(t, "run", "--sandbox", "off", "--workspace", ws, "--", "echo $((")
	if code != exitDenied || !strings.Contains(errs, "needs your approval, and there is no terminal to ask on") {
		t.Errorf("code=%d stderr=%q", code, errs)
	}
}

// timedWriter records when each write arrived.
type timedWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	first  time.Time
	onData func(string)
}

func (w *timedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.first.IsZero() {
		w.first = time.Now()
	}
	w.buf.Write(p)
	s := w.buf.String()
	w.mu.Unlock()
	if w.onData != nil {
		w.onData(s)
	}
	return len(p), nil
}

// Text mode prints output as it comes, redacted; --json stays whole.
func TestRunStreams(t *testing.T) {
	ws := t.TempDir()
	var out, errw timedWriter
	start := time.Now()
	code := mainArgs([]string{"run", "--sandbox", "off", "--workspace", ws, "--",
		"echo first; echo key=AKIAIOSFODNN7EXAMPLF; sleep 2; echo second"}, &out, &errw)
	end := time.Now()
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, errw.buf.String())
	}
	if got := out.buf.String(); !strings.HasPrefix(got, "first\n") || !strings.HasSuffix(got, "second\n") || strings.Contains(got, "AKIAIOSFODNN7EXAMPLF") {
		t.Fatalf("stdout %q", got)
	}
	if out.first.Sub(start) > end.Sub(start)-time.Second {
		t.Fatalf("the first output arrived %v after the start, the run took %v: not streamed", out.first.Sub(start), end.Sub(start))
	}
}

// SIGTERM while a command runs stops it and exits 143 with a plain message.
func TestRunSignalExit(t *testing.T) {
	ws := t.TempDir()
	var once sync.Once
	out := &timedWriter{onData: func(s string) {
		if strings.Contains(s, "ready") {
			once.Do(func() { syscall.Kill(os.Getpid(), syscall.SIGTERM) })
		}
	}}
	var errw bytes.Buffer
	start := time.Now()
	code := mainArgs([]string{"run", "--sandbox", "off", "--workspace", ws, "--", "echo ready; sleep 30"}, out, &errw)
	if code != 143 || !strings.Contains(errw.String(), "stopped by SIGTERM") || strings.Contains(errw.String(), "context canceled") {
		t.Fatalf("code=%d stderr=%q", code, errw.String())
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestConfigShowSearched(t *testing.T) {
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	os.MkdirAll(filepath.Join(cfgHome, "shellguard"), 0o755)
	os.WriteFile(filepath.Join(cfgHome, "shellguard", "config.yml"), []byte("timeout: {default: 5}\n"), 0o644)
	ws := t.TempDir()
	code, out, errs := cli(t, "config", "show", "--workspace", ws)
	want := filepath.Join(cfgHome, "shellguard", "config.yaml")
	if code != 0 || !strings.Contains(out, "looked for the user file "+want+": not found") ||
		!strings.Contains(out, "looked for the project file "+filepath.Join(ws, ".shellguard.yaml")+": not found") ||
		!strings.Contains(out, filepath.Join(cfgHome, "shellguard", "config.yml")+" is not read") {
		t.Errorf("code=%d out=%s err=%s", code, out, errs)
	}
	// run says so too, on stderr.
	_, _, errs = cli(t, "run", "--sandbox", "off", "--workspace", ws, "--", "true")
	if !strings.Contains(errs, "config.yml is not read") {
		t.Errorf("run stderr=%q", errs)
	}
}

func TestCompletionBash(t *testing.T) {
	code, script, _ := cli(t, "completion", "bash")
	if code != 0 {
		t.Fatal(code)
	}
	complete := func(words ...string) string {
		t.Helper()
		prog := script + "\nCOMP_WORDS=(" + strings.Join(words, " ") + ")\nCOMP_CWORD=" + itoa(len(words)-1) +
			"\n_shellguard\necho \"${COMPREPLY[*]}\"\n"
		out, err := exec.Command("bash", "--norc", "--noprofile", "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := complete("shellguard", "ru"); got != "run" {
		t.Errorf("subcommand: %q", got)
	}
	if got := complete("shellguard", "run", "--time"); got != "--timeout" {
		t.Errorf("flag: %q", got)
	}
	if got := complete("shellguard", "run", "--sandbox", "re"); got != "required" {
		t.Errorf("flag value: %q", got)
	}
	if got := complete("shellguard", "config", "sh"); got != "show" {
		t.Errorf("config subcommand: %q", got)
	}
	for _, sh := range []string{"zsh", "fish"} {
		code, s, _ := cli(t, "completion", sh)
		if code != 0 || !(strings.Contains(s, "--timeout") || strings.Contains(s, "-l timeout")) || !strings.Contains(s, "run") {
			t.Errorf("%s: code=%d", sh, code)
		}
		if p, err := exec.LookPath(sh); err == nil {
			f := filepath.Join(t.TempDir(), "c."+sh)
			os.WriteFile(f, []byte(s), 0o644)
			flag := "-n"
			if sh == "fish" {
				flag = "--no-execute"
			}
			if out, err := exec.Command(p, flag, f).CombinedOutput(); err != nil {
				t.Errorf("%s rejects its script: %v %s", sh, err, out)
			}
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// When stdout and stderr are the same file (a terminal, `>log 2>&1`),
// the output keeps the order the command wrote it in.
func TestRunSameFileKeepsOrder(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want strings.Builder
	for i := 0; i < 100; i++ {
		want.WriteString("out " + itoa(i) + "\nerr " + itoa(i) + "\n")
	}
	code := mainArgs([]string{"run", "--sandbox", "off", "--workspace", t.TempDir(), "--",
		`for i in $(seq 0 99); do echo "out $i"; echo "err $i" >&2; done`}, f, f)
	got, _ := os.ReadFile(f.Name())
	// (shellguard's own warnings, such as --sandbox off, follow.)
	if code != 0 || !strings.HasPrefix(string(got), want.String()) {
		t.Fatalf("code %d, output:\n%s", code, got)
	}
}
