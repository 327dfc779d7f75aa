package analyze

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// scanChars reports characters that hide what a command does: NUL,
// control characters, carriage returns, bidi overrides, zero-width
// characters, non-ASCII whitespace and invalid UTF-8. Each kind is
// reported once, at its first occurrence.
func scanChars(src string, r *Result) {
	seen := map[NoteKind]int{}
	add := func(k NoteKind, i, n int, ch rune) {
		// non-ASCII spaces and the characters that shape text are kept
		// at every position (up to a bound): the ones inside quotes are
		// data and are dropped after parsing
		if seen[k] > 0 && (k != NoteUnicodeSpace && !(k == NoteZeroWidth && shapingPart(ch)) || seen[k] >= 64) {
			return
		}
		seen[k]++
		r.Notes = append(r.Notes, Note{Kind: k, Span: Span{i, i + n}, Cmd: -1, Detail: fmt.Sprintf("U+%04X", ch)})
	}
	for i := 0; i < len(src); {
		b := src[i]
		if b < utf8.RuneSelf {
			switch {
			case b == 0:
				add(NoteNUL, i, 1, 0)
			case b == '\r':
				add(NoteCR, i, 1, '\r')
			case b < 0x20 && b != '\t' && b != '\n', b == 0x7f:
				add(NoteControl, i, 1, rune(b))
			}
			i++
			continue
		}
		ch, n := utf8.DecodeRuneInString(src[i:])
		if ch == utf8.RuneError && n == 1 {
			add(NoteInvalidUTF8, i, 1, rune(b))
			i++
			continue
		}
		switch {
		case ch >= 0x80 && ch <= 0x9f:
			add(NoteControl, i, n, ch)
		case ch == 0x202a, ch == 0x202b, ch == 0x202c, ch == 0x202d, ch == 0x202e,
			ch >= 0x2066 && ch <= 0x2069, ch == 0x200e, ch == 0x200f, ch == 0x061c:
			add(NoteBidi, i, n, ch)
		case ch == 0x00a0, ch == 0x1680, ch >= 0x2000 && ch <= 0x200a, ch == 0x202f, ch == 0x205f,
			ch == 0x3000, ch == 0x2028, ch == 0x2029, ch == 0x0085:
			add(NoteUnicodeSpace, i, n, ch)
		case invisible(ch):
			add(NoteZeroWidth, i, n, ch)
		}
		i += n
	}
}

// invisible reports a character that shows nothing by its Unicode
// properties: format characters (Cf), default-ignorable code points,
// variation selectors, tags, and the blank braille pattern that renders
// as a space.
func invisible(ch rune) bool {
	return unicode.Is(unicode.Cf, ch) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, ch) ||
		unicode.Is(unicode.Variation_Selector, ch) || ch == 0x2800
}

// shapingPart reports the invisible characters that shape text: the join
// controls (ZWJ, which builds emoji, and ZWNJ, which Persian and Indic
// words need) and variation selectors. In quoted text they are part of a
// message. Tags, which can spell hidden text, are not.
func shapingPart(ch rune) bool {
	return unicode.Is(unicode.Join_Control, ch) || unicode.Is(unicode.Variation_Selector, ch)
}

// detailRune reads the "U+XXXX" detail of a character note.
func detailRune(d string) rune {
	v, err := strconv.ParseUint(strings.TrimPrefix(d, "U+"), 16, 32)
	if err != nil {
		return -1
	}
	return rune(v)
}

// dropQuotedSpaces removes non-ASCII space notes inside quoted strings,
// comments and here-documents, where they are data, and keeps the first
// remaining one.
func dropQuotedSpaces(f *syntax.File, r *Result) {
	var quoted []Span
	if f == nil {
		f = &syntax.File{}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted, *syntax.Comment:
			quoted = append(quoted, Span{int(n.Pos().Offset()), int(n.End().Offset())})
		case *syntax.Redirect:
			if x.Hdoc != nil {
				quoted = append(quoted, Span{int(x.Hdoc.Pos().Offset()), int(x.Hdoc.End().Offset())})
			}
		}
		return true
	})
	kept := r.Notes[:0]
	found, foundZW := false, false
	for _, n := range r.Notes {
		if n.Kind == NoteZeroWidth && shapingPart(detailRune(n.Detail)) {
			in := false
			for _, q := range quoted {
				if n.Span.Start >= q.Start && n.Span.End <= q.End {
					in = true
				}
			}
			if in || foundZW {
				continue
			}
			foundZW = true
		}
		if n.Kind == NoteUnicodeSpace {
			in := false
			for _, q := range quoted {
				if n.Span.Start >= q.Start && n.Span.End <= q.End {
					in = true
				}
			}
			if in || found {
				continue
			}
			found = true
		}
		kept = append(kept, n)
	}
	r.Notes = kept
}
