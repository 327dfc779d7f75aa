//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"
)

// BenchmarkLayers measures `true` run through each configuration, so the
// cost of each layer is the difference between neighbouring lines:
//
//	bash          plain fork+exec of bash -p -c true (the baseline)
//	off           Command in Off mode (same as bash, through the API)
//	helper        re-exec of the helper: rlimits, caps, Landlock, seccomp (no namespaces)
//	ns            + user, mount and pid namespaces, read-only root, masks, /proc, go-init
//	ns-bash-init  the same with bash as pid 1 instead of the Go init
//	ns+net        + network namespace with loopback (the default)
//	session-net   ns+net through a session's shared namespace (its holder)
//	strict        + the copy-on-write workspace, applied after the run
//
// It reports the median in ms/op as well as the mean (ns/op).
func BenchmarkLayers(b *testing.B) {
	ws := b.TempDir()
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + ws, "TMPDIR=" + ws}
	run := func(b *testing.B, spec Spec, noNS bool) {
		if noNS {
			old := nsDisabled.Load()
			nsDisabled.Store(1)
			defer nsDisabled.Store(old)
		}
		var ds []time.Duration
		for i := 0; i < b.N; i++ {
			start := time.Now()
			cmd, h, err := Command(context.Background(), spec, "true", env, ws)
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			h.Started()
			if _, err := h.Applied(); err != nil {
				b.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				b.Fatal(err)
			}
			h.Close()
			ds = append(ds, time.Since(start))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms/op")
	}
	b.Run("bash", func(b *testing.B) {
		var ds []time.Duration
		for i := 0; i < b.N; i++ {
			start := time.Now()
			c := exec.Command("/bin/bash", "-p", "-c", "true")
			c.Env, c.Dir = env, ws
			if err := c.Run(); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(start))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms/op")
	})
	b.Run("off", func(b *testing.B) { run(b, Spec{Mode: Off}, false) })
	b.Run("helper", func(b *testing.B) { run(b, Spec{Network: true}, true) })
	b.Run("ns", func(b *testing.B) { run(b, Spec{Network: true}, false) })
	b.Run("ns-bash-init", func(b *testing.B) { run(b, Spec{Network: true, BashAsInit: true}, false) })
	b.Run("ns+net", func(b *testing.B) { run(b, Spec{}, false) })
	b.Run("session-net", func(b *testing.B) {
		// The session's namespace: the join process and the holder's
		// start of the helper instead of a clone from here.
		sn := NewSessionNet()
		defer sn.Close()
		run(b, Spec{SessionNet: sn}, false)
	})
	b.Run("strict", func(b *testing.B) {
		// Strict is required mode: HOME must lie outside the writable roots.
		home, err := os.MkdirTemp("/var/tmp", "sg-bench-home-")
		if err != nil {
			b.Skip(err)
		}
		defer os.RemoveAll(home)
		run(b, Spec{Mode: Strict, Home: home}, false)
	})
}
