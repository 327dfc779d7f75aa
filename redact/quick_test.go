package redact

import (
	"bytes"
	"math/rand/v2"
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

// TestQuickCheckAgrees: leaving a short text without keywords alone,
// before the automaton exists, gives what the automaton and the rules
// give, for every planted secret, its neighbours and random text.
func TestQuickCheckAgrees(t *testing.T) {
	opts := []Options{{}, {NoGitleaks: true}, {Values: fuzzValues}, {Secrets: []string{"Sup3rS3cretValue!"}}}
	var inputs []string
	for _, c := range plantable() {
		inputs = append(inputs, c.text, strings.ToUpper(c.text), "x "+c.text+" y", c.needle)
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
	inputs = append(inputs, "true", "ls -la", "go test ./...", "\x00\xff", "")
	quick := 0
	for _, o := range opts {
		for _, in := range inputs {
			fresh, built := quickPair(t, o)
			got, want := fresh.String(in), built.String(in)
			if got != want {
				t.Fatalf("options %+v, %q: quick %q, built %q", o, in, got, want)
			}
			if !fresh.built.Load() {
				quick++
			}
		}
	}
	if quick == 0 {
		t.Fatal("the quick check never applied")
	}
	// A keyword-less command leaves the Redactor unbuilt; one with a
	// keyword, or a custom rule without keywords, builds it.
	r, _ := New(Options{})
	if r.String("go test ./..."); r.built.Load() {
		t.Error("a command without keywords built the automaton")
	}
	if r.String("export TOKEN=abc"); !r.built.Load() {
		t.Error("a command with a keyword did not build the automaton")
	}
	r, _ = New(Options{Patterns: []Pattern{{Regex: `\b[0-9]{4}-[0-9]{4}\b`}}})
	if got := r.String("card 1234-5678"); !strings.Contains(got, "REDACTED") || !r.built.Load() {
		t.Errorf("a keyword-less custom rule was skipped: %q", got)
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
