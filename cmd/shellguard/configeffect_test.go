package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellguard/shellguard/internal/testenv"
)

// runResult is the part of `run --json` these tests read.
type runResult struct {
	Stdout             string `json:"stdout"`
	Stderr             string `json:"stderr"`
	ExitCode           *int   `json:"exit_code"` // null: not run
	TimedOut           bool   `json:"timed_out"`
	StdoutDroppedBytes int64  `json:"stdout_dropped_bytes"`
	OutputLimit        bool   `json:"output_limit_exceeded"`
	Decision           string `json:"decision"`
	Unsandboxed        bool   `json:"unsandboxed"`
	Error              string `json:"error"`
	Sandbox            *struct {
		Mode    string `json:"mode"`
		Network string `json:"network"`
		Layers  []struct {
			Name string `json:"name"`
		} `json:"layers"`
	} `json:"sandbox"`
	Reasons []struct {
		ID   string `json:"id"`
		Rule string `json:"rule"`
	} `json:"reasons"`
}

// runWithConfig writes yaml to a config file in a fresh workspace and runs
// command through `shellguard run --json --config`.
func runWithConfig(t *testing.T, yaml, command string, extra ...string) (runResult, string) {
	t.Helper()
	scratch, err := os.MkdirTemp("/var/tmp", "sg-cfg-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	ws := filepath.Join(scratch, "ws")
	os.Mkdir(ws, 0o755)
	cfg := filepath.Join(scratch, "config.yaml")
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", "--json", "--config", cfg, "--workspace", ws, "--cwd", ws}, extra...)
	args = append(args, "--", command)
	code, out, errs := cli(t, args...)
	if code != 0 {
		t.Fatalf("code %d, stderr %s", code, errs)
	}
	var r runResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return r, scratch
}

// Every configuration key that changes a run is proven here by its effect
// on a real run through the CLI; keys that only shape the loaded Config are
// covered in package config.
func TestConfigKeysTakeEffect(t *testing.T) {
	t.Setenv("SG_TEST_VISIBLE", "visible-value")
	t.Setenv("SG_TEST_SESSIONX", "scrub-me-value")
	tests := []struct {
		name, yaml, command string
		check               func(t *testing.T, r runResult, scratch string)
	}{
		{"timeout.default", "timeout: {default: 1, max: 600}\n", "sleep 7601", func(t *testing.T, r runResult, _ string) {
			if !r.TimedOut {
				t.Errorf("not timed out: %+v", r)
			}
		}},
		{"timeout.max", "timeout: {default: 1, max: 1}\n", "sleep 7602", func(t *testing.T, r runResult, _ string) {
			if !r.TimedOut {
				t.Errorf("max not enforced: %+v", r)
			}
		}},
		{"output.max_bytes", "output: {max_bytes: 2000}\n", "seq 1 50000", func(t *testing.T, r runResult, _ string) {
			if r.StdoutDroppedBytes == 0 || len(r.Stdout) > 2200 {
				t.Errorf("not truncated: dropped %d len %d", r.StdoutDroppedBytes, len(r.Stdout))
			}
		}},
		{"output.max_total_bytes", "output: {max_total_bytes: 100000}\n", "yes", func(t *testing.T, r runResult, _ string) {
			if !r.OutputLimit {
				t.Errorf("flood not stopped: %+v", r.OutputLimit)
			}
		}},
		{"rules.deny", "rules: {deny: [\"touch *\"]}\n", "touch x", func(t *testing.T, r runResult, _ string) {
			if r.Decision != "deny" || r.ExitCode != nil {
				t.Errorf("not denied: %+v", r)
			}
		}},
		{"rules.ask", "rules: {ask: [\"touch *\"]}\n", "touch x", func(t *testing.T, r runResult, _ string) {
			if r.Decision != "ask" || r.ExitCode != nil || !strings.Contains(r.Error, "approv") {
				t.Errorf("ask not refused without approver: %+v", r)
			}
		}},
		{"rules.blocked_commands", "rules: {blocked_commands: [date]}\n", "date", func(t *testing.T, r runResult, _ string) {
			if r.Decision != "deny" {
				t.Errorf("not blocked: %+v", r)
			}
		}},
		{"rules.allowed_commands", "rules: {allowed_commands: [echo]}\n", "date", func(t *testing.T, r runResult, _ string) {
			if r.Decision == "allow" {
				t.Errorf("command outside the allow-list ran: %+v", r)
			}
		}},
		{"rules.custom_deny_patterns", "rules: {custom_deny_patterns: [\"forbidden-word\"]}\n", "echo forbidden-word", func(t *testing.T, r runResult, _ string) {
			if r.Decision != "deny" {
				t.Errorf("pattern ignored: %+v", r)
			}
		}},
		{"rules.readonly", "rules: {readonly: true}\n", "touch x", func(t *testing.T, r runResult, _ string) {
			if r.Decision == "allow" {
				t.Errorf("write allowed in readonly: %+v", r)
			}
		}},
		{"sandbox.mode", "sandbox: {mode: \"off\"}\n", "true", func(t *testing.T, r runResult, _ string) {
			if r.Sandbox == nil || r.Sandbox.Mode != "off" {
				t.Errorf("mode not off: %+v", r.Sandbox)
			}
		}},
		{"sandbox.excluded_commands", "sandbox: {excluded_commands: [\"uname *\"]}\n", "uname -s", func(t *testing.T, r runResult, _ string) {
			if !r.Unsandboxed {
				t.Errorf("excluded command ran sandboxed: %+v", r)
			}
		}},
		{"env.allow", "env: {allow: [SG_TEST_VISIBLE]}\n", "printenv SG_TEST_VISIBLE", func(t *testing.T, r runResult, _ string) {
			if !strings.Contains(r.Stdout, "visible-value") {
				t.Errorf("allowed variable missing: %+v", r)
			}
		}},
		{"env.scrub", "env: {allow: [SG_TEST_SESSIONX], scrub: [SESSIONX]}\n", `[ -n "${SG_TEST_SESSIONX-}" ] && echo present || echo absent`, func(t *testing.T, r runResult, _ string) {
			// An explicit allow beats a scrub substring: the variable arrives.
			if r.Stdout != "present\n" {
				t.Errorf("explicit allow lost to scrub: %+v", r)
			}
		}},
		{"redact.patterns", "redact: {patterns: [{name: ticket, regex: \"TICKET-[0-9]{6}\", keywords: [\"TICKET-\"]}]}\n", "echo TICKET-424242", func(t *testing.T, r runResult, _ string) {
			if strings.Contains(r.Stdout, "424242") || !strings.Contains(r.Stdout, "[REDACTED:ticket]") {
				t.Errorf("not redacted: %q", r.Stdout)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, scratch := runWithConfig(t, tt.yaml, tt.command)
			tt.check(t, r, scratch)
		})
	}
}

// env.scrub marks more variables as secrets: they are dropped, and their
// values are redacted wherever they turn up in output.
func TestConfigEnvScrubRedactsValues(t *testing.T) {
	t.Setenv("SG_TEST_SESSIONY", "drop-me-value")
	r, _ := runWithConfig(t, "env: {scrub: [SESSIONY]}\n", "echo drop-me-value")
	if strings.Contains(r.Stdout, "drop-me-value") || !strings.Contains(r.Stdout, "[REDACTED") {
		t.Errorf("scrubbed value not redacted: %q", r.Stdout)
	}
	r, _ = runWithConfig(t, "env: {scrub: []}\n", "echo drop-me-value")
	if r.Stdout != "drop-me-value\n" {
		t.Errorf("control: %q", r.Stdout)
	}
}

func TestConfigAuditPath(t *testing.T) {
	log := filepath.Join(t.TempDir(), "audit.jsonl")
	r, _ := runWithConfig(t, "audit: {path: "+log+"}\n", "echo audited")
	if r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("%+v", r)
	}
	b, err := os.ReadFile(log)
	if err != nil || !strings.Contains(string(b), `"command":"echo audited"`) {
		t.Fatalf("audit line missing: %v %s", err, b)
	}
	code, out, errs := cli(t, "audit", "verify", log)
	if code != 0 {
		t.Fatalf("verify: %d %s %s", code, out, errs)
	}
}

func TestConfigNetworkAndWritableRoots(t *testing.T) {
	extra := t.TempDir()
	r, _ := runWithConfig(t, "sandbox: {network: true, writable_roots: ["+extra+"]}\n", "touch "+extra+"/made && echo ok")
	if r.Sandbox == nil {
		t.Fatal("no sandbox report")
	}
	if r.Sandbox.Network == "none" {
		t.Errorf("network: true ignored: %+v", r.Sandbox)
	}
	if r.Decision != "allow" || !strings.Contains(r.Stdout, "ok") {
		t.Errorf("writable root not writable: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(extra, "made")); err != nil {
		t.Error(err)
	}
}

// A project file may only tighten: a loosening key is a load error naming
// the file and line, and nothing runs.
func TestProjectFileOnlyTightens(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, ".shellguard.yaml"), []byte("rules:\n  unrestricted: true\n"), 0o600)
	code, _, errs := cli(t, "run", "--workspace", ws, "--", "true")
	if code != exitFailure || !strings.Contains(errs, ".shellguard.yaml:2") {
		t.Fatalf("code %d stderr %q", code, errs)
	}
	os.WriteFile(filepath.Join(ws, ".shellguard.yaml"), []byte("rules:\n  deny: [\"touch *\"]\n"), 0o600)
	code, _, errs = cli(t, "run", "--workspace", ws, "--cwd", ws, "--", "touch y")
	if code != exitDenied {
		t.Fatalf("project deny rule ignored: code %d %s", code, errs)
	}
}

// Rule examples are checked the way the policy matches rules (through
// wrappers and lists), by `config check` and when any command loads the
// configuration alike.
func TestConfigExamplesUsePolicyMatching(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	os.WriteFile(good, []byte("rules:\n  allow: [{rule: \"npm run test *\", match: [\"sudo npm run test -- --watch\", \"cd web && npm run test\"], not_match: [\"npm run build\"]}]\n"), 0o600)
	if code, out, errs := cli(t, "config", "check", good); code != 0 {
		t.Fatalf("config check: %d %s %s", code, out, errs)
	}
	if code, _, errs := cli(t, "check", "--config", good, "--", "true"); code != 0 {
		t.Fatalf("check with the file: %d %s", code, errs)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("rules:\n  allow: [{rule: \"npm run test *\", match: [\"npm run build\"]}]\n"), 0o600)
	code, _, errs := cli(t, "config", "check", bad)
	if code == 0 || !strings.Contains(errs, "bad.yaml:2") || !strings.Contains(errs, "npm run build") {
		t.Fatalf("failing example accepted: %d %s", code, errs)
	}
	if code, _, errs := cli(t, "run", "--config", bad, "--", "true"); code != exitFailure || !strings.Contains(errs, "npm run build") {
		t.Fatalf("run loaded a config whose example fails: %d %s", code, errs)
	}
}

// sandbox.home_allow brings a file of HOME back into the sandbox; without
// it the file is hidden with the rest of HOME.
func TestConfigHomeAllow(t *testing.T) {
	home, err := os.MkdirTemp("/var/tmp", "sg-cfg-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	os.Chmod(home, 0o755)
	if err := os.WriteFile(filepath.Join(home, "tool.conf"), []byte("visible-tool-setting\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	r, _ := runWithConfig(t, "sandbox: {mode: auto}\n", "cat ~/tool.conf; echo done")
	if r.Sandbox == nil || strings.Contains(r.Stdout, "visible-tool-setting") {
		testenv.SkipOrFail(t, "HOME not hidden here (no mount namespace?): %+v", r)
	}
	r, _ = runWithConfig(t, "sandbox: {home_allow: [tool.conf]}\n", "cat ~/tool.conf")
	if !strings.Contains(r.Stdout, "visible-tool-setting") {
		t.Errorf("home_allow ignored: %+v", r)
	}
}

// output.escapes: by default terminal control sequences other than SGR
// are removed from the output (also from the live text output); keep
// passes them through.
func TestConfigOutputEscapes(t *testing.T) {
	cmd := `printf 'a\033]52;c;Y2xpcA==\007b\033[31mred\033[0m\033[2J\033[Hc\n'`
	r, _ := runWithConfig(t, "", cmd)
	if r.Stdout != "ab\x1b[31mred\x1b[0mc\n" {
		t.Errorf("default (strip): %q", r.Stdout)
	}
	r, _ = runWithConfig(t, "output: {escapes: keep}\n", cmd)
	if r.Stdout != "a\x1b]52;c;Y2xpcA==\x07b\x1b[31mred\x1b[0m\x1b[2J\x1b[Hc\n" {
		t.Errorf("keep: %q", r.Stdout)
	}
	ws := t.TempDir()
	code, out, _ := cli(t, "run", "--workspace", ws, "--", cmd)
	if code != 0 || out != "ab\x1b[31mred\x1b[0mc\n" {
		t.Errorf("text mode: code=%d %q", code, out)
	}
}

// audit.key_file signs the chain with HMAC-SHA256: verify needs the key,
// and the key file must be private.
func TestConfigAuditKeyFile(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "audit.jsonl")
	// not named *.key: the policy asks before reading key files, and this
	// test is about the sandbox masking the configured key file
	key := filepath.Join(dir, "audit-hmac")
	if err := os.WriteFile(key, []byte("0123456789abcdef0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, _ := runWithConfig(t, "audit: {path: "+log+", key_file: "+key+"}\n", "cat "+key+"; echo done")
	if r.ExitCode == nil || !strings.Contains(r.Stdout, "done") {
		t.Fatalf("%+v", r)
	}
	masked := false
	if r.Sandbox != nil {
		for _, l := range r.Sandbox.Layers {
			masked = masked || l.Name == "secret-masks"
		}
	}
	switch {
	case masked && strings.Contains(r.Stdout, "0123456789abcdef"):
		t.Errorf("a sandboxed command read the audit key: %q", r.Stdout)
	case !masked && testenv.Strict():
		t.Errorf("the sandbox did not mask secrets: %+v", r.Sandbox)
	}
	if code, out, _ := cli(t, "audit", "verify", "--key-file", key, log); code != 0 {
		t.Errorf("verify with the key: %d %s", code, out)
	}
	// Without the key: not passed, and not called tampered either.
	if code, out, _ := cli(t, "audit", "verify", log); code != 2 || !strings.Contains(out, "signed with a key") {
		t.Errorf("verify without the key: %d %s", code, out)
	}
	b, _ := os.ReadFile(log)
	os.WriteFile(log, []byte(strings.Replace(string(b), "echo done", "echo DONE", 1)), 0o600)
	if code, out, _ := cli(t, "audit", "verify", "--key-file", key, log); code != 1 || !strings.Contains(out, "hash mismatch") {
		t.Errorf("tampered, with the key: %d %s", code, out)
	}
	os.Chmod(key, 0o644)
	ws := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	os.WriteFile(cfg, []byte("audit: {path: "+log+", key_file: "+key+"}\n"), 0o600)
	code, _, errs := cli(t, "run", "--config", cfg, "--workspace", ws, "--", "true")
	if code == 0 || !strings.Contains(errs, "chmod 600") {
		t.Errorf("a key readable by others was used: code=%d %s", code, errs)
	}
}

// The command echoed in the JSON result is redacted like the audit log.
func TestRunJSONRedactsCommand(t *testing.T) {
	code, out, _ := cli(t, "run", "--json", "--workspace", t.TempDir(), "--", "true # ghp_0123456789abcdefghijABCDEFGHIJ012345")
	if code != 0 || strings.Contains(out, "ghp_0123456789abcdefghijABCDEFGHIJ012345") || !strings.Contains(out, `"command": "true # [REDACTED:`) {
		t.Errorf("command echo not redacted: %s", out)
	}
}
