package redact

import (
	"math"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"
)

// rule is one compiled detector. A rule with keywords is evaluated only in
// windows around keyword occurrences: the match may start up to before
// bytes ahead of the keyword and end up to after bytes past it. A rule
// without keywords is evaluated over everything (slow; custom patterns only).
type rule struct {
	kind string
	// re is compiled from expr by load, on the rule's first keyword hit
	// (most rules never see one); allow from allowSrc and lits from
	// litSrc likewise. Custom rules are compiled up front.
	re       *regexp.Regexp
	expr     string
	allowSrc []glAllowSpec
	litSrc   string
	once     sync.Once
	keywords []string // lower case
	group    int      // submatch that is the secret; 0 = whole match
	entropy  float64  // minimum Shannon entropy (bits/byte) of the secret
	before   int
	after    int
	allow    []allowlist
	exact    []byte // exact-value rule: the value itself (case-sensitive)

	// pemBlock: a whole PEM private-key block, BEGIN line to the first
	// matching END line (found through the positions of "-----END"
	// keyword hits, so a stream of BEGIN lines costs no rescans).
	// pemEnd: the pseudo-rule recording those positions.
	pemBlock, pemEnd bool

	// lits, if set: every match starts with one of these exact bytes.
	lits [][]byte
	// req, if set: every match contains one of these exact bytes
	// (requiredLiterals; set by load).
	req [][]byte
	// shape, if set (anchored rules): rules out a match at a keyword
	// occurrence before the expression runs (set by load).
	shape *shape

	// anchored: every match starts with one of the keywords, so the rule
	// runs once per keyword occurrence, anchored there (fast). wordStart:
	// the byte before the match must not be a word byte.
	anchored, wordStart bool
	// pre, if set, is a cheap necessary condition checked on the bytes
	// after the keyword before the regex runs.
	pre func(after []byte) bool
	// notSecret, when set, rejects a matched value by its shape.
	notSecret func(secret []byte) bool
}

// load compiles what the rule needs to run. It is safe for concurrent use.
func (r *rule) load() {
	r.once.Do(func() {
		if r.re == nil && r.expr != "" {
			r.re = regexp.MustCompile(r.expr)
		}
		if r.re != nil {
			r.req = requiredLiterals(r.re.String())
			if r.anchored {
				r.shape = newShape(r.re.String())
			}
		}
		if r.litSrc != "" {
			if ok, _, exact := anchorable(r.litSrc, r.keywords); ok {
				for _, l := range exact {
					r.lits = append(r.lits, []byte(l))
				}
			}
		}
		for _, a := range r.allowSrc {
			al := allowlist{match: a.match, stopwords: a.stopwords}
			for _, s := range a.regexes {
				al.regexes = append(al.regexes, regexp.MustCompile(s))
			}
			r.allow = append(r.allow, al)
		}
	})
}

type allowlist struct {
	match     bool // regexes apply to the whole match instead of the secret
	regexes   []*regexp.Regexp
	stopwords []string
}

// Limits of the streaming redactor: a secret is recognised across write
// boundaries as long as it fits these spans.
const (
	// MaxTokenLen bounds a token-like secret: a rule's match may extend
	// this far past its keyword (tokens, headers, URL passwords, generic
	// assignments, gitleaks rules).
	MaxTokenLen = 512
	// MaxPEMLen bounds a PEM private-key block (BEGIN … END).
	MaxPEMLen = 16 << 10
	// MaxValueLen bounds an exact secret value; longer values are ignored.
	MaxValueLen = 4 << 10
	// MinValueLen: exact values shorter than this are ignored (redacting
	// every "abc" would shred the output).
	MinValueLen = 6
	// MaxCustomLen bounds a match of a custom pattern.
	MaxCustomLen = 4 << 10
	// maxBefore bounds how far a match may start ahead of its keyword.
	maxBefore = 64
)

const (
	b64      = `A-Za-z0-9+/=`
	tokChars = `A-Za-z0-9_\-`
	// a generic secret value: no whitespace, quotes or shell/code punctuation
	genVal = "[^\\s\"'`,;(){}\\[\\]<>$%\\\\][^\\s\"'`,;(){}\\[\\]<>\\\\]{5,}"
)

type builtin struct {
	kind     string
	pattern  string
	keywords []string
	group    int
	entropy  float64
	before   int
	after    int
	// anchored: the match starts with a keyword (see rule.anchored);
	// wordStart: and not in the middle of a word.
	anchored, wordStart bool
	pre                 func(after []byte) bool
	pemBlock, pemEnd    bool
	// notSecret, when set, rejects a matched value that has the shape of
	// something that is not a secret.
	notSecret func(secret []byte) bool
}

// maxRepeatRange is the widest range (max - min) of a repetition in a
// built-in pattern.
const maxRepeatRange = 64

const (
	pemHeader = `-----BEGIN[ A-Z0-9_-]{0,64}PRIVATE KEY(?: BLOCK)?-----`
	pemFooter = `-----END[ A-Z0-9_-]{0,64}PRIVATE KEY(?: BLOCK)?-----`
)

var pemFooterRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:` + pemFooter + `)`) })

// builtins are this package's own rules. Where two rules match at the same
// place, the earlier one in this list names the redaction.
//
// No repetition in a pattern spans more than maxRepeatRange counts
// ({5,} and {0,40}, never {5,511}): Go compiles x{n,m} into m-n nested
// optional copies of x, and each analysis of the expression (compiling
// it, its literals, its shape) simplifies and walks that nest again, which
// took 2-9 ms per rule in a fresh process, paid by the first output that
// holds a keyword and passes the rule's quick checks. The rule's window
// (after, MaxTokenLen by default) ends every match instead: a token longer
// than a written bound would have allowed is redacted whole.
// TestBuiltinRepeats keeps it so.
var builtins = []builtin{
	// PEM private keys, with real newlines or JSON-escaped "\n" (GCP
	// service-account files). The first rule takes a whole block; the second
	// takes header and body when the END line is missing (truncated output).
	{kind: "private-key", keywords: []string{"-----begin"}, after: MaxPEMLen, anchored: true, pemBlock: true, pre: prePEM,
		pattern: pemHeader},
	{kind: "", keywords: []string{"-----end"}, pemEnd: true},
	{kind: "private-key", keywords: []string{"-----begin"}, after: MaxPEMLen, anchored: true, pre: prePEM,
		pattern: `-----BEGIN[ A-Z0-9_-]{0,64}PRIVATE KEY(?: BLOCK)?-----(?:(?:\r?\n|\\r?\\n|[ \t])+(?:[` + b64 + `]+|[A-Za-z-]+: ?[^\r\n\\]*))*`},
	{kind: "private-key", keywords: []string{"putty-user-key-file"}, after: MaxPEMLen, anchored: true,
		pattern: `PuTTY-User-Key-File-\d: [\s\S]*?Private-MAC: [0-9a-f]+`},

	// Cloud providers.
	{kind: "aws-access-key", keywords: []string{"akia", "asia", "abia", "acca", "a3t"}, anchored: true, wordStart: true,
		pattern: `(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`},
	{kind: "gcp-api-key", keywords: []string{"aiza"}, anchored: true, pattern: `AIza[` + tokChars + `]{35}`},
	{kind: "gcp-oauth-token", keywords: []string{"ya29."}, anchored: true, pattern: `ya29\.[` + tokChars + `]{20,}`},
	{kind: "azure-storage-key", keywords: []string{"accountkey="}, anchored: true,
		pattern: `(?i)AccountKey=([` + b64 + `]{20,})`, group: 1},
	{kind: "azure-sas-token", keywords: []string{"sig="}, anchored: true,
		pattern: `sig=([A-Za-z0-9%+/=]{20,})`, group: 1},
	{kind: "azure-client-secret", keywords: []string{"q~"},
		pattern: `[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34}`, before: 8},

	// Code hosting and SaaS tokens.
	{kind: "github-token", keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, anchored: true, wordStart: true,
		pattern: `gh[pousr]_[A-Za-z0-9]{30,}`},
	{kind: "github-token", keywords: []string{"github_pat_"}, anchored: true, pattern: `github_pat_[A-Za-z0-9_]{22,}`},
	{kind: "gitlab-token", keywords: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "glagent-", "gloas-", "glsoat-"}, anchored: true,
		pattern: `gl(?:pat|dt|rt|ptt|cbt|ft|imt|agent|oas|soat)-[` + tokChars + `.]{20,}`},
	{kind: "slack-token", keywords: []string{"xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe"}, anchored: true,
		pattern: `xox(?:[abposr]|e(?:\.xox[bp])?)-[A-Za-z0-9-]{10,}`},
	{kind: "slack-token", keywords: []string{"xapp-"}, anchored: true, pattern: `xapp-\d-[A-Za-z0-9-]{10,}`},
	{kind: "slack-webhook", keywords: []string{"hooks.slack.com"}, anchored: true,
		pattern: `hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}`},
	{kind: "stripe-key", keywords: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"}, anchored: true,
		pattern: `(?:[sr]k_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9+/=]{20,})`},
	{kind: "npm-token", keywords: []string{"npm_"}, anchored: true, wordStart: true, pattern: `npm_[A-Za-z0-9]{36}\b`},
	{kind: "npm-token", keywords: []string{"_authtoken"}, anchored: true,
		pattern: `(?i)_authToken\s*=\s*([^\s"']{8,})`, group: 1},
	{kind: "anthropic-key", keywords: []string{"sk-ant-"}, anchored: true, pattern: `sk-ant-[` + tokChars + `]{20,}`},
	{kind: "openai-key", keywords: []string{"sk-"}, anchored: true, wordStart: true, pattern: `sk-(?:proj-|svcacct-|admin-|None-)?[` + tokChars + `]{20,}`},
	{kind: "huggingface-token", keywords: []string{"hf_"}, anchored: true, wordStart: true, pattern: `hf_[A-Za-z0-9]{30,}`},

	// JSON web tokens (header.payload.signature, both JSON halves base64url).
	{kind: "jwt", keywords: []string{"eyj"}, anchored: true, wordStart: true, pattern: `eyJ[` + tokChars + `]{5,}\.eyJ[` + tokChars + `]{5,}\.[` + tokChars + `]*`},

	// HTTP credentials.
	{kind: "authorization", keywords: []string{"authorization"}, anchored: true,
		pattern: `(?i)authorization["']?\s{0,4}[:=]\s{0,4}["']?(?:(?:bearer|basic|token|digest|negotiate|bot|apikey|aws4-hmac-sha256)\s+)?([^\s"'\\]{4,}(?:[ \t]*,[ \t]*[^\s"'\\]+)*)`, group: 1},
	{kind: "authorization", keywords: []string{"bearer"}, anchored: true, wordStart: true,
		pattern: `(?i)bearer\s+([A-Za-z0-9._~+/=-]{8,})`, group: 1},
	{kind: "basic-auth", keywords: []string{"-u", "--user"}, anchored: true, pre: preUser,
		pattern: `(?:-u|--user)(?:[ \t]+|=)?['"]?[^\s'":]+:([^\s'"]+)`, group: 1},
	{kind: "url-password", keywords: []string{"://"}, anchored: true, pre: preURL,
		pattern: `://[^\s:/?#@"'<>]*:([^\s/?#@"'<>]+)@`, group: 1},

	// Generic assignments: NAME=value, name: value, "name": "value" where
	// the name says secret. Values must look random (entropy ≥ 3 bits).
	// A value shaped like a file system path (PWD=/home/me/src,
	// OLDPWD=~/x) names a place, not a secret.
	{kind: "generic-secret", entropy: 3, anchored: true, pre: preAssign, notSecret: isPath,
		keywords: []string{"secret", "token", "passw", "pwd", "_pass", "api_key", "apikey", "api-key", "access_key", "accesskey", "access-key",
			"credential", "private_key", "privatekey", "private-key", "auth_key", "authkey", "auth-key", "session_key", "sessionkey", "session-key"},
		pattern: `(?i)(?:secret|token|passw(?:or)?d?|pwd|_pass|api[_-]?key|access[_-]?key|credentials?|private[_-]?key|auth[_-]?key|session[_-]?key)[\w.-]{0,40}["']?[ \t]{0,4}(?:=|:=|:|=>)[ \t]{0,4}["']?(` + genVal + `)`, group: 1},
}

func (b builtin) compile() *rule {
	if b.pemEnd {
		return &rule{keywords: b.keywords, pemEnd: true}
	}
	pat := b.pattern
	if b.anchored {
		pat = `^(?:` + pat + `)`
	}
	r := &rule{kind: b.kind, expr: pat, keywords: b.keywords,
		group: b.group, entropy: b.entropy, before: b.before, after: b.after,
		anchored: b.anchored, wordStart: b.wordStart, pre: b.pre, pemBlock: b.pemBlock, notSecret: b.notSecret}
	if b.anchored {
		r.litSrc = b.pattern // lits: see load
	}
	if r.after == 0 {
		r.after = MaxTokenLen
	}
	return r
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s []byte) float64 {
	if len(s) == 0 {
		return 0
	}
	var n [256]int
	for _, c := range s {
		n[c]++
	}
	var h float64
	l := float64(len(s))
	for _, c := range n {
		if c > 0 {
			p := float64(c) / l
			h -= p * math.Log2(p)
		}
	}
	return h
}

// allowed reports whether an allowlist exempts this finding.
func (r *rule) allowed(match, secret []byte) bool {
	r.load()
	for _, a := range r.allow {
		t := secret
		if a.match {
			t = match
		}
		for _, re := range a.regexes {
			if re.Match(t) {
				return true
			}
		}
		if len(a.stopwords) > 0 {
			ls := strings.ToLower(string(secret))
			for _, w := range a.stopwords {
				if strings.Contains(ls, w) {
					return true
				}
			}
		}
	}
	return false
}

// preAssign: after the keyword come up to 40 name bytes, an optional
// quote, up to 4 blanks and then "=" or ":" (the generic rule's shape).
func preAssign(p []byte) bool {
	i := 0
	for i < len(p) && i < 41 && (isWord(p[i]) || p[i] == '.' || p[i] == '-') {
		i++
	}
	if i < len(p) && (p[i] == '"' || p[i] == '\'') {
		i++
	}
	for j := 0; j < 4 && i < len(p) && (p[i] == ' ' || p[i] == '\t'); j++ {
		i++
	}
	return i < len(p) && (p[i] == '=' || p[i] == ':')
}

// preURL: after "://" the authority holds a ':' and then an '@'.
func preURL(p []byte) bool {
	colon := false
	for _, c := range p {
		switch c {
		case ':':
			colon = true
		case '@':
			return colon
		case ' ', '\t', '\n', '\r', '/', '?', '#', '"', '\'', '<', '>':
			return false
		}
	}
	return false
}

// maxLen returns the most bytes a match of re can span, or -1 if unbounded.
func maxLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpNoMatch:
		return 0
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += utf8.RuneLen(r)
		}
		return n
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture:
		return maxLen(re.Sub[0])
	case syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		if re.Max < 0 {
			return -1
		}
		n := maxLen(re.Sub[0])
		if n < 0 {
			return -1
		}
		return n * re.Max
	case syntax.OpConcat:
		t := 0
		for _, s := range re.Sub {
			n := maxLen(s)
			if n < 0 {
				return -1
			}
			t += n
		}
		return t
	case syntax.OpAlternate:
		t := 0
		for _, s := range re.Sub {
			n := maxLen(s)
			if n < 0 {
				return -1
			}
			t = max(t, n)
		}
		return t
	}
	return -1
}

// boundedLen returns maxLen of the expression, or -1.
func boundedLen(expr string) int {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return -1
	}
	return maxLen(re.Simplify())
}

// leadingLiterals returns the literal strings one of which every match of
// expr starts with (after an optional leading \b), and whether there was
// such a \b. ok is false when no such finite set is known.
func leadingLiterals(expr string) (lits []string, wordB, fold, ok bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, false, false, false
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op == syntax.OpConcat && len(re.Sub) > 1 && re.Sub[0].Op == syntax.OpWordBoundary {
		wordB = true
		re = &syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[1:]}
	}
	set, _ := prefixes(re, &fold)
	if len(set) == 0 {
		return nil, false, false, false
	}
	for _, s := range set {
		if s == "" {
			return nil, false, false, false
		}
	}
	return set, wordB, fold, true
}

const maxPrefixSet = 64

// prefixes returns strings one of which every match of re starts with;
// exact reports that re matches exactly those strings.
func prefixes(re *syntax.Regexp, fold *bool) (set []string, exact bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			*fold = true
		}
		return []string{string(re.Rune)}, true
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpCharClass:
		// A small class ([Mm]) is a set of literals.
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(set) == 4 {
					return []string{""}, false
				}
				set = append(set, string(r))
			}
		}
		return set, true
	case syntax.OpCapture:
		return prefixes(re.Sub[0], fold)
	case syntax.OpQuest:
		s, ex := prefixes(re.Sub[0], fold)
		if !ex {
			return []string{""}, false
		}
		return append([]string{""}, s...), true
	case syntax.OpAlternate:
		exact = true
		for _, sub := range re.Sub {
			s, ex := prefixes(sub, fold)
			set = append(set, s...)
			exact = exact && ex
		}
		if len(set) > maxPrefixSet {
			return []string{""}, false
		}
		return set, exact
	case syntax.OpConcat:
		set = []string{""}
		for _, sub := range re.Sub {
			s, ex := prefixes(sub, fold)
			var next []string
			for _, a := range set {
				for _, b := range s {
					next = append(next, a+b)
				}
			}
			if len(next) > maxPrefixSet {
				return set, false
			}
			set = next
			if !ex {
				return set, false
			}
		}
		return set, true
	}
	return []string{""}, false
}

// anchorable reports whether every match of expr starts with one of the
// keywords, so that the rule can run anchored at keyword occurrences.
//
// exact, when not nil, are the literal prefixes (case-sensitive) every
// match starts with: a cheap check before the regex.
func anchorable(expr string, keywords []string) (ok, wordStart bool, exact []string) {
	lits, wordB, fold, ok := leadingLiterals(expr)
	if !ok {
		return false, false, nil
	}
	for _, l := range lits {
		ll := strings.ToLower(l)
		found := false
		for _, k := range keywords {
			if strings.HasPrefix(ll, k) {
				found = true
				break
			}
		}
		if !found {
			return false, false, nil
		}
		if wordB && !isWord(l[0]) {
			return false, false, nil
		}
	}
	if !fold {
		exact = lits
	}
	return true, wordB, exact
}

// preUser: "-u user:pass" / "--user=user:pass": a colon before the next
// blank after the user name.
func preUser(p []byte) bool {
	i := 0
	if len(p) >= 4 && string(p[:4]) == "ser=" {
		i = 4
	}
	for i < len(p) && (p[i] == ' ' || p[i] == '\t' || p[i] == '\'' || p[i] == '"') && i < 8 {
		i++
	}
	start := i
	for ; i < len(p) && i-start < 130; i++ {
		switch p[i] {
		case ':':
			return i > start
		case ' ', '\t', '\n', '\r', '\'', '"':
			return false
		}
	}
	return false
}

// prePEM: "-----BEGIN" is followed by [ A-Z0-9_-]* and "PRIVATE KEY".
func prePEM(p []byte) bool {
	for i := 0; i < len(p) && i <= 64; i++ {
		c := p[i]
		if c == 'P' && len(p)-i >= 11 && string(p[i:i+11]) == "PRIVATE KEY" {
			return true
		}
		if !(c == ' ' || c == '_' || c == '-' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return false
}

// isPath reports whether v is shaped like a file system path: it starts
// with "/", "~/", "./" or "../" and the rest is path segments of ordinary
// file-name characters (letters, digits, . _ - + @ and non-ASCII).
func isPath(v []byte) bool {
	var rest []byte
	switch {
	case len(v) > 1 && v[0] == '/':
		rest = v[1:]
	case len(v) > 2 && (v[0] == '~' || v[0] == '.') && v[1] == '/':
		rest = v[2:]
	case len(v) > 3 && v[0] == '.' && v[1] == '.' && v[2] == '/':
		rest = v[3:]
	default:
		return false
	}
	for _, c := range rest {
		switch {
		case c == '/', c == '.', c == '_', c == '-', c == '+', c == '@',
			'0' <= c && c <= '9', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c >= 0x80:
		default:
			return false
		}
	}
	return true
}
