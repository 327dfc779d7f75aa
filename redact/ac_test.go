package redact

import (
	"bytes"
	"fmt"
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
		if round%2 == 1 {
			a.finish() // every row filled: the plain loop
		}
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

// TestAutomatonConcurrent scans with one automaton from several goroutines
// at once, across the switch from lazily filled rows to the complete
// table, and checks every scan against a fresh automaton's (run it with
// -race).
func TestAutomatonConcurrent(t *testing.T) {
	kws := []string{"token", "secret", "ghp_", "AKIA", "password", "key=", "tok"}
	rnd := rand.New(rand.NewPCG(7, 8))
	const alpha = "tokenscrghp_AKIApaswordy= "
	texts := make([][]byte, 8)
	for i := range texts {
		texts[i] = make([]byte, completeAfter/4+rnd.IntN(4096))
		for j := range texts[i] {
			texts[i][j] = alpha[rnd.IntN(len(alpha))]
		}
	}
	type hit struct{ id, end int }
	count := func(a *automaton, text []byte) []hit {
		var got []hit
		var s uint32
		for p := 0; p < len(text); p += 1000 {
			off := p
			s = a.scan(s, text[p:min(p+1000, len(text))], func(id int32, end int) { got = append(got, hit{int(id), off + end}) })
		}
		return got
	}
	shared := newAutomaton(kws)
	done := make(chan error, len(texts))
	for _, text := range texts {
		go func() {
			got, want := count(shared, text), count(newAutomaton(kws), text)
			if !slices.Equal(got, want) {
				done <- fmt.Errorf("shared automaton: %d hits, fresh: %d", len(got), len(want))
				return
			}
			done <- nil
		}()
	}
	for range texts {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if shared.complete.Load() == 0 {
		t.Fatal("the shared automaton never switched to the complete table")
	}
}

// TestAutomatonSkip is TestAutomaton for the skip filter: keywords of two
// bytes and more (shorter ones turn it off), long texts of bytes the
// filter folds together (letters in both cases, control bytes, '@' and
// '`', '[' and '{'), in pieces of any size, with every row filled.
func TestAutomatonSkip(t *testing.T) {
	rnd := rand.New(rand.NewPCG(21, 22))
	const alpha = "abAB-_c@`[{\r\x0d\x00\x20.:~"
	for round := 0; round < 400; round++ {
		kws := make([]string, 1+rnd.IntN(30))
		for i := range kws {
			b := make([]byte, 2+rnd.IntN(7))
			for j := range b {
				b[j] = alpha[rnd.IntN(len(alpha))]
			}
			kws[i] = string(b)
		}
		text := make([]byte, rnd.IntN(3000))
		for j := range text {
			text[j] = (alpha + "xyzXYZ\x80\xff")[rnd.IntN(len(alpha)+8)]
		}
		lt := []byte(lowerString(string(text)))
		type hit struct{ id, end int }
		var want []hit
		for end := 1; end <= len(text); end++ {
			var here []hit
			for id, k := range kws {
				lk := []byte(lowerString(k))
				if end >= len(k) && bytes.Equal(lt[end-len(k):end], lk) {
					here = append(here, hit{id, end})
				}
			}
			slices.SortStableFunc(here, func(a, b hit) int { return len(kws[b.id]) - len(kws[a.id]) })
			want = append(want, here...)
		}
		a := newAutomaton(kws)
		if !a.skip {
			t.Fatalf("keywords %q: no skip filter", kws)
		}
		a.finish()
		var got []hit
		var s uint32
		for p := 0; p < len(text); {
			n := min(1+rnd.IntN(1+rnd.IntN(400)), len(text)-p)
			off := p
			s = a.scan(s, text[p:p+n], func(id int32, end int) { got = append(got, hit{int(id), off + end}) })
			p += n
		}
		if !slices.Equal(got, want) {
			t.Fatalf("keywords %q text %q:\n got %v\nwant %v", kws, text, got, want)
		}
		if d, w := a.stateDepth(s), depthAtEnd(lt, kws); d != w {
			t.Fatalf("keywords %q text %q: final state depth %d, want %d", kws, text, d, w)
		}
	}
}

// depthAtEnd is the length of the longest suffix of text that begins a
// keyword (text and keywords compared lower-cased).
func depthAtEnd(text []byte, kws []string) int {
	for n := min(len(text), 16); n > 0; n-- {
		for _, k := range kws {
			if lk := []byte(lowerString(k)); len(lk) >= n && bytes.Equal(text[len(text)-n:], lk[:n]) {
				return n
			}
		}
	}
	return 0
}
