package redact

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAutomaton compares the automaton's hits with a naive search, for
// random keyword sets (with shared prefixes, suffixes, duplicates and case
// variants) over random text fed in random pieces.
func TestAutomaton(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	const alpha = "abAB-_c"
	for round := 0; round < 300; round++ {
		kws := make([]string, 1+rnd.IntN(12))
		for i := range kws {
			b := make([]byte, rnd.IntN(6))
			for j := range b {
				b[j] = alpha[rnd.IntN(len(alpha))]
			}
			kws[i] = string(b)
		}
		text := make([]byte, rnd.IntN(200))
		for j := range text {
			text[j] = (alpha + "xyz")[rnd.IntN(len(alpha)+3)]
		}
		type hit struct{ id, end int }
		var want []hit
		lt := bytes.ToLower(text)
		for end := 1; end <= len(text); end++ {
			// Longest first, then keyword order (the order scan reports).
			var here []hit
			for id, k := range kws {
				lk := bytes.ToLower([]byte(k))
				if k != "" && end >= len(k) && bytes.Equal(lt[end-len(k):end], lk) {
					here = append(here, hit{id, end})
				}
			}
			slices.SortStableFunc(here, func(a, b hit) int { return len(kws[b.id]) - len(kws[a.id]) })
			want = append(want, here...)
		}
		a := newAutomaton(kws)
		var got []hit
		var s uint32
		for p := 0; p < len(text); {
			n := min(1+rnd.IntN(20), len(text)-p)
			off := p
			s = a.scan(s, text[p:p+n], func(id int32, end int) { got = append(got, hit{int(id), off + end}) })
			p += n
		}
		if !slices.Equal(got, want) {
			t.Fatalf("keywords %q text %q:\n got %v\nwant %v", kws, text, got, want)
		}
	}
}
