package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadmeClientSnippets: every snippet of the README's client
// configuration is checked. Each JSON snippet parses; the command line of
// each server it holds, and that of each `claude mcp add` line, starts the
// MCP server (its workspace placeholders replaced by a directory of the
// test); a Claude Code settings snippet denies the built-in Bash tool.
func TestReadmeClientSnippets(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "### Client configuration\n")
	if !ok {
		t.Fatal("no client configuration section in README.md")
	}
	section = upToHeading(section)
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	ws := filepath.Join(dir, "project")
	os.Mkdir(ws, 0o755)
	placeholders := strings.NewReplacer("/path/to/project", ws, "${workspaceFolder}", ws, `"$PWD"`, ws)
	servers, settings := 0, 0
	start := func(name, command string, argv []string) {
		t.Helper()
		servers++
		if command != "shellguard" || len(argv) == 0 || argv[0] != "mcp" {
			t.Errorf("%s: command %q %q is not shellguard mcp", name, command, argv)
			return
		}
		args := make([]string, len(argv)-1)
		for i, a := range argv[1:] {
			args[i] = placeholders.Replace(a)
		}
		fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
		gf, lf := addGuardFlags(fs, true), addLimitFlags(fs)
		if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
			t.Errorf("%s: %q: %v", name, args, err)
			return
		}
		var stderr bytes.Buffer
		s, _, stop, err := startServer(gf, lf, &stderr, false)
		if err != nil {
			t.Errorf("%s: %q does not start: %v\n%s", name, args, err, stderr.String())
			return
		}
		s.Close()
		stop()
	}
	for _, block := range strings.Split(section, "```json\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		var doc map[string]json.RawMessage
		if err := json.Unmarshal([]byte(block), &doc); err != nil {
			t.Errorf("snippet does not parse: %v\n%s", err, block)
			continue
		}
		if raw, ok := doc["permissions"]; ok {
			settings++
			var p struct{ Deny []string }
			if err := json.Unmarshal(raw, &p); err != nil || !slices.Contains(p.Deny, "Bash") {
				t.Errorf("settings snippet does not deny Bash (%v):\n%s", err, block)
			}
			continue
		}
		n := servers
		for _, key := range []string{"mcpServers", "servers"} {
			var m map[string]struct {
				Command string
				Args    []string
			}
			if raw, ok := doc[key]; ok {
				if err := json.Unmarshal(raw, &m); err != nil {
					t.Errorf("%s does not parse: %v\n%s", key, err, block)
				}
			}
			for name, srv := range m {
				start(name, srv.Command, srv.Args)
			}
		}
		if servers == n {
			t.Errorf("snippet holds neither a server nor settings:\n%s", block)
		}
	}
	for _, line := range strings.Split(section, "\n") {
		if rest, ok := strings.CutPrefix(line, "claude mcp add "); ok {
			_, cmdline, ok := strings.Cut(rest, " -- ")
			if !ok {
				t.Errorf("%q: no -- before the server's command line", line)
				continue
			}
			words := strings.Fields(cmdline)
			start("claude mcp add", words[0], words[1:])
		}
	}
	if servers < 3 || settings < 1 {
		t.Errorf("%d servers and %d settings snippets found", servers, settings)
	}
}

// upToHeading returns md up to its first heading outside a code block.
func upToHeading(md string) string {
	fenced, n := false, 0
	for _, line := range strings.SplitAfter(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		} else if !fenced && strings.HasPrefix(line, "#") {
			return md[:n]
		}
		n += len(line)
	}
	return md
}
