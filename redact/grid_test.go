package redact

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// keywordStarts is the exhaustive answer the skip filters approximate:
// the places where a keyword starts in p (letters compared as the
// automaton compares them), in order.
func keywordStarts(p []byte, kws []string) []int {
	lp := []byte(lowerString(string(p)))
	var starts []int
	for s := range p {
		for _, kw := range kws {
			if bytes.HasPrefix(lp[s:], []byte(lowerString(kw))) {
				starts = append(starts, s)
				break
			}
		}
	}
	return starts
}

// checkFilters checks the skip filters' answers for p against the
// exhaustive search, from every place: they may let through places where
// no keyword starts (say "maybe" more often), never skip one where a
// keyword starts; and the grid's place must be past its answer's start,
// so that a scan makes progress.
func checkFilters(t *testing.T, kws []string, p []byte) {
	t.Helper()
	g, f := newGridFilter(kws), newStartFilter(kws)
	starts := keywordStarts(p, kws)
	for k := 0; k < len(p); k++ {
		want := len(p)
		if i, _ := slices.BinarySearch(starts, k); i < len(starts) {
			want = starts[i]
		}
		start, at := g.candidate(p, k)
		if start > want {
			t.Fatalf("keywords %q text %q from %d: the grid skips to %d, past the keyword at %d", kws, p, k, start, want)
		}
		if start < k || at < start-1 || at > len(p) {
			t.Fatalf("keywords %q text %q from %d: the grid answers (%d, %d)", kws, p, k, start, at)
		}
		if got := f.candidate(p, k); got > want || got < k {
			t.Fatalf("keywords %q text %q from %d: the start filter answers %d, the keyword is at %d", kws, p, k, got, want)
		}
	}
}

// fragmentText is text made to trip the filter: pieces of the keywords
// (their starts, ends and middles, in either case, at either parity),
// whole keywords, bytes the filter folds together with keyword bytes and
// now and then a stretch of spaces, digits and dots.
func fragmentText(rnd *rand.Rand, kws []string, n int) []byte {
	const noise = "@`[{\r\n\x00 .:~-_^|\x80\xff\xc3\x9fxyzXYZ"
	var b []byte
	for len(b) < n {
		kw := kws[rnd.IntN(len(kws))]
		i := rnd.IntN(len(kw))
		j := i + 1 + rnd.IntN(len(kw)-i)
		if rnd.IntN(4) == 0 {
			i, j = 0, len(kw)
		}
		frag := []byte(kw[i:j])
		for x := range frag {
			if rnd.IntN(2) == 0 && 'a' <= frag[x] && frag[x] <= 'z' {
				frag[x] -= 'a' - 'A'
			}
		}
		b = append(b, frag...)
		for range rnd.IntN(3) {
			b = append(b, noise[rnd.IntN(len(noise))])
		}
		if rnd.IntN(8) == 0 {
			// A stretch where no keyword of the tests starts: a scan
			// leaves the start filter for the grid there and back.
			for range 1 + rnd.IntN(120) {
				b = append(b, " 0.9\n"[rnd.IntN(5)])
			}
		}
	}
	return b[:n]
}

// TestGridNeverSkipsAKeyword: random keyword sets (two bytes and longer,
// with bytes the filter folds together, shared prefixes and non-ASCII
// bytes) over text made of their fragments.
func TestGridNeverSkipsAKeyword(t *testing.T) {
	rnd := rand.New(rand.NewPCG(21, 28))
	const alpha = "abAB-_c@`[{\r\x00 .:~ékqz\x80\xff"
	for round := range 300 {
		kws := make([]string, 1+rnd.IntN(40))
		for i := range kws {
			b := make([]byte, 2+rnd.IntN(12))
			for j := range b {
				b[j] = alpha[rnd.IntN(len(alpha))]
			}
			kws[i] = string(b)
		}
		n := rnd.IntN(300)
		if round%3 == 0 {
			n = rnd.IntN(40) // short texts: the end of a piece
		}
		checkFilters(t, kws, fragmentText(rnd, kws, n))
	}
}

// TestGridDefaultKeywords is TestGridNeverSkipsAKeyword for the keywords
// of the built-in and gitleaks rules and of some values and custom
// keywords (non-ASCII ones too), over their fragments and over ordinary
// output.
func TestGridDefaultKeywords(t *testing.T) {
	kws := slices.Clone(staticSet(false).kws)
	kws = append(kws, lowerString("PässWÖRD-1234-xyz"), lowerString("ÜBER"), "fuzz-fake-value-9qx2", "ab")
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		checkFilters(t, kws, fragmentText(rnd, kws, 600))
	}
	text := ordinaryOutput(20000)
	checkFilters(t, kws, text)
}

// TestScanSkipMatchesEveryByte: a scan of the default keywords with the
// skip filters reports exactly the hits of a scan that steps the automaton
// over every byte, for text of keyword fragments (where the scan takes the
// start filter) and stretches without (where it takes the grid), in
// pieces of any size.
func TestScanSkipMatchesEveryByte(t *testing.T) {
	kws := staticSet(false).kws
	skip, every := newAutomaton(kws), newAutomaton(kws)
	skip.finish()
	every.finish()
	if !skip.skip {
		t.Fatal("the default keywords have no skip filter")
	}
	every.skip = false
	rnd := rand.New(rand.NewPCG(8, 9))
	type hit struct{ id, end int }
	for range 200 {
		text := fragmentText(rnd, kws, rnd.IntN(4000))
		var got, want []hit
		var s, w uint32
		for p := 0; p < len(text); {
			n := min(1+rnd.IntN(1+rnd.IntN(600)), len(text)-p)
			off := p
			s = skip.scan(s, text[p:p+n], func(id int32, end int) { got = append(got, hit{int(id), off + end}) })
			w = every.scan(w, text[p:p+n], func(id int32, end int) { want = append(want, hit{int(id), off + end}) })
			p += n
		}
		if !slices.Equal(got, want) {
			t.Fatalf("text %q:\n got %v\nwant %v", text, got, want)
		}
		if skip.stateDepth(s) != every.stateDepth(w) {
			t.Fatalf("text %q: final depth %d, want %d", text, skip.stateDepth(s), every.stateDepth(w))
		}
	}
}

// FuzzGrid checks the skip filter against the exhaustive search for
// keywords and text the fuzzer chooses (keywords separated by '\n').
func FuzzGrid(f *testing.F) {
	f.Add([]byte("sk\ns.\nq~\ntoken\nauthorization"), []byte("the task asks: authorizatioN TOKEN s.q~"))
	f.Add([]byte("ab\nabc\nbcd"), []byte("xabcdxAbCdabab"))
	f.Add([]byte("über\n\xff\xfe"), []byte("ÜBER über \xff\xfe\xdf\xde"))
	f.Fuzz(func(t *testing.T, kwBlob, text []byte) {
		var kws []string
		for _, kw := range strings.Split(string(kwBlob), "\n") {
			if len(kw) >= 2 && len(kw) <= 64 {
				kws = append(kws, lowerString(kw))
			}
		}
		if len(kws) == 0 || len(kws) > 64 || len(text) > 1024 {
			return
		}
		checkFilters(t, kws, text)
	})
}
