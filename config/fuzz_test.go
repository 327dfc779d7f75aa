package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzConfigFile: any file content, as a user file or a project file, is
// either loaded or rejected with an error; it never panics.
func FuzzConfigFile(f *testing.F) {
	for _, s := range []string{
		"timeout: {default: 30, max: 60}\n",
		"rules:\n  allow: [\"npm run test *\"]\n  deny: [{rule: \"git push --force *\", match: [\"git push --force origin main\"]}]\n",
		"sandbox: {mode: required, network: true, limits: {processes: 100}}\n",
		"redact: {patterns: [\"TICKET-[0-9]+\", {name: x, regex: \"(\", keywords: [a]}]}\n",
		"unknown: 1\n", "timeout: [1, 2]\n", "\xff\xfe: \x00\n", "a: &x [*x]\n", "- - - -\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, project bool) {
		p := filepath.Join(dir, "c.yaml")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := CheckFile(p, project)
		if err == nil && c == nil {
			t.Fatal("nil config without an error")
		}
		if err == nil && (c.Timeout.Max > MaxTimeout || c.Timeout.Default > c.Timeout.Max) {
			t.Fatalf("accepted timeouts %d/%d", c.Timeout.Default, c.Timeout.Max)
		}
	})
}
