package shellguard

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/internal/hostile"
	"github.com/shellguard/shellguard/policy"
)

// Generous bounds that only catch a hang or an explosion: one check of
// a hostile text must end within hostileTime and allocate at most
// hostileAlloc bytes in all. The largest texts (up to 1 MiB) take about a
// second of CPU, but tens of seconds of wall time under -race on a
// loaded machine.
const (
	hostileTime  = 60 * time.Second
	hostileAlloc = 1 << 30
)

// TestCheckHostile checks every generated hostile text (deep nesting of
// each construct, wide lists, long words, many here-documents) and the
// reported ones: each is answered, ask or deny and never allow, within a
// bounded time and allocation, and never panics. The texts are only
// analysed.
func TestCheckHostile(t *testing.T) {
	g, err := New(Config{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	inputs := append(hostile.Reported(), hostile.Family(analyze.MaxInput)...)
	for _, in := range inputs {
		t.Run(in.Name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			done := make(chan policy.Verdict, 1)
			go func() { done <- g.Check(context.Background(), Request{Command: in.Src}) }()
			var v policy.Verdict
			select {
			case v = <-done:
			case <-time.After(hostileTime):
				t.Fatalf("%d bytes: no verdict within %s", len(in.Src), hostileTime)
			}
			runtime.ReadMemStats(&after)
			if a := after.TotalAlloc - before.TotalAlloc; a > hostileAlloc {
				t.Errorf("%d bytes: allocated %d MiB, over the %d MiB bound", len(in.Src), a>>20, hostileAlloc>>20)
			}
			t.Logf("%d bytes: %s in %s, %d KiB allocated", len(in.Src), v.Decision, time.Since(start).Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>10)
			if v.Decision == policy.Allow && (in.Deep || len(in.Src) > policy.MaxCommandSize) {
				t.Errorf("%d bytes: allowed %v", len(in.Src), v.Reasons)
			}
		})
	}
}

// TestCheckCancelled: a check whose caller has gone asks, naming the
// cancellation, and does not run to its end.
func TestCheckCancelled(t *testing.T) {
	g, err := New(Config{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v := g.Check(ctx, Request{Command: "ls"})
	if v.Decision != policy.Ask || !hasReason(v, "SG1017") {
		t.Fatalf("cancelled check: %s %v, want ask with SG1017", v.Decision, v.Reasons)
	}
}

func hasReason(v policy.Verdict, id string) bool {
	for _, r := range v.Reasons {
		if r.ID == id {
			return true
		}
	}
	return false
}
