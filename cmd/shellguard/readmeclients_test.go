package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeClientSnippets: every JSON snippet of the README's client
// configuration parses, and the command line of each server it holds
// starts the MCP server (its workspace placeholders replaced by a
// directory of the test).
func TestReadmeClientSnippets(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "### Client configuration\n")
	if !ok {
		t.Fatal("no client configuration section in README.md")
	}
	section, _, _ = strings.Cut(section, "\n### ")
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	ws := filepath.Join(dir, "project")
	os.Mkdir(ws, 0o755)
	n := 0
	for _, block := range strings.Split(section, "```json\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		var doc map[string]map[string]struct {
			Command string
			Args    []string
		}
		if err := json.Unmarshal([]byte(block), &doc); err != nil {
			t.Errorf("snippet does not parse: %v\n%s", err, block)
			continue
		}
		for _, key := range []string{"mcpServers", "servers"} {
			for name, srv := range doc[key] {
				n++
				if srv.Command != "shellguard" || len(srv.Args) == 0 || srv.Args[0] != "mcp" {
					t.Errorf("%s: command %q %q is not shellguard mcp", name, srv.Command, srv.Args)
					continue
				}
				args := make([]string, len(srv.Args)-1)
				for i, a := range srv.Args[1:] {
					args[i] = strings.NewReplacer("/path/to/project", ws, "${workspaceFolder}", ws).Replace(a)
				}
				fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
				gf, lf := addGuardFlags(fs, true), addLimitFlags(fs)
				if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
					t.Errorf("%s: %q: %v", name, args, err)
					continue
				}
				var stderr bytes.Buffer
				s, _, stop, err := startServer(gf, lf, &stderr, false)
				if err != nil {
					t.Errorf("%s: %q does not start: %v\n%s", name, args, err, stderr.String())
					continue
				}
				s.Close()
				stop()
			}
		}
	}
	if n < 2 {
		t.Errorf("%d servers found in the snippets", n)
	}
}
