package depcheck

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every shellguard process pays for the package initialisation of all it
// links: the CLI for each command it runs, the sandbox helper for each
// sandbox. Work done there (a regular expression compiled, a template
// parsed, a table built) is paid even by a process that never uses it, so
// it belongs behind a sync.OnceValue or internal/lazyre instead. The
// budgets below are in allocations and bytes, which GODEBUG=inittrace
// reports exactly, not in time, which a shared machine makes noisy.
const (
	initAllocsPerPackage = 128
	initBytesPerPackage  = 32 << 10
	initAllocsModule     = 400 // all of the module's packages together
	initBytesModule      = 96 << 10
)

// One line of GODEBUG=inittrace=1:
// init PKG @T ms, C ms clock, B bytes, N allocs
var initLine = regexp.MustCompile(`(?m)^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

func TestInitStaysCheap(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ pkg, bin string }{
		{"/cmd/shellguard", "shellguard"},
		{"/cmd/shellguard-sandbox", "shellguard-sandbox"},
	} {
		bin := filepath.Join(dir, c.bin)
		if out, err := exec.Command("go", "build", "-o", bin, module+c.pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", c.pkg, err, out)
		}
		// Any arguments do: the package inits run before main looks at
		// them (the helper refuses to be run by hand, after its inits).
		cmd := exec.Command(bin, "version")
		cmd.Env = []string{"GODEBUG=inittrace=1", "PATH=/usr/bin:/bin"}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		lines := initLine.FindAllStringSubmatch(stderr.String(), -1)
		if len(lines) < 20 {
			t.Fatalf("%s: only %d init lines in GODEBUG=inittrace=1 output:\n%s", c.bin, len(lines), stderr.String())
		}
		var allocs, size, ours int
		for _, m := range lines {
			pkg := m[1]
			if pkg != module && !strings.HasPrefix(pkg, module+"/") {
				continue
			}
			ours++
			b, _ := strconv.Atoi(m[2])
			n, _ := strconv.Atoi(m[3])
			allocs += n
			size += b
			if n > initAllocsPerPackage || b > initBytesPerPackage {
				t.Errorf("%s: the init of %s makes %d allocations, %d bytes (budget %d, %d): move the work behind sync.OnceValue or internal/lazyre",
					c.bin, pkg, n, b, initAllocsPerPackage, initBytesPerPackage)
			}
		}
		if ours == 0 {
			t.Fatalf("%s: no package of %s in the init trace", c.bin, module)
		}
		if allocs > initAllocsModule || size > initBytesModule {
			t.Errorf("%s: the inits of the module's %d packages make %d allocations, %d bytes together (budget %d, %d)",
				c.bin, ours, allocs, size, initAllocsModule, initBytesModule)
		}
		t.Logf("%s: %d of the module's packages: %d allocations, %d bytes at init", c.bin, ours, allocs, size)
	}
}
