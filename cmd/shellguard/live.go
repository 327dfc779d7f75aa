package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// liveOutput passes a running command's output (already redacted by the
// library) straight to shellguard's stdout and stderr, and, when stderr is
// a terminal and the command runs longer than progressAfter, keeps a
// progress line at the bottom of it: elapsed time and bytes so far. The
// progress line is erased before any output is written and drawn again
// only after a complete line, so it never mixes into the output.
type liveOutput struct {
	stdout, stderr io.Writer // what the library writes to

	mu       sync.Mutex
	term     io.Writer // stderr when it is a terminal, else nil
	start    time.Time
	bytes    int64
	shown    bool // the progress line is on the screen
	midLine  bool // the last output byte on the terminal was not a newline
	asking   bool // a question is on the terminal: no progress line
	stop     chan struct{}
	finished chan struct{}
}

// When the progress line appears and how often it is redrawn (variables
// for tests).
var (
	progressAfter = 3 * time.Second
	progressEvery = time.Second
)

func newLiveOutput(stdout, stderr io.Writer) *liveOutput {
	l := &liveOutput{start: time.Now(), stop: make(chan struct{}), finished: make(chan struct{})}
	if f, ok := stderr.(*os.File); ok && isTerminal(f) {
		l.term = stderr
	}
	// Both streams on the same terminal share its line state.
	sameTerm := l.term != nil && sameFile(stdout, stderr)
	l.stdout = &liveStream{l: l, w: stdout, onTerm: sameTerm}
	l.stderr = &liveStream{l: l, w: stderr, onTerm: l.term != nil}
	if l.term != nil {
		go l.progress()
	} else {
		close(l.finished)
	}
	return l
}

// ask keeps the progress line away while a question is on the terminal;
// when it has been answered the clock starts again, from the command's
// start.
func (l *liveOutput) ask(on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if on {
		l.erase()
	} else {
		l.start = time.Now()
	}
	l.asking = on
}

// close stops the progress line and erases it.
func (l *liveOutput) close() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	<-l.finished
	l.mu.Lock()
	defer l.mu.Unlock()
	l.erase()
}

func (l *liveOutput) progress() {
	defer close(l.finished)
	t := time.NewTimer(progressAfter)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		if !l.midLine && !l.asking && time.Since(l.start) >= progressAfter {
			fmt.Fprintf(l.term, "\r\x1b[Kshellguard: running %s, %s of output so far", time.Since(l.start).Round(time.Second), byteCount(l.bytes))
			l.shown = true
		}
		l.mu.Unlock()
		t.Reset(progressEvery)
	}
}

// erase removes the progress line; l.mu is held.
func (l *liveOutput) erase() {
	if l.shown {
		io.WriteString(l.term, "\r\x1b[K")
		l.shown = false
	}
}

type liveStream struct {
	l      *liveOutput
	w      io.Writer
	onTerm bool // writes land on the terminal that shows the progress line
}

func (s *liveStream) Write(p []byte) (int, error) {
	l := s.l
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bytes += int64(len(p))
	if s.onTerm {
		l.erase()
		if len(p) > 0 {
			l.midLine = p[len(p)-1] != '\n'
		}
	}
	return s.w.Write(p)
}

func byteCount(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}
