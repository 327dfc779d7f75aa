//go:build linux

package main

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// On a terminal, a progress line appears once the command has run a
// while, and is erased before output and at the end; off a terminal
// there is none.
func TestProgressLine(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	var mu sync.Mutex
	var screen bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 4096)
		for {
			n, err := ptmx.Read(b)
			mu.Lock()
			screen.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	seen := func() string { mu.Lock(); defer mu.Unlock(); return screen.String() }
	defer func(a, e time.Duration) { progressAfter, progressEvery = a, e }(progressAfter, progressEvery)
	progressAfter, progressEvery = 50*time.Millisecond, 20*time.Millisecond

	var out bytes.Buffer
	l := newLiveOutput(&out, tty)
	io.WriteString(l.stdout, "built 3 packages\n")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(seen(), "of output so far") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(seen(), "shellguard: running") || !strings.Contains(seen(), "17 B of output so far") {
		t.Fatalf("no progress line on the terminal: %q", seen())
	}
	io.WriteString(l.stderr, "warning: x\n")
	l.close()
	tty.Close()
	<-done
	s := seen()
	if i := strings.LastIndex(s, "warning: x"); i < 0 || !strings.HasSuffix(s[:i], "\r\x1b[K") {
		t.Errorf("stderr output was not preceded by erasing the progress line: %q", s)
	}
	if !strings.HasSuffix(s, "\r\x1b[K") && !strings.HasSuffix(s, "warning: x\r\n") {
		t.Errorf("the progress line was left on the screen: %q", s)
	}
	if out.String() != "built 3 packages\n" {
		t.Errorf("stdout %q", out.String())
	}

	// Not a terminal: nothing but the output.
	var o2, e2 bytes.Buffer
	l2 := newLiveOutput(&o2, &e2)
	io.WriteString(l2.stderr, "x\n")
	time.Sleep(150 * time.Millisecond)
	l2.close()
	if e2.String() != "x\n" {
		t.Errorf("progress written to a non-terminal: %q", e2.String())
	}
}

// While a question is on the terminal there is no progress line; the
// clock starts when it has been answered.
func TestProgressLineWaitsForAnswer(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	var mu sync.Mutex
	var screen bytes.Buffer
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := ptmx.Read(b)
			mu.Lock()
			screen.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	seen := func() string { mu.Lock(); defer mu.Unlock(); return screen.String() }
	defer func(a, e time.Duration) { progressAfter, progressEvery = a, e }(progressAfter, progressEvery)
	progressAfter, progressEvery = 50*time.Millisecond, 10*time.Millisecond
	var out bytes.Buffer
	l := newLiveOutput(&out, tty)
	l.ask(true)
	time.Sleep(700 * time.Millisecond) // long enough that a clock not reset would say 1s
	if strings.Contains(seen(), "shellguard: running") {
		t.Fatalf("progress line drawn over a question: %q", seen())
	}
	l.ask(false)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(seen(), "shellguard: running") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	l.close()
	if !strings.Contains(seen(), "shellguard: running 0s") {
		t.Fatalf("no progress line after the answer, or the clock counted the question: %q", seen())
	}
}
