package redact

import (
	"slices"
	"sync"
	"sync/atomic"
)

// A small Aho–Corasick automaton, compiled to a dense DFA over ASCII
// case-folded byte classes. It is the prefilter: the redactor runs a rule's
// regular expression only around the places where one of the rule's
// keywords occurs, so ordinary output costs one table lookup per byte.

const (
	acFlag    = 1 << 31 // set on a DFA state that ends at least one keyword
	acPending = 1 << 30 // set on a transition whose target's row is not filled yet
	acShallow = 1 << 29 // set on a transition into a state of depth 0 or 1
	acState   = acShallow - 1
)

type automaton struct {
	class [256]uint8 // byte → class; 0 = "no keyword contains this byte"
	width uint32     // number of classes: the row width
	// delta: (state·width + class) → next state·width, acFlag set if the
	// next state has outputs. States are kept premultiplied by the row
	// width, so a step is one add and one load.
	//
	// Rows are filled the first time a scan enters their state (a short
	// text visits a few dozen of the thousand-odd states), not when the
	// automaton is built: building costs the trie and the failure links
	// only. A transition into a state whose row is not filled yet carries
	// acPending, which scan already tests together with acFlag, so the
	// common path stays one load and one test a byte. Rows are filled
	// under mu and published with atomic stores: a Redactor's automaton is
	// shared by every stream it redacts.
	delta []uint32
	ready []uint32 // state → 1 once its row is filled (atomic)
	mu    sync.Mutex
	// After completeAfter bytes scanned, every row is filled and scan
	// switches to plain loads (complete = 1).
	scanned  atomic.Int64
	complete atomic.Uint32
	child    []int32 // state → first trie child, or -1
	next     []int32 // state → next sibling in its parent's child list, or -1
	edge     []uint8 // state → class of the trie edge into it
	fail     []int32 // state → failure state
	own      []int32 // state → first keyword id ending exactly here, or -1
	dict     []int32 // state → nearest proper suffix state with own ≥ 0, or -1
	kwNext   []int32 // keyword id → next keyword id ending at the same state, or -1
	kwLen    []int   // keyword id → length
	depth    []int   // state → length of the keyword prefix it represents
	maxKw    int
	// nStates is the number of DFA states.
	nStates int

	// The skip filters (see gridFilter and startFilter): with them, scan
	// steps the DFA only near the places where a keyword may start. skip
	// is false when a keyword is shorter than two bytes. The filters
	// (0.6 MB) are built by finish, with the last rows: short texts
	// never pay for them.
	skip     bool
	keywords []string
	grid     *gridFilter
	start    *startFilter
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
// It builds the trie (as child and sibling lists), then one breadth-first
// pass sets the failure and suffix-output links. The dense rows are
// filled lazily (fillRow), the root's at once.
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

	// Trie. At most total+1 states.
	a.child = append(make([]int32, 0, total+1), -1)
	a.next = append(make([]int32, 0, total+1), -1)
	a.edge = append(make([]uint8, 0, total+1), 0)
	a.own = append(make([]int32, 0, total+1), -1)
	a.depth = append(make([]int, 0, total+1), 0)
	for id, kw := range keywords {
		a.kwLen[id] = len(kw)
		a.kwNext[id] = -1
		if kw == "" {
			continue
		}
		a.maxKw = max(a.maxKw, len(kw))
		s := int32(0)
		for i := 0; i < len(kw); i++ {
			c := a.class[lowerASCII(kw[i])]
			t := a.trieChild(s, c)
			if t < 0 {
				t = int32(len(a.own))
				a.child = append(a.child, -1)
				a.next = append(a.next, a.child[s])
				a.edge = append(a.edge, c)
				a.own = append(a.own, -1)
				a.depth = append(a.depth, a.depth[s]+1)
				a.child[s] = t
			}
			s = t
		}
		if a.own[s] < 0 {
			a.own[s] = int32(id)
		} else {
			last := a.own[s]
			for a.kwNext[last] >= 0 {
				last = a.kwNext[last]
			}
			a.kwNext[last] = int32(id)
		}
	}
	n := len(a.own)
	// Breadth-first: failure links and suffix-output links.
	a.fail = make([]int32, n)
	a.dict = make([]int32, n)
	a.dict[0] = -1
	order := make([]int32, 0, n)
	for t := a.child[0]; t >= 0; t = a.next[t] {
		order = append(order, t) // fail = root
		a.dict[t] = -1
	}
	for i := 0; i < len(order); i++ {
		s := order[i]
		for t := a.child[s]; t >= 0; t = a.next[t] {
			f := a.fail[s]
			for {
				if g := a.trieChild(f, a.edge[t]); g >= 0 {
					a.fail[t] = g
					break
				}
				if f == 0 {
					a.fail[t] = 0
					break
				}
				f = a.fail[f]
			}
			if ft := a.fail[t]; a.own[ft] >= 0 {
				a.dict[t] = ft
			} else {
				a.dict[t] = a.dict[ft]
			}
			order = append(order, t)
		}
	}
	a.skip = len(keywords) > 0 && slices.IndexFunc(keywords, func(kw string) bool { return len(kw) < 2 }) < 0
	if a.skip {
		a.keywords = keywords
	}
	// Memory for every row, touched only as rows are filled.
	a.delta = make([]uint32, n*width)
	a.ready = make([]uint32, n)
	a.nStates = n
	a.fillRow(0)
	return a
}

// trieChild is the trie edge of s for class c, or -1.
func (a *automaton) trieChild(s int32, c uint8) int32 {
	for t := a.child[s]; t >= 0; t = a.next[t] {
		if a.edge[t] == c {
			return t
		}
	}
	return -1
}

// fillRow fills the row of state s (and first those of its failure
// chain, which it copies from). Called with mu held, or before the
// automaton is shared.
func (a *automaton) fillRow(s int32) {
	if atomic.LoadUint32(&a.ready[s]) != 0 {
		return
	}
	w := int(a.width)
	f := a.fail[s]
	if s != 0 {
		a.fillRow(f)
	}
	row := a.delta[int(s)*w : int(s+1)*w]
	for c := range row {
		var t int32
		if s == 0 {
			t = max(a.trieChild(0, uint8(c)), 0)
		} else if t = a.trieChild(s, uint8(c)); t < 0 {
			t = int32((atomic.LoadUint32(&a.delta[int(f)*w+c]) & acState) / a.width)
		}
		atomic.StoreUint32(&row[c], a.encode(t))
	}
	atomic.StoreUint32(&a.ready[s], 1)
}

// encode is the transition value into state t.
func (a *automaton) encode(t int32) uint32 {
	v := uint32(t) * a.width
	if a.own[t] >= 0 || a.dict[t] >= 0 {
		v |= acFlag
	}
	if a.depth[t] <= 1 {
		v |= acShallow
	}
	if atomic.LoadUint32(&a.ready[t]) == 0 {
		v |= acPending
	}
	return v
}

// settle fills the row of the state transition i leads to and clears
// acPending on it; it returns the transition's value.
func (a *automaton) settle(i uint32) uint32 {
	a.mu.Lock()
	defer a.mu.Unlock()
	v := atomic.LoadUint32(&a.delta[i])
	if v&acPending != 0 {
		a.fillRow(int32((v & acState) / a.width))
		v &^= acPending
		atomic.StoreUint32(&a.delta[i], v)
	}
	return v
}

// scan advances the automaton over p starting in state s (0 or a value
// scan returned); for every keyword
// occurrence it calls hit with the keyword id and the offset in p just past
// the occurrence's last byte. It returns the final state.
func (a *automaton) scan(s uint32, p []byte, hit func(id int32, end int)) uint32 {
	if a.complete.Load() == 0 {
		if a.scanned.Add(int64(len(p))) <= completeAfter {
			return a.scanLazy(s, p, hit)
		}
		a.finish()
	}
	// Every row is filled and no transition carries acPending: the table
	// no longer changes, and plain loads are safe (complete was set after
	// the last write).
	delta, class := a.delta, &a.class
	if !a.skip {
		for i, b := range p {
			s = delta[s&acState+uint32(class[b])]
			if s&acFlag != 0 {
				a.hits(s, i, hit)
			}
		}
		return s
	}
	// The DFA runs until it is back in a state of depth 0 or 1 after a
	// byte p[i-1], past the place the filter last let through: then no
	// keyword can be under way but one starting at p[i-1], and the
	// filter finds the next place where one may start. Starting there
	// from the root reaches the state the DFA would have reached stepping
	// over every byte, as far as any keyword is concerned.
	//
	// Where the grid lets places through less than nearGap bytes apart
	// (text dense with keywords), the scan asks the start filter instead,
	// which answers place by place, until its answers are nearGap bytes
	// apart again.
	near := false
	for i, until := 0, 0; i < len(p); {
		for i < len(p) {
			s = delta[s&acState+uint32(class[p[i]])]
			i++
			if s&(acFlag|acShallow) != 0 {
				if s&acFlag != 0 {
					a.hits(s, i-1, hit)
				}
				if s&acShallow != 0 && i >= until {
					break
				}
			}
		}
		if s&acShallow == 0 || i >= len(p) {
			break
		}
		if near {
			k := a.start.candidate(p, i-1)
			near = k-(i-1) < nearGap
			if k > i-1 {
				s, i = 0, k
			}
			continue
		}
		k, at := a.grid.candidate(p, i-1)
		near = at-(i-1) < nearGap
		if k > i-1 {
			s, i = 0, k
		}
		until = at + 2
	}
	return s
}

// nearGap is the distance between the skip filter's answers below which a
// scan takes the start filter rather than the grid.
const nearGap = 32

// completeAfter is how many bytes an automaton scans with lazily filled
// rows before it fills the rest, builds the skip filters and switches to
// the plain loop: a large output is worth the ~1 ms, a command line is
// not.
const completeAfter = 64 << 10

// scanLazy is scan while rows may still be missing.
func (a *automaton) scanLazy(s uint32, p []byte, hit func(id int32, end int)) uint32 {
	delta, class := a.delta, &a.class
	for i, b := range p {
		j := s&acState + uint32(class[b])
		s = atomic.LoadUint32(&delta[j])
		if s&(acFlag|acPending) == 0 {
			continue
		}
		if s&acPending != 0 {
			s = a.settle(j)
		}
		if s&acFlag != 0 {
			a.hits(s, i, hit)
		}
	}
	return s
}

// hits reports the keywords that end in state s at p[i], longest first.
func (a *automaton) hits(s uint32, i int, hit func(id int32, end int)) {
	for u := int32((s & acState) / a.width); u >= 0; u = a.dict[u] {
		for id := a.own[u]; id >= 0; id = a.kwNext[id] {
			hit(id, i+1)
		}
	}
}

// finish fills every row that is still missing, builds the skip filters
// and clears acPending everywhere, then sets complete.
func (a *automaton) finish() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.complete.Load() != 0 {
		return
	}
	for st := 0; st < a.nStates; st++ {
		a.fillRow(int32(st))
	}
	if a.skip {
		a.grid, a.start = newGridFilter(a.keywords), newStartFilter(a.keywords)
	}
	for i := range a.delta {
		if v := atomic.LoadUint32(&a.delta[i]); v&acPending != 0 {
			atomic.StoreUint32(&a.delta[i], v&^acPending)
		}
	}
	a.complete.Store(1)
}

// stateDepth is the length of the keyword prefix that state s (as scan
// returns it) represents.
func (a *automaton) stateDepth(s uint32) int {
	return a.depth[(s&acState)/a.width]
}
