package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/shellguard/shellguard/sandbox/netproxy"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func write(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// load loads a --config file with body, nothing else.
func load(t *testing.T, body string) (*Config, error) {
	t.Helper()
	p := write(t, filepath.Join(t.TempDir(), "c.yaml"), body)
	return Load(Options{NoUserFile: true, ConfigFile: p})
}

func mustLoad(t *testing.T, body string) *Config {
	t.Helper()
	c, err := load(t, body)
	if err != nil {
		t.Fatalf("load:\n%s\nerror: %v", body, err)
	}
	return c
}

func TestDefaults(t *testing.T) {
	c, err := Load(Options{NoUserFile: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Timeout.Default != 120 || c.Timeout.Max != 600 || c.Output.MaxBytes != 65536 ||
		c.Output.MaxTotalBytes != 1<<30 || !c.Rules.BuiltinDefaults || c.Rules.Readonly ||
		c.Sandbox.Mode != "auto" || c.Sandbox.Network != "allowlist" || c.Tasks.Max != 64 ||
		c.Tasks.RingLines != 10000 || c.Tasks.BlockingBudget != 50 || c.Audit.Path != "" {
		t.Errorf("unexpected defaults: %+v", c)
	}
	for _, k := range Keys() {
		if c.Provenance[k].Kind != FromDefault {
			t.Errorf("%s: source %v, want default", k, c.Provenance[k])
		}
	}
}

// keyCases: for every key, a YAML document setting it and a check that the
// loaded Config shows the effect.
var keyCases = map[string]struct {
	yaml  string
	check func(c *Config) bool
}{
	"timeout.default":        {"timeout: {default: 30}", func(c *Config) bool { return c.Timeout.Default == 30 }},
	"timeout.max":            {"timeout: {max: 1800}", func(c *Config) bool { return c.Timeout.Max == 1800 }},
	"output.max_bytes":       {"output: {max_bytes: 4096}", func(c *Config) bool { return c.Output.MaxBytes == 4096 }},
	"output.max_total_bytes": {"output: {max_total_bytes: 8589934592}", func(c *Config) bool { return c.Output.MaxTotalBytes == 8<<30 }},
	"rules.allow": {"rules: {allow: [\"npm run test *\", {rule: \"go test *\", match: [\"go test ./...\"], not_match: [\"go vet\"]}]}",
		func(c *Config) bool {
			return reflect.DeepEqual(c.PolicyRules().Allow, []string{"npm run test *", "go test *"}) &&
				reflect.DeepEqual(c.Rules.Allow[1].Match, []string{"go test ./..."})
		}},
	"rules.ask":  {"rules: {ask: [\"git push *\"]}", func(c *Config) bool { return reflect.DeepEqual(c.PolicyRules().Ask, []string{"git push *"}) }},
	"rules.deny": {"rules: {deny: [\"git push --force *\"]}", func(c *Config) bool { return reflect.DeepEqual(c.PolicyRules().Deny, []string{"git push --force *"}) }},
	"rules.custom_deny_patterns": {"rules: {custom_deny_patterns: ['\\bterraform\\s+destroy\\b']}", func(c *Config) bool {
		return reflect.DeepEqual(c.PolicyRules().CustomDenyPatterns, []string{`\bterraform\s+destroy\b`})
	}},
	"rules.custom_allow_patterns": {"rules: {custom_allow_patterns: ['^make( [a-z]+)*$']}", func(c *Config) bool {
		return reflect.DeepEqual(c.PolicyRules().CustomAllowPatterns, []string{`^make( [a-z]+)*$`})
	}},
	"rules.allowed_commands": {"rules: {allowed_commands: [ls, cat]}", func(c *Config) bool {
		return reflect.DeepEqual(c.PolicyRules().AllowedCommands, []string{"ls", "cat"})
	}},
	"rules.blocked_commands": {"rules: {blocked_commands: [nc]}", func(c *Config) bool {
		return reflect.DeepEqual(c.PolicyRules().BlockedCommands, []string{"nc"})
	}},
	"rules.allowed_roots": {"rules: {allowed_roots: [/srv/data]}", func(c *Config) bool {
		return reflect.DeepEqual(c.PolicyRules().AllowedRoots, []string{"/srv/data"})
	}},
	"rules.readonly":         {"rules: {readonly: true}", func(c *Config) bool { return c.PolicyRules().Readonly }},
	"rules.unrestricted":     {"rules: {unrestricted: true}", func(c *Config) bool { return c.PolicyRules().Unrestricted }},
	"rules.builtin_defaults": {"rules: {builtin_defaults: false}", func(c *Config) bool { return c.PolicyRules().DisableDefaults }},
	"sandbox.mode":           {"sandbox: {mode: required}", func(c *Config) bool { return c.Sandbox.Mode == "required" }},
	"sandbox.network":        {"sandbox: {network: true}", func(c *Config) bool { return c.Sandbox.Network == "on" }},
	"sandbox.network_allow": {"sandbox: {network_allow: ['*.corp.test:8443']}", func(c *Config) bool {
		var al netproxy.Allowlist
		c.applyNetworkLists(&al)
		return len(al.Entries) == 1 && al.Entries[0].String() == "*.corp.test:8443"
	}},
	"sandbox.network_deny": {"sandbox: {network_deny: [npm.mirror.test]}", func(c *Config) bool {
		var al netproxy.Allowlist
		al.Add("test", "npm.mirror.test", "other.test")
		c.applyNetworkLists(&al)
		return strings.Join(al.Hosts(), " ") == "other.test"
	}},
	"sandbox.writable_roots": {"sandbox: {writable_roots: [/var/cache/x]}", func(c *Config) bool {
		return reflect.DeepEqual(c.Sandbox.WritableRoots, []string{"/var/cache/x"})
	}},
	"sandbox.masked_paths": {"sandbox: {masked_paths: [/etc/secret]}", func(c *Config) bool {
		return reflect.DeepEqual(c.Sandbox.MaskedPaths, []string{"/etc/secret"})
	}},
	"sandbox.home_allow": {"sandbox: {home_allow: [.config/tool]}", func(c *Config) bool {
		return reflect.DeepEqual(c.Sandbox.HomeAllow, []string{".config/tool"})
	}},
	"sandbox.excluded_commands": {"sandbox: {excluded_commands: [\"docker *\"]}", func(c *Config) bool {
		return reflect.DeepEqual(c.Sandbox.ExcludedCommands, []string{"docker *"})
	}},
	"sandbox.allow_unsandboxed": {"sandbox: {allow_unsandboxed: true}", func(c *Config) bool { return c.Sandbox.AllowUnsandboxed }},
	"sandbox.pool":              {"sandbox: {pool: 1}", func(c *Config) bool { return c.Sandbox.Pool == 1 }},
	"sandbox.review": {"sandbox: {review: true}", func(c *Config) bool {
		gc, err := c.GuardConfig()
		return c.Sandbox.Review && err == nil && gc.Sandbox.Review
	}},
	"sandbox.limits.processes":    {"sandbox: {limits: {processes: 256}}", func(c *Config) bool { return c.Sandbox.Limits.Processes == 256 }},
	"sandbox.limits.memory_mb":    {"sandbox: {limits: {memory_mb: 2048}}", func(c *Config) bool { return c.Sandbox.Limits.MemoryMB == 2048 }},
	"sandbox.limits.file_size_mb": {"sandbox: {limits: {file_size_mb: 512}}", func(c *Config) bool { return c.Sandbox.Limits.FileSizeMB == 512 }},
	"sandbox.limits.cpu_seconds":  {"sandbox: {limits: {cpu_seconds: 60}}", func(c *Config) bool { return c.Sandbox.Limits.CPUSeconds == 60 }},
	"sandbox.limits.cpu_percent":  {"sandbox: {limits: {cpu_percent: 150}}", func(c *Config) bool { return c.Sandbox.Limits.CPUPercent == 150 }},
	"sandbox.limits.open_files":   {"sandbox: {limits: {open_files: 1024}}", func(c *Config) bool { return c.Sandbox.Limits.OpenFiles == 1024 }},
	"env.allow":                   {"env: {allow: [GOFLAGS]}", func(c *Config) bool { return reflect.DeepEqual(c.Env.Allow, []string{"GOFLAGS"}) }},
	"env.scrub":                   {"env: {scrub: [MY_VAR]}", func(c *Config) bool { return reflect.DeepEqual(c.Env.Scrub, []string{"MY_VAR"}) }},
	"tasks.max":                   {"tasks: {max: 4}", func(c *Config) bool { return c.Tasks.Max == 4 }},
	"tasks.ring_lines":            {"tasks: {ring_lines: 100}", func(c *Config) bool { return c.Tasks.RingLines == 100 }},
	"tasks.blocking_budget":       {"tasks: {blocking_budget: 20}", func(c *Config) bool { return c.Tasks.BlockingBudget == 20 }},
	"tasks.max_total":             {"tasks: {max_total: 16}", func(c *Config) bool { return c.Tasks.MaxTotal == 16 }},
	"server.max_calls":            {"server: {max_calls: 3}", func(c *Config) bool { return c.Server.MaxCalls == 3 }},
	"server.max_queued":           {"server: {max_queued: 5}", func(c *Config) bool { return c.Server.MaxQueued == 5 }},
	"server.max_sessions":         {"server: {max_sessions: 2}", func(c *Config) bool { return c.Server.MaxSessions == 2 }},
	"redact.patterns": {"redact: {patterns: ['TICKET-[0-9]{6}', {name: corp, regex: 'corp_[a-z0-9]{20}', keywords: [corp_]}]}", func(c *Config) bool {
		p := c.RedactPatterns()
		return len(p) == 2 && p[0].Regex == "TICKET-[0-9]{6}" && p[1].Name == "corp" && p[1].Keywords[0] == "corp_"
	}},
	"audit.path":      {"audit: {path: /var/log/sg.jsonl}", func(c *Config) bool { return c.Audit.Path == "/var/log/sg.jsonl" }},
	"audit.key_file":  {"audit: {key_file: /etc/sg/audit.key}", func(c *Config) bool { return c.Audit.KeyFile == "/etc/sg/audit.key" }},
	"audit.fail_open": {"audit: {fail_open: true}", func(c *Config) bool { return c.Audit.FailOpen }},
	"output.escapes":  {"output: {escapes: keep}", func(c *Config) bool { return c.Output.Escapes == "keep" }},
}

func TestEveryKey(t *testing.T) {
	for _, k := range Keys() {
		if _, ok := keyCases[k]; !ok {
			t.Errorf("key %s has no test", k)
		}
	}
	for key, kc := range keyCases {
		t.Run(key, func(t *testing.T) {
			def, _ := Load(Options{NoUserFile: true})
			if kc.check(def) {
				t.Fatalf("check already true for the defaults")
			}
			c := mustLoad(t, kc.yaml)
			if !kc.check(c) {
				t.Fatalf("no effect: %s", kc.yaml)
			}
			if c.Provenance[key].Kind != FromConfig || c.Provenance[key].Line != 1 {
				t.Errorf("provenance %v", c.Provenance[key])
			}
		})
	}
}

// The issue's example shape loads as is.
func TestIssueShape(t *testing.T) {
	c := mustLoad(t, `timeout: {default: 120, max: 600}
output: {max_bytes: 65536, max_total_bytes: 1073741824}
rules:
  allow: ["npm run test *"]
  ask: []
  deny: ["git push --force *"]
  custom_deny_patterns: []
  custom_allow_patterns: []
  allowed_commands: []
  blocked_commands: []
  allowed_roots: []
  readonly: false
  unrestricted: false
  builtin_defaults: true
sandbox: {mode: auto, network: false, writable_roots: [], masked_paths: [],
          excluded_commands: [], allow_unsandboxed: false}
env: {allow: [], scrub: []}
tasks: {max: 64, ring_lines: 10000, blocking_budget: 50}
redact: {patterns: []}
audit: {path: ""}
`)
	if got := c.PolicyRules().Deny; !reflect.DeepEqual(got, []string{"git push --force *"}) {
		t.Errorf("deny %v", got)
	}
	if s := c.Provenance["rules.deny[0]"]; s.Line != 6 {
		t.Errorf("deny[0] from %v, want line 6", s)
	}
}

var fileLine = regexp.MustCompile(`c\.yaml:(\d+): `)

func wantErr(t *testing.T, err error, line, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", substr)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("error does not match ErrInvalid: %v", err)
	}
	m := fileLine.FindStringSubmatch(err.Error())
	if line != "" && (m == nil || m[1] != line) {
		t.Errorf("error %q: want file:line with line %s", err, line)
	}
	if !strings.Contains(err.Error(), substr) {
		t.Errorf("error %q lacks %q", err, substr)
	}
}

func TestRejects(t *testing.T) {
	for _, tc := range []struct{ yaml, line, msg string }{
		{"timeout: {defualt: 30}", "1", "timeout.defualt: unknown key (did you mean timeout.default?)"},
		{"timeout:\n  default: 30\nbogus: 1", "3", "bogus: unknown key"},
		{"rules:\n  deny: git push", "2", "rules.deny: want a list, got \"git push\""},
		{"timeout: {default: \"30\"}", "1", "timeout.default: want an integer, got \"30\""},
		{"timeout: {default: 1.5}", "1", "want an integer"},
		{"timeout: {default: -1}", "1", "must not be negative"},
		{"rules: {readonly: yes please}", "1", "rules.readonly: want true or false"},
		{"rules: {readonly: 1}", "1", "want true or false, got integer 1"},
		{"rules: {blocked_commands: [1, nc]}", "1", "rules.blocked_commands[0]: want a string, got integer 1"},
		{"rules:\n  allow:\n    - {rule: \"go *\", exampels: [x]}", "3", "rules.allow.exampels: unknown key"},
		{"rules: {allow: [{match: [x]}]}", "1", "rule mapping without rule"},
		{"sandbox: {mode: paranoid}", "1", "sandbox.mode: want auto, required, strict or off"},
		{"output: {escapes: raw}", "1", "output.escapes: want keep or strip, got \"raw\""},
		{"sandbox: {limits: {procs: 3}}", "1", "sandbox.limits.procs: unknown key"},
		{"sandbox: [a]", "1", "sandbox: want a mapping"},
		{"timeout: {default: 30}\ntimeout: {max: 60}", "2", "duplicate key"},
		{"timeout: {max: 1801}", "1", "timeout.max: must be between 1 and 1800"},
		{"timeout: {default: 0}", "1", "timeout.default: must be at least 1"},
		{"timeout: {default: 700}", "1", "timeout.default: 700 is above timeout.max 600"},
		{"output: {max_bytes: 10}", "1", "output.max_bytes: must be at least 1024"},
		{"output: {max_total_bytes: 2048}", "1", "output.max_total_bytes: 2048 is below"},
		{"tasks: {max: 0}", "1", "tasks.max: must be at least 1"},
		{"rules: {custom_deny_patterns: ['(']}", "1", "rules.custom_deny_patterns[0]: invalid regex"},
		{"redact: {patterns: [{regex: '('}]}", "1", "invalid regex"},
		{"redact: {patterns: [{name: 'a b', regex: 'x'}]}", "1", "use letters"},
		{"timeout: {default: 30", "", "invalid YAML"},
		{"rules:\n  deny:\n    - {rule: \"git push --force *\", match: [\"git push origin\"]}", "3", `rule "git push --force *" does not match its example "git push origin"`},
		{"rules:\n  ask:\n    - {rule: \"git push *\", not_match: [\"git push origin main\"]}", "3", `matches "git push origin main", listed under not_match`},
	} {
		_, err := load(t, tc.yaml)
		wantErr(t, err, tc.line, tc.msg)
	}
}

// Examples are checked with the policy's own matcher: wrappers such as
// "command" are seen through, as they are when the rule is applied.
func TestExamplesUsePolicyMatcher(t *testing.T) {
	p := write(t, filepath.Join(t.TempDir(), "c.yaml"), "rules:\n  deny:\n    - {rule: \"rm *\", match: [\"command rm x\"], not_match: [\"ls\"]}\n")
	if _, err := Load(Options{NoUserFile: true, ConfigFile: p}); err != nil {
		t.Fatal(err)
	}
	p = write(t, filepath.Join(t.TempDir(), "c.yaml"), "rules:\n  deny:\n    - {rule: \"rm *\", match: [\"ls x\"]}\n")
	_, err := Load(Options{NoUserFile: true, ConfigFile: p})
	wantErr(t, err, "3", "does not match its example")
}

func TestSourcesOrder(t *testing.T) {
	dir := t.TempDir()
	xdg := filepath.Join(dir, "xdg")
	user := write(t, filepath.Join(xdg, "shellguard", "config.yaml"), "timeout:\n  default: 60\n  max: 900\nrules:\n  deny: [\"a *\"]\n")
	cfg := write(t, filepath.Join(dir, "c.yaml"), "\ntimeout: {default: 90}\nrules: {deny: [\"b *\"]}\n")
	ws := filepath.Join(dir, "ws")
	proj := write(t, filepath.Join(ws, ProjectFile), "rules:\n  deny: [\"c *\"]\ntimeout: {default: 10}\n")
	env := map[string]string{"XDG_CONFIG_HOME": xdg, "HOME": filepath.Join(dir, "home")}
	c, err := Load(Options{
		Getenv:     func(k string) string { return env[k] },
		ConfigFile: cfg,
		Workspace:  ws,
		Flags:      []Setting{{Flag: "--timeout", Key: "timeout.default", Value: "45"}, {Flag: "--deny", Key: "rules.deny", Value: "[\"d *\"]"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Timeout.Default != 10 || c.Timeout.Max != 900 {
		t.Errorf("timeouts %+v", c.Timeout)
	}
	if got := c.PolicyRules().Deny; !reflect.DeepEqual(got, []string{"a *", "b *", "d *", "c *"}) {
		t.Errorf("deny %v", got)
	}
	for key, want := range map[string]string{
		"timeout.default":  "project " + proj + ":3",
		"timeout.max":      "user " + user + ":3",
		"rules.deny[0]":    "user " + user + ":5",
		"rules.deny[1]":    "--config " + cfg + ":3",
		"rules.deny[2]":    "flag --deny",
		"rules.deny[3]":    "project " + proj + ":2",
		"output.max_bytes": "default",
	} {
		if got := c.Provenance[key].String(); got != want {
			t.Errorf("%s from %q, want %q", key, got, want)
		}
	}
	if c.Workspace != ws {
		t.Errorf("workspace %q", c.Workspace)
	}
	// config show: text names each source; JSON carries them too.
	var b bytes.Buffer
	if err := c.Show(&b, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"timeout.default = 10", "# project " + proj + ":3",
		`rules.deny[1] = "b *"`, "# --config " + cfg + ":3",
		"# flag --deny", "output.max_bytes = 65536", "# default",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := c.Show(&b, true); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Config  Config
		Sources []Entry
		Files   []string
	}
	if err := json.Unmarshal(b.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	if js.Config.Timeout.Default != 10 || len(js.Files) != 3 || len(js.Sources) < len(Keys()) {
		t.Errorf("json show: %+v", js)
	}
}

func TestUserFileFallback(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".config", "shellguard", "config.yaml"), "tasks: {max: 3}\n")
	c, err := Load(Options{Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Tasks.Max != 3 || c.Provenance["tasks.max"].Kind != FromUser {
		t.Errorf("user file not read: %+v %v", c.Tasks, c.Provenance["tasks.max"])
	}
	if got := UserFilePath(func(k string) string { return map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}[k] }); got != "/x/shellguard/config.yaml" {
		t.Errorf("UserFilePath %q", got)
	}
	// A missing --config file is an error; a missing user file is not.
	if _, err := Load(Options{NoUserFile: true, ConfigFile: filepath.Join(home, "nope.yaml")}); err == nil {
		t.Error("missing --config accepted")
	}
}

func TestFlags(t *testing.T) {
	c, err := Load(Options{NoUserFile: true, Flags: []Setting{
		{Flag: "--network", Key: "sandbox.network", Value: "true"},
		{Flag: "--sandbox", Key: "sandbox.mode", Value: "off"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Sandbox.Network != "on" || c.Sandbox.Mode != "off" || c.Provenance["sandbox.mode"].String() != "flag --sandbox" {
		t.Errorf("flags: %+v %v", c.Sandbox, c.Provenance["sandbox.mode"])
	}
	_, err = Load(Options{NoUserFile: true, Flags: []Setting{{Flag: "--timeout", Key: "timeout.default", Value: "soon"}}})
	if err == nil || !strings.Contains(err.Error(), "flag --timeout: timeout.default: want an integer") {
		t.Errorf("bad flag: %v", err)
	}
	_, err = Load(Options{NoUserFile: true, Flags: []Setting{{Flag: "--x", Key: "no.such", Value: "1"}}})
	if err == nil || !strings.Contains(err.Error(), "unknown key") {
		t.Errorf("unknown flag key: %v", err)
	}
}

func TestPaths(t *testing.T) {
	dir := t.TempDir()
	p := write(t, filepath.Join(dir, "sub", "c.yaml"), "rules: {allowed_roots: [\"~/data\", ../shared]}\naudit: {path: \"~/sg/audit.jsonl\"}\n")
	c, err := Load(Options{NoUserFile: true, ConfigFile: p, Getenv: func(k string) string {
		if k == "HOME" {
			return "/home/u"
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/home/u/data", filepath.Join(dir, "shared")}; !reflect.DeepEqual(c.Rules.AllowedRoots, want) {
		t.Errorf("roots %v, want %v", c.Rules.AllowedRoots, want)
	}
	if c.Audit.Path != "/home/u/sg/audit.jsonl" {
		t.Errorf("audit path %q", c.Audit.Path)
	}
}

// project loads a project file over a user-supplied --config body.
func project(t *testing.T, base, proj string) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	write(t, filepath.Join(ws, ProjectFile), proj)
	o := Options{NoUserFile: true, Workspace: ws}
	if base != "" {
		o.ConfigFile = write(t, filepath.Join(dir, "base.yaml"), base)
	}
	return Load(o)
}

func TestProjectTightens(t *testing.T) {
	for _, tc := range []struct {
		base, proj string
		check      func(*Config) bool
	}{
		{"", "timeout: {default: 30, max: 300}", func(c *Config) bool { return c.Timeout.Default == 30 && c.Timeout.Max == 300 }},
		{"", "output: {max_bytes: 4096, max_total_bytes: 1048576}", func(c *Config) bool { return c.Output.MaxBytes == 4096 && c.Output.MaxTotalBytes == 1<<20 }},
		{"", "rules: {ask: [\"git *\"], deny: [\"curl *\"]}", func(c *Config) bool { return len(c.Rules.Ask) == 1 && len(c.Rules.Deny) == 1 }},
		{"", "rules: {custom_deny_patterns: [prod]}", func(c *Config) bool { return len(c.Rules.CustomDenyPatterns) == 1 }},
		{"", "rules: {blocked_commands: [nc]}", func(c *Config) bool { return c.Rules.BlockedCommands[0] == "nc" }},
		{"", "rules: {allowed_commands: [ls, cat]}", func(c *Config) bool { return len(c.Rules.AllowedCommands) == 2 }},
		{"rules: {allowed_commands: [ls, cat, go]}", "rules: {allowed_commands: [go, rm]}", func(c *Config) bool {
			return reflect.DeepEqual(c.Rules.AllowedCommands, []string{"go"}) // narrowed: rm was never allowed
		}},
		{"rules: {allowed_commands: [ls]}", "rules: {allowed_commands: [rm]}", func(c *Config) bool {
			return c.Rules.AllowedCommands != nil && len(c.Rules.AllowedCommands) == 0
		}},
		{"", "rules: {readonly: true, unrestricted: false, builtin_defaults: true}", func(c *Config) bool { return c.Rules.Readonly }},
		{"", "sandbox: {mode: required, network: false, allow_unsandboxed: false, masked_paths: [/etc/x]}", func(c *Config) bool {
			return c.Sandbox.Mode == "required" && c.Sandbox.MaskedPaths[0] == "/etc/x"
		}},
		{"sandbox: {mode: off}", "sandbox: {mode: auto}", func(c *Config) bool { return c.Sandbox.Mode == "auto" }},
		{"", "sandbox: {limits: {processes: 100, memory_mb: 512, file_size_mb: 10, cpu_seconds: 5, open_files: 64}}", func(c *Config) bool {
			l := c.Sandbox.Limits
			return l.Processes == 100 && l.MemoryMB == 512 && l.FileSizeMB == 10 && l.CPUSeconds == 5 && l.OpenFiles == 64
		}},
		{"", "env: {scrub: [MY_TOKEN]}", func(c *Config) bool { return c.Env.Scrub[0] == "MY_TOKEN" }},
		{"", "tasks: {max: 2, ring_lines: 10, blocking_budget: 5}", func(c *Config) bool { return c.Tasks.Max == 2 && c.Tasks.RingLines == 10 }},
		{"", "redact: {patterns: ['corp_[a-z0-9]{20}']}", func(c *Config) bool { return len(c.Redact.Patterns) == 1 }},
	} {
		c, err := project(t, tc.base, tc.proj)
		if err != nil {
			t.Errorf("%s: %v", tc.proj, err)
			continue
		}
		if !tc.check(c) {
			t.Errorf("%s: no effect", tc.proj)
		}
	}
}

func TestProjectCannotLoosen(t *testing.T) {
	for _, tc := range []struct{ base, proj, line, msg string }{
		{"", "timeout: {max: 900}", "1", "timeout.max: a project file may only lower this (now 600, project says 900)"},
		{"", "\ntimeout: {default: 300}", "2", "timeout.default: a project file may only lower this"},
		{"", "output: {max_bytes: 1048576}", "1", "output.max_bytes: a project file may only lower"},
		{"", "output: {max_total_bytes: 9999999999}", "1", "output.max_total_bytes: a project file may only lower"},
		{"", "rules:\n  allow: [\"rm *\"]", "2", "rules.allow: not allowed in a project file"},
		{"", "rules: {custom_allow_patterns: [.*]}", "1", "rules.custom_allow_patterns: not allowed in a project file"},
		{"", "rules: {allowed_roots: [/]}", "1", "rules.allowed_roots: not allowed"},
		{"rules: {readonly: true}", "rules: {readonly: false}", "1", "rules.readonly: a project file may only set this to true"},
		{"", "rules: {unrestricted: true}", "1", "rules.unrestricted: a project file may only set this to false"},
		{"", "rules: {builtin_defaults: false}", "1", "rules.builtin_defaults: a project file may only set this to true"},
		{"", "sandbox: {mode: off}", "1", "sandbox.mode: a project file may only make the sandbox stricter (now auto, project says off)"},
		{"", "sandbox: {network: true}", "1", "sandbox.network: a project file may only make this stricter (now allowlist, project says on)"},
		{"", "sandbox: {network: on}", "1", "sandbox.network: a project file may only make this stricter (now allowlist, project says on)"},
		{"", "sandbox: {network_allow: [evil.test]}", "1", "sandbox.network_allow: not allowed in a project file"},
		{"", "sandbox: {writable_roots: [/etc]}", "1", "sandbox.writable_roots: not allowed"},
		{"", "sandbox: {excluded_commands: [\"bash *\"]}", "1", "sandbox.excluded_commands: not allowed"},
		{"", "sandbox: {allow_unsandboxed: true}", "1", "sandbox.allow_unsandboxed: a project file may only set this to false"},
		{"sandbox: {review: true}", "sandbox: {review: false}", "1", "sandbox.review: a project file may only set this to true"},
		{"", "audit: {fail_open: true}", "1", "audit.fail_open: a project file may only set this to false"},
		{"sandbox: {limits: {processes: 100}}", "sandbox: {limits: {processes: 200}}", "1", "sandbox.limits.processes: a project file may only lower"},
		{"sandbox: {limits: {memory_mb: 100}}", "sandbox: {limits: {memory_mb: 0}}", "1", "sandbox.limits.memory_mb: a project file may only lower"},
		{"", "env: {allow: [AWS_SECRET_ACCESS_KEY]}", "1", "env.allow: not allowed"},
		{"", "tasks: {max: 100}", "1", "tasks.max: a project file may only lower"},
		{"", "tasks: {ring_lines: 20000}", "1", "tasks.ring_lines: a project file may only lower"},
		{"", "tasks: {blocking_budget: 55}", "1", "tasks.blocking_budget: a project file may only lower"},
		{"", "audit: {path: /dev/null}", "1", "audit.path: not allowed"},
		{"", "audit: {key_file: /dev/null}", "1", "audit.key_file: not allowed"},
		{"", "output: {escapes: keep}", "1", "output.escapes: a project file may only make this stricter (now strip, project says keep)"},
		{"", "rules: {nonsense: 1}", "1", "rules.nonsense: unknown key"},
	} {
		_, err := project(t, tc.base, tc.proj)
		if err == nil {
			t.Errorf("%s: accepted", tc.proj)
			continue
		}
		if !strings.Contains(err.Error(), ProjectFile+":"+tc.line+": ") || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s:\n got %v\nwant %s:%s: %s", tc.proj, err, ProjectFile, tc.line, tc.msg)
		}
	}
}

func TestCheckFile(t *testing.T) {
	p := write(t, filepath.Join(t.TempDir(), "c.yaml"), "rules: {allow: [\"rm *\"]}\n")
	if _, err := CheckFile(p, false); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckFile(p, true); err == nil {
		t.Fatal("project check accepted allow rule")
	}
}

func TestErrorsAreAllReported(t *testing.T) {
	_, err := load(t, "timeout: {defualt: 1}\nrules: {readonly: 2}\n")
	if err == nil || !strings.Contains(err.Error(), ":1: ") || !strings.Contains(err.Error(), ":2: ") {
		t.Fatalf("want both errors, got %v", err)
	}
}

// TestShowJSONHasNoNullLists: an empty list is [] in config show --json,
// at any depth, and the configuration shown is not changed by showing.
func TestShowJSONHasNoNullLists(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(ws, "xdg"))
	t.Setenv("HOME", filepath.Join(ws, "home"))
	c, err := Load(Options{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if c.Rules.Allow != nil {
		t.Skip("the defaults allow something: no empty list to show")
	}
	var b bytes.Buffer
	if err := c.Show(&b, true); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case nil:
			t.Errorf("%s is null", path)
		case map[string]any:
			for k, e := range x {
				walk(path+"."+k, e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		}
	}
	walk("config", doc.(map[string]any)["config"])
	if c.Rules.Allow != nil {
		t.Error("showing changed the configuration")
	}
}
