//go:build linux

package sandbox

import (
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
