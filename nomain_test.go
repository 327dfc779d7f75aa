package shellguard

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A program that leaves out sandbox.Main fails with an error saying to
// call it, instead of starting itself recursively.
func TestMissingSandboxMainFailsPlainly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox helper exists on Linux only")
	}
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "nomain")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/nomain").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ws := t.TempDir()
	start := time.Now()
	out, _ := exec.Command(bin, ws).CombinedOutput()
	if time.Since(start) > 20*time.Second {
		t.Errorf("took %v", time.Since(start))
	}
	s := string(out)
	if !strings.Contains(s, "call sandbox.Main() as the first statement of main") || strings.Contains(s, `stdout="ran`) {
		t.Errorf("output:\n%s", s)
	}
	if n := strings.Count(s, "err="); n != 1 {
		t.Errorf("the program ran its main %d times:\n%s", n, s)
	}
	_ = os.Remove(bin)
}
