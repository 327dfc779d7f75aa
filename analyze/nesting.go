package analyze

// The nesting bound. The parser and every walk over its tree recurse once
// per level of nesting, so a text nested a hundred thousand levels deep
// would take the stack (and the memory behind it) without bound. Before
// parsing, nesting scans the text once, in linear time and with a stack
// of its own, and returns an upper estimate of how deep the tree will be:
// every bracket, substitution, arithmetic group, compound command and
// here-document body opens a level, and each operator that chains
// commands or arithmetic (&&, ||, |, !, + …) adds one, because the parser
// builds such chains as nested nodes. A text past MaxNesting is not
// parsed (NoteTooDeep).
//
// The estimate errs high, never low: a closer ends a level only when it
// matches the innermost one opened, and keywords open levels wherever
// they appear but close them only where a command starts.

// MaxNesting bounds the nesting estimate of a text that is parsed.
const MaxNesting = 256

type frameKind uint8

const (
	fCode    frameKind = iota // commands: the top level, $( ), ( ), <( )
	fBquote                   // `…`: commands
	fGroup                    // { … }: commands, closed by } where a command starts
	fKeyword                  // if/case/while/until/for/select … fi/esac/done
	fParam                    // ${ }
	fLit                      // a brace inside a word ({a,b}): closed by any }
	fDquote                   // "…": only $, ` and \ are special
	fArith                    // $(( )) and (( ))
	fParen                    // ( ) inside arithmetic
	fHdoc                     // a here-document body, until its delimiter line
)

type frame struct {
	kind   frameKind
	chain  int    // chained operators at this level since its last separator
	closer string // keyword that closes a fKeyword frame
	delim  string // delimiter of a fHdoc frame
	raw    bool   // fHdoc with a quoted delimiter: no expansions in the body
	dash   bool   // <<-: leading tabs are stripped before the delimiter
}

type hdoc struct {
	delim     string
	raw, dash bool
}

var keywordCloser = map[string]string{
	"if": "fi", "case": "esac", "while": "done", "until": "done", "for": "done", "select": "done",
}

// nesting returns the nesting estimate of src, stopping early once it
// passes limit.
func nesting(src string, limit int) int {
	s := scanner{src: src, stack: []frame{{kind: fCode}}, cmdPos: true}
	n := len(src)
	for i := 0; i < n && s.best <= limit; i++ {
		i = s.step(i)
	}
	return s.best
}

type scanner struct {
	src     string
	stack   []frame
	chains  int  // sum of the chain counts on the stack
	best    int  // the highest estimate seen
	cmdPos  bool // a command may start here: keywords, { and } count only here
	lastOp  bool // the last token chains to the next line (&&, |)
	afterKw bool // the last word was time (its options keep cmdPos)
	pending []hdoc
}

func (s *scanner) top() *frame { return &s.stack[len(s.stack)-1] }

func (s *scanner) note() {
	if e := len(s.stack) - 1 + s.chains; e > s.best {
		s.best = e
	}
}

func (s *scanner) push(f frame) {
	s.stack = append(s.stack, f)
	s.note()
}

func (s *scanner) pop() {
	if len(s.stack) == 1 {
		return
	}
	s.chains -= s.top().chain
	s.stack = s.stack[:len(s.stack)-1]
}

// popTo pops frames down to and including the innermost one of kind k
// above any string or arithmetic level, and reports whether there was
// one. A closer ends every level opened inside it: bash would not
// accept it otherwise, and the parser stops there.
func (s *scanner) popTo(k frameKind) bool {
	j := len(s.stack) - 1
	for ; j > 0; j-- {
		f := s.stack[j].kind
		if f == k {
			break
		}
		if f >= fDquote {
			return false
		}
	}
	if j == 0 {
		return false
	}
	for len(s.stack) > j {
		s.pop()
	}
	return true
}

func (s *scanner) op() {
	s.top().chain++
	s.chains++
	s.note()
}

func (s *scanner) sep() {
	s.chains -= s.top().chain
	s.top().chain = 0
}

// startHdoc pushes the next pending here-document body, if any.
func (s *scanner) startHdoc() {
	if len(s.pending) > 0 {
		h := s.pending[0]
		s.pending = s.pending[1:]
		s.push(frame{kind: fHdoc, delim: h.delim, raw: h.raw, dash: h.dash})
	}
}

// step reads the token at src[i] and returns the index of its last
// character.
func (s *scanner) step(i int) int {
	src, n := s.src, len(s.src)
	top := s.top()
	ch := src[i]
	switch top.kind {
	case fHdoc:
		// at the start of a line: is it the delimiter?
		if i == 0 || src[i-1] == '\n' {
			j := i
			if top.dash {
				for j < n && src[j] == '\t' {
					j++
				}
			}
			end := j
			for end < n && src[end] != '\n' {
				end++
			}
			if src[j:end] == top.delim {
				s.pop()
				s.startHdoc()
				s.cmdPos = true
				return end
			}
		}
		if top.raw {
			return i
		}
		switch ch {
		case '\\':
			return i + 1
		case '$':
			return s.dollar(i)
		case '`':
			s.push(frame{kind: fBquote})
			s.cmdPos = true
		}
		return i
	case fDquote:
		switch ch {
		case '\\':
			return i + 1
		case '"':
			s.pop()
		case '$':
			return s.dollar(i)
		case '`':
			s.push(frame{kind: fBquote})
			s.cmdPos = true
		}
		return i
	case fArith, fParen:
		switch ch {
		case '(':
			s.push(frame{kind: fParen})
		case ')':
			if top.kind == fArith && i+1 < n && src[i+1] == ')' {
				i++
			}
			s.pop()
		case '$':
			return s.dollar(i)
		case '`':
			s.push(frame{kind: fBquote})
			s.cmdPos = true
		case '"':
			s.push(frame{kind: fDquote})
		case '\'':
			return skipQuote(src, i+1)
		case '\\':
			return i + 1
		case '+', '-', '*', '/', '%', '<', '>', '=', '&', '|', '^', ',', '?', ':', '!', '~':
			s.op()
		}
		return i
	}
	// commands
	cmdPos, lastOp, afterKw := s.cmdPos, s.lastOp, s.afterKw
	s.cmdPos, s.lastOp, s.afterKw = false, false, false
	switch ch {
	case ' ', '\t':
		s.cmdPos, s.lastOp, s.afterKw = cmdPos, lastOp, afterKw
		return i
	case '\\':
		if i+1 < n && src[i+1] == '\n' {
			// a line continuation is not there for the parser
			s.cmdPos, s.lastOp, s.afterKw = cmdPos, lastOp, afterKw
		}
		return i + 1
	case '#':
		if i == 0 || isBlankOrMeta(src[i-1]) {
			for i+1 < n && src[i+1] != '\n' {
				i++
			}
			s.cmdPos, s.lastOp, s.afterKw = cmdPos, lastOp, afterKw
			return i
		}
	case '\n':
		// after && or | the chain goes on on the next line
		if !lastOp {
			s.sep()
		}
		s.cmdPos = true
		s.startHdoc()
		return i
	case ';':
		s.sep()
		s.cmdPos = true
		return i
	case '&':
		if i+1 < n && src[i+1] == '&' {
			s.op()
			s.cmdPos, s.lastOp = true, true
			return i + 1
		}
		if i+1 < n && src[i+1] == '>' {
			return i + 1
		}
		s.sep()
		s.cmdPos = true
		return i
	case '|':
		if i+1 < n && (src[i+1] == '|' || src[i+1] == '&') {
			i++
		}
		s.op()
		s.cmdPos, s.lastOp = true, true
		return i
	case '!':
		s.op()
		s.cmdPos = true
		return i
	case '(':
		if i+1 < n && src[i+1] == '(' {
			s.push(frame{kind: fArith})
			return i + 1
		}
		s.push(frame{kind: fCode})
		s.cmdPos = true
		return i
	case ')':
		// a case pattern ends with ) inside its case
		if top.kind != fKeyword || top.closer != "esac" {
			s.popTo(fCode)
		}
		s.cmdPos = true
		return i
	case '{':
		if cmdPos {
			s.push(frame{kind: fGroup})
			s.cmdPos = true
		} else {
			// brace expansion recurses once per brace of a word
			s.op()
			s.push(frame{kind: fLit})
		}
		return i
	case '}':
		switch {
		case top.kind == fParam || top.kind == fLit:
			s.pop()
		case cmdPos:
			s.popTo(fGroup)
		}
		return i
	case '`':
		if !s.popTo(fBquote) {
			s.push(frame{kind: fBquote})
			s.cmdPos = true
		}
		return i
	case '"':
		s.push(frame{kind: fDquote})
		return i
	case '\'':
		return skipQuote(src, i+1)
	case '$':
		if i+1 < n && src[i+1] == '\'' {
			return skipAnsiQuote(src, i+2)
		}
		return s.dollar(i)
	case '<', '>':
		if i+1 < n && src[i+1] == '(' {
			s.push(frame{kind: fCode})
			s.cmdPos = true
			return i + 1
		}
		if ch == '<' && i+2 < n && src[i+1] == '<' {
			if src[i+2] == '<' {
				return i + 2 // a here-string: a word follows
			}
			j, h := hdocDelim(src, i+2)
			if h.delim != "" || h.raw {
				s.pending = append(s.pending, h)
			}
			return j
		}
		return i
	}
	// a word: up to the next blank, metacharacter, quote or expansion
	j := i
	for j < n && !wordStop[src[j]] {
		j++
	}
	if j == i {
		return i
	}
	word := src[i:j]
	switch {
	case !cmdPos || len(word) > 6:
	case keywordCloser[word] != "":
		s.push(frame{kind: fKeyword, closer: keywordCloser[word]})
		s.cmdPos = true
	case top.kind == fKeyword && word == top.closer:
		s.pop()
	case word == "then" || word == "do" || word == "else" || word == "elif" || word == "in" || word == "coproc":
		s.cmdPos = true
	case word == "time":
		s.cmdPos, s.afterKw = true, true
	}
	if afterKw && word[0] == '-' {
		s.cmdPos, s.afterKw = true, true
	}
	return j - 1
}

// dollar reads a $ at src[i]: $( pushes commands, $(( arithmetic, ${ a
// brace level; anything else is a plain parameter. It returns the index
// of the last character read.
func (s *scanner) dollar(i int) int {
	src := s.src
	if i+1 >= len(src) {
		return i
	}
	switch src[i+1] {
	case '(':
		if i+2 < len(src) && src[i+2] == '(' {
			s.push(frame{kind: fArith})
			return i + 2
		}
		s.push(frame{kind: fCode})
		s.cmdPos = true
		return i + 1
	case '{':
		s.push(frame{kind: fParam})
		return i + 1
	}
	return i
}

// skipQuote returns the index of the ' closing a single-quoted string
// whose text starts at i (the end of src when there is none).
func skipQuote(src string, i int) int {
	for i < len(src) && src[i] != '\'' {
		i++
	}
	return i
}

// skipAnsiQuote is skipQuote for $'…', where a backslash escapes.
func skipAnsiQuote(src string, i int) int {
	for i < len(src) && src[i] != '\'' {
		if src[i] == '\\' {
			i++
		}
		i++
	}
	return i
}

// hdocDelim reads the delimiter word of a here-document after << at i
// (with an optional -), and returns the index of its last character and
// the delimiter with its quotes removed.
func hdocDelim(src string, i int) (int, hdoc) {
	var h hdoc
	if i < len(src) && src[i] == '-' {
		h.dash = true
		i++
	}
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	var b []byte
	for i < len(src) && !isBlankOrMeta(src[i]) {
		switch src[i] {
		case '\'', '"':
			h.raw = true
			q := src[i]
			i++
			for i < len(src) && src[i] != q {
				b = append(b, src[i])
				i++
			}
		case '\\':
			h.raw = true
			i++
			if i < len(src) {
				b = append(b, src[i])
			}
		default:
			b = append(b, src[i])
		}
		i++
	}
	h.delim = string(b)
	return i - 1, h
}

// wordStop holds the bytes that end a word for the scan: blanks,
// metacharacters, quotes, expansions and braces.
var wordStop = func() (t [256]bool) {
	for _, c := range []byte(" \t\n;&|<>()\\\"'$`{}") {
		t[c] = true
	}
	return t
}()

func isBlankOrMeta(c byte) bool {
	switch c {
	case ' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')':
		return true
	}
	return false
}
