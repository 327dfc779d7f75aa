package redact

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

var fuzzValues = map[string]string{"SG_FAKE_API_KEY": "fuzz-fake-value-9Qx2"}

// The fuzz redactors are built on first use, not at package init, so that
// TestColdStart's child process measures a really cold New.
var fuzzRedactor = sync.OnceValue(func() *Redactor {
	r, err := New(Options{Values: fuzzValues})
	if err != nil {
		panic(err)
	}
	return r
})

// fuzzCustom adds a custom pattern without a keyword (evaluated over all
// output) to fuzzRedactor's rules.
var fuzzCustom = sync.OnceValue(func() *Redactor {
	r, err := New(Options{Values: fuzzValues, Patterns: []Pattern{{Name: "card", Regex: `\b[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{4}\b`}}})
	if err != nil {
		panic(err)
	}
	return r
})

const fuzzCard = "4929-1234-5678-9012"

// plantable returns the secrets FuzzRedact plants: every secretCase and the
// exact value.
func plantable() []secretCase {
	c := append([]secretCase(nil), secretCases...)
	return append(c, secretCase{"value", "v=" + fuzzValues["SG_FAKE_API_KEY"], fuzzValues["SG_FAKE_API_KEY"], "env:SG_FAKE_API_KEY"})
}

// FuzzRedact plants a secret between arbitrary text and writes the result
// through a Writer in arbitrary pieces: the secret must never come out, and
// the output must not depend on how the input was split.
func FuzzRedact(f *testing.F) {
	f.Add([]byte("lead"), uint8(0), []byte("trail"), []byte{1, 2, 3})
	f.Add([]byte(""), uint8(3), []byte(""), []byte{})
	f.Add([]byte("-----BEGIN RSA PRIVATE KEY-----\nabc"), uint8(1), []byte("x"), []byte{7, 200, 1})
	cases := plantable()
	f.Fuzz(func(t *testing.T, prefix []byte, idx uint8, suffix []byte, cuts []byte) {
		c := cases[int(idx)%len(cases)]
		if bytes.Contains(prefix, []byte(c.needle)) || bytes.Contains(suffix, []byte(c.needle)) {
			t.Skip("needle outside the planted secret")
		}
		var in []byte
		in = append(in, prefix...)
		in = append(in, '\n')
		in = append(in, c.text...)
		in = append(in, "\ncard "+fuzzCard+"\n"...)
		in = append(in, suffix...)

		split := func(r *Redactor) string {
			var out bytes.Buffer
			w := r.NewWriter(&out)
			p := 0
			for _, step := range cuts {
				if p >= len(in) {
					break
				}
				n := min(int(step)+1, len(in)-p)
				if _, err := w.Write(in[p : p+n]); err != nil {
					t.Fatal(err)
				}
				p += n
			}
			w.Write(in[p:])
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			return out.String()
		}
		got := split(fuzzRedactor())
		if strings.Contains(got, c.needle) {
			t.Fatalf("planted secret %s survived:\n in: %q\nout: %q", c.name, in, got)
		}
		if whole := fuzzRedactor().String(string(in)); whole != got {
			t.Fatalf("output depends on write split:\n in: %q\nsplit: %q\nwhole: %q", in, got, whole)
		}
		// With a keyword-less custom pattern (evaluated over everything,
		// split-dependent only in over-redaction) nothing planted survives.
		if !bytes.Contains(prefix, []byte(fuzzCard)) && !bytes.Contains(suffix, []byte(fuzzCard)) {
			got = split(fuzzCustom())
			if strings.Contains(got, c.needle) || strings.Contains(got, fuzzCard) {
				t.Fatalf("planted secret survived the custom redactor:\n in: %q\nout: %q", in, got)
			}
		}
	})
}
