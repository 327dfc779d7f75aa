package redact

// A small Aho–Corasick automaton, compiled to a dense DFA over ASCII
// case-folded byte classes. It is the prefilter: the redactor runs a rule's
// regular expression only around the places where one of the rule's
// keywords occurs, so ordinary output costs one table lookup per byte.

const acFlag = 1 << 31 // set on a DFA state that ends at least one keyword

type automaton struct {
	class   [256]uint8 // byte → class; 0 = "no keyword contains this byte"
	shift   uint       // row width is 1<<shift
	delta   []uint32   // (state<<shift | class) → next state, acFlag set if it has outputs
	outs    [][]int32  // state → ids of keywords ending here (suffix closure)
	kwLen   []int      // keyword id → length
	depth   []int      // state → length of the keyword prefix it represents
	maxKw   int
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
func newAutomaton(keywords []string) *automaton {
	a := &automaton{kwLen: make([]int, len(keywords))}
	// Byte classes: every distinct lower-cased byte used by a keyword.
	nc := 1
	for _, kw := range keywords {
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
	for a.shift = 1; 1<<a.shift < nc; a.shift++ {
	}
	width := 1 << a.shift

	// Trie.
	type node struct {
		next map[uint8]int
		out  []int32
		fail int
	}
	nodes := []node{{next: map[uint8]int{}}}
	depth := []int{0}
	for id, kw := range keywords {
		a.kwLen[id] = len(kw)
		if kw == "" {
			continue
		}
		if len(kw) > a.maxKw {
			a.maxKw = len(kw)
		}
		s := 0
		for i := 0; i < len(kw); i++ {
			c := a.class[lowerASCII(kw[i])]
			n, ok := nodes[s].next[c]
			if !ok {
				n = len(nodes)
				nodes = append(nodes, node{next: map[uint8]int{}})
				depth = append(depth, depth[s]+1)
				nodes[s].next[c] = n
			}
			s = n
		}
		nodes[s].out = append(nodes[s].out, int32(id))
	}
	// BFS for failure links and the dense transition table.
	a.nStates = len(nodes)
	a.delta = make([]uint32, a.nStates*width)
	order := make([]int, 0, len(nodes))
	for c := 0; c < width; c++ {
		if n, ok := nodes[0].next[uint8(c)]; ok {
			nodes[n].fail = 0
			order = append(order, n)
			a.delta[c] = uint32(n)
		}
	}
	for i := 0; i < len(order); i++ {
		s := order[i]
		f := nodes[s].fail
		nodes[s].out = append(nodes[s].out, nodes[f].out...)
		for c := 0; c < width; c++ {
			if n, ok := nodes[s].next[uint8(c)]; ok {
				nodes[n].fail = int(a.delta[f*width+c] &^ acFlag)
				order = append(order, n)
				a.delta[s*width+c] = uint32(n)
			} else {
				a.delta[s*width+c] = a.delta[f*width+c] &^ acFlag
			}
		}
	}
	// Class 0 (bytes in no keyword) always goes back to the root.
	a.outs = make([][]int32, a.nStates)
	a.depth = depth
	for s := range nodes {
		a.outs[s] = nodes[s].out
	}
	for i, t := range a.delta {
		if len(nodes[t].out) > 0 {
			a.delta[i] = t | acFlag
		}
	}
	return a
}

// scan advances the automaton over p starting in state s; for every keyword
// occurrence it calls hit with the keyword id and the offset in p just past
// the occurrence's last byte. It returns the final state.
func (a *automaton) scan(s uint32, p []byte, hit func(id int32, end int)) uint32 {
	delta, class, shift := a.delta, &a.class, a.shift
	for i, b := range p {
		s = delta[(s&^acFlag)<<shift|uint32(class[b])]
		if s&acFlag != 0 {
			for _, id := range a.outs[s&^acFlag] {
				hit(id, i+1)
			}
		}
	}
	return s
}
