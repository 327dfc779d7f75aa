//go:build linux

package shellguard

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/internal/testenv"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// forkHold fills the run's process limit with sleeping processes and
// holds it until killed: an inner bash forks until the limit stops it
// (and exits), and the outer one becomes a sleep itself (exec: no fork).
const forkHold = "bash -c 'for i in $(seq 1 %d); do sleep %s & done' 2>/dev/null; exec sleep %[2]s"

// overLimit tries to start more sleeping processes than the limit,
// printing the count after each (bash gives up, and exits, when it still
// cannot fork after its retries).
const overLimit = "for i in $(seq 1 %d); do sleep 600 & echo $i; done 2>/dev/null"

// One session holding its process limit (RLIMIT_NPROC, and pids.max
// where a cgroup per run exists) must not stop another session's
// commands from starting: each run is accounted on its own (a user
// namespace per run, so RLIMIT_NPROC counts that run's processes; a
// cgroup per run where the host delegates one). The limit is lowered to
// keep the test quick; the accounting does not depend on its value.
func TestProcessLimitIsPerRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a few hundred processes")
	}
	scratch, err := os.MkdirTemp("/var/tmp", "sg-nproc-test-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	ws := filepath.Join(scratch, "ws")
	outside := filepath.Join(scratch, "outside")
	os.Mkdir(ws, 0o755)
	os.Mkdir(outside, 0o755)
	const limit = 256
	g, err := New(Config{Workspace: ws, Sandbox: &sandbox.Spec{Limits: sandbox.Limits{Procs: limit}},
		Approver: func(context.Context, Request, policy.Verdict) (bool, error) { return true, nil },
		Environ:  []string{"PATH=" + os.Getenv("PATH"), "HOME=" + scratch}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx := context.Background()
	// The fork bomb runs only in an active sandbox with its own pid
	// namespace (so that killing the task ends every process of it).
	probe, _ := g.Run(ctx, Request{Command: "touch " + filepath.Join(outside, "canary")})
	if _, err := os.Stat(filepath.Join(outside, "canary")); err == nil {
		t.Fatal("the sandbox let a command write outside the workspace: not running the fork test")
	}
	if probe.Sandbox == nil || !probe.Sandbox.Has(sandbox.LayerPidNS) || !probe.Sandbox.Has(sandbox.LayerUserNS) {
		testenv.SkipOrFail(t, "needs the user and pid namespaces: %v", probe.Sandbox)
	}
	// The limit holds inside one run: more processes than it allows do
	// not all start (go-init ends those that did when bash exits).
	r, _ := g.Run(ctx, Request{Command: fmt.Sprintf(overLimit, limit+50)})
	lines := strings.Fields(r.Stdout)
	if len(lines) == 0 || len(lines) >= limit+50 {
		t.Fatalf("the process limit did not hold in one run: %+v", r)
	}
	// The hog ends up holding all but a few of its tasks (go-init's
	// threads count too): were the count shared by every run of the
	// mapped uid, the other session could not start a process.
	const n = limit - 24
	marker := fmt.Sprintf("600.%06d", rand.IntN(1000000))
	hog := g.NewSession(SessionOptions{})
	defer hog.Close()
	task, err := hog.Start(ctx, Request{Command: fmt.Sprintf(forkHold, limit+50, marker)}, TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer task.Kill()
	deadline := time.Now().Add(300 * time.Second) // catches a hang only
	for len(testenv.ProcessesWithArgs("sleep", marker)) < n {
		select {
		case <-task.Done():
			t.Fatalf("the hog ended early: %+v", task.Status(ReadOptions{}))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d processes started", len(testenv.ProcessesWithArgs("sleep", marker)), n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Another session's commands start, and can themselves start
	// processes.
	other := g.NewSession(SessionOptions{})
	defer other.Close()
	for i := 0; i < 3; i++ {
		r, err := other.Run(ctx, Request{Command: "(echo sub) & wait; sh -c 'echo ok'"})
		if err != nil || r.ExitCode == nil || *r.ExitCode != 0 || r.Stdout != "sub\nok\n" {
			t.Fatalf("another session's command failed while one session holds %d of its %d processes: %v %+v", n, limit, err, r)
		}
	}
	task.Kill()
	for len(testenv.ProcessesWithArgs("sleep", marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the hog's processes outlived its task")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
