package shellguard

import (
	"bytes"
	"fmt"
	"strings"
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
