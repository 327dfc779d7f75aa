//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// cgroupRoot is where the unified hierarchy is mounted.
const cgroupRoot = "/sys/fs/cgroup"

// cgroupBase is the cgroup under which shellguard creates one child per
// run, found (and prepared) once per process.
var cgroupBase struct {
	once sync.Once
	dir  string
	err  error
	fix  string
	seq  atomic.Int64
}

const cgroupFix = "a cgroup v2 host (systemd.unified_cgroup_hierarchy=1), then as root nothing else; as a user run shellguard under `systemd-run --user --scope -p Delegate=yes shellguard …` so that it owns a delegated cgroup"

// baseCgroup returns the directory runs are created in, or why there is
// none. As root it is /sys/fs/cgroup/shellguard; otherwise a child of the
// process's own cgroup, which must be delegated (writable): shellguard
// moves itself into a leaf "shellguard" child so that the controllers can
// be enabled for the run cgroups next to it.
func baseCgroup() (string, error) {
	b := &cgroupBase
	b.once.Do(func() {
		if b.dir, b.err = findBaseCgroup(); b.err == nil {
			go sweepRunCgroups(b.dir) // cgsweep_linux.go
		}
	})
	return b.dir, b.err
}

func findBaseCgroup() (string, error) {
	var sfs unix.Statfs_t
	if err := unix.Statfs(cgroupRoot, &sfs); err != nil {
		return "", fmt.Errorf("statfs %s: %w", cgroupRoot, err)
	}
	if sfs.Type != unix.CGROUP2_SUPER_MAGIC {
		hybrid := ""
		if unix.Statfs(filepath.Join(cgroupRoot, "unified"), &sfs) == nil && sfs.Type == unix.CGROUP2_SUPER_MAGIC {
			hybrid = " (hybrid: the v2 tree at /sys/fs/cgroup/unified has no memory controller)"
		}
		return "", fmt.Errorf("this host uses cgroup v1%s: %s is not a cgroup2 mount", hybrid, cgroupRoot)
	}
	want := []string{"memory", "pids", "cpu"}
	if os.Getuid() == 0 {
		base := filepath.Join(cgroupRoot, "shellguard")
		if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("mkdir %s: %w", base, err)
		}
		if err := enableControllers(cgroupRoot, want); err != nil {
			return "", err
		}
		if err := enableControllers(base, want); err != nil {
			return "", err
		}
		return base, nil
	}
	own, err := ownCgroup()
	if err != nil {
		return "", err
	}
	if unix.Access(filepath.Join(own, "cgroup.procs"), unix.W_OK) != nil || unix.Access(own, unix.W_OK) != nil {
		return "", fmt.Errorf("the cgroup %s is not delegated to uid %d", strings.TrimPrefix(own, cgroupRoot), os.Getuid())
	}
	leaf := filepath.Join(own, "shellguard")
	if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("mkdir %s: %w", leaf, err)
	}
	// No internal processes: move this process into the leaf, then the
	// controllers can be enabled in own for the run cgroups.
	if err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return "", fmt.Errorf("moving into %s: %w", leaf, err)
	}
	if err := enableControllers(own, want); err != nil {
		return "", err
	}
	return own, nil
}

func ownCgroup() (string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "0::"); ok {
			return filepath.Join(cgroupRoot, filepath.Clean("/"+p)), nil
		}
	}
	return "", errors.New("no cgroup v2 entry in /proc/self/cgroup")
}

func enableControllers(dir string, want []string) error {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
	if err != nil {
		return err
	}
	have := strings.Fields(string(b))
	var add []string
	for _, w := range want {
		for _, h := range have {
			if h == w {
				add = append(add, "+"+w)
			}
		}
	}
	if len(add) < len(want) {
		return fmt.Errorf("%s offers only the controllers %q (want %q)", dir, have, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte(strings.Join(add, " ")), 0o644); err != nil {
		return fmt.Errorf("enabling %v in %s: %w", add, dir, err)
	}
	return nil
}

// cgroupOff, once set, is why runs get no cgroup any more.
var cgroupOff atomic.Value // error

func disableCgroups(err error) { cgroupOff.Store(err) }

// runCgroup is the cgroup of one run.
type runCgroup struct {
	dir    string
	fd     int
	detail string
	// v1: a cgroup v1 memory cgroup (CLONE_INTO_CGROUP takes v2
	// cgroups only), which has no cgroup.kill: the parent moves the
	// started helper into it, and the helper's first step checks that
	// it is there, joining it itself if not.
	v1 bool
}

// newRunCgroup creates the run's cgroup with its limits. cmd starts in it
// (clone3 CLONE_INTO_CGROUP), so every process of the run is counted
// from its first instruction. Without cgroup v2 it falls back to the
// cgroup v1 memory controller (newRunCgroupV1).
func newRunCgroup(l Limits, cpuPercent int) (*runCgroup, error) {
	if err, _ := cgroupOff.Load().(error); err != nil {
		return nil, err
	}
	base, err := baseCgroup()
	if err != nil {
		rc, err1 := newRunCgroupV1(l)
		if err1 != nil {
			return nil, fmt.Errorf("%w; cgroup v1: %v", err, err1)
		}
		return rc, nil
	}
	dir := filepath.Join(base, fmt.Sprintf("run-%d-%d", os.Getpid(), cgroupBase.seq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	rc := &runCgroup{dir: dir, fd: -1}
	var parts []string
	set := func(file, val string) error {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(val), 0o644); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		parts = append(parts, file+"="+val)
		return nil
	}
	var errs []error
	if l.DataBytes > 0 {
		// memory.max counts page cache, shmem, memfd and tmpfs pages of
		// the whole tree; no swap on top of it.
		errs = append(errs, set("memory.max", strconv.FormatInt(l.DataBytes, 10)))
		if _, err := os.Stat(filepath.Join(dir, "memory.swap.max")); err == nil {
			errs = append(errs, set("memory.swap.max", "0"))
		}
		errs = append(errs, set("memory.oom.group", "1"))
	}
	if l.Procs > 0 {
		errs = append(errs, set("pids.max", strconv.FormatInt(l.Procs, 10)))
	}
	if cpuPercent > 0 {
		errs = append(errs, set("cpu.max", fmt.Sprintf("%d 100000", cpuPercent*1000)))
	}
	if err := errors.Join(errs...); err != nil {
		rc.close()
		return nil, err
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		rc.close()
		return nil, err
	}
	rc.fd = fd
	rc.detail = strings.TrimPrefix(dir, cgroupRoot) + ": " + strings.Join(parts, " ") + "; the tree is killed with cgroup.kill"
	return rc, nil
}

// close kills everything left in the cgroup and removes it.
func (rc *runCgroup) close() {
	if rc == nil {
		return
	}
	if rc.fd >= 0 {
		unix.Close(rc.fd)
		rc.fd = -1
	}
	if rc.v1 {
		rc.killV1()
	} else {
		os.WriteFile(filepath.Join(rc.dir, "cgroup.kill"), []byte("1"), 0o644)
	}
	for i := 0; i < 100; i++ {
		if err := unix.Rmdir(rc.dir); err == nil || errors.Is(err, unix.ENOENT) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// CgroupStatus says whether runs get a cgroup here and, if not, why and
// what would enable it (for doctor).
func CgroupStatus() (ok bool, detail, reason, fix string) {
	base, err := baseCgroup()
	if err != nil {
		v1, err1 := baseCgroupV1()
		if err1 != nil {
			return false, "", err.Error() + "; cgroup v1: " + err1.Error(), cgroupFix
		}
		return true, "runs get a cgroup v1 memory cgroup under " + strings.TrimPrefix(v1, cgroupRoot) + " with memory.limit_in_bytes (no cgroup v2: tasks and CPU are bounded by rlimits only)", "", ""
	}
	return true, "runs get a child of " + strings.TrimPrefix(base, cgroupRoot) + " with memory.max, pids.max, cpu.max", "", ""
}

// cgroupV1Base is the directory under which runs get a cgroup v1 memory
// cgroup, found (and created) once per process.
var cgroupV1Base struct {
	once sync.Once
	dir  string
	err  error
}

// baseCgroupV1 returns <this process's memory cgroup>/shellguard, on a
// host whose memory controller is a cgroup v1 hierarchy that this process
// may write (as root, or with the cgroup delegated).
func baseCgroupV1() (string, error) {
	b := &cgroupV1Base
	b.once.Do(func() {
		if b.dir, b.err = findCgroupV1(); b.err == nil {
			go sweepRunCgroups(b.dir) // cgsweep_linux.go
		}
	})
	return b.dir, b.err
}

func findCgroupV1() (string, error) {
	mount, root, err := v1MemoryMount()
	if err != nil {
		return "", err
	}
	own, err := v1OwnPath()
	if err != nil {
		return "", err
	}
	rel, ok := strings.CutPrefix(own, root)
	if !ok {
		return "", fmt.Errorf("the memory cgroup %s is outside the mounted hierarchy %s", own, root)
	}
	base := filepath.Join(mount, filepath.Clean("/"+rel), "shellguard")
	if err := os.Mkdir(base, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("the memory cgroup is not writable: %w", err)
	}
	if unix.Access(base, unix.W_OK) != nil {
		return "", fmt.Errorf("the memory cgroup %s is not writable", base)
	}
	return base, nil
}

// v1MemoryMount finds the mount point and root of the cgroup v1 memory
// hierarchy in /proc/self/mountinfo.
func v1MemoryMount() (string, string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, after := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(after) < 3 || after[0] != "cgroup" {
			continue
		}
		for _, o := range strings.Split(after[2], ",") {
			if o == "memory" {
				return fields[4], fields[3], nil
			}
		}
	}
	return "", "", errors.New("no cgroup v1 memory controller is mounted")
}

// v1OwnPath is this process's cgroup in the memory hierarchy.
func v1OwnPath() (string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				return parts[2], nil
			}
		}
	}
	return "", errors.New("no memory entry in /proc/self/cgroup")
}

// newRunCgroupV1 creates a cgroup v1 memory cgroup bounding the run's
// total memory (page cache, shmem and tmpfs pages included) to
// l.DataBytes, without swap on top of it where swap is accounted. The
// kernel's OOM killer acts inside it when the bound is reached.
func newRunCgroupV1(l Limits) (*runCgroup, error) {
	if l.DataBytes <= 0 {
		return nil, errors.New("no memory limit to apply")
	}
	base, err := baseCgroupV1()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(base, fmt.Sprintf("run-%d-%d", os.Getpid(), cgroupBase.seq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	rc := &runCgroup{dir: dir, fd: -1, v1: true}
	limit := strconv.FormatInt(l.DataBytes, 10)
	parts := []string{"memory.limit_in_bytes=" + limit}
	if err := os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), []byte(limit), 0o644); err != nil {
		rc.close()
		return nil, fmt.Errorf("memory.limit_in_bytes: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "memory.memsw.limit_in_bytes")); err == nil {
		if err := os.WriteFile(filepath.Join(dir, "memory.memsw.limit_in_bytes"), []byte(limit), 0o644); err != nil {
			rc.close()
			return nil, fmt.Errorf("memory.memsw.limit_in_bytes: %w", err)
		}
		parts = append(parts, "memory.memsw.limit_in_bytes="+limit)
	}
	// The run's own name stays out: a warm run reports what a cold one does.
	rc.detail = "cgroup v1, a child of " + strings.TrimPrefix(base, cgroupRoot) + " per run: " + strings.Join(parts, " ") +
		" (memory only: tasks and CPU are bounded by rlimits)"
	return rc, nil
}

// killV1 kills every process left in a v1 cgroup (there is no
// cgroup.kill), until none is left or about a second has passed.
func (rc *runCgroup) killV1() {
	for i := 0; i < 100; i++ {
		b, err := os.ReadFile(filepath.Join(rc.dir, "cgroup.procs"))
		if err != nil || len(strings.TrimSpace(string(b))) == 0 {
			return
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				unix.Kill(pid, unix.SIGKILL)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// joinCgroupV1 moves the calling process into the cgroup v1 directory
// dir: the helper's first step, before it starts anything.
func joinCgroupV1(dir string) error {
	if inCgroupV1(dir) {
		return nil // the parent moved it there (Started)
	}
	return joinCgroupV1Pid(dir, 0)
}

// joinCgroupV1Pid moves process pid (0: this one) into the v1 cgroup dir.
func joinCgroupV1Pid(dir string, pid int) error {
	return os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644)
}

// inCgroupV1 reports whether this process is in the v1 memory cgroup dir:
// /proc/self/cgroup names it by its path in the hierarchy, which dir (a
// path under the hierarchy's mount) ends with.
func inCgroupV1(dir string) bool {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.SplitN(l, ":", 3)
		if len(f) != 3 || !slices.Contains(strings.Split(f[1], ","), "memory") {
			continue
		}
		return f[2] != "/" && f[2] != "" && strings.HasSuffix(dir, f[2]) && strings.HasPrefix(f[2], "/")
	}
	return false
}
