package config

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/policy"
)

// The YAML a user writes for the CLI builds the same Guard for a library
// user, in one call.
func TestLoadGuard(t *testing.T) {
	ws := t.TempDir()
	p := write(t, filepath.Join(t.TempDir(), "c.yaml"), "timeout:\n  default: 30\nsandbox:\n  mode: \"off\"\nrules:\n  deny: [\"touch *\"]\n")
	g, c, err := LoadGuard(Options{NoUserFile: true, ConfigFile: p, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if c.Timeout.Default != 30 || g.Config().Timeout.Seconds() != 30 || g.Config().Workspace != ws {
		t.Errorf("config %+v guard %+v", c.Timeout, g.Config())
	}
	if v := g.Check(context.Background(), shellguard.Request{Command: "touch x"}); v.Decision != policy.Deny {
		t.Errorf("the deny rule did not reach the Guard: %+v", v)
	}
	if _, _, err := LoadGuard(Options{NoUserFile: true, ConfigFile: filepath.Join(ws, "missing.yaml"), Workspace: ws}); err == nil {
		t.Error("a missing --config file was accepted")
	}
}
