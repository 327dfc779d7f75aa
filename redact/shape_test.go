package redact

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

// ruleTexts returns texts near the matches of ru's expression: strings
// generated from it, their prefixes, copies with one byte changed (to
// another ASCII byte, a case variant or a non-ASCII rune), and each
// keyword followed by ordinary words.
func ruleTexts(t testing.TB, rnd *rand.Rand, ru *rule, n int) []string {
	parsed, err := syntax.Parse(ru.re.String(), syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	parsed = parsed.Simplify()
	var out []string
	for range n {
		var b strings.Builder
		gen(rnd, parsed, &b)
		s := b.String()
		out = append(out, s, s[:rnd.IntN(len(s)+1)])
		if len(s) > 0 {
			p := []rune(s)
			i := rnd.IntN(len(p))
			switch rnd.IntN(4) {
			case 0:
				p[i] = rune(' ' + rnd.IntN(95))
			case 1:
				p[i] = rune(strings.ToUpper(string(p[i]))[0])
			case 2:
				p[i] = 'ſ' // folds to s
			case 3:
				p[i] = 'K' // Kelvin sign, folds to k
			}
			out = append(out, string(p))
		}
	}
	for _, kw := range ru.keywords {
		for _, tail := range []string{"", " policy was checked", "=", ": x", " == \"\" || x", "_value = \"Zq9xK2mW7pL4vB8nR3tY6uI1oE5aS0dF\"",
			"s.get(name)", "\tfoo\n", ":=abcdef", "=ghijklmnop", "='s3cr3t-Value!'", "/path/to/file.txt"} {
			out = append(out, kw+tail, strings.ToUpper(kw)+tail)
		}
	}
	return out
}

// TestShapeNeverRulesOutAMatch: wherever an anchored rule's shape says
// no match starts, the expression finds none; every match of every
// rule, anchored or not, contains one of its required literals. Both
// checks must also rule out a share of the texts, or they would test
// nothing.
func TestShapeNeverRulesOutAMatch(t *testing.T) {
	rnd := rand.New(rand.NewPCG(28, 11))
	rules := slices.Concat(staticSet(false).rules, staticSet(true).rules)
	shapes, noShape, noReq, texts := 0, 0, 0, 0
	for _, ru := range rules {
		if ru.pemEnd {
			continue
		}
		ru.load()
		if ru.anchored && ru.shape == nil {
			t.Errorf("%s: anchored rule without a shape", ru.kind)
		}
		if ru.shape != nil {
			shapes++
		}
		for _, s := range ruleTexts(t, rnd, ru, 60) {
			texts++
			p := []byte(s)
			m := ru.re.FindIndex(p)
			if ru.shape != nil {
				may := ru.shape.mayMatch(p)
				if !may {
					noShape++
				}
				if !may && m != nil {
					t.Fatalf("%s: shape rules out %q, which %s matches at %v", ru.kind, s, ru.re, m)
				}
			}
			if ru.req != nil {
				if !containsAny(p, ru.req) {
					noReq++
				}
				if m != nil && !containsAny(p[m[0]:m[1]], ru.req) {
					t.Fatalf("%s: match %q of %q holds none of %q", ru.kind, p[m[0]:m[1]], s, ru.req)
				}
			}
		}
	}
	t.Logf("%d texts; %d shapes; ruled out: %d by a shape, %d by required literals", texts, shapes, noShape, noReq)
	if shapes < 100 || noShape < texts/10 || noReq < texts/20 {
		t.Fatalf("the checks rule out too little: %d shapes, %d and %d of %d texts", shapes, noShape, noReq, texts)
	}
}

// TestShapeRulesOutOrdinaryKeywords: keywords in prose and code, the
// common case in output, are ruled out without the expression.
func TestShapeRulesOutOrdinaryKeywords(t *testing.T) {
	for _, c := range []struct{ kind, text string }{
		{"generic-secret", "token refresh scheduled for session 12"},
		{"generic-secret", `Secret == "" || cfg.APIKey == "" {`},
		{"generic-secret", "passwd lookup for user 7 skipped"},
		{"authorization", "authorization header (12)"},
		{"twilio-api-key", "skipped 3 files"},
	} {
		found := false
		for _, ru := range staticSet(false).rules {
			if ru.kind != c.kind || !ru.anchored {
				continue
			}
			found = true
			ru.load()
			if !ru.shape.mayMatch([]byte(c.text)) {
				continue
			}
			// A rule whose shape lets it through must at least not match.
			if ru.re.MatchString(c.text) {
				t.Fatalf("%s matches %q", c.kind, c.text)
			}
			t.Errorf("%s: shape does not rule out %q", c.kind, c.text)
		}
		if !found {
			t.Fatalf("no anchored rule %s", c.kind)
		}
	}
}

// TestRequiredLiterals: the strings found for hand-picked expressions.
func TestRequiredLiterals(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []string // nil: none
	}{
		{`abc`, []string{"abc"}},
		{`(?i)abc`, nil},                // letters without case: not exact bytes
		{`(?i)sk_live`, []string{"_"}},  // "s" and "k" fold to ſ and K
		{`(?i)x=>y`, []string{"=>"}},    // bytes without case stay
		{`a[0-9]+bcd`, []string{"bcd"}}, // the longest part
		{`(?:foo|bar)=`, []string{"bar", "foo"}},
		{`(?:=|:=|:|=>)`, []string{":", "="}}, // ":=" and "=>" hold "=" already
		{`x?y*`, nil},
		{`(?:ab|c*)`, nil}, // one side needs nothing
		{`[a-z]{3}`, nil},  // a class of 26: too many
		{`(a)*b{2,}`, []string{"b"}},
		{`["']sec`, []string{"sec"}},
	} {
		got := requiredLiterals(c.expr)
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		if !slices.Equal(gs, c.want) {
			t.Errorf("requiredLiterals(%q) = %q, want %q", c.expr, gs, c.want)
		}
		if c.want != nil {
			re := regexp.MustCompile(c.expr)
			rnd := rand.New(rand.NewPCG(1, uint64(len(c.expr))))
			parsed, _ := syntax.Parse(c.expr, syntax.Perl)
			for range 200 {
				var b strings.Builder
				gen(rnd, parsed.Simplify(), &b)
				if m := re.FindStringIndex(b.String()); m != nil && !containsAny([]byte(b.String()[m[0]:m[1]]), got) {
					t.Fatalf("%q: match %q holds none of %q", c.expr, b.String()[m[0]:m[1]], gs)
				}
			}
		}
	}
}

// FuzzShape: for any text and any anchored rule, a shape that rules a
// match out is right, and a match holds a required literal.
func FuzzShape(f *testing.F) {
	f.Add(uint16(0), []byte("token=Zq9xK2mW7pL4vB8nR3tY6uI1oE5aS0dF"))
	f.Add(uint16(5), []byte("ghp_abcdefghijklmnopqrstuvwxyz0123456789"))
	f.Add(uint16(30), []byte("Authorization: Bearer abcdefgh"))
	f.Add(uint16(40), []byte("seſret=ſſſſſſſſ"))
	rules := staticSet(false).rules
	f.Fuzz(func(t *testing.T, idx uint16, text []byte) {
		ru := rules[int(idx)%len(rules)]
		if ru.pemEnd {
			return
		}
		ru.load()
		m := ru.re.FindIndex(text)
		if m == nil {
			return
		}
		if ru.shape != nil && !ru.shape.mayMatch(text) {
			t.Fatalf("%s: shape rules out %q, which matches at %v", ru.kind, text, m)
		}
		if ru.req != nil && !containsAny(text[m[0]:m[1]], ru.req) {
			t.Fatalf("%s: match %q holds none of %q", ru.kind, text[m[0]:m[1]], ru.req)
		}
	})
}

// TestShapeBounded: texts made to visit many states (strings generated
// from the rule, cut anywhere and continued with random bytes of the
// rule's own alphabet) leave a shape within shapeStates states, and
// past that bound it answers "maybe", never a wrong "no".
func TestShapeBounded(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	checked, saturated := 0, 0
	for _, ru := range staticSet(false).rules {
		if !ru.anchored || ru.pemEnd {
			continue
		}
		ru.load()
		texts := ruleTexts(t, rnd, ru, 100)
		var alphabet []byte
		for _, s := range texts {
			for i := 0; i < len(s); i++ {
				if s[i] < 0x80 && bytes.IndexByte(alphabet, s[i]) < 0 {
					alphabet = append(alphabet, s[i])
				}
			}
		}
		for _, s := range texts {
			p := []byte(s[:rnd.IntN(len(s)+1)])
			for range rnd.IntN(shapeDepth) {
				p = append(p, alphabet[rnd.IntN(len(alphabet))])
			}
			for _, q := range [][]byte{[]byte(s), p} {
				if !ru.shape.mayMatch(q) && ru.re.Match(q) {
					t.Fatalf("%s: shape rules out %q, which matches", ru.kind, q)
				}
				checked++
			}
		}
		switch n := len(ru.shape.sets); {
		case n > shapeStates:
			t.Fatalf("%s: %d states, more than %d", ru.kind, n, shapeStates)
		case n == shapeStates:
			saturated++
		}
	}
	t.Logf("%d texts; %d shapes reached the bound", checked, saturated)
	if checked == 0 || saturated == 0 {
		t.Fatalf("%d texts, %d shapes at the bound: the bound was not exercised", checked, saturated)
	}
}
