package shellguard

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// Terminal control sequences are neutralised in the result and in the live
// streams alike, unless KeepEscapes.
func TestOutputEscapes(t *testing.T) {
	cmd := `printf 'a\033]52;c;Y2xpcA==\007b\033[1;32mok\033[0m\033[3A\033[2Kc\n'; printf 'e\033]0;title\033\\rr\n' >&2`
	for _, keep := range []bool{false, true} {
		g, err := New(Config{Workspace: t.TempDir(), KeepEscapes: keep})
		if err != nil {
			t.Fatal(err)
		}
		var out, errw lockedBuffer
		res, err := g.Run(context.Background(), Request{Command: cmd, Stdout: &out, Stderr: &errw})
		if err != nil {
			t.Fatal(err)
		}
		wantOut, wantErr := "ab\x1b[1;32mok\x1b[0mc\n", "err\n"
		if keep {
			wantOut, wantErr = "a\x1b]52;c;Y2xpcA==\x07b\x1b[1;32mok\x1b[0m\x1b[3A\x1b[2Kc\n", "e\x1b]0;title\x1b\\rr\n"
		}
		if res.Stdout != wantOut || res.Stderr != wantErr || out.String() != wantOut || errw.String() != wantErr {
			t.Errorf("keep=%v: result %q %q, live %q %q", keep, res.Stdout, res.Stderr, out.String(), errw.String())
		}
		g.Close()
	}
}

// Output the escape filter removes still counts against the total output
// budget: an endless OSC string is stopped like any flood.
func TestRemovedOutputCountsAgainstBudget(t *testing.T) {
	g, err := New(Config{Workspace: t.TempDir(), MaxTotalOutput: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	res, err := g.Run(context.Background(), Request{Command: `printf '\033]52;c;'; while :; do printf '%s' AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA; done`})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OutputLimitExceeded || res.TimedOut || strings.Contains(res.Stdout, "AAAA") {
		t.Fatalf("output_limit_exceeded=%v timed_out=%v stdout=%q", res.OutputLimitExceeded, res.TimedOut, res.Stdout)
	}
}
