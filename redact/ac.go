package redact

// A small Aho–Corasick automaton, compiled to a dense DFA over ASCII
// case-folded byte classes. It is the prefilter: the redactor runs a rule's
// regular expression only around the places where one of the rule's
// keywords occurs, so ordinary output costs one table lookup per byte.

const acFlag = 1 << 31 // set on a DFA state that ends at least one keyword

type automaton struct {
	class [256]uint8 // byte → class; 0 = "no keyword contains this byte"
	width uint32     // number of classes: the row width
	// delta: (state·width + class) → next state·width, acFlag set if the
	// next state has outputs. States are kept premultiplied by the row
	// width, so a step is one add and one load.
	delta  []uint32
	own    []int32 // state → first keyword id ending exactly here, or -1
	dict   []int32 // state → nearest proper suffix state with own ≥ 0, or -1
	kwNext []int32 // keyword id → next keyword id ending at the same state, or -1
	kwLen  []int   // keyword id → length
	depth  []int   // state → length of the keyword prefix it represents
	maxKw  int
	// nStates is the number of DFA states.
	nStates int
}

func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// newAutomaton builds the DFA for keywords (matched case-insensitively for
// ASCII letters). Empty keywords are ignored.
//
// The trie is built directly in the dense transition table (0 = no edge:
// the root is nobody's child), then one breadth-first pass sets failure
// links and fills every missing transition from the failure state's row,
// which is complete by then. No maps, a few allocations.
func newAutomaton(keywords []string) *automaton {
	a := &automaton{kwLen: make([]int, len(keywords)), kwNext: make([]int32, len(keywords))}
	// Byte classes: every distinct lower-cased byte used by a keyword.
	nc := 1
	total := 0
	for _, kw := range keywords {
		total += len(kw)
		for i := 0; i < len(kw); i++ {
			c := lowerASCII(kw[i])
			if a.class[c] == 0 {
				if nc == 255 {
					panic("redact: too many distinct keyword bytes")
				}
				a.class[c] = uint8(nc)
				nc++
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		a.class[c] = a.class[c+'a'-'A']
	}
	width := nc
	a.width = uint32(nc)

	// Trie. At most total+1 states; keywords share prefixes, so guess less.
	guess := min(total+1, 1+total*3/4)
	delta := make([]uint32, width, guess*width)
	own := make([]int32, 1, guess)
	depth := make([]int, 1, guess)
	own[0] = -1
	n := 1
	for id, kw := range keywords {
		a.kwLen[id] = len(kw)
		a.kwNext[id] = -1
		if kw == "" {
			continue
		}
		a.maxKw = max(a.maxKw, len(kw))
		s := 0
		for i := 0; i < len(kw); i++ {
			e := s*width + int(a.class[lowerASCII(kw[i])])
			t := int(delta[e])
			if t == 0 {
				t = n
				n++
				delta = append(delta, make([]uint32, width)...)
				own = append(own, -1)
				depth = append(depth, depth[s]+1)
				delta[e] = uint32(t)
			}
			s = t
		}
		if own[s] < 0 {
			own[s] = int32(id)
		} else {
			last := own[s]
			for a.kwNext[last] >= 0 {
				last = a.kwNext[last]
			}
			a.kwNext[last] = int32(id)
		}
	}
	// Breadth-first: failure links, suffix-output links, full rows. Row s
	// holds only trie edges until s is dequeued; the failure state of s is
	// shallower, so its row is complete by then.
	fail := make([]int32, n)
	dict := make([]int32, n)
	dict[0] = -1
	order := make([]int32, 0, n)
	for c := 0; c < width; c++ {
		if t := delta[c]; t != 0 {
			order = append(order, int32(t)) // fail = root
		}
	}
	for i := 0; i < len(order); i++ {
		s := int(order[i])
		f := int(fail[s])
		if own[f] >= 0 {
			dict[s] = int32(f)
		} else {
			dict[s] = dict[f]
		}
		row := delta[s*width : (s+1)*width]
		frow := delta[f*width : (f+1)*width]
		for c, t := range row {
			if t != 0 {
				fail[t] = int32(frow[c])
				order = append(order, int32(t))
			} else {
				row[c] = frow[c]
			}
		}
	}
	for i, t := range delta {
		v := t * uint32(width)
		if own[t] >= 0 || dict[t] >= 0 {
			v |= acFlag
		}
		delta[i] = v
	}
	a.delta, a.own, a.dict, a.depth, a.nStates = delta, own, dict, depth, n
	return a
}

// scan advances the automaton over p starting in state s (0 or a value
// scan returned); for every keyword
// occurrence it calls hit with the keyword id and the offset in p just past
// the occurrence's last byte. It returns the final state.
func (a *automaton) scan(s uint32, p []byte, hit func(id int32, end int)) uint32 {
	delta, class := a.delta, &a.class
	for i, b := range p {
		s = delta[s&^acFlag+uint32(class[b])]
		if s&acFlag != 0 {
			// Keywords ending here, longest first.
			for u := int32((s &^ acFlag) / a.width); u >= 0; u = a.dict[u] {
				for id := a.own[u]; id >= 0; id = a.kwNext[id] {
					hit(id, i+1)
				}
			}
		}
	}
	return s
}

// stateDepth is the length of the keyword prefix that state s (as scan
// returns it) represents.
func (a *automaton) stateDepth(s uint32) int {
	return a.depth[(s&^acFlag)/a.width]
}
