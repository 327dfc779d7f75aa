// Package testenv holds helpers shared by shellguard's tests: leak checks
// for goroutines, file descriptors and processes, and the strict-mode rule
// that a test needing a kernel feature may skip only outside CI.
package testenv

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Strict reports whether SHELLGUARD_STRICT_TESTS=1 is set (CI sets it).
func Strict() bool { return os.Getenv("SHELLGUARD_STRICT_TESTS") == "1" }

// SkipOrFail skips t outside strict mode and fails it inside.
func SkipOrFail(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Strict() {
		t.Fatalf("required feature missing (SHELLGUARD_STRICT_TESTS=1): %s", msg)
	}
	t.Skip(msg)
}

// OpenFDs returns the number of open file descriptors of this process.
func OpenFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// CheckFDs runs m and reports an error when more descriptors are open
// afterwards than before (allowing for a short settling time).
func CheckFDs(before int) error {
	if before < 0 {
		return nil
	}
	var after int
	for i := 0; i < 50; i++ {
		after = OpenFDs()
		if after <= before {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	ents, _ := os.ReadDir("/proc/self/fd")
	var names []string
	for _, e := range ents {
		l, _ := os.Readlink("/proc/self/fd/" + e.Name())
		names = append(names, e.Name()+"->"+l)
	}
	return fmt.Errorf("file descriptors leaked: %d before, %d after: %s", before, after, strings.Join(names, " "))
}

// ProcessesWithArgs returns the pids of processes whose command line
// contains every one of args as whole arguments, in order.
func ProcessesWithArgs(args ...string) []int {
	want := []byte(strings.Join(args, "\x00"))
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || len(b) == 0 {
			continue
		}
		if bytes.Contains(append(b, 0), append(want, 0)) {
			if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
				if i := bytes.LastIndexByte(st, ')'); i > 0 && len(st) > i+2 && st[i+2] == 'Z' {
					continue // a zombie holds no resources and runs nothing
				}
			}
			out = append(out, pid)
		}
	}
	return out
}
