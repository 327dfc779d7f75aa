//go:build linux

package sandbox

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestEndedBeforeExit: go-init reports bash's status on the control
// channel before its own exit, and only once every other process of the
// command (one ignoring SIGTERM and holding the output pipe, one in a
// session of its own) has been killed and reaped — for a cold start and a
// warm one. A helper that is killed reports nothing, and its exit status
// stands.
func TestEndedBeforeExit(t *testing.T) {
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			a := f.assertActive(t, Spec{})
			need(t, a, LayerPidNS)
			if warm {
				warmPool(t, f, Spec{}, 1)
			}
			marker := "sgmark" + strconv.FormatInt(time.Now().UnixNano(), 36)
			var called, ok bool
			var code int
			var left []int
			f.onEnded = func(c int, o bool) {
				called, code, ok = true, c, o
				// The helper itself, still exiting, carries the script
				// in its argv: every other process must be gone.
				for _, pid := range markerProcs(marker) {
					if pid != f.helperPid {
						left = append(left, pid)
					}
				}
			}
			script := strings.ReplaceAll(`(trap '' TERM HUP; sleep 300; : M) &
setsid sh -c 'sleep 300; : M' >/dev/null 2>&1 </dev/null &
sleep 0.2; echo out; exit 7`, "M", marker)
			r := f.run(t, Spec{}, script, 20*time.Second)
			if warm && !f.lastWarm {
				t.Fatal("the command did not run warm")
			}
			if !called || !ok || code != 7 {
				t.Fatalf("Ended: called %v, ok %v, code %d; want the status 7 reported (output %q)", called, ok, code, r.out)
			}
			if len(left) > 0 {
				killAll(left)
				t.Fatalf("%d processes of the command were alive when it was reported ended", len(left))
			}
			if r.code != 7 || !strings.Contains(r.out, "out") {
				t.Fatalf("exit %d, output %q", r.code, r.out)
			}

			// Killed from outside (the run's deadline kills the
			// helper's group): nothing is reported, the helper's own
			// status (SIGKILL) is what counts.
			if warm {
				f.pool.waitReady(20 * time.Second)
			}
			called, ok = false, false
			f.onEnded = func(c int, o bool) { called, code, ok = true, c, o }
			left = nil
			r = f.run(t, Spec{}, `sleep 30`, time.Second)
			if !called || ok {
				t.Fatalf("Ended after the helper was killed: called %v, ok %v, code %d", called, ok, code)
			}
			if r.code != -1 && r.code != 137 {
				t.Fatalf("exit %d, want the helper's death by SIGKILL", r.code)
			}
		})
	}
}
