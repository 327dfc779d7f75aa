package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestQuickStart follows the README's three quick starts literally, taking
// each code block by the marker before it (`<!-- quickstart: NAME -->`):
// the CLI block's commands run against the built binary in a fresh
// workspace, the library block is built and run as a module of its own,
// and the real npm MCP client starts the server from each command line the
// MCP blocks hold.
func TestQuickStart(t *testing.T) {
	setup(t)
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	t.Run("cli", func(t *testing.T) { quickStartCLI(t, quickStartBlock(t, readme, "cli")) })
	t.Run("library", func(t *testing.T) {
		quickStartLibrary(t, quickStartBlock(t, readme, "go.mod"), quickStartBlock(t, readme, "main.go"), quickStartBlock(t, readme, "go-run"))
	})
	t.Run("mcp", func(t *testing.T) {
		quickStartMCP(t, quickStartBlock(t, readme, "mcp"), quickStartBlock(t, readme, "mcp-settings"), quickStartBlock(t, readme, "mcp-json"))
	})
}

// quickStartBlock returns the content of the code block that directly
// follows the marker `<!-- quickstart: name -->` in readme.
func quickStartBlock(t *testing.T, readme, name string) string {
	t.Helper()
	marker := "<!-- quickstart: " + name + " -->\n"
	if strings.Count(readme, marker) != 1 {
		t.Fatalf("README.md has %d markers %q, want 1", strings.Count(readme, marker), strings.TrimSpace(marker))
	}
	_, rest, _ := strings.Cut(readme, marker)
	fence, body, ok := strings.Cut(rest, "\n")
	if !ok || !strings.HasPrefix(fence, "```") {
		t.Fatalf("marker %q is not followed by a code block", name)
	}
	body, _, ok = strings.Cut(body, "\n```\n")
	if !ok {
		t.Fatalf("the %q code block does not end", name)
	}
	return body + "\n"
}

// quickStartEnv is the environment of a quick-start command: the test's,
// with the built binary first on PATH, and HOME a scratch directory so
// that no user configuration of this machine takes part.
func quickStartEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "PATH" || name == "HOME" || strings.HasPrefix(name, "XDG_") || strings.HasPrefix(name, "SHELLGUARD_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH="+binDir+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+home)
}

var (
	quotedRE = regexp.MustCompile(`"([^"]+)"`)
	exitRE   = regexp.MustCompile(`\(exit (\d+)\)`)
)

// quickStartCLI runs each line of the CLI block with bash in a fresh
// workspace. A line is `COMMAND  # COMMENT`; every "quoted" text of the
// comment must be in the command's output, and its exit status is the
// comment's `(exit N)`, 0 without one. Only shellguard commands run.
func quickStartCLI(t *testing.T, block string) {
	ws := workspace(t)
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		command, comment, _ := strings.Cut(line, " # ")
		command = strings.TrimSpace(command)
		if !strings.HasPrefix(command, "shellguard ") {
			t.Fatalf("%q: the CLI quick start runs shellguard commands only", line)
		}
		want := quotedRE.FindAllStringSubmatch(comment, -1)
		if len(want) == 0 {
			t.Fatalf("%q: the comment quotes nothing of the output to check", line)
		}
		code := 0
		if m := exitRE.FindStringSubmatch(comment); m != nil {
			code, _ = strconv.Atoi(m[1])
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, "bash", "-c", command)
		cmd.Dir, cmd.Env = ws, quickStartEnv(home)
		out, err := cmd.CombinedOutput()
		cancel()
		if cmd.ProcessState == nil {
			t.Fatalf("%s: %v", command, err)
		}
		got := cmd.ProcessState.ExitCode()
		if got != code {
			t.Errorf("%s: exit %d (%v), the quick start says %d\n%s", command, got, err, code, out)
		}
		for _, w := range want {
			if !strings.Contains(string(out), w[1]) {
				t.Errorf("%s: output lacks %q\n%s", command, w[1], out)
			}
		}
		n++
	}
	if n < 3 {
		t.Errorf("the CLI quick start has %d commands", n)
	}
}

// quickStartLibrary writes the go.mod and main.go of the library quick
// start into a module of its own, its replace directive pointed at this
// checkout, and runs the go-run block's steps in it. `go mod tidy` needs
// the network for go.sum; the test gives the module this checkout's go.sum
// instead, offline (GOPROXY=off, -mod=mod), which holds every sum a
// dependency of shellguard needs.
func quickStartLibrary(t *testing.T, gomod, mainGo, goRun string) {
	const replace = "replace github.com/shellguard/shellguard => ../shellguard\n"
	if !strings.Contains(gomod, replace) {
		t.Fatalf("the go.mod of the quick start has no %q", strings.TrimSpace(replace))
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	gomod = strings.Replace(gomod, replace, "replace github.com/shellguard/shellguard => "+root+"\n", 1)
	sum, err := os.ReadFile("../go.sum")
	if err != nil {
		t.Fatal(err)
	}
	dir := workspace(t)
	for name, b := range map[string][]byte{"go.mod": []byte(gomod), "main.go": []byte(mainGo), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	command, comment, _ := strings.Cut(strings.TrimSpace(goRun), " # ")
	want := quotedRE.FindAllStringSubmatch(comment, -1)
	steps := strings.Split(command, "&&")
	for i := range steps {
		steps[i] = strings.TrimSpace(steps[i])
	}
	if !slices.Equal(steps, []string{"go mod tidy", "go run ."}) || len(want) == 0 {
		t.Fatalf("the go-run block is %q: the test knows `go mod tidy && go run .  # prints \"OUTPUT\"`", goRun)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run . in the quick-start module: %v\n%s", err, out)
	}
	for _, w := range want {
		if !strings.Contains(string(out), w[1]) {
			t.Errorf("go run . printed %q, the quick start says %q", out, w[1])
		}
	}
}

// quickStartMCP connects the npm client to the server each MCP block
// starts: the `claude mcp add` line and the mcpServers entry, their
// workspace placeholders replaced by a fresh workspace, the command
// looked up on PATH as a client does. The settings block must deny
// Claude Code's Bash tool.
func quickStartMCP(t *testing.T, claude, settings, config string) {
	var s struct {
		Permissions struct{ Deny []string }
	}
	if err := json.Unmarshal([]byte(settings), &s); err != nil || !slices.Contains(s.Permissions.Deny, "Bash") {
		t.Errorf("the settings block does not deny Bash (%v):\n%s", err, settings)
	}
	ws := workspace(t)
	type server struct {
		name, command string
		args          []string
	}
	var servers []server
	for _, line := range strings.Split(claude, "\n") {
		if rest, ok := strings.CutPrefix(line, "claude mcp add "); ok {
			_, cmdline, ok := strings.Cut(rest, " -- ")
			if !ok {
				t.Fatalf("%q: no -- before the server's command line", line)
			}
			words := strings.Fields(cmdline)
			for i, w := range words {
				if w == `"$PWD"` {
					words[i] = ws
				}
			}
			servers = append(servers, server{"claude mcp add", words[0], words[1:]})
		}
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		}
	}
	if err := json.Unmarshal([]byte(config), &doc); err != nil {
		t.Fatalf("the mcpServers block does not parse: %v\n%s", err, config)
	}
	for name, srv := range doc.MCPServers {
		args := slices.Clone(srv.Args)
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, "/path/to/project", ws)
		}
		servers = append(servers, server{"mcpServers." + name, srv.Command, args})
	}
	if len(servers) != 2 {
		t.Fatalf("the MCP quick start holds %d server command lines, want 2: %+v", len(servers), servers)
	}
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, srv := range servers {
		if srv.command != "shellguard" {
			t.Errorf("%s: command %q is not shellguard", srv.name, srv.command)
			continue
		}
		args, _ := json.Marshal(srv.args)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		cmd := exec.CommandContext(ctx, "node", "quickstart.mjs", "--command", srv.command, "--args", string(args), "--cwd", ws)
		cmd.Env = quickStartEnv(home)
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("%s: %s %s: %v\n%s", srv.name, srv.command, args, err, out)
		}
		noProcessesOf(t, "shellguard", "mcp", "--workspace", ws)
	}
}
