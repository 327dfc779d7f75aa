// Package terminal puts shellguard's questions to a person at a terminal:
// the verdict explained with carets under the words it is about, and an
// Approver that asks on the controlling terminal, offering to remember
// the answer for the workspace (the one the shellguard CLI uses).
package terminal

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shellguard/shellguard/policy"
)

// Explain prints v for command: the decision and, for each reason, the
// line of the command it is about with a caret line under the span (in
// terminal columns: wide characters take two, combining marks none;
// control characters are shown as '?', and a long line as a window around
// the span), then the policy's notes.
func Explain(w io.Writer, command string, v policy.Verdict) {
	src := command
	fmt.Fprintln(w, v.Decision)
	for _, r := range v.Reasons {
		fmt.Fprintf(w, "%s %s: %s\n", r.ID, r.Decision, r.Message)
		line, col, width := caretLine(src, r.Span.Start, r.Span.End)
		fmt.Fprintf(w, "    %s\n", line)
		fmt.Fprintf(w, "    %s%s\n", strings.Repeat(" ", col), strings.Repeat("^", width))
	}
	for _, s := range v.Warnings {
		fmt.Fprintln(w, "note:", s)
	}
}

// caretLine returns the display line holding byte offset start, the
// column of start in it and the caret width, in terminal columns
// (displayWidth); control characters are shown as '?'.
func caretLine(src string, start, end int) (string, int, int) {
	if start < 0 {
		start = 0
	}
	if start > len(src) {
		start = len(src)
	}
	if end < start {
		end = start
	}
	if end > len(src) {
		end = len(src)
	}
	ls := strings.LastIndexByte(src[:start], '\n') + 1
	le := strings.IndexByte(src[start:], '\n')
	if le < 0 {
		le = len(src)
	} else {
		le += start
	}
	clean := func(s string) string {
		var sb strings.Builder
		for _, r := range s {
			if r < 0x20 || r == 0x7f || r == utf8.RuneError || (r >= 0x80 && r <= 0x9f) || (r >= 0x2000 && r <= 0x206f) || r == 0xfeff || r == 0xa0 {
				sb.WriteByte('?')
			} else {
				sb.WriteRune(r)
			}
		}
		return sb.String()
	}
	// show a window of the line around the span, not a 100 KB line
	const before, after = 40, 60
	e := end
	if e > le {
		e = le
	}
	if e-start > 80 {
		e = start + 80
		for e > start && !utf8.RuneStart(src[e]) {
			e--
		}
	}
	from, prefix := ls, ""
	if start-ls > before {
		from, prefix = start-before, "…"
		for from < start && !utf8.RuneStart(src[from]) {
			from++
		}
	}
	to, suffix := le, ""
	if le-e > after {
		to, suffix = e+after, "…"
		for to > e && !utf8.RuneStart(src[to]) {
			to--
		}
	}
	line := prefix + clean(src[from:to]) + suffix
	col := displayWidth(prefix) + displayWidth(src[from:start])
	width := displayWidth(src[start:e])
	if width == 0 {
		width = 1
	}
	return line, col, width
}

// displayWidth is how many terminal columns s takes: 2 for wide and
// fullwidth characters (CJK, Hangul, fullwidth forms, most emoji), 0 for
// combining marks and zero-width characters, 1 otherwise (a control
// character is shown as '?').
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r == 0x200b || r == 0x200c || r == 0x200d || r == 0xfeff:
			// zero-width, but shown as '?' by caretLine's clean
			n++
		case unicode.In(r, unicode.Mn, unicode.Me):
		case isWide(r):
			n += 2
		default:
			n++
		}
	}
	return n
}

// wideRanges are the East Asian Wide and Fullwidth blocks and the emoji
// blocks terminals draw two columns wide.
var wideRanges = [][2]rune{
	{0x1100, 0x115f}, {0x2e80, 0x303e}, {0x3041, 0x33ff}, {0x3400, 0x4dbf}, {0x4e00, 0x9fff},
	{0xa000, 0xa4cf}, {0xac00, 0xd7a3}, {0xf900, 0xfaff}, {0xfe30, 0xfe4f}, {0xff00, 0xff60},
	{0xffe0, 0xffe6}, {0x1f300, 0x1f64f}, {0x1f900, 0x1f9ff}, {0x20000, 0x2fffd}, {0x30000, 0x3fffd},
}

func isWide(r rune) bool {
	for _, w := range wideRanges {
		if r >= w[0] && r <= w[1] {
			return true
		}
	}
	return false
}
