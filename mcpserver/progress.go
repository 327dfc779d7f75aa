package mcpserver

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of live output. A command that prints faster than the client
// reads loses its older lines from the live view (never from the result);
// the loss is counted and reported in the next notification.
const (
	maxPendingLines = 1000
	maxLineBytes    = 4096
	maxMessageBytes = 16 << 10
	// minInterval spaces notifications: a flood sends a few a second,
	// each with the newest lines, not one per line.
	minInterval      = 250 * time.Millisecond
	finalFlushBudget = 2 * time.Second
	// resultGap separates the last notification from the result. The npm
	// client handles a notification in a microtask but a response at
	// once, and drops progress for a request that has been answered: a
	// notification read in the same chunk as the result is lost.
	resultGap = 15 * time.Millisecond
)

// progress sends output lines as MCP progress notifications. Writers
// never block on the client: lines queue (bounded) and one goroutine
// sends them, at most one notification per minInterval, coalescing
// whatever queued meanwhile.
type progress struct {
	ctx     context.Context
	ss      *mcp.ServerSession
	token   any
	pattern *regexp.Regexp

	mu      sync.Mutex
	writers []*lineWriter
	lines   []string
	dropped int
	n       float64
	closed  bool
	last    time.Time // when the last notification was sent

	wake    chan struct{}
	flushed chan chan struct{}
	done    chan struct{}
	exited  chan struct{}
}

func newProgress(ctx context.Context, ss *mcp.ServerSession, token any, pattern *regexp.Regexp) *progress {
	p := &progress{ctx: ctx, ss: ss, token: token, pattern: pattern}
	if token == nil || ss == nil {
		return p // inactive: the client did not ask for progress
	}
	p.wake = make(chan struct{}, 1)
	p.flushed = make(chan chan struct{})
	p.done = make(chan struct{})
	p.exited = make(chan struct{})
	go p.loop()
	return p
}

func (p *progress) active() bool { return p.wake != nil }

// writer returns an io.Writer whose lines (prefixed) become notifications.
// It returns nil when progress is inactive, so that nothing is captured
// twice for no one.
func (p *progress) writer(prefix string) io.Writer {
	if !p.active() {
		return nil
	}
	w := &lineWriter{p: p, prefix: prefix}
	p.mu.Lock()
	p.writers = append(p.writers, w)
	p.mu.Unlock()
	return w
}

// line queues one line if it matches the pattern.
func (p *progress) line(l string) {
	if p.pattern != nil && !p.pattern.MatchString(l) {
		return
	}
	p.push(l)
}

// push queues one line.
func (p *progress) push(l string) {
	if !p.active() {
		return
	}
	if len(l) > maxLineBytes {
		l = truncUTF8(l, maxLineBytes) + "…"
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	if len(p.lines) >= maxPendingLines {
		// The sender is behind: the oldest half gives way (counted),
		// never the newest lines, which are the ones the user waits for.
		n := len(p.lines) / 2
		p.dropped += n
		p.lines = append(p.lines[:0], p.lines[n:]...)
	}
	p.lines = append(p.lines, l)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// flush waits until every queued line was sent (or the budget passed).
func (p *progress) flush() {
	if !p.active() {
		return
	}
	p.mu.Lock()
	ws := p.writers
	p.mu.Unlock()
	for _, w := range ws {
		w.mu.Lock()
		if len(w.partial) > 0 {
			w.emit()
		}
		w.mu.Unlock()
	}
	ack := make(chan struct{})
	select {
	case p.flushed <- ack:
		select {
		case <-ack:
		case <-time.After(finalFlushBudget):
		}
	case <-p.exited:
	case <-time.After(finalFlushBudget):
	}
}

// close stops the sender after a final flush.
func (p *progress) close() {
	if !p.active() {
		return
	}
	p.flush()
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	close(p.done)
	<-p.exited
	// What queued after a flush that ran out of time (a slow client
	// holding up an earlier notification) still goes out, last, before
	// the result: the final lines are the ones the user waits for.
	p.send()
	p.mu.Lock()
	last := p.last
	p.mu.Unlock()
	if d := resultGap - time.Since(last); d > 0 && p.ctx.Err() == nil {
		time.Sleep(d)
	}
}

func (p *progress) loop() {
	defer close(p.exited)
	for {
		select {
		case <-p.wake:
			// At most one notification per minInterval: what queues
			// meanwhile goes out together.
			p.mu.Lock()
			wait := minInterval - time.Since(p.last)
			p.mu.Unlock()
			if wait > 0 {
				select {
				case <-time.After(wait):
				case ack := <-p.flushed:
					p.send()
					close(ack)
					continue
				case <-p.done:
					return
				}
			}
			p.send()
		case ack := <-p.flushed:
			p.send()
			close(ack)
		case <-p.done:
			return
		}
	}
}

// send sends what queued as one notification: the newest lines that fit
// in maxMessageBytes, after a count of those skipped.
func (p *progress) send() {
	p.mu.Lock()
	if len(p.lines) == 0 && p.dropped == 0 {
		p.mu.Unlock()
		return
	}
	size, i := 0, len(p.lines)
	for i > 0 && (size == 0 || size+len(p.lines[i-1])+1 <= maxMessageBytes) {
		i--
		size += len(p.lines[i]) + 1
	}
	skipped := p.dropped + i
	var b strings.Builder
	if skipped > 0 {
		b.WriteString("[shellguard: " + strconv.Itoa(skipped) + " lines of live output skipped; the result has the output]")
	}
	for _, l := range p.lines[i:] {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	p.lines, p.dropped = p.lines[:0], 0
	p.n++
	n := p.n
	p.last = time.Now()
	p.mu.Unlock()
	if p.ctx.Err() != nil {
		return // the call is over for the client
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), finalFlushBudget)
	p.ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: n, Message: b.String()})
	cancel()
	p.mu.Lock()
	p.last = time.Now()
	p.mu.Unlock()
}

type lineWriter struct {
	p       *progress
	prefix  string
	mu      sync.Mutex
	partial []byte
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			w.partial = append(w.partial, b...)
			if len(w.partial) >= maxLineBytes {
				w.emit()
			}
			break
		}
		w.partial = append(w.partial, b[:i]...)
		w.emit()
		b = b[i+1:]
	}
	return n, nil
}

func (w *lineWriter) emit() {
	l := strings.ToValidUTF8(string(bytes.TrimSuffix(w.partial, []byte("\r"))), "\uFFFD")
	w.partial = w.partial[:0]
	w.p.line(w.prefix + l)
}

func truncUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
