package redact

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// quickPair returns a fresh Redactor, whose keyword check runs before any
// automaton exists, and one of the same options already built.
func quickPair(t testing.TB, o Options) (fresh, built *Redactor) {
	fresh, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	built, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	built.build()
	return fresh, built
}

// TestQuickCheckAgrees: a short text redacted before the automaton exists
// (left alone when it holds no keyword, redacted with only the rules of
// the keywords it holds when it holds some) comes out as the automaton and
// every rule make it, for every planted secret, its neighbours, every
// keyword and random text.
func TestQuickCheckAgrees(t *testing.T) {
	opts := []Options{{}, {NoGitleaks: true}, {Values: fuzzValues}, {Secrets: []string{"Sup3rS3cretValue!", "PässWÖRD-1234-xyz"}},
		{Patterns: []Pattern{{Name: "ticket", Regex: `TICKET-([0-9]{6})`}, {Name: "kw", Regex: `(?i)zebra=(\w{8})`, Keywords: []string{"Zebra"}}}}}
	var inputs []string
	for _, c := range plantable() {
		inputs = append(inputs, c.text, strings.ToUpper(c.text), "x "+c.text+" y", c.needle,
			c.text+" and again "+c.text, "secret: "+c.text)
	}
	for _, kw := range staticKeywords(false) {
		inputs = append(inputs, kw, strings.ToUpper(kw), "a"+kw+"=Zq9xK2mW7pL4vB8nR3tY6uI1oE5aS0dF")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 =:/-_.\"'\n"
	for i := 0; i < 2000; i++ {
		b := make([]byte, rng.IntN(quickMax+40))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		inputs = append(inputs, string(b))
	}
	inputs = append(inputs, "true", "ls -la", "go test ./...", "\x00\xff", "",
		"hidden: private keys under secret-masks", "x PässWÖRD-1234-xyz y", "TICKET-123456 zebra=abcdefgh ZEBRA=ABCDEFGH")
	quick, narrowed := 0, 0
	for _, o := range opts {
		for _, in := range inputs {
			fresh, built := quickPair(t, o)
			got, want := fresh.String(in), built.String(in)
			if got != want {
				t.Fatalf("options %+v, %q: quick %q, built %q", o, in, got, want)
			}
			if !fresh.built.Load() {
				quick++
				if got != in {
					narrowed++
				}
			}
		}
	}
	if quick == 0 || narrowed == 0 {
		t.Fatalf("the short-text path applied %d times, redacted %d times", quick, narrowed)
	}
	// A short text leaves the Redactor unbuilt, keyword or not; a long
	// one, or any text with a custom rule without keywords, builds it.
	r, _ := New(Options{})
	if r.String("go test ./..."); r.built.Load() {
		t.Error("a command without keywords built the automaton")
	}
	if got := r.String("export TOKEN=Zq9xK2mW7pL4vB8nR3tY6"); !strings.Contains(got, "REDACTED") || r.built.Load() {
		t.Errorf("a short text with a secret: %q, built %v", got, r.built.Load())
	}
	if r.String(strings.Repeat("export TOKEN=abc ", 40)); !r.built.Load() {
		t.Error("a long text did not build the automaton")
	}
	r, _ = New(Options{Patterns: []Pattern{{Regex: `\b[0-9]{4}-[0-9]{4}\b`}}})
	if got := r.String("card 1234-5678"); !strings.Contains(got, "REDACTED") || !r.built.Load() {
		t.Errorf("a keyword-less custom rule was skipped: %q", got)
	}
}

// TestKeywordsFoldedAsScanned: every keyword is stored as the automaton
// and the short-text check compare it (ASCII letters lowered, nothing
// else), so that a value or keyword with other letters is still found.
func TestKeywordsFoldedAsScanned(t *testing.T) {
	for i := range nStatic(false) {
		for _, kw := range staticRule(i).keywords {
			if kw != lowerString(kw) {
				t.Errorf("rule %s: keyword %q is not ASCII-lowered", staticRule(i).kind, kw)
			}
		}
	}
	const v = "PässWÖRD-1234-xyz"
	r, _ := New(Options{Secrets: []string{v}, Patterns: []Pattern{{Name: "ümlaut", Regex: `ÜBER=(\S+)`, Keywords: []string{"ÜBER"}}}})
	for _, in := range []string{"x " + v + " y", strings.Repeat("filler ", 100) + v} {
		if got := r.String(in); strings.Contains(got, v) {
			t.Errorf("a value with non-ASCII capitals survived: %q", got)
		}
	}
	if got := r.String("ÜBER=geheim123"); strings.Contains(got, "geheim123") {
		t.Errorf("a keyword with non-ASCII capitals never matched: %q", got)
	}
}

func FuzzQuickCheck(f *testing.F) {
	f.Add([]byte("true"))
	f.Add([]byte("password=hunter2hunter2"))
	f.Fuzz(func(t *testing.T, in []byte) {
		fresh, built := quickPair(t, Options{Values: fuzzValues})
		if got, want := fresh.Bytes(bytes.Clone(in)), built.Bytes(bytes.Clone(in)); !bytes.Equal(got, want) {
			t.Fatalf("%q: quick %q, built %q", in, got, want)
		}
	})
}

// TestPairIndexAgrees: the keywords the pair index finds in a text are
// exactly those bytes.Contains finds, keyword by keyword, in the same
// order, on every keyword alone, at every offset, with neighbours, and on
// random text over the keywords' own bytes.
func TestPairIndexAgrees(t *testing.T) {
	for _, noGitleaks := range []bool{false, true} {
		kws := staticKeywords(noGitleaks)
		if len(kws) > maxStaticKeywords {
			t.Fatalf("%d shared keywords, more than maxStaticKeywords (%d)", len(kws), maxStaticKeywords)
		}
		r, err := New(Options{NoGitleaks: noGitleaks, Secrets: []string{"Sup3rS3cretValue!"}})
		if err != nil {
			t.Fatal(err)
		}
		var inputs []string
		var alphabet []byte
		for i, kw := range kws {
			inputs = append(inputs, kw, "x"+kw, kw+"y", kw+kws[(i+1)%len(kws)], strings.ToUpper(kw)+" sup3rs3cretvalue!")
			alphabet = append(alphabet, kw...)
		}
		rng := rand.New(rand.NewPCG(3, 4))
		for i := 0; i < 3000; i++ {
			b := make([]byte, rng.IntN(quickMax+1))
			for j := range b {
				b[j] = alphabet[rng.IntN(len(alphabet))]
			}
			inputs = append(inputs, string(b))
		}
		// Lists with keywords of every length: one byte, empty, sharing
		// a first pair.
		small := newPairIndex([]string{"", "a", "ab", "abc", "abd", "b", "ba", "zz"})
		for _, in := range inputs[:500] {
			var got []int32
			small.each([]byte(in+"zz ab"), func(k int32) {
				if !slices.Contains(got, k) {
					got = append(got, k)
				}
			})
			for k, kw := range small.kws {
				if want := kw != "" && strings.Contains(in+"zz ab", kw); want != slices.Contains(got, int32(k)) {
					t.Fatalf("%q: keyword %q found %v, want %v", in, kw, !want, want)
				}
			}
		}
		found := 0
		for _, in := range inputs {
			got, short := r.shortHits([]byte(in))
			if !short {
				t.Fatalf("%q: not checked as a short text", in)
			}
			low := bytes.ToLower([]byte(in))
			var want []string
			lits := keywordLits[0]
			if r.noGitleaks {
				lits = keywordLits[1]
			}
			for k, kw := range r.quick {
				if k < len(lits) && lits[k] != nil && !containsAnyString([]byte(in), lits[k]) {
					continue // none of its rules' literals (TestKeywordLitsGate)
				}
				if bytes.Contains(low, []byte(kw)) && !slices.Contains(want, kw) {
					want = append(want, kw)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%q: index found %q, one by one %q", in, got, want)
			}
			found += len(got)
		}
		if found == 0 {
			t.Fatal("no keyword was found at all")
		}
	}
}

// TestNarrowedKept: one Redactor that is never built redacts many short
// texts, each twice, the second time with the rule set kept from the
// first, as the built Redactor does; it keeps at most maxNarrowed sets,
// and a set it kept is the one it uses again.
func TestNarrowedKept(t *testing.T) {
	fresh, built := quickPair(t, Options{Secrets: []string{"Sup3rS3cretValue!"}})
	var inputs []string
	for _, c := range plantable() {
		if len(c.text) < quickMax-20 {
			inputs = append(inputs, c.text, "secret: "+c.text)
		}
	}
	for _, kw := range staticKeywords(false)[:40] {
		inputs = append(inputs, kw+" and tasks", "a"+kw+"=Zq9xK2mW7pL4vB8nR3tY6uI1oE5aS0dF")
	}
	inputs = append(inputs, "secret-masks", "0 masked", "x Sup3rS3cretValue! y")
	for round := range 2 {
		for _, in := range inputs {
			if got, want := fresh.String(in), built.String(in); got != want {
				t.Fatalf("round %d, %q: narrowed %q, built %q", round, in, got, want)
			}
		}
	}
	if fresh.built.Load() {
		t.Fatal("the short texts built the whole rule set")
	}
	n := 0
	fresh.narrow.Range(func(key, m any) bool {
		n++
		kws := strings.Split(key.(string), "\x00")
		if fresh.narrowTo(kws) != m.(*Redactor) {
			t.Errorf("%q: a kept rule set was made again", key)
		}
		return true
	})
	if n == 0 || n > maxNarrowed {
		t.Errorf("%d rule sets kept, want 1 to %d", n, maxNarrowed)
	}
}

// TestKeywordLitsGate: a short text that holds a keyword whose rules all
// need one of their literals, and holds none of them, gets no rule of
// that keyword (no rule loaded for "sk" in "0 masked" or "disk"), and is
// redacted exactly as the built redactor redacts it; a text with the
// literal keeps the keyword.
func TestKeywordLitsGate(t *testing.T) {
	fresh, built := quickPair(t, Options{})
	gated := 0
	for j, kw := range staticKeywords(false) {
		lits := keywordLits[0][j]
		if lits == nil {
			continue
		}
		gated++
		for _, in := range []string{"a " + kw + " b", "x" + kw + "y=Zq9xK2mW7pL4vB8nR3tY6uI1oE5aS0dF",
			"k " + lits[0] + "0123456789abcdef0123456789abcdef", "key: " + lits[0] + "Zq9xK2mW7pL4vB8nR3tY6uI1oE5aS0dF0a1b2c3d4"} {
			kws, short := fresh.shortHits([]byte(in))
			if short && !containsAnyString([]byte(in), lits) && slices.Contains(kws, kw) {
				t.Errorf("%q: keyword %q kept without any of %q", in, kw, lits)
			}
			if got, want := fresh.String(in), built.String(in); got != want {
				t.Errorf("%q: short path %q, built %q", in, got, want)
			}
		}
	}
	if gated == 0 {
		t.Fatal("no keyword is gated by literals")
	}
	for _, in := range []string{"0 masked", "the disk is full", "2 tasks"} {
		if kws, short := fresh.shortHits([]byte(in)); !short || len(kws) != 0 {
			t.Errorf("%q: keywords %q", in, kws)
		}
	}
	// A Twilio key ("sk", literal "SK") is still found in a short text.
	key := "SK" + strings.Repeat("0123456789abcdef", 2)
	if got := fresh.String("key " + key); strings.Contains(got, key) {
		t.Errorf("the key was not redacted: %q", got)
	}
}
