package redact

import (
	"cmp"
	"encoding/binary"
	"slices"
)

// The skip filter: it finds the places in a text where a keyword may
// start, reading the text two bytes at a time and only every other pair,
// with one table lookup a pair and a branch every sixteen bytes.
//
// It looks at the text as a grid of pairs: the pairs at k, k+2, k+4…
// (bytes folded as foldPair folds them). Every keyword is given a window
// of six bytes from its offset o (-1 to gridMaxOff, chosen where its
// bytes are rarest): three grid pairs hold the window when the keyword
// starts at a grid place less o, and the window one byte further when it
// starts between. Each of these two is a pattern of three pairs, with any
// byte allowed where the keyword has none, and each pattern is put in one
// of gridBuckets (21) buckets. For every folded pair x, tab[x] has bit b
// set if x can be the first pair of a pattern of bucket b, bit 21+b the
// second pair, bit 42+b the third: a pattern may lie at grid place e only
// if tab[x(e)] & tab[x(e+2)]>>21 & tab[x(e+4)]>>42 is not zero.
//
// This is the idea of Hyperscan's FDR and of the Teddy searcher of Rust's
// aho-corasick crate (a fingerprint of a few bytes a keyword, keywords
// grouped in buckets so that the fingerprints of different keywords do
// not combine), done with plain loads where they use vector shuffles. The
// buckets are chosen to keep the pairs of ordinary text apart: a pattern
// goes to the bucket where it adds the least to the estimated chance of a
// false alarm, by a table of how often bytes occur in text and logs.
type gridFilter struct {
	tab *[1 << 16]uint64
	// back: a grid place that lets a keyword through stands for the
	// keywords starting from back bytes before it to one byte after it.
	back int
}

const (
	gridBuckets = 21
	gridWindow  = 6 // bytes of a keyword's window: three grid pairs
	gridMaxOff  = 8 // the latest offset of a keyword's window
	// The patterns of shortKnown bytes or fewer go to the first
	// shortBuckets buckets, the others to the rest.
	shortKnown   = 4
	shortBuckets = 7
)

// foldPair folds two bytes as the automaton compares them, and maps
// some others together: '@' with '`', '[' with '{', control bytes with
// punctuation. It can only make the filter let more places through.
func foldPair(x uint16) uint16 { return x | 0x2020 }

// A gridPattern is a keyword's window as three grid pairs; -1 is any
// byte.
type gridPattern [gridWindow]int

// window is the pattern of kw's bytes from offset o.
func window(kw string, o int) gridPattern {
	var gp gridPattern
	for j := range gp {
		gp[j] = -1
		if i := o + j; i >= 0 && i < len(kw) {
			gp[j] = int(uint8(foldPair(uint16(kw[i]))))
		}
	}
	return gp
}

// known is the number of bytes gp does not allow to be any.
func (gp gridPattern) known() int {
	n := 0
	for _, b := range gp {
		if b >= 0 {
			n++
		}
	}
	return n
}

// chance estimates how often a pattern matches at a place of text.
func (gp gridPattern) chance() float64 {
	c := 1.0
	for _, b := range gp {
		c *= byteChance(b)
	}
	return c
}

// newGridFilter builds the filter for keywords of two bytes or more.
func newGridFilter(keywords []string) *gridFilter {
	g := &gridFilter{tab: new([1 << 16]uint64)}
	type pattern struct {
		gridPattern
		chance float64
	}
	pats := make([]pattern, 0, 2*len(keywords))
	for _, kw := range keywords {
		// The offset whose two windows are least likely to match; from
		// one byte before the keyword (for a keyword of two bytes, the
		// window one byte further holds it whole) to gridMaxOff.
		best, bestChance := -1, 0.0
		for o := -1; o <= min(gridMaxOff, len(kw)-2); o++ {
			if c := window(kw, o).chance() + window(kw, o+1).chance(); o == -1 || c < bestChance {
				best, bestChance = o, c
			}
		}
		for _, gp := range []gridPattern{window(kw, best), window(kw, best+1)} {
			pats = append(pats, pattern{gp, gp.chance()})
		}
		g.back = max(g.back, best+1)
	}
	// Patterns in decreasing order of their own chance to match, each to
	// the bucket where it adds least to the product of the chances of its
	// three pair sets. The patterns that know four bytes or fewer have
	// buckets of their own: they would let through most places of text
	// with the pairs of longer keywords.
	slices.SortStableFunc(pats, func(a, b pattern) int { return cmp.Compare(b.chance, a.chance) }) // stable: the same buckets every time
	var chances [gridBuckets][3]float64
	// Bits for the pairs with any byte, applied at the end in one pass:
	// for every pair, by its first folded byte and by its second.
	var always uint64
	var byFirst, bySecond [256]uint64
	has := func(pr [2]int, bit uint64) bool {
		switch {
		case always&bit != 0:
			return true
		case pr[0] < 0 || pr[1] < 0:
			return pr[1] < 0 && pr[0] >= 0 && byFirst[pr[0]]&bit != 0 || pr[0] < 0 && pr[1] >= 0 && bySecond[pr[1]]&bit != 0
		}
		return g.tab[foldPair(uint16(pr[0]|pr[1]<<8))]&bit != 0
	}
	for _, pat := range pats {
		gp := pat.gridPattern
		lo, hi := shortBuckets, gridBuckets
		if gp.known() <= shortKnown {
			lo, hi = 0, shortBuckets
		}
		best, bestCost := lo, 0.0
		for b := lo; b < hi; b++ {
			before, after := 1.0, 1.0
			for j := range 3 {
				pr := [2]int{gp[2*j], gp[2*j+1]}
				d := 0.0
				if !has(pr, 1<<(gridBuckets*j+b)) {
					d = pairChance(pr[0], pr[1])
				}
				before *= min(chances[b][j], 1)
				after *= min(chances[b][j]+d, 1)
			}
			if cost := after - before; b == lo || cost < bestCost {
				best, bestCost = b, cost
			}
		}
		for j := range 3 {
			pr := [2]int{gp[2*j], gp[2*j+1]}
			bit := uint64(1) << (gridBuckets*j + best)
			if has(pr, bit) {
				continue
			}
			chances[best][j] += pairChance(pr[0], pr[1])
			switch {
			case pr[0] < 0 && pr[1] < 0:
				always |= bit
			case pr[0] < 0:
				bySecond[pr[1]] |= bit
			case pr[1] < 0:
				byFirst[pr[0]] |= bit
			default:
				g.tab[foldPair(uint16(pr[0]|pr[1]<<8))] |= bit
			}
		}
	}
	for x := range g.tab {
		g.tab[x] |= always | byFirst[uint8(x)] | bySecond[x>>8]
	}
	return g
}

// candidate returns the first place at or after k where a keyword may
// start in p, and the grid place at or after k that lets a keyword
// through (len(p) if none): every keyword starting at k or later starts
// before that place plus two. The last places, where the filter cannot
// see a whole window, always let a keyword through.
func (g *gridFilter) candidate(p []byte, k int) (start, at int) {
	const (
		mask = 1<<gridBuckets - 1
		b1   = gridBuckets
		b2   = 2 * gridBuckets
	)
	tab := g.tab
	e := gridRounds(tab, p, k)
	for ; e+gridWindow <= len(p); e += 2 {
		t0 := tab[foldPair(binary.LittleEndian.Uint16(p[e:]))]
		t1 := tab[foldPair(binary.LittleEndian.Uint16(p[e+2:]))]
		t2 := tab[foldPair(binary.LittleEndian.Uint16(p[e+4:]))]
		if t0&(t1>>b1)&(t2>>b2)&mask != 0 {
			return max(k, e-g.back), e
		}
	}
	return max(k, e-g.back), len(p)
}

// gridRoundsGo is gridRounds in Go: eight grid places a round, from two
// loads; the entries of the first two places' pairs are the last two of
// the round before.
func gridRoundsGo(tab *[1 << 16]uint64, p []byte, e int) int {
	const (
		folds = 0x2020202020202020
		mask  = 1<<gridBuckets - 1
		b1    = gridBuckets
		b2    = 2 * gridBuckets
	)
	if e+20 > len(p) {
		return e
	}
	t0 := tab[foldPair(binary.LittleEndian.Uint16(p[e:]))]
	t1 := tab[foldPair(binary.LittleEndian.Uint16(p[e+2:]))]
	for ; e+20 <= len(p); e += 16 {
		q := p[e+4 : e+20]
		x := binary.LittleEndian.Uint64(q[:8]) | folds
		y := binary.LittleEndian.Uint64(q[8:]) | folds
		t2 := tab[uint16(x)]
		t3 := tab[uint16(x>>16)]
		t4 := tab[uint16(x>>32)]
		t5 := tab[uint16(x>>48)]
		t6 := tab[uint16(y)]
		t7 := tab[uint16(y>>16)]
		t8 := tab[uint16(y>>32)]
		t9 := tab[uint16(y>>48)]
		m := t0&(t1>>b1)&(t2>>b2) | t1&(t2>>b1)&(t3>>b2) | t2&(t3>>b1)&(t4>>b2) | t3&(t4>>b1)&(t5>>b2) |
			t4&(t5>>b1)&(t6>>b2) | t5&(t6>>b1)&(t7>>b2) | t6&(t7>>b1)&(t8>>b2) | t7&(t8>>b1)&(t9>>b2)
		if m&mask != 0 {
			break
		}
		t0, t1 = t8, t9
	}
	return e
}

// pairChance estimates how often two bytes (folded, -1: any) follow each
// other in text, as the product of how often each occurs.
func pairChance(c0, c1 int) float64 {
	return byteChance(c0) * byteChance(c1)
}

// byteChance estimates the share of a folded byte in text and logs
// (-1: any byte). Letters follow English letter frequencies; the rest is
// a rough guess for logs and source code. Only the order matters much.
func byteChance(c int) float64 {
	if c < 0 {
		return 1
	}
	return byteChances[c]
}

var byteChances = func() (t [256]float64) {
	for c := range t {
		switch {
		case c >= 'a' && c <= 'z':
			// English letter frequencies in percent, times 0.6:
			// letters are about 60% of such text.
			t[c] = 0.006 * letterPercent[c-'a']
		case c == ' ':
			t[c] = 0.12
		case c >= '0' && c <= '9':
			t[c] = 0.012
		case c == '\n'|0x20, c == '.', c == '/', c == ':', c == '-', c == '_'|0x20, c == '=', c == '"', c == ',', c == '\t'|0x20:
			t[c] = 0.01
		case c < 0x80:
			t[c] = 0.002
		default:
			t[c] = 0.0005
		}
	}
	return t
}()

var letterPercent = [26]float64{
	8.2, 1.5, 2.8, 4.3, 12.7, 2.2, 2.0, 6.1, 7.0, 0.15, 0.8, 4.0, 2.4, // a–m
	6.7, 7.5, 1.9, 0.1, 6.0, 6.3, 9.1, 2.8, 1.0, 2.4, 0.15, 2.0, 0.07, // n–z
}

// A startFilter is the skip filter for text dense with keywords, where
// the grid lets through a place every few bytes: it tells for every
// place whether a keyword may start there, from the first two folded
// bytes (a table of the keywords' first two bytes) and, for the keywords
// of four bytes or more, a hash of the first four. At one load a place
// for most places it is slower than the grid on text without keywords
// and faster where keywords are a few bytes apart.
type startFilter struct {
	pre2 *[1 << 16]uint8
	pre4 [1 << 10]uint64
}

const (
	preShort = 1 << iota // a keyword of two or three bytes starts with the pair
	preLong              // a longer one does
)

// fold4 folds four bytes as foldPair folds two.
func fold4(x uint32) uint32 { return x | 0x20202020 }

// hash4 is the pre4 bit of four folded bytes.
func hash4(x uint32) uint32 { return (x * 0x9E3779B1) >> 16 }

func newStartFilter(keywords []string) *startFilter {
	f := &startFilter{pre2: new([1 << 16]uint8)}
	for _, kw := range keywords {
		var x uint32
		for i := 0; i < len(kw) && i < 4; i++ {
			x |= uint32(kw[i]) << (8 * i)
		}
		x = fold4(x)
		if len(kw) >= 4 {
			h := hash4(x) & 0xffff
			f.pre4[h>>6] |= 1 << (h & 63)
			f.pre2[uint16(x)] |= preLong
		} else {
			f.pre2[uint16(x)] |= preShort
		}
	}
	return f
}

// candidate returns the first place at or after k where a keyword may
// start in p; the last three places always may.
func (f *startFilter) candidate(p []byte, k int) int {
	const folds = 0x2020202020202020
	// Eight places a round, from two loads.
	for ; k+12 <= len(p); k += 8 {
		x := binary.LittleEndian.Uint64(p[k:]) | folds
		y := binary.LittleEndian.Uint64(p[k+4:]) | folds
		switch {
		case f.may(uint32(x)):
			return k
		case f.may(uint32(x >> 8)):
			return k + 1
		case f.may(uint32(x >> 16)):
			return k + 2
		case f.may(uint32(x >> 24)):
			return k + 3
		case f.may(uint32(y)):
			return k + 4
		case f.may(uint32(y >> 8)):
			return k + 5
		case f.may(uint32(y >> 16)):
			return k + 6
		case f.may(uint32(y >> 24)):
			return k + 7
		}
	}
	for ; k+4 <= len(p); k++ {
		if f.may(fold4(binary.LittleEndian.Uint32(p[k:]))) {
			return k
		}
	}
	return k
}

// may reports whether a keyword may start with the four folded bytes of
// x (the first in the low byte).
func (f *startFilter) may(x uint32) bool {
	t := f.pre2[uint16(x)]
	if t == 0 {
		return false
	}
	h := hash4(x) & 0xffff
	return t&preShort != 0 || f.pre4[h>>6]&(1<<(h&63)) != 0
}
