//go:build amd64 && !purego

package redact

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGridVectorAgrees: the vector loop of the grid answers as the Go
// loop does, from every place of texts of keyword fragments (hits every
// few bytes), of ordinary output (hits now and then) and of one byte
// (none), of every length around the loop's rounds.
func TestGridVectorAgrees(t *testing.T) {
	if !gridVector {
		t.Skip("no AVX-512 here: the grid runs its Go loop only")
	}
	kws := slices.Clone(staticSet(false).kws)
	g := newGridFilter(kws)
	rnd := rand.New(rand.NewPCG(5, 12))
	texts := [][]byte{ordinaryOutput(5000), []byte(string(make([]byte, 300)))}
	for range 60 {
		texts = append(texts, fragmentText(rnd, kws, rnd.IntN(700)))
	}
	for _, text := range texts {
		for n := range min(len(text), 130) {
			checkGridVector(t, g, text[:len(text)-n])
		}
	}
}

func checkGridVector(t *testing.T, g *gridFilter, p []byte) {
	t.Helper()
	defer func(v bool) { gridVector = v }(gridVector)
	for k := range p {
		gridVector = true
		vs, va := g.candidate(p, k)
		if e := gridRounds512(g.tab, p, k); e < k || e > len(p) || (e-k)%16 != 0 {
			t.Fatalf("text %q from %d: the vector loop stops at %d", p, k, e)
		}
		gridVector = false
		gs, ga := g.candidate(p, k)
		if vs != gs || va != ga {
			t.Fatalf("text %q from %d: the vector loop answers (%d, %d), the Go loop (%d, %d)", p, k, vs, va, gs, ga)
		}
	}
}
