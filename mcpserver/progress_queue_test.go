package mcpserver

import (
	"strconv"
	"testing"
)

// TestProgressQueueKeepsNewest: when the sender falls behind (a slow
// client, a loaded machine) and the queue is full, the lines that give
// way are the oldest: the newest, the ones the user waits for (the end
// of a build, "the-end"), are always queued, and every line is either
// queued or counted as skipped.
func TestProgressQueueKeepsNewest(t *testing.T) {
	p := &progress{wake: make(chan struct{}, 1)} // active, with no sender
	const total = 5*maxPendingLines + 7
	for i := 1; i <= total; i++ {
		p.push(strconv.Itoa(i))
	}
	p.push("the-end")
	if n := len(p.lines); n == 0 || n > maxPendingLines {
		t.Fatalf("%d lines queued, bound %d", n, maxPendingLines)
	}
	if last := p.lines[len(p.lines)-1]; last != "the-end" {
		t.Fatalf("the newest queued line is %q, not the last one pushed", last)
	}
	if prev := p.lines[len(p.lines)-2]; prev != strconv.Itoa(total) {
		t.Fatalf("the line before the last is %q, want %d", prev, total)
	}
	if got := len(p.lines) + p.dropped; got != total+1 {
		t.Fatalf("%d queued + %d skipped, want %d lines in all", len(p.lines), p.dropped, total+1)
	}
}
