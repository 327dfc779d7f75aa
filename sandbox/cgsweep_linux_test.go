//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestSweepRunCgroups: of the run cgroups under the base, the sweep
// removes the empty ones of processes that are gone and old enough, and
// leaves those of a live process, the young ones and what is not a run's.
func TestSweepRunCgroups(t *testing.T) {
	base, err := baseCgroup()
	if err != nil {
		var err1 error
		if base, err1 = baseCgroupV1(); err1 != nil {
			skipOrFail(t, "no cgroup to create runs in: %v; %v", err, err1)
		}
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := dead.Process.Pid
	mk := func(name string) string {
		t.Helper()
		d := filepath.Join(base, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(d) })
		return d
	}
	exists := func(d string) bool { _, err := os.Stat(d); return err == nil }

	old := sweepMinAge
	defer func() { sweepMinAge = old }()
	sweepMinAge = time.Hour
	young := mk(fmt.Sprintf("run-%d-900001", gone))
	sweepRunCgroups(base)
	if !exists(young) {
		t.Fatal("a leftover younger than sweepMinAge was removed")
	}

	sweepMinAge = 0
	left := mk(fmt.Sprintf("run-%d-900002", gone))
	live := mk(fmt.Sprintf("run-%d-900003", os.Getppid()))
	own := mk(fmt.Sprintf("run-%d-900004", os.Getpid()))
	other := mk("not-a-run-900005")
	sweepRunCgroups(base)
	for d, want := range map[string]bool{young: false, left: false, live: true, own: true, other: true} {
		if exists(d) != want {
			t.Errorf("%s: there %v after the sweep, want %v", filepath.Base(d), exists(d), want)
		}
	}
}
