//go:build unix

package steptime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestMarksGoToTheAdoptedFile(t *testing.T) {
	if On() {
		t.Skip(EnvVar + " is set for this process")
	}
	Mark("off") // recorded nowhere, and no panic
	p := filepath.Join(t.TempDir(), "marks")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	Adopt(fd, "test")
	defer func() { out.Close(); out = nil }()
	t0 := Now()
	Mark("first")
	MarkAt("early", t0-1)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "test/") || strings.Fields(lines[0])[1] != "first" || strings.Fields(lines[1])[1] != "early" {
		t.Fatalf("marks: %q", b)
	}
	if File() == nil || !On() {
		t.Fatal("not on after Adopt")
	}
}
