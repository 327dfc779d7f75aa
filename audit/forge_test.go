package audit

import (
	"encoding/json"
	"strings"
	"testing"
)

// forge edits the command of line `at` (1-based) and rewrites the chain
// from there on with fresh hashes made with key (nil: plain SHA-256), as
// someone who can write the file would.
func forge(t *testing.T, lines []string, at int, key []byte) []string {
	t.Helper()
	out := append([]string(nil), lines...)
	prev := Genesis
	for i, line := range lines {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if i+1 < at {
			var h struct {
				Hash string `json:"hash"`
			}
			json.Unmarshal([]byte(line), &h)
			prev = h.Hash
			continue
		}
		if i+1 == at {
			r.Command = "echo nothing to see here"
		}
		r.Prev = prev
		b, sum, err := encode(r, key)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
		prev = sum
	}
	return out
}

// Without a key the chain detects accidents and careless edits, not a
// forger who recomputes the hashes; with a key only someone holding it
// can forge.
func TestForgery(t *testing.T) {
	t.Run("unkeyed: a careless edit is detected", func(t *testing.T) {
		_, lines := writeLog(t, 5, nil)
		edited := append([]string(nil), lines...)
		edited[1] = strings.Replace(edited[1], `"command":"`, `"command":"x`, 1)
		_, err := verifyLines(edited, nil)
		wantBroken(t, err, 2)
	})
	t.Run("unkeyed: recomputed hashes pass", func(t *testing.T) {
		_, lines := writeLog(t, 5, nil)
		forged := forge(t, lines, 2, nil)
		if forged[1] == lines[1] {
			t.Fatal("forge changed nothing")
		}
		if _, err := verifyLines(forged, nil); err != nil {
			t.Fatalf("an unkeyed chain rebuilt by a forger should verify (that is its limit): %v", err)
		}
	})
	key := []byte("0123456789abcdef0123456789abcdef")
	t.Run("keyed: forged without the key is detected", func(t *testing.T) {
		_, lines := writeLog(t, 5, key)
		_, err := verifyLines(forge(t, lines, 2, nil), key)
		wantBroken(t, err, 2)
		_, err = verifyLines(forge(t, lines, 3, []byte("a guessed key")), key)
		wantBroken(t, err, 3)
	})
	t.Run("keyed: forged with the key passes", func(t *testing.T) {
		_, lines := writeLog(t, 5, key)
		if _, err := verifyLines(forge(t, lines, 2, key), key); err != nil {
			t.Fatalf("whoever holds the key can rebuild the chain: %v", err)
		}
	})
}
