package capture

import (
	"encoding/binary"
	"io"
)

// EscapeFilter removes terminal control sequences that act on the
// terminal rather than colour the text, from a stream of output on its way
// to a person's terminal or a model: OSC (window titles, hyperlinks, the
// OSC 52 clipboard), DCS, SOS, PM and APC strings, every CSI sequence but
// SGR (colours and text attributes, kept), and the other ESC sequences
// (cursor save/restore, index, reset, charset switches). C1 controls are
// recognised in their 7-bit, raw 8-bit and UTF-8 forms. Text, newlines,
// tabs, carriage returns and backspaces pass unchanged.
//
// It streams: a sequence split across writes is recognised, and only a
// CSI sequence still being read (at most maxCSI bytes) is held back. An
// unterminated string sequence discards output until its end, as a
// terminal would. It is not safe for concurrent use.
type EscapeFilter struct {
	w       io.Writer
	st      escState
	seq     []byte // the CSI sequence being read (kept if it turns out to be SGR)
	need    int    // UTF-8 continuation bytes still expected in ground state
	lead    bool   // a 0xC2 lead byte is held: the next byte may make it a C1 control
	strLead bool   // in a string: a 0xC2 was seen (C2 9C is ST)
	out     []byte
	removed int
	err     error
}

type escState uint8

const (
	stGround    escState = iota
	stEsc                // after ESC
	stEscInter           // ESC and intermediate bytes
	stCSI                // reading a CSI sequence
	stCSIIgnore          // discarding a CSI sequence to its final byte
	stString             // discarding an OSC/DCS/SOS/PM/APC string
	stStringEsc          // ESC inside a string: ST if '\\' follows
)

// maxCSI bounds a CSI sequence kept in memory while its final byte is
// awaited; a longer one is discarded, never passed on.
const maxCSI = 64

// NewEscapeFilter returns a filter that writes the neutralised stream to w.
func NewEscapeFilter(w io.Writer) *EscapeFilter { return &EscapeFilter{w: w} }

// Removed reports how many control sequences were removed so far.
func (f *EscapeFilter) Removed() int { return f.removed }

// Write filters p and passes on the result; it reports len(p) unless the
// underlying writer failed.
func (f *EscapeFilter) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.st == stGround && !f.lead && f.need == 0 && plain(p) {
		// Nothing to remove and nothing held: p passes as it is.
		if _, err := f.w.Write(p); err != nil {
			f.err = err
			return 0, err
		}
		return len(p), nil
	}
	f.out = f.out[:0]
	for i := 0; i < len(p); {
		switch {
		case f.st == stGround && !f.lead:
			// A run of text passes as it is, copied at once.
			j, need := textRun(p, i, f.need)
			if j > i {
				f.out = append(f.out, p[i:j]...)
				f.need = need
				i = j
				if i == len(p) {
					continue
				}
			}
		case f.st == stString && !f.strLead:
			// A string's body is discarded up to a byte that may end it.
			i = stringRun(p, i)
			if i == len(p) {
				continue
			}
		}
		f.byte(p[i])
		i++
	}
	if len(f.out) > 0 {
		if _, err := f.w.Write(f.out); err != nil {
			f.err = err
			return 0, err
		}
	}
	return len(p), nil
}

// Close passes on a held lead byte; a sequence that never ended is
// dropped. It does not close the underlying writer.
func (f *EscapeFilter) Close() error {
	if f.err != nil {
		return f.err
	}
	f.out = f.out[:0]
	if f.lead {
		f.out = append(f.out, 0xC2)
		f.lead = false
	}
	if f.st != stGround {
		f.removed++
		f.st = stGround
		f.seq = f.seq[:0]
	}
	if len(f.out) > 0 {
		if _, err := f.w.Write(f.out); err != nil {
			f.err = err
		}
	}
	return f.err
}

// plain reports whether p is ASCII without ESC: text the filter passes
// unchanged from the ground state. It tests 64 bytes at a time where the
// processor has AVX2 (plainBlocks), eight at a time otherwise.
func plain(p []byte) bool {
	if plainVector && len(p) >= 64 {
		if !plainBlocks(p) {
			return false
		}
		p = p[len(p)&^63:]
	}
	// Four words a round, their checks joined (plainBits is exact for
	// each word, so the OR of four is zero only if all four are plain).
	for len(p) >= 32 {
		a := binary.LittleEndian.Uint64(p)
		b := binary.LittleEndian.Uint64(p[8:])
		c := binary.LittleEndian.Uint64(p[16:])
		d := binary.LittleEndian.Uint64(p[24:])
		if plainBits(a)|plainBits(b)|plainBits(c)|plainBits(d) != 0 {
			return false
		}
		p = p[32:]
	}
	for len(p) >= 8 {
		if !plainWord(binary.LittleEndian.Uint64(p)) {
			return false
		}
		p = p[8:]
	}
	for _, c := range p {
		if c >= 0x80 || c == esc {
			return false
		}
	}
	return true
}

// textRun returns the end of the run of bytes from p[i] that ground, in
// the ground state without a held lead byte and with need continuation
// bytes expected, would pass on unchanged, and the continuation bytes
// expected after it. The run stops before ESC, a 0xC2 lead byte and a C1
// control (0x80..0x9f where no continuation byte is expected); the byte
// there takes the state machine.
func textRun(p []byte, i, need int) (int, int) {
	ascii := 0 // plain ASCII bytes just passed
	for ; i < len(p); i++ {
		c := p[i]
		switch {
		case c < 0x80:
			if c == esc {
				return i, need
			}
			need = 0
			if ascii++; ascii >= 8 {
				// A long run of ASCII (the zeros and strings of a binary):
				// eight bytes at a time while they hold no ESC and no
				// byte above 0x7f.
				for i+9 <= len(p) && plainWord(binary.LittleEndian.Uint64(p[i+1:])) {
					i += 8
				}
				ascii = 0
			}
			continue
		case c <= 0xbf:
			if need > 0 {
				need--
			} else if c <= 0x9f {
				return i, need
			}
		case c == 0xc2:
			return i, need
		default:
			need = utf8Need[c-0xc0]
		}
		ascii = 0
	}
	return i, need
}

// utf8Need is, for a byte from 0xC0 up, the continuation bytes ground
// expects after it (0xC2 aside, which it holds).
var utf8Need = func() (t [64]int) {
	for c := 0xc3; c <= 0xf4; c++ {
		switch {
		case c <= 0xdf:
			t[c-0xc0] = 1
		case c <= 0xef:
			t[c-0xc0] = 2
		default:
			t[c-0xc0] = 3
		}
	}
	return t
}()

// stringRun returns the index of the first byte from p[i] that str acts
// on (without a 0xC2 seen before it): the bytes before it are discarded.
func stringRun(p []byte, i int) int {
	for ; i < len(p); i++ {
		switch p[i] {
		case bel, 0x9c, esc, can, sub, 0xc2:
			return i
		}
	}
	return i
}

// plainWord reports whether the eight bytes of x are ASCII without ESC.
func plainWord(x uint64) bool { return plainBits(x) == 0 }

// plainBits is zero exactly when plainWord(x).
func plainBits(x uint64) uint64 {
	const ones, highs, escs = 0x0101010101010101, 0x8080808080808080, 0x1b1b1b1b1b1b1b1b
	y := x ^ escs // a zero byte where x has ESC
	return (x | (y-ones)&^y) & highs
}

const (
	esc = 0x1b
	can = 0x18
	sub = 0x1a
	bel = 0x07
)

func (f *EscapeFilter) byte(c byte) {
	switch f.st {
	case stGround:
		f.ground(c)
	case stEsc:
		f.escape(c)
	case stEscInter:
		switch {
		case c >= 0x20 && c <= 0x2f:
		case c >= 0x30 && c <= 0x7e:
			f.done()
		default:
			f.interrupt(c)
		}
	case stCSI, stCSIIgnore:
		f.csi(c)
	case stString:
		f.str(c)
	case stStringEsc:
		if c == '\\' {
			f.done() // ST
			return
		}
		// ESC ends the string and starts a new sequence.
		f.removed++
		f.st = stEsc
		f.escape(c)
	}
}

// ground handles a byte of text, tracking UTF-8 so that C1 controls are
// told apart from continuation bytes.
func (f *EscapeFilter) ground(c byte) {
	if f.lead {
		f.lead = false
		if c >= 0x80 && c <= 0x9f {
			f.c1(c) // U+0080..U+009F encoded in UTF-8
			return
		}
		f.out = append(f.out, 0xC2)
		if c >= 0xa0 && c <= 0xbf {
			f.out = append(f.out, c)
			return
		}
		// invalid: the lead stands alone; c starts afresh
	}
	switch {
	case c == esc:
		f.need = 0
		f.st = stEsc
	case c < 0x80:
		f.need = 0
		f.out = append(f.out, c)
	case c <= 0xbf: // continuation byte
		if f.need > 0 {
			f.need--
			f.out = append(f.out, c)
		} else if c <= 0x9f {
			f.c1(c) // a raw 8-bit C1 control
		} else {
			f.out = append(f.out, c)
		}
	case c == 0xc2:
		f.need = 0
		f.lead = true
	default:
		f.need = 0
		switch {
		case c >= 0xc3 && c <= 0xdf:
			f.need = 1
		case c >= 0xe0 && c <= 0xef:
			f.need = 2
		case c >= 0xf0 && c <= 0xf4:
			f.need = 3
		}
		f.out = append(f.out, c)
	}
}

// c1 acts on a C1 control (0x80..0x9f) as on its 7-bit ESC form.
func (f *EscapeFilter) c1(c byte) {
	f.st = stEsc
	f.escape(c - 0x40)
}

func (f *EscapeFilter) escape(c byte) {
	switch {
	case c == '[':
		f.st = stCSI
		f.seq = append(f.seq[:0], esc, '[')
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		f.st = stString
		f.strLead = false
	case c >= 0x20 && c <= 0x2f:
		f.st = stEscInter
	case c >= 0x30 && c <= 0x7e:
		f.done()
	case c == esc:
		// ESC ESC: the first is dropped, the second starts over
		f.removed++
	default:
		f.interrupt(c)
	}
}

func (f *EscapeFilter) csi(c byte) {
	switch {
	case c >= 0x40 && c <= 0x7e: // final byte
		if f.st == stCSI && c == 'm' && sgrParams(f.seq[2:]) {
			f.out = append(f.out, f.seq...)
			f.out = append(f.out, c)
			f.st = stGround
			f.seq = f.seq[:0]
			return
		}
		f.done()
	case c >= 0x20 && c <= 0x3f: // parameter and intermediate bytes
		if f.st == stCSI {
			if len(f.seq) >= maxCSI {
				f.st = stCSIIgnore
				f.seq = f.seq[:0]
				return
			}
			f.seq = append(f.seq, c)
		}
	default:
		f.interrupt(c)
	}
}

// sgrParams reports whether p is the parameter part of an SGR sequence:
// digits and separators only (no private markers, no intermediates).
func sgrParams(p []byte) bool {
	for _, c := range p {
		if !(c >= '0' && c <= '9' || c == ';' || c == ':') {
			return false
		}
	}
	return true
}

func (f *EscapeFilter) str(c byte) {
	if f.strLead {
		f.strLead = false
		if c == 0x9c {
			f.done() // ST as UTF-8
			return
		}
	}
	switch c {
	case bel, 0x9c:
		f.done()
	case esc:
		f.st = stStringEsc
	case can, sub:
		f.done()
	case 0xc2:
		f.strLead = true
	}
}

// done ends the sequence being removed.
func (f *EscapeFilter) done() {
	f.removed++
	f.st = stGround
	f.seq = f.seq[:0]
}

// interrupt handles a byte that cannot continue the current sequence: CAN
// and SUB cancel it; ESC starts a new one; other C0 controls are executed
// in the middle of a sequence, as a terminal does (passed on); anything
// else ends the sequence and is text again.
func (f *EscapeFilter) interrupt(c byte) {
	switch {
	case c == can || c == sub:
		f.done()
	case c == esc:
		f.removed++
		f.seq = f.seq[:0]
		f.st = stEsc
	case c < 0x20:
		f.out = append(f.out, c)
	default:
		f.done()
		f.ground(c)
	}
}
