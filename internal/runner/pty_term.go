package runner

import (
	"strconv"
	"unicode/utf8"
)

// maxTermLine bounds the unfinished line a terminal filter holds.
const maxTermLine = 64 << 10

// termFilter turns what a program writes to a terminal into the text the
// terminal would show, one line at a time: "\r\n" ends a line, a lone "\r"
// returns to the start of the line so later text overwrites it (progress
// bars), backspace moves left, "ESC [ K" erases, cursor moves within the
// line are followed, and every other escape sequence (colours, titles,
// bracketed paste, ...) and control character is dropped. It does not
// emulate a screen: cursor moves to other lines are ignored.
type termFilter struct {
	line    []rune
	col     int
	state   int // 0 text, 1 after ESC, 2 CSI, 3 string (OSC, DCS...), 4 string after ESC, 5 one more byte
	params  []byte
	partial []byte // an incomplete UTF-8 sequence
	emit    func([]byte)
}

// write feeds p through the filter; emit receives each finished line.
func (f *termFilter) write(p []byte) {
	if len(f.partial) > 0 {
		p = append(f.partial, p...)
		f.partial = nil
	}
	for len(p) > 0 {
		c := p[0]
		if f.state != 0 || c < utf8.RuneSelf {
			f.byte(c)
			p = p[1:]
			continue
		}
		if !utf8.FullRune(p) {
			f.partial = append([]byte(nil), p...)
			return
		}
		r, n := utf8.DecodeRune(p)
		f.put(r)
		p = p[n:]
	}
}

func (f *termFilter) byte(c byte) {
	switch f.state {
	case 1: // after ESC
		switch c {
		case '[':
			f.state, f.params = 2, f.params[:0]
		case ']', 'P', 'X', '^', '_':
			f.state = 3
		case '(', ')', '*', '+', '#', '%':
			f.state = 5
		default:
			f.state = 0
		}
		return
	case 2: // CSI parameters until the final byte
		if c >= 0x40 && c <= 0x7e {
			f.state = 0
			f.csi(c)
		} else if len(f.params) < 32 {
			f.params = append(f.params, c)
		}
		return
	case 3:
		switch c {
		case 0x07:
			f.state = 0
		case 0x1b:
			f.state = 4
		}
		return
	case 4:
		f.state = 0
		if c != '\\' {
			f.state = 3
		}
		return
	case 5:
		f.state = 0
		return
	}
	switch c {
	case 0x1b:
		f.state = 1
	case '\n':
		f.flush()
	case '\r':
		f.col = 0
	case '\b':
		if f.col > 0 {
			f.col--
		}
	case '\t':
		f.put('\t')
	default:
		if c >= 0x20 && c != 0x7f {
			f.put(rune(c))
		}
	}
}

func (f *termFilter) csi(final byte) {
	n, err := strconv.Atoi(string(f.params))
	if err != nil {
		n = 0
	}
	switch final {
	case 'K':
		switch n {
		case 0:
			f.line = f.line[:min(f.col, len(f.line))]
		case 1:
			for i := 0; i < f.col && i < len(f.line); i++ {
				f.line[i] = ' '
			}
		case 2:
			f.line = f.line[:0]
		}
	case 'C':
		f.col += max(n, 1)
	case 'D':
		f.col = max(f.col-max(n, 1), 0)
	case 'G':
		f.col = max(n-1, 0)
	}
	f.col = min(f.col, maxTermLine)
}

func (f *termFilter) put(r rune) {
	for len(f.line) < f.col {
		f.line = append(f.line, ' ')
	}
	if f.col < len(f.line) {
		f.line[f.col] = r
	} else {
		f.line = append(f.line, r)
	}
	f.col++
	if len(f.line) >= maxTermLine {
		f.flush()
	}
}

func (f *termFilter) flush() {
	b := append([]byte(string(f.line)), '\n')
	f.line, f.col = f.line[:0], 0
	f.emit(b)
}

// pending returns the unfinished line as it is shown now (e.g. a prompt).
func (f *termFilter) pending() string { return string(f.line) }
