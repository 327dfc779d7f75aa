package redact

import (
	_ "embed"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
)

// gitleaksTOML is the default rule set of gitleaks v8.30.1
// (https://github.com/gitleaks/gitleaks, config/gitleaks.toml), Copyright (c)
// 2019 Zachary Rice, used under the MIT License (see LICENSE.gitleaks). It is
// embedded unmodified; only the subset of TOML that file uses is parsed here.
//
// How the rules are applied differs from gitleaks, which scans whole files:
//   - a rule runs only within MaxTokenLen bytes of one of its keywords
//     (gitleaks: anywhere in a fragment that contains a keyword);
//   - the keywords "secret", "password", "token", "key", "api", "auth",
//     "access", … are dropped (they are everywhere in output; the
//     generic-secret rule covers such assignments), two-byte keywords are
//     kept only behind a word boundary or an exact-case literal check;
//   - the leading `[\w.-]{0,50}?` of the "<vendor> … = value" rules is
//     dropped so they run anchored at their keyword (the secret group is
//     unchanged); most other rules run anchored too;
//   - generic-api-key, jwt, private-key, pkcs12-file and the curl rules are
//     replaced by this package's rules; allowlists that apply to a whole
//     line, and the global allowlist, are not applied (over-redaction).
//
// TestGitleaksDifferential checks the result against the original
// expressions on strings generated from them.
//
//go:embed gitleaks.toml
var gitleaksTOML string

// gitleaksSkip are gitleaks rules replaced by this package's own rules
// (generic-api-key and jwt: their keywords "key", "api", "ey" occur
// everywhere in ordinary output) or that do not apply to a byte stream.
var gitleaksSkip = map[string]bool{
	"generic-api-key": true, // see ruleGeneric
	"jwt":             true, // see the jwt rule
	"pkcs12-file":     true, // matches file paths, not content
	"private-key":     true, // see the private-key rules (bounded for streaming)
	// `curl … -u/-H …` with `.*` across lines: costly at every "curl"; the
	// authorization and curl-user rules cover them.
	"curl-auth-header": true,
	"curl-auth-user":   true,
}

// semiGeneric is the shape of gitleaks' "<vendor> … = value" rules.
const semiGeneric = `(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

// preSemiGeneric is a necessary condition for semiGeneric after the
// keyword: up to 80 name, blank or quote bytes, then an operator byte.
func preSemiGeneric(p []byte) bool {
	for i := 0; i < len(p) && i <= 80; i++ {
		c := p[i]
		switch {
		case isWord(c) || c == '.' || c == '-' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v' || c == '\'' || c == '"':
			continue
		case c == '=' || c == '>' || c == ':' || c == '|' || c == '?' || c == ',':
			return true
		default:
			return false
		}
	}
	return false
}

// gitleaksCommonKeyword are keywords that occur all over ordinary output
// (source code, logs); the generic-secret rule covers assignments to such
// names. A gitleaks rule left without keywords is not used.
var gitleaksCommonKeyword = map[string]bool{
	"secret": true, "password": true, "passwd": true, "token": true, "access": true,
	"api": true, "auth": true, "key": true, "creds": true, "linear": true, "intra": true,
}

type glAllow struct {
	target    string // "secret" (default), "match" or "line"
	regexes   []string
	stopwords []string
}

type glRule struct {
	id          string
	regex       string
	entropy     float64
	keywords    []string
	secretGroup int
	allow       []glAllow
}

// parseGitleaks reads the subset of TOML used by gitleaks.toml: tables
// [[rules]] and [[rules.allowlists]], string ('...', "...", ”'...”'),
// number and (possibly multi-line) string-array values. Everything outside
// [[rules]] (the global path allowlist) is skipped.
func parseGitleaks(src string) ([]glRule, error) {
	var rules []glRule
	var cur *glRule
	var allow *glAllow
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || line[0] == '#' {
			continue
		}
		switch line {
		case "[[rules]]":
			rules = append(rules, glRule{})
			cur, allow = &rules[len(rules)-1], nil
			continue
		case "[[rules.allowlists]]":
			if cur == nil {
				return nil, fmt.Errorf("gitleaks.toml:%d: allowlist outside a rule", i+1)
			}
			cur.allow = append(cur.allow, glAllow{target: "secret"})
			allow = &cur.allow[len(cur.allow)-1]
			continue
		}
		if line[0] == '[' {
			cur, allow = nil, nil // some other table: skipped
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("gitleaks.toml:%d: cannot parse %q", i+1, line)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		var arr []string
		if strings.HasPrefix(val, "[") {
			// Gather the array up to its closing bracket at line end.
			for !strings.HasSuffix(strings.TrimSpace(val), "]") {
				i++
				if i >= len(lines) {
					return nil, fmt.Errorf("gitleaks.toml: unterminated array for %s", key)
				}
				val += "\n" + lines[i]
			}
			var err error
			if arr, err = parseTOMLStrings(strings.TrimSuffix(strings.TrimSpace(val), "]")[1:]); err != nil {
				return nil, fmt.Errorf("gitleaks.toml:%d: %s: %v", i+1, key, err)
			}
		}
		if cur == nil {
			continue
		}
		str := func() (string, error) {
			s, rest, err := parseTOMLString(val)
			if err == nil && strings.TrimSpace(rest) != "" {
				err = fmt.Errorf("trailing text %q", rest)
			}
			return s, err
		}
		var err error
		if allow != nil {
			switch key {
			case "regexTarget":
				allow.target, err = str()
			case "regexes":
				allow.regexes = arr
			case "stopwords":
				allow.stopwords = arr
			}
		} else {
			switch key {
			case "id":
				cur.id, err = str()
			case "regex":
				cur.regex, err = str()
			case "keywords":
				cur.keywords = arr
			case "entropy":
				cur.entropy, err = strconv.ParseFloat(val, 64)
			case "secretGroup":
				cur.secretGroup, err = strconv.Atoi(val)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("gitleaks.toml:%d: %s: %v", i+1, key, err)
		}
	}
	return rules, nil
}

func parseTOMLString(s string) (val, rest string, err error) {
	switch {
	case strings.HasPrefix(s, "'''"):
		end := strings.Index(s[3:], "'''")
		if end < 0 {
			return "", "", fmt.Errorf("unterminated '''")
		}
		return s[3 : 3+end], s[6+end:], nil
	case strings.HasPrefix(s, "'"):
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", fmt.Errorf("unterminated '")
		}
		return s[1 : 1+end], s[2+end:], nil
	case strings.HasPrefix(s, `"`):
		for j := 1; j < len(s); j++ {
			if s[j] == '\\' {
				j++
				continue
			}
			if s[j] == '"' {
				v, err := strconv.Unquote(s[:j+1])
				return v, s[j+1:], err
			}
		}
		return "", "", fmt.Errorf("unterminated \"")
	}
	return "", "", fmt.Errorf("not a string: %.20q", s)
}

func parseTOMLStrings(s string) ([]string, error) {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t\r\n,")
		if s == "" {
			return out, nil
		}
		if s[0] == '#' {
			_, s, _ = strings.Cut(s, "\n")
			continue
		}
		v, rest, err := parseTOMLString(s)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		s = rest
	}
}

// glSpec is a gitleaks rule converted for this package, everything derived
// from its expression precomputed (see gitleaks_table.go): building the
// rule set then parses no TOML and analyses no expression, and each rule's
// regexps are compiled only when one of its keywords first occurs.
type glSpec struct {
	id            string
	expr          string // as it runs: anchored rules are wrapped in ^(?:…)
	keywords      []string
	group         int
	entropy       float64
	before, after int
	// anchored, wordStart: see rule; semi: the "<vendor> … = value" shape,
	// pre-checked by preSemiGeneric.
	anchored, wordStart, semi bool
	lits                      []string
	allow                     []glAllowSpec
}

type glAllowSpec struct {
	match     bool
	regexes   []string
	stopwords []string
}

// gitleaksRules returns the rules of gitleaksTable (regexps not compiled
// yet: see rule.load).
func gitleaksRules() ([]*rule, error) {
	out := make([]*rule, len(gitleaksTable))
	for i := range gitleaksTable {
		out[i] = gitleaksRule(&gitleaksTable[i])
	}
	return out, nil
}

// gitleaksRule returns the rule of one gitleaksTable entry.
func gitleaksRule(g *glSpec) *rule {
	r := &rule{kind: g.id, expr: g.expr, keywords: g.keywords, group: g.group, entropy: g.entropy,
		before: g.before, after: g.after, anchored: g.anchored, wordStart: g.wordStart, allowSrc: g.allow}
	if g.semi {
		r.pre = preSemiGeneric
	}
	if len(g.lits) > 0 {
		r.lits = make([][]byte, len(g.lits))
		for j, l := range g.lits {
			r.lits[j] = []byte(l)
		}
	}
	return r
}

// repeatText is a bounded repetition in an expression's text.
var repeatText = regexp.MustCompile(`\{([0-9]+),([0-9]+)\}`)

// loosenRepeats returns expr with the upper bound dropped from every
// repetition whose range is wider than maxRepeatRange ({50,1000} becomes
// {50,}; see builtins for why). It edits the text and then checks that
// the result parses to the same expression but for those bounds.
func loosenRepeats(expr string) (string, error) {
	out := repeatText.ReplaceAllStringFunc(expr, func(m string) string {
		sub := repeatText.FindStringSubmatch(m)
		lo, err1 := strconv.Atoi(sub[1])
		hi, err2 := strconv.Atoi(sub[2])
		if err1 != nil || err2 != nil || hi-lo <= maxRepeatRange {
			return m
		}
		return "{" + sub[1] + ",}"
	})
	if out == expr {
		return expr, nil
	}
	a, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", err
	}
	b, err := syntax.Parse(out, syntax.Perl)
	if err != nil {
		return "", fmt.Errorf("loosened: %v", err)
	}
	if !sameButWideBounds(a, b) {
		return "", fmt.Errorf("loosening %q changed more than its wide repetitions", expr)
	}
	return out, nil
}

// sameButWideBounds reports whether b is a, except that repetitions of a
// wider than maxRepeatRange may have no upper bound in b.
func sameButWideBounds(a, b *syntax.Regexp) bool {
	if a.Op != b.Op || a.Flags != b.Flags || a.Min != b.Min || a.Cap != b.Cap || a.Name != b.Name ||
		!slices.Equal(a.Rune, b.Rune) || len(a.Sub) != len(b.Sub) {
		return false
	}
	if a.Max != b.Max && !(a.Op == syntax.OpRepeat && b.Max == -1 && a.Max-a.Min > maxRepeatRange) {
		return false
	}
	for i := range a.Sub {
		if !sameButWideBounds(a.Sub[i], b.Sub[i]) {
			return false
		}
	}
	return true
}

// deriveGitleaks converts the embedded rule set into glSpecs. It is what
// gitleaks_table.go is generated from (TestGitleaksTable checks they agree;
// go test -run TestGitleaksTable -update ./redact rewrites the table).
func deriveGitleaks() ([]glSpec, error) {
	gl, err := parseGitleaks(gitleaksTOML)
	if err != nil {
		return nil, err
	}
	var out []glSpec
	for _, g := range gl {
		if gitleaksSkip[g.id] || g.regex == "" {
			continue
		}
		var kws, short []string
		for _, k := range g.keywords {
			k = strings.ToLower(k)
			switch {
			case gitleaksCommonKeyword[k] || len(k) < 2:
			case len(k) == 2 && k != "q~":
				short = append(short, k) // "sk", "s.": only with a cheap check, see below
			default:
				kws = append(kws, k)
			}
		}
		// Most rules start with `[\w.-]{0,50}?` ahead of their keyword, to
		// include an identifier's prefix in the match. The secret is a
		// group after the keyword, so dropping that prefix changes no
		// redaction and lets the rule run anchored at its keyword (an
		// unanchored run of such a regex costs ~1000 NFA threads a byte).
		expr := g.regex
		for _, p := range [][2]string{
			{`(?i)[\w.-]{0,50}?(?:`, `(?i)(?:`},
			{`[\w.-]{0,50}?(?i:[\w.-]{0,50}?(?:`, `(?i:(?:`},
		} {
			if strings.HasPrefix(expr, p[0]) {
				expr = p[1] + expr[len(p[0]):]
			}
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("gitleaks rule %s: %v", g.id, err)
		}
		r := glSpec{
			id:      g.id,
			expr:    expr,
			group:   g.secretGroup,
			entropy: g.entropy,
			before:  64,
			after:   512,
		}
		if n := boundedLen(expr); n >= 0 {
			// A bounded expression needs no wider window than it can span.
			r.before, r.after = min(r.before, n), min(r.after, n)
		}
		// Then, as in the built-in patterns, no repetition wider than
		// maxRepeatRange: the window, taken from the bounded expression,
		// ends every match instead.
		if expr, err = loosenRepeats(expr); err != nil {
			return nil, fmt.Errorf("gitleaks rule %s: %v", g.id, err)
		}
		r.expr = expr
		ok, wb, exact := anchorable(expr, kws)
		if !ok && len(short) > 0 {
			// Two-byte keywords occur everywhere; keep them only for a
			// rule that runs anchored behind a word boundary or an
			// exact-case literal ("SK…", "s.…" at a word start).
			all := append(append([]string(nil), kws...), short...)
			if ok2, wb2, exact2 := anchorable(expr, all); ok2 && (wb2 || exact2 != nil) {
				kws, ok, wb, exact = all, ok2, wb2, exact2
			}
		}
		if len(kws) == 0 {
			continue
		}
		r.keywords = kws
		if ok {
			r.lits = exact
			r.anchored, r.wordStart, r.before = true, wb, 0
			r.expr = `^(?:` + expr + `)`
			if _, err := regexp.Compile(r.expr); err != nil {
				return nil, fmt.Errorf("gitleaks rule %s: %v", g.id, err)
			}
			r.semi = strings.Contains(expr, semiGeneric)
		}
		if r.group == 0 && re.NumSubexp() > 0 {
			r.group = 1 // gitleaks' default: the first group is the secret
		}
		for _, a := range g.allow {
			if a.target == "line" {
				continue // a line allowlist cannot be applied to a stream window; over-redact instead
			}
			al := glAllowSpec{match: a.target == "match"}
			for _, s := range a.regexes {
				if _, err := regexp.Compile(s); err != nil {
					return nil, fmt.Errorf("gitleaks rule %s allowlist: %v", g.id, err)
				}
				al.regexes = append(al.regexes, s)
			}
			for _, s := range a.stopwords {
				al.stopwords = append(al.stopwords, strings.ToLower(s))
			}
			r.allow = append(r.allow, al)
		}
		out = append(out, r)
	}
	return out, nil
}
