//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A run's cgroup is removed once its helper has been waited for; a
// process that ends before that (a CLI that printed the result while its
// helper was still exiting, one that was killed) leaves the empty cgroup
// behind. Every process that finds the base cgroup removes, in the
// background, up to sweepMax such leftovers: directories run-PID-N whose
// PID is not a live process and that are older than sweepMinAge (a run's
// cgroup is empty from its creation until its helper joins it; the age
// keeps a run of a process this one cannot see, in another pid
// namespace, out of reach). rmdir itself refuses a cgroup that still has
// a process in it.
const sweepMax = 64

// sweepMinAge is the age below which a leftover is not removed (a
// variable for tests).
var sweepMinAge = time.Minute

// sweepRunCgroups removes leftover run cgroups under base (see above) and
// returns how many it removed.
func sweepRunCgroups(base string) int {
	f, err := os.Open(base)
	if err != nil {
		return 0
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	removed, tried := 0, 0
	for _, name := range names {
		if tried >= sweepMax {
			break
		}
		rest, ok := strings.CutPrefix(name, "run-")
		if !ok {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || unix.Kill(pid, 0) != unix.ESRCH {
			continue // not a run's, ours, or its process lives (or may: EPERM)
		}
		dir := filepath.Join(base, name)
		var st unix.Stat_t
		if unix.Lstat(dir, &st) != nil || time.Since(time.Unix(st.Mtim.Unix())) < sweepMinAge {
			continue
		}
		tried++
		if unix.Rmdir(dir) == nil {
			removed++
		}
	}
	return removed
}
