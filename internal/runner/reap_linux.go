package runner

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var (
	// leadersMu orders starting commands against sweeping for orphans, so
	// that a leader is registered before any sweep can see it as an orphan.
	leadersMu sync.RWMutex
	leaders   sync.Map // pid → struct{}
	subreaper atomic.Bool
)

// EnableSubreaper makes this process the child subreaper of everything the
// runner starts (PR_SET_CHILD_SUBREAPER): processes that escape a command's
// process group by setsid or a double fork are re-parented here instead of
// to init, so they can be found without scanning /proc and are reaped.
//
// With it enabled, any process re-parented to this one that the runner did
// not start itself is treated as an escapee: it is killed and reaped at the
// end of the next command. Enable it only in a program that starts no
// long-lived children of its own (the shellguard CLI and servers do).
func EnableSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return err
	}
	subreaper.Store(true)
	return nil
}

func startTracked(cmd *exec.Cmd) error {
	leadersMu.RLock()
	defer leadersMu.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	leaders.Store(cmd.Process.Pid, struct{}{})
	return nil
}

// StartTracked starts cmd as the runner starts a command's leader: no
// run's clean-up takes it for an escaped process (see EnableSubreaper)
// until Forget. For a process started ahead of a command that a later
// Launch hands over (a warm sandbox helper).
func StartTracked(cmd *exec.Cmd) error { return startTracked(cmd) }

// Forget ends what StartTracked began, once the process has been waited
// for (a run forgets its leader itself).
func Forget(pid int) { forgetLeader(pid) }

// sendTracked registers an already started leader once send has handed it
// its command.
func sendTracked(cmd *exec.Cmd, send func() error) error {
	leadersMu.RLock()
	defer leadersMu.RUnlock()
	if err := send(); err != nil {
		return err
	}
	leaders.Store(cmd.Process.Pid, struct{}{})
	return nil
}

func forgetLeader(pid int) { leaders.Delete(pid) }

// killEscapees signals every process carrying marker that is outside the
// leader's control: re-parented orphans (subreaper mode) or, without the
// subreaper, any process of ours in /proc. It repeats a few times because
// an escapee may fork while it is being killed.
func killEscapees(marker string, sig syscall.Signal) {
	leadersMu.Lock()
	defer leadersMu.Unlock()
	for round := 0; round < 8; round++ {
		var victims []int
		if subreaper.Load() {
			victims = orphans(marker)
		} else {
			victims = scanMarked(marker)
		}
		if len(victims) == 0 {
			return
		}
		for _, pid := range victims {
			syscall.Kill(pid, sig)
		}
		if sig != syscall.SIGKILL {
			return
		}
		if subreaper.Load() {
			reap(victims)
		} else {
			time.Sleep(time.Millisecond)
		}
	}
}

// orphans lists our direct children that the runner did not start and that
// belong to this run (its marker) or to no run at all (no marker: the
// environment was cleared). Zombies among them are reaped.
func orphans(marker string) []int {
	self := os.Getpid()
	var out []int
	for _, pid := range children(self) {
		if _, ok := leaders.Load(pid); ok {
			continue
		}
		m, ok := markerOf(pid)
		if ok && m != marker {
			continue // another run's escapee: that run will end it
		}
		if isZombie(pid) {
			reap([]int{pid})
			continue
		}
		out = append(out, pid)
	}
	return out
}

// reap waits for the given killed children, each for a bounded time.
func reap(pids []int) {
	deadline := time.Now().Add(time.Second)
	for _, pid := range pids {
		for {
			var ws syscall.WaitStatus
			got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			if got == pid || err != nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
	}
}

// children returns the direct children of pid.
func children(pid int) []int {
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil
	}
	var out []int
	ok := false
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", t.Name(), "children"))
		if err != nil {
			continue
		}
		ok = true
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	if !ok {
		return childrenByScan(pid)
	}
	return out
}

// childrenByScan finds children through /proc/*/stat when the kernel lacks
// the children files.
func childrenByScan(parent int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok && ppid == parent {
			out = append(out, pid)
		}
	}
	return out
}

func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

func parentOf(pid int) (int, bool) {
	f := statFields(pid)
	if len(f) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(f[1])
	return n, err == nil
}

func isZombie(pid int) bool {
	f := statFields(pid)
	return len(f) > 0 && f[0] == "Z"
}

// markerOf returns the run marker in pid's environment.
func markerOf(pid int) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return "", false
	}
	key := []byte(MarkerVar + "=")
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.HasPrefix(kv, key) {
			return string(kv[len(key):]), true
		}
	}
	return "", false
}

// scanMarked lists every process in /proc whose environment carries marker.
func scanMarked(marker string) []int {
	ents, _ := os.ReadDir("/proc")
	self := os.Getpid()
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if m, ok := markerOf(pid); ok && m == marker {
			out = append(out, pid)
		}
	}
	return out
}
