package shellguard

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/shellguard/shellguard/internal/capture"
)

// message makes a text of shellguard's own that may quote names the
// command chose (file and directory names, git keys: the sandbox's
// post-run notes and warnings, errors) safe to show, the way the command's
// output is: terminal control sequences removed by the same escape filter,
// secrets replaced by the same redactor. The control characters the filter
// keeps in output (line breaks, carriage return, backspace, bell), a kept
// colour sequence and bytes that are not UTF-8 are then written as \xNN,
// so that a name can neither act on a terminal nor forge or hide a line.
// It applies with KeepEscapes too, which is about the command's output.
func (g *Guard) message(s string) string {
	if g.clean.has(s) {
		return s
	}
	out := g.filterMessage(s)
	if out == s {
		g.clean.add(s)
	}
	return out
}

// filterMessage is message without the set of clean texts.
func (g *Guard) filterMessage(s string) string {
	if !printable(s) {
		var b bytes.Buffer
		f := capture.NewEscapeFilter(&b)
		f.Write([]byte(s))
		f.Close()
		s = b.String()
	}
	s = g.redactor().String(s)
	if printable(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// printable reports that s is printable ASCII (tabs too): nothing in it
// can act on a terminal.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\t') || c >= 0x7f {
			return false
		}
	}
	return true
}

// cleanTexts is the set of texts message has passed on unchanged: nothing
// to escape, nothing to redact. The sandbox's report repeats the same few
// dozen texts on every call (each layer's detail, reason and fix), and
// filtering them again took a sixth of a millisecond a call. Only a text
// that came out as it went in is kept, so the set holds nothing the
// redactor would hide; the redactor and the filter do not change once the
// Guard is built, so a text clean once is clean for good. The set is
// bounded: texts longer than maxCleanText are not kept, and it is emptied
// when it reaches maxCleanTexts.
type cleanTexts struct {
	mu sync.RWMutex
	m  map[string]struct{}
}

const (
	maxCleanText  = 256
	maxCleanTexts = 1024
)

func (c *cleanTexts) has(s string) bool {
	if s == "" {
		return true
	}
	if len(s) > maxCleanText {
		return false
	}
	c.mu.RLock()
	_, ok := c.m[s]
	c.mu.RUnlock()
	return ok
}

func (c *cleanTexts) add(s string) {
	if len(s) > maxCleanText {
		return
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCleanTexts {
		c.m = make(map[string]struct{})
	}
	c.m[strings.Clone(s)] = struct{}{} // not a view into a larger buffer
	c.mu.Unlock()
}
