// Package capture keeps the output of a command in bounded memory.
//
// A Buffer holds the first half of its capacity (the head) and a ring of the
// last half (the tail); whatever falls between is counted and dropped.
// Rendering cuts on UTF-8 boundaries, replaces invalid sequences and marks
// the dropped middle. A Budget shared by several buffers caps the total bytes
// a command may write before it is stopped.
//
// The package does not read pipes or manage processes; it is the io.Writer
// at the end of them.
package capture

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// DefaultMax is the default capacity of one stream's buffer.
const DefaultMax = 64 << 10

// Budget counts bytes across buffers and calls OnExceed once when the
// total passes Max. A nil *Budget never triggers.
type Budget struct {
	Max      int64
	OnExceed func()

	total    atomic.Int64
	exceeded atomic.Bool
}

// add records n bytes and reports whether the budget is now exceeded.
func (b *Budget) add(n int) bool {
	if b == nil || b.Max <= 0 {
		return false
	}
	if b.total.Add(int64(n)) <= b.Max {
		return false
	}
	if b.exceeded.CompareAndSwap(false, true) && b.OnExceed != nil {
		b.OnExceed()
	}
	return true
}

// Add records n bytes and reports whether the budget is now exceeded.
func (b *Budget) Add(n int) bool { return b.add(n) }

// Exceeded reports whether the budget was exceeded.
func (b *Budget) Exceeded() bool { return b != nil && b.exceeded.Load() }

// Total returns the bytes counted so far.
func (b *Budget) Total() int64 {
	if b == nil {
		return 0
	}
	return b.total.Load()
}

// Buffer is a head+tail writer. It is safe for concurrent use.
type Buffer struct {
	mu      sync.Mutex
	max     int
	head    []byte
	tail    []byte // ring storage, len == max-max/2 once allocated
	tailPos int    // next write position in tail
	tailLen int    // valid bytes in tail
	total   int64
	budget  *Budget
}

// New returns a Buffer that keeps at most max bytes (DefaultMax if max <= 0),
// counting every write against budget (which may be nil).
func New(max int, budget *Budget) *Buffer {
	if max <= 0 {
		max = DefaultMax
	}
	if max < 8 {
		max = 8
	}
	return &Buffer{max: max, budget: budget}
}

// Write always accepts all of p, so a command is never blocked by capture.
// Bytes written after the budget is exceeded are counted but not kept.
func (b *Buffer) Write(p []byte) (int, error) {
	n := len(p)
	over := b.budget.add(n)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total += int64(n)
	if over {
		return n, nil
	}
	headCap := b.max / 2
	if len(b.head) < headCap {
		k := min(headCap-len(b.head), len(p))
		if b.head == nil {
			b.head = make([]byte, 0, min(headCap, max(k, 512)))
		}
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	tailCap := b.max - headCap
	if b.tail == nil {
		b.tail = make([]byte, tailCap)
	}
	if len(p) >= tailCap {
		copy(b.tail, p[len(p)-tailCap:])
		b.tailPos, b.tailLen = 0, tailCap
		return n, nil
	}
	k := copy(b.tail[b.tailPos:], p)
	if k < len(p) {
		copy(b.tail, p[k:])
	}
	b.tailPos = (b.tailPos + len(p)) % tailCap
	b.tailLen = min(b.tailLen+len(p), tailCap)
	return n, nil
}

// Total returns the number of bytes written.
func (b *Buffer) Total() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}

// Bytes returns the kept head and tail (raw) and the number of bytes that
// were written but are in neither.
func (b *Buffer) Bytes() (head, tail []byte, dropped int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	head = bytes.Clone(b.head)
	if b.tailLen > 0 {
		tail = make([]byte, 0, b.tailLen)
		start := (b.tailPos - b.tailLen + len(b.tail)) % len(b.tail)
		if start+b.tailLen <= len(b.tail) {
			tail = append(tail, b.tail[start:start+b.tailLen]...)
		} else {
			tail = append(tail, b.tail[start:]...)
			tail = append(tail, b.tail[:b.tailPos]...)
		}
	}
	dropped = b.total - int64(len(head)) - int64(len(tail))
	return head, tail, dropped
}

// Rendered is a buffer turned into text.
type Rendered struct {
	Text    string
	Dropped int64 // bytes of output not present in Text
	Binary  bool  // the output looked binary and was summarised
}

// Render returns the output as valid UTF-8 text. When bytes were dropped,
// the head is cut back to a character boundary, the tail is cut forward to
// one, and a marker naming the count of dropped bytes joins them. Output
// that looks binary is summarised instead of returned.
func (b *Buffer) Render() Rendered {
	head, tail, dropped := b.Bytes()
	total := int64(len(head)+len(tail)) + dropped
	if looksBinary(head) {
		return Rendered{
			Text:    fmt.Sprintf("[binary output: %d bytes not shown]", total),
			Dropped: total,
			Binary:  true,
		}
	}
	if dropped == 0 && len(tail) == 0 {
		return Rendered{Text: toValid(head)}
	}
	if dropped == 0 {
		// Head and tail are contiguous: no cut was made.
		return Rendered{Text: toValid(append(head, tail...))}
	}
	h := trimIncompleteEnd(head)
	t := trimIncompleteStart(tail)
	dropped += int64(len(head)-len(h)) + int64(len(tail)-len(t))
	var sb strings.Builder
	sb.Grow(len(h) + len(t) + 64)
	sb.WriteString(toValid(h))
	if len(h) > 0 && h[len(h)-1] != '\n' {
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "[... %d bytes dropped ...]\n", dropped)
	sb.WriteString(toValid(t))
	return Rendered{Text: sb.String(), Dropped: dropped}
}

func toValid(p []byte) string {
	if utf8.Valid(p) {
		return string(p)
	}
	return strings.ToValidUTF8(string(p), "\uFFFD")
}

// trimIncompleteEnd drops a trailing, incomplete UTF-8 sequence.
func trimIncompleteEnd(p []byte) []byte {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				return p[:i]
			}
			return p
		}
	}
	return p
}

// trimIncompleteStart drops leading continuation bytes of a sequence whose
// start was cut off.
func trimIncompleteStart(p []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(p); i++ {
		if utf8.RuneStart(p[i]) {
			return p[i:]
		}
	}
	return p
}

// looksBinary reports whether a sample of output is binary rather than
// text: a NUL byte within the first bytes together with many control or
// invalid bytes. Text with stray NULs (find -print0) stays text.
func looksBinary(p []byte) bool {
	if len(p) > 4096 {
		p = p[:4096]
	}
	n := len(p)
	if n == 0 {
		return false
	}
	bad := 0
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		switch {
		case r == utf8.RuneError && size == 1:
			bad++
		case r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != '\f' && r != '\b' && r != 0x1b && r != 0:
			bad++
		case r == 0:
			bad++
		}
		p = p[size:]
	}
	return bad >= 4 && bad*10 > n // more than 10% of the sample
}
