package redact

import (
	"encoding/binary"
	"math/bits"
	"regexp/syntax"
	"sync"
)

// A shape tells, in a few nanoseconds a byte, that no match of an
// anchored rule's expression can start at the beginning of a text, so
// that the regular expression is not run there. Most keyword occurrences
// in ordinary output ("the token expired", "password policy") fail an
// assignment or token rule within a dozen bytes, and a regexp execution
// costs microseconds even then.
//
// It is a deterministic automaton over ASCII bytes, built lazily (states
// and transitions when a text first needs them) from the expression's
// compiled program by the subset construction. It answers "maybe" (so
// the expression runs) for whatever it does not model:
//   - a byte above 0x7f (the program matches runes; case folding maps
//     some ASCII letters to non-ASCII runes and back),
//   - past shapeDepth bytes, or when a new state would pass shapeStates,
//   - every empty-width assertion (^, $, \b, …) is taken as satisfied,
//     so the automaton accepts a superset of the expression's matches.
//
// A "no" is therefore exact: no match of the expression starts there.
type shape struct {
	prog   *syntax.Prog
	class  [128]uint8 // ASCII byte → class: bytes no instruction tells apart share one
	rep    []byte     // class → a byte of it
	nclass int

	mu     sync.Mutex
	sets   [][]uint32       // state → the program's rune and match instructions it holds
	ids    map[string]int32 // set key → state
	accept []bool           // state holds the match instruction
	trans  []int32          // state·nclass + class → next state, shapeDead or shapeUnknown
	seen   []uint32         // scratch: a bitset of instructions
	stack  []uint32         // scratch
}

const (
	shapeDead    = -1
	shapeUnknown = -2
	// shapeDepth bounds how many bytes a check looks at.
	shapeDepth = 64
	// shapeStates bounds the states of one shape: each costs a
	// transition of four bytes per byte class (at most 128; 6 to 51 in
	// the rules here), so that a shape stays under 64 KiB even on output
	// made to visit as many states as it can.
	shapeStates = 128
)

// newShape builds the shape of expr, or returns nil if it cannot.
func newShape(expr string) *shape {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil
	}
	s := &shape{prog: prog, ids: map[string]int32{}, seen: make([]uint32, (len(prog.Inst)+31)/32)}
	// Byte classes: two bytes every rune instruction treats alike.
	var sig [128][]byte
	tested := map[string]bool{}
	for pc := range prog.Inst {
		in := &prog.Inst[pc]
		if in.Op != syntax.InstRune && in.Op != syntax.InstRune1 {
			continue
		}
		key := string(binary.LittleEndian.AppendUint32(runesKey(in.Rune), uint32(in.Arg)&uint32(syntax.FoldCase)))
		if tested[key] {
			continue
		}
		tested[key] = true
		for c := range 128 {
			b := byte(0)
			if in.MatchRune(rune(c)) {
				b = 1
			}
			sig[c] = append(sig[c], b)
		}
	}
	// '\n' is told apart from other bytes by InstRuneAnyNotNL.
	classOf := map[string]uint8{}
	for c := range 128 {
		k := string(sig[c])
		if c == '\n' {
			k = "\n" + k
		}
		id, ok := classOf[k]
		if !ok {
			id = uint8(len(s.rep))
			classOf[k] = id
			s.rep = append(s.rep, byte(c))
		}
		s.class[c] = id
	}
	s.nclass = len(s.rep)
	s.stack = s.stack[:0]
	s.addClosure(uint32(prog.Start))
	s.state() // state 0: the start
	return s
}

func runesKey(rs []rune) []byte {
	b := make([]byte, 0, 4*len(rs)+4)
	for _, r := range rs {
		b = binary.LittleEndian.AppendUint32(b, uint32(r))
	}
	return b
}

// mayMatch reports whether a match of the expression may start at p[0];
// false means none does.
func (s *shape) mayMatch(p []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := int32(0)
	for i, c := range p {
		if s.accept[st] || i >= shapeDepth || c >= 0x80 {
			return true
		}
		k := int(st)*s.nclass + int(s.class[c])
		next := s.trans[k]
		if next == shapeUnknown {
			next = s.step(st, s.class[c])
			if next == shapeUnknown {
				return true // too many states
			}
			s.trans[k] = next
		}
		if next == shapeDead {
			return false
		}
		st = next
	}
	return true
}

// step computes the transition of state st on byte class cl.
func (s *shape) step(st int32, cl uint8) int32 {
	c := rune(s.rep[cl])
	clear(s.seen)
	s.stack = s.stack[:0]
	for _, pc := range s.sets[st] {
		in := &s.prog.Inst[pc]
		ok := false
		switch in.Op {
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = c != '\n'
		case syntax.InstRune, syntax.InstRune1:
			ok = in.MatchRune(c)
		}
		if ok {
			s.addClosure(in.Out)
		}
	}
	if len(s.stack) == 0 {
		return shapeDead
	}
	if len(s.sets) >= shapeStates {
		if id, ok := s.ids[s.key()]; ok {
			return id
		}
		return shapeUnknown
	}
	return s.state()
}

// addClosure adds pc and what it reaches without reading a byte to the
// set being built (s.seen, s.stack): rune and match instructions are
// kept, empty-width assertions are passed as if satisfied.
func (s *shape) addClosure(pc uint32) {
	work := []uint32{pc}
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		if s.seen[pc/32]&(1<<(pc%32)) != 0 {
			continue
		}
		s.seen[pc/32] |= 1 << (pc % 32)
		in := &s.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			work = append(work, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
			work = append(work, in.Out)
		case syntax.InstMatch, syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			s.stack = append(s.stack, pc)
		}
	}
}

// key is the set being built, in instruction order.
func (s *shape) key() string {
	var b []byte
	for w, word := range s.seen {
		for ; word != 0; word &= word - 1 {
			pc := uint32(w*32) + uint32(bits.TrailingZeros32(word))
			in := s.prog.Inst[pc].Op
			if in == syntax.InstMatch || in == syntax.InstRune || in == syntax.InstRune1 || in == syntax.InstRuneAny || in == syntax.InstRuneAnyNotNL {
				b = binary.LittleEndian.AppendUint32(b, pc)
			}
		}
	}
	return string(b)
}

// state returns the state of the set being built, adding it if new.
func (s *shape) state() int32 {
	k := s.key()
	if id, ok := s.ids[k]; ok {
		return id
	}
	id := int32(len(s.sets))
	s.ids[k] = id
	set := make([]uint32, 0, len(k)/4)
	acc := false
	for i := 0; i < len(k); i += 4 {
		pc := binary.LittleEndian.Uint32([]byte(k[i : i+4]))
		set = append(set, pc)
		if s.prog.Inst[pc].Op == syntax.InstMatch {
			acc = true
		}
	}
	s.sets = append(s.sets, set)
	s.accept = append(s.accept, acc)
	for range s.nclass {
		s.trans = append(s.trans, shapeUnknown)
	}
	return id
}
