package redact

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode"
)

// gen writes a random string matching re (anchors and word boundaries are
// ignored; the caller checks the result against the real expression).
func gen(rnd *rand.Rand, re *syntax.Regexp, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && rnd.IntN(2) == 0 {
				r = unicode.SimpleFold(r)
			}
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		// Prefer ASCII ranges.
		type rg struct{ lo, hi rune }
		var ascii, all []rg
		for i := 0; i+1 < len(re.Rune); i += 2 {
			r := rg{re.Rune[i], re.Rune[i+1]}
			all = append(all, r)
			if r.lo < 128 {
				r.hi = min(r.hi, 126)
				if r.lo < 32 && r.hi >= 32 {
					r.lo = 32
				}
				if r.lo <= r.hi {
					ascii = append(ascii, r)
				}
			}
		}
		if len(ascii) > 0 {
			all = ascii
		}
		if len(all) == 0 {
			return
		}
		r := all[rnd.IntN(len(all))]
		b.WriteRune(r.lo + rune(rnd.IntN(int(r.hi-r.lo)+1)))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(byte('a' + rnd.IntN(26)))
	case syntax.OpCapture:
		gen(rnd, re.Sub[0], b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			lo, hi = 1, 3
		case syntax.OpQuest:
			lo, hi = 0, 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 {
				hi = lo + 3
			}
		}
		n := lo + rnd.IntN(hi-lo+1)
		for i := 0; i < n; i++ {
			gen(rnd, re.Sub[0], b)
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			gen(rnd, s, b)
		}
	case syntax.OpAlternate:
		gen(rnd, re.Sub[rnd.IntN(len(re.Sub))], b)
	}
}

// TestGitleaksDifferential generates strings from every gitleaks rule used
// and checks that whatever the original expression (unanchored, as gitleaks
// runs it) reports as a secret is redacted by the rewritten, anchored,
// pre-checked rule set, in one piece and when streamed byte by byte.
func TestGitleaksDifferential(t *testing.T) {
	gl, err := parseGitleaks(gitleaksTOML)
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]*rule{}
	rs, _ := gitleaksRules()
	for _, r := range rs {
		ours[r.kind] = r
	}
	red := Default()
	rnd := rand.New(rand.NewPCG(11, 12))
	checked, rulesChecked := 0, 0
	for _, g := range gl {
		our := ours[g.id]
		if our == nil {
			continue
		}
		orig := regexp.MustCompile(g.regex)
		parsed, err := syntax.Parse(g.regex, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		parsed = parsed.Simplify()
		group := g.secretGroup
		if group == 0 && orig.NumSubexp() > 0 {
			group = 1
		}
		n := 0
		for try := 0; try < 200 && n < 15; try++ {
			var b strings.Builder
			gen(rnd, parsed, &b)
			text := "out: " + b.String() + " \n"
			m := orig.FindStringSubmatchIndex(text)
			if m == nil || !hasKeyword(text, our.keywords) {
				continue // gitleaks, too, runs a rule only where a keyword occurs
			}
			s, e := m[0], m[1]
			if 2*group+1 < len(m) && m[2*group] >= 0 {
				s, e = m[2*group], m[2*group+1]
			}
			secret := text[s:e]
			if len(secret) < 4 || (g.entropy > 0 && entropy([]byte(secret)) < g.entropy) ||
				our.allowed([]byte(text[m[0]:m[1]]), []byte(secret)) {
				continue
			}
			n++
			if got := red.String(text); strings.Contains(got, secret) {
				t.Errorf("%s: secret %q survived:\n in: %q\nout: %q", g.id, secret, text, got)
				continue
			}
			var cuts []int
			for i := 1; i < len(text); i++ {
				cuts = append(cuts, i)
			}
			if got := writeSplit(red, []byte(text), cuts); strings.Contains(got, secret) {
				t.Errorf("%s: secret %q survived byte-wise writes:\n in: %q\nout: %q", g.id, secret, text, got)
			}
		}
		if n > 0 {
			rulesChecked++
		}
		checked += n
	}
	t.Logf("%d generated secrets over %d of %d rules", checked, rulesChecked, len(ours))
	if rulesChecked < len(ours)*3/4 {
		t.Errorf("only %d of %d rules exercised", rulesChecked, len(ours))
	}
}

func hasKeyword(text string, kws []string) bool {
	lt := strings.ToLower(text)
	for _, k := range kws {
		if strings.Contains(lt, k) {
			return true
		}
	}
	return false
}

// TestGitleaksRepeats: the generated gitleaks rules hold no repetition
// wider than maxRepeatRange (loosenRepeats, as the built-in patterns),
// loosenRepeats edits nothing but such bounds, and a token longer than a
// bound the rule set had is redacted.
func TestGitleaksRepeats(t *testing.T) {
	for _, g := range gitleaksTable {
		re, err := syntax.Parse(g.expr, syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", g.id, err)
		}
		var walk func(re *syntax.Regexp)
		walk = func(re *syntax.Regexp) {
			if re.Op == syntax.OpRepeat && re.Max >= 0 && re.Max-re.Min > maxRepeatRange {
				t.Errorf("%s: repetition %s wider than %d", g.id, re, maxRepeatRange)
			}
			for _, sub := range re.Sub {
				walk(sub)
			}
		}
		walk(re)
	}
	for in, want := range map[string]string{
		`x[a-z]{5,511}y`:     `x[a-z]{5,}y`,
		`x[a-z]{5,60}y`:      `x[a-z]{5,60}y`,
		`(?i)a{0,100}|b{32}`: `(?i)a{0,}|b{32}`,
		`x\{1,200\}`:         `x\{1,200\}`,
	} {
		if got, err := loosenRepeats(in); err != nil || got != want {
			t.Errorf("loosenRepeats(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if got, err := loosenRepeats(`x[{1,200}]`); err == nil {
		t.Errorf("loosenRepeats edited a character class: %q", got)
	}
	// A Grafana Cloud token of 440 characters: the rule's {32,400}, and
	// the terminator after it, missed it whole.
	key := "glc_" + strings.Repeat("Zq9xK2mW7pL4vB8n", 28)[:440]
	if got := Default().String("token " + key + "\n"); strings.Contains(got, "Zq9xK2mW7pL4vB8n") {
		t.Errorf("a long Grafana Cloud token is left: %.80q", got)
	}
}
