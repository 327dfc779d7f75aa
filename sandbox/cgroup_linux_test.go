//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func cgroupV2Host() bool {
	var s unix.Statfs_t
	return unix.Statfs(cgroupRoot, &s) == nil && s.Type == unix.CGROUP2_SUPER_MAGIC
}

// Without cgroup v2 the result says so plainly, and the run still runs.
func TestCgroupReported(t *testing.T) {
	f := newFixture(t)
	r := f.run(t, Spec{}, `echo ran`, 20*time.Second)
	if !strings.Contains(r.out, "ran") {
		t.Fatalf("did not run:\n%s", r.out)
	}
	ok, _, reason, _ := CgroupStatus()
	if ok != r.applied.Has(LayerCgroup) {
		t.Fatalf("status %v but layers %v", ok, r.applied.Names())
	}
	if !ok {
		found := false
		for _, u := range r.applied.Unavailable {
			found = found || (u.Name == LayerCgroup && u.Reason == reason && reason != "")
		}
		if !found {
			t.Fatalf("cgroup unavailable but not reported: %+v", r.applied)
		}
	}
}

// With cgroup v2: the run is in its own cgroup, and shared memory (which
// RLIMIT_DATA does not count) is bounded for the whole tree.
func TestCgroupBoundsSharedMemory(t *testing.T) {
	if ok, _, reason, _ := CgroupStatus(); !ok {
		if cgroupV2Host() {
			skipOrFail(t, "cgroup v2 host but no usable cgroup: %s", reason)
		}
		t.Skipf("needs cgroup v2: %s", reason)
	}
	f := newFixture(t)
	f.assertActive(t, Spec{})
	r := f.run(t, Spec{}, `cat /proc/self/cgroup`, 20*time.Second)
	if !strings.Contains(r.out, "/run-") {
		t.Fatalf("not in a run cgroup:\n%s", r.out)
	}
	// 512 MiB of /dev/shm-like memory in a tree limited to 128 MiB.
	spec := Spec{Limits: Limits{DataBytes: 128 << 20}}
	r = f.run(t, spec, `python3 -c "import mmap; m = mmap.mmap(-1, 512<<20, mmap.MAP_SHARED); m.write(b'x' * (512<<20)); print('SHMEM-DONE')"`, 60*time.Second)
	if strings.Contains(r.out, "SHMEM-DONE") {
		t.Fatalf("shared memory past memory.max:\n%s", r.out)
	}
}

// Several workers, each under RLIMIT_DATA, cannot together take more than
// the run's bound: the run's cgroup (v2, or the v1 memory controller on a
// host without v2, as here) counts them all. Three workers of 640 MiB in
// a run bounded to 1 GiB (RLIMIT_DATA too, which a race-built helper
// needs room under): at most one can hold its memory at a time (two would
// pass the bound); without a cgroup all three would.
func TestCgroupBoundsWorkersTogether(t *testing.T) {
	if ok, _, reason, _ := CgroupStatus(); !ok {
		if cgroupV2Host() || v1MemoryWritable() {
			skipOrFail(t, "a memory cgroup is there but not usable: %s", reason)
		}
		t.Skipf("no memory cgroup: %s", reason)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found")
	}
	f := newFixture(t)
	f.assertActive(t, Spec{})
	spec := Spec{Limits: Limits{DataBytes: 1 << 30}}
	worker := `python3 -c "import time; b = bytearray(640<<20); print('HELD', flush=True); time.sleep(4)"`
	r := f.run(t, spec, `ulimit -d; for i in 1 2 3; do `+worker+` & done; wait; echo DONE`, 60*time.Second)
	if !r.applied.Has(LayerCgroup) {
		t.Fatalf("no cgroup layer: %+v\n%s", r.applied, r.out)
	}
	if !strings.Contains(r.out, "DONE") {
		t.Fatalf("the run did not end by itself:\n%s", r.out)
	}
	n := 0
	for _, l := range strings.Split(r.out, "\n") {
		if l == "HELD" {
			n++
		}
	}
	if n > 1 {
		t.Fatalf("%d workers held 640 MiB at once in a run bounded to 1 GiB:\n%s", n, r.out)
	}
}

// v1MemoryWritable reports a cgroup v1 memory controller mounted and
// writable here (then the bound must apply).
func v1MemoryWritable() bool {
	mount, _, err := v1MemoryMount()
	return err == nil && unix.Access(mount, unix.W_OK) == nil
}

// TestCgroupV1RunInside: on a cgroup v1 host, the command runs in the
// run's own memory cgroup (the parent moves the helper there as it
// starts; the helper checks before anything else runs).
func TestCgroupV1RunInside(t *testing.T) {
	f := newFixture(t)
	r := f.run(t, Spec{}, `grep -E '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' /proc/self/cgroup`, 20*time.Second)
	if !r.applied.Has(LayerCgroup) || cgroupV2Host() {
		// Where cgroup v2 (or none) is used: TestCgroupReported and the
		// bounds tests cover it.
		return
	}
	if !strings.Contains(r.out, "/shellguard/run-") {
		t.Fatalf("the command is not in the run's v1 memory cgroup:\n%s", r.out)
	}
}

// TestInCgroupV1: this process's memory cgroup, named by the path of the
// hierarchy under a mount, is recognised; another is not.
func TestInCgroupV1(t *testing.T) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	own := ""
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.SplitN(l, ":", 3); len(f) == 3 && slices.Contains(strings.Split(f[1], ","), "memory") {
			own = f[2]
		}
	}
	if inCgroupV1("/sys/fs/cgroup/memory/shellguard/no-such-run") {
		t.Error("a cgroup this process is not in was recognised")
	}
	if own == "" || own == "/" {
		return // no v1 memory cgroup of its own here: nothing else to check
	}
	if !inCgroupV1("/sys/fs/cgroup/memory" + own) {
		t.Errorf("its own cgroup %s was not recognised", own)
	}
	if inCgroupV1("/sys/fs/cgroup/memory" + own + "/child") {
		t.Errorf("a child of its cgroup was taken for it")
	}
}
