// Package redact removes secrets from command output before it leaves the
// process: PEM private keys, cloud keys (AWS, GCP, Azure), GitHub, GitLab,
// Slack, Stripe, npm, OpenAI, Anthropic and Hugging Face tokens, JWTs,
// Authorization headers and bearer tokens, passwords in URLs, generic
// "secret=…" assignments with random-looking values, the rules of the
// gitleaks default configuration (MIT, embedded), the exact values of
// secrets the caller names (for example the environment variables it
// scrubbed), and custom regular expressions. Each secret becomes
// "[REDACTED:<kind>]".
//
// The redactor streams: [Writer] holds back only the bytes that could still
// be part of a secret, so a secret split across any number of writes is
// still found. Rules run only where one of their keywords occurs (an
// Aho–Corasick prefilter), so ordinary output costs a table lookup per byte,
// and there only where checks derived from their expressions (required
// literals, an ASCII automaton of the expression's shape) do not rule a
// match out.
//
// Limits (see the Max* constants): a token-like match may extend
// MaxTokenLen bytes past its keyword, a PEM block MaxPEMLen bytes, an exact
// value MaxValueLen bytes, a custom-pattern match MaxCustomLen bytes. A
// longer secret is redacted only in the part that fits. A PEM block whose
// END line is missing is redacted from BEGIN through its base64 body.
//
// What it does not do: it does not decode (a secret printed base64- or
// URL-encoded, reversed or split by other text is not recognised), and it
// is a backstop for the sandbox and the environment scrub, not a
// replacement for them.
package redact

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Pattern is a custom rule.
type Pattern struct {
	// Name is the kind shown in the marker: [REDACTED:<Name>]. Default "custom".
	Name string `json:"name,omitempty"`
	// Regex is an RE2 expression. If it has a capturing group, the first
	// group is what gets redacted; otherwise the whole match.
	Regex string `json:"regex"`
	// Keywords (optional, case-insensitive) restrict the regex to places
	// where one of them occurs; this is much faster. Without keywords the
	// regex's literal prefix is used if it has one, else it runs over all
	// output.
	Keywords []string `json:"keywords,omitempty"`
}

// Options configure a Redactor. The zero value means: built-in rules and
// the gitleaks rules, nothing else.
type Options struct {
	// Values are exact secret values, keyed by a name used in the marker
	// ([REDACTED:env:NAME]); a value shorter than MinValueLen or longer
	// than MaxValueLen is ignored. Matching is exact (case-sensitive).
	Values map[string]string
	// Secrets are exact secret values without names (for example the
	// values runner.BuildEnv reports it dropped); marker [REDACTED:env].
	// The same length limits apply.
	Secrets []string
	// Patterns are custom rules.
	Patterns []Pattern
	// NoGitleaks leaves out the embedded gitleaks rule set (the built-in
	// rules stay).
	NoGitleaks bool
}

// Redactor holds compiled rules. It is safe for concurrent use; each
// [Writer] it creates is not.
//
// Its keyword automaton and shared rule set are built on first use with a
// Writer or a long text (one to a few milliseconds in a fresh process).
// Every rule but the instance's keyword-less ones runs only near one of
// its keywords, so a short text (Bytes, String: a command line, a warning,
// the report of a sandboxed run) is checked for the keywords alone: left
// as it is when it holds none, and redacted with only the rules of those
// it holds otherwise.
type Redactor struct {
	noGitleaks bool
	extra      []*rule  // the instance's own rules, after the shared ones
	quick      []string // every keyword, ASCII-lowered; nil: no quick check (keyword-less rules)
	once       sync.Once
	built      atomic.Bool

	rules   []*rule
	ac      *automaton
	kwRules [][]int32 // keyword id → rule indexes
	always  []int32   // rules without keywords

	// narrow holds the rule sets narrowWriter made, by their keywords
	// (joined by NUL), at most maxNarrowed of them: the short texts of a
	// process (its reports, warnings, command lines) hold the same few
	// keywords again and again.
	narrow   sync.Map
	narrowed atomic.Int32
}

// maxNarrowed bounds the rule sets a Redactor keeps for short texts.
const maxNarrowed = 64

// quickMax is the longest text the keyword check without the automaton
// looks at (longer text builds the Redactor).
const quickMax = 512

// ruleSet is the part of a Redactor that does not depend on Options other
// than NoGitleaks: built once per process, shared, never modified.
type ruleSet struct {
	rules   []*rule
	kws     []string // keyword id → keyword
	kwID    map[string]int32
	kwRules [][]int32
	acOnce  sync.Once // the automaton is built only for a Redactor with nothing to add
	ac      *automaton
}

var (
	staticOnce [2]sync.Once
	staticSets [2]*ruleSet

	defOnce sync.Once
	def     *Redactor
)

// staticRules are the shared rules, the built-in ones and then the
// gitleaks ones, each made on first use: by a rule set being built, or by
// the short-text path for the rules whose keywords a short text holds.
// Every Redactor of the process uses the same rule value, so a rule's
// expressions are compiled once, whichever path meets it first.
var staticRules = make([]struct {
	once sync.Once
	r    *rule
}, len(builtins)+len(gitleaksTable))

func staticRule(i int) *rule {
	s := &staticRules[i]
	s.once.Do(func() {
		if i < len(builtins) {
			s.r = builtins[i].compile()
		} else {
			s.r = gitleaksRule(&gitleaksTable[i-len(builtins)])
		}
		s.r.before = min(s.r.before, maxBefore)
	})
	return s.r
}

// nStatic is the number of shared rules of a Redactor: the gitleaks ones
// follow the built-in ones unless noGitleaks.
func nStatic(noGitleaks bool) int {
	if noGitleaks {
		return len(builtins)
	}
	return len(staticRules)
}

// staticSet returns the built-in rules, followed by the gitleaks rules
// unless noGitleaks.
func staticSet(noGitleaks bool) *ruleSet {
	k := 0
	if noGitleaks {
		k = 1
	}
	staticOnce[k].Do(func() {
		st := &ruleSet{kwID: map[string]int32{}}
		for i := range nStatic(noGitleaks) {
			st.rules = append(st.rules, staticRule(i))
		}
		for i, ru := range st.rules {
			for _, kw := range uniq(ru.keywords) {
				id, ok := st.kwID[kw]
				if !ok {
					id = int32(len(st.kws))
					st.kwID[kw] = id
					st.kws = append(st.kws, kw)
					st.kwRules = append(st.kwRules, nil)
				}
				st.kwRules[id] = append(st.kwRules[id], int32(i))
			}
		}
		staticSets[k] = st
	})
	return staticSets[k]
}

func (st *ruleSet) automaton() *automaton {
	st.acOnce.Do(func() { st.ac = newAutomaton(st.kws) })
	return st.ac
}

// uniq returns kws without repetitions (kws itself if it has none).
func uniq(kws []string) []string {
	for i := 1; i < len(kws); i++ {
		for j := 0; j < i; j++ {
			if kws[i] == kws[j] {
				var out []string
				for _, k := range kws {
					if !slices.Contains(out, k) {
						out = append(out, k)
					}
				}
				return out
			}
		}
	}
	return kws
}

// Default returns a Redactor with the built-in and gitleaks rules.
func Default() *Redactor {
	defOnce.Do(func() {
		var err error
		if def, err = New(Options{}); err != nil {
			panic(err)
		}
	})
	return def
}

// ErrPattern is returned (wrapped) for an invalid custom pattern.
var ErrPattern = errors.New("redact: invalid pattern")

// New compiles a Redactor. The built-in and gitleaks rules are prepared
// once per process and shared; a rule's regular expressions are compiled
// on the first occurrence of one of its keywords.
func New(o Options) (*Redactor, error) {
	var extra []*rule
	for i, p := range o.Patterns {
		re, err := regexp.Compile(p.Regex)
		if err != nil {
			return nil, fmt.Errorf("%w %d (%q): %v", ErrPattern, i, p.Regex, err)
		}
		name := p.Name
		if name == "" {
			name = "custom"
		}
		ru := &rule{kind: name, re: re, before: maxBefore, after: MaxCustomLen}
		if re.NumSubexp() > 0 {
			ru.group = 1
		}
		for _, k := range p.Keywords {
			if k != "" {
				ru.keywords = append(ru.keywords, lowerString(k))
			}
		}
		if len(ru.keywords) == 0 {
			if prefix, _ := re.LiteralPrefix(); len(prefix) >= 3 && !strings.HasPrefix(p.Regex, "(?i)") {
				ru.keywords = []string{lowerString(prefix)}
				ru.before = 0
			}
		}
		extra = append(extra, ru)
	}
	names := make([]string, 0, len(o.Values))
	for n := range o.Values {
		names = append(names, n)
	}
	sort.Strings(names)
	seenValue := map[string]bool{}
	addValue := func(name, v string) {
		if len(v) < MinValueLen || len(v) > MaxValueLen || seenValue[v] {
			return
		}
		seenValue[v] = true
		kind := "env"
		if name != "" {
			kind = "env:" + name
		}
		// ASCII-lowered, as the automaton compares: strings.ToLower would
		// also lower non-ASCII letters, and the value would never be found.
		extra = append(extra, &rule{kind: kind, exact: []byte(v), keywords: []string{lowerString(v)}})
	}
	for _, n := range names {
		addValue(n, o.Values[n])
	}
	for _, v := range o.Secrets {
		addValue("", v)
	}

	r := &Redactor{noGitleaks: o.NoGitleaks, extra: extra, quick: staticKeywords(o.NoGitleaks)}
	for _, ru := range extra {
		if len(ru.keywords) == 0 {
			r.quick = nil // runs on any text
			break
		}
		if r.quick != nil {
			r.quick = slices.Clip(r.quick)
			for _, kw := range ru.keywords {
				r.quick = append(r.quick, lowerString(kw))
			}
		}
	}
	return r, nil
}

// build compiles the shared rule set and the automaton, once.
func (r *Redactor) build() {
	r.once.Do(func() {
		r.compile()
		r.built.Store(true)
	})
}

func (r *Redactor) compile() {
	st := staticSet(r.noGitleaks)
	extra := r.extra
	if len(extra) == 0 {
		r.rules, r.kwRules, r.ac = st.rules, st.kwRules, st.automaton()
		return
	}
	// The instance's rules follow the shared ones; the automaton covers
	// the shared keywords and the instance's (one table lookup a byte).
	n := len(st.rules)
	r.rules = append(st.rules[:n:n], extra...)
	kws := st.kws[:len(st.kws):len(st.kws)]
	r.kwRules = slices.Clone(st.kwRules)
	local := map[string]int32{}
	for i, ru := range extra {
		ri := int32(n + i)
		if len(ru.keywords) == 0 {
			r.always = append(r.always, ri)
			continue
		}
		for _, kw := range uniq(ru.keywords) {
			id, ok := st.kwID[kw]
			if !ok {
				id, ok = local[kw]
			}
			if !ok {
				id = int32(len(kws))
				local[kw] = id
				kws = append(kws, kw)
				r.kwRules = append(r.kwRules, nil)
			}
			l := len(r.kwRules[id])
			r.kwRules[id] = append(r.kwRules[id][:l:l], ri) // never into a shared slice
		}
	}
	r.ac = newAutomaton(kws)
}

// shortHits reports whether p is short, and if so which of the keywords
// (compared as the automaton compares them: ASCII letters without case) p
// holds. No rule can act on a short text that holds none, and only the
// rules of the keywords it holds can act on one that holds some (see
// narrowWriter).
func (r *Redactor) shortHits(p []byte) (kws []string, short bool) {
	if r.quick == nil || len(p) > quickMax {
		return nil, false
	}
	var buf [quickMax]byte
	low := buf[:len(p)]
	for i, c := range p {
		low[i] = lowerASCII(c)
	}
	// The shared keywords through their index, in r.quick's order; the
	// instance's own (few: secret values, custom patterns) one by one.
	static := staticIndex(r.noGitleaks)
	var seen [(maxStaticKeywords + 63) / 64]uint64
	hit := false
	static.each(low, func(k int32) {
		seen[k/64] |= 1 << (k % 64)
		hit = true
	})
	if hit {
		lits := keywordLits[0]
		if r.noGitleaks {
			lits = keywordLits[1]
		}
		for k, kw := range static.kws {
			if seen[k/64]&(1<<(k%64)) != 0 && (lits[k] == nil || containsAnyString(p, lits[k])) {
				kws = append(kws, kw)
			}
		}
	}
	for _, kw := range r.quick[len(static.kws):] {
		if bytes.Contains(low, []byte(kw)) && !slices.Contains(kws, kw) {
			kws = append(kws, kw)
		}
	}
	return kws, true
}

// narrowWriter returns a Writer that has been given the short text p,
// which holds the keywords kws and no others, with a Redactor of only the
// rules that have one of kws (in their order in r, which decides between
// overlapping matches) and no automaton: the occurrences of kws in p are
// found directly and handed to the rules in the order the automaton would
// report them. It redacts p exactly as r does, without building r's
// automaton over every keyword: the report of a sandboxed run, a warning
// or a command line often holds a keyword or two ("secret", "private") and
// no secret, and would otherwise cost a fresh process the whole rule set
// (a few milliseconds).
func (r *Redactor) narrowWriter(dst io.Writer, p []byte, kws []string) *Writer {
	m := r.narrowTo(kws)
	// Every occurrence, overlapping ones too, ordered as the automaton
	// reports them: by where they end, the longest first.
	var buf [quickMax]byte
	low := buf[:len(p)]
	for i, c := range p {
		low[i] = lowerASCII(c)
	}
	type occ struct{ start, end, k int }
	var occs []occ
	for k, kw := range kws {
		for from := 0; ; {
			i := bytes.Index(low[from:], []byte(kw))
			if i < 0 {
				break
			}
			occs = append(occs, occ{from + i, from + i + len(kw), k})
			from += i + 1
		}
	}
	slices.SortFunc(occs, func(a, b occ) int {
		if a.end != b.end {
			return a.end - b.end
		}
		return b.end - b.start - (a.end - a.start)
	})
	w := &Writer{r: m, w: dst, buf: slices.Clone(p)}
	for _, o := range occs {
		for _, ri := range m.kwRules[o.k] {
			w.hit(ri, int64(o.start), int64(o.end))
		}
	}
	return w
}

// narrowTo returns the Redactor of only the rules of r that have one of
// kws, with kwRules[k] the rules of kws[k] and no automaton, kept for the
// next text with the same keywords. It is never modified once made.
func (r *Redactor) narrowTo(kws []string) *Redactor {
	key := strings.Join(kws, "\x00")
	if m, ok := r.narrow.Load(key); ok {
		return m.(*Redactor)
	}
	// The shared rules of kws from the table of every shared keyword's
	// rules (the rules themselves are not read: a fresh process would
	// otherwise touch all of them for its first short text).
	static := staticKeywords(r.noGitleaks)
	byKw := keywordRules[0]
	if r.noGitleaks {
		byKw = keywordRules[1]
	}
	var ids []int16
	for _, kw := range kws {
		if j, ok := slices.BinarySearch(static, kw); ok {
			ids = append(ids, byKw[j]...)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	m := &Redactor{noGitleaks: r.noGitleaks, rules: make([]*rule, 0, len(ids))}
	for _, i := range ids {
		m.rules = append(m.rules, staticRule(int(i)))
	}
	has := func(ruleKws []string) bool {
		for _, kw := range ruleKws {
			if slices.Contains(kws, lowerString(kw)) {
				return true
			}
		}
		return false
	}
	for _, ru := range r.extra {
		if has(ru.keywords) {
			m.rules = append(m.rules, ru)
		}
	}
	// kwRules[k]: the rules of kws[k], in rule order.
	m.kwRules = make([][]int32, len(kws))
	for k, kw := range kws {
		if j, ok := slices.BinarySearch(static, kw); ok {
			for _, i := range byKw[j] {
				pos, _ := slices.BinarySearch(ids, i)
				m.kwRules[k] = append(m.kwRules[k], int32(pos))
			}
		}
	}
	for ri := len(ids); ri < len(m.rules); ri++ {
		for _, kw := range uniq(m.rules[ri].keywords) {
			if k := slices.Index(kws, lowerString(kw)); k >= 0 {
				m.kwRules[k] = append(m.kwRules[k], int32(ri))
			}
		}
	}
	if r.narrowed.Load() < maxNarrowed && r.narrowed.Add(1) <= maxNarrowed { // the count stops at the bound
		r.narrow.Store(key, m)
	}
	return m
}

// staticKeywords returns the keywords of the shared rules, ASCII-lowered,
// sorted, once each: keywordTable, which TestKeywordTable keeps equal to
// what deriveKeywords reads from the rule tables (a fresh process would
// otherwise spend a fifth of a millisecond on it for its first message).
func staticKeywords(noGitleaks bool) []string {
	if noGitleaks {
		return keywordTable[1]
	}
	return keywordTable[0]
}

// deriveKeywordLits computes keywordLits from the rules: for every
// keyword of staticKeywords(noGitleaks) whose rules all run anchored at
// it and match only where one of their literals is (lits, known without
// a compile: evalAnchored skips a hit without one), those literals, once
// each; nil for the other keywords. A short text that holds such a
// keyword (case folded) but none of its literals (case kept) has no hit
// of it that could be a secret: "sk" in "masked" or "disk", whose one
// rule wants "SK" and 32 hex digits.
func deriveKeywordLits(noGitleaks bool) [][]string {
	byKw := deriveKeywordRules(noGitleaks)
	out := make([][]string, len(byKw))
	for j, ids := range byKw {
		var lits []string
		gated := len(ids) > 0
		for _, i := range ids {
			ru := staticRule(int(i))
			if !ru.anchored || ru.litSrc != "" || ru.lits == nil {
				gated = false
				break
			}
			for _, l := range ru.lits {
				if !slices.Contains(lits, string(l)) {
					lits = append(lits, string(l))
				}
			}
		}
		if gated {
			out[j] = lits
		}
	}
	return out
}

// containsAnyString reports whether p holds one of subs.
func containsAnyString(p []byte, subs []string) bool {
	for _, s := range subs {
		if bytes.Contains(p, []byte(s)) {
			return true
		}
	}
	return false
}

// deriveKeywordRules computes keywordRules from the rules: for every
// keyword of staticKeywords(noGitleaks), the shared rules that have it,
// in rule order.
func deriveKeywordRules(noGitleaks bool) [][]int16 {
	static := staticKeywords(noGitleaks)
	out := make([][]int16, len(static))
	for i := range nStatic(noGitleaks) {
		seen := map[int]bool{}
		for _, kw := range staticRule(i).keywords {
			j, ok := slices.BinarySearch(static, lowerString(kw))
			if !ok {
				panic("redact: keyword " + kw + " is not in keywordTable")
			}
			if !seen[j] {
				seen[j] = true
				out[j] = append(out[j], int16(i))
			}
		}
	}
	return out
}

// deriveKeywords computes staticKeywords from the rule tables.
func deriveKeywords(noGitleaks bool) []string {
	var out []string
	for _, b := range builtins {
		for _, kw := range b.keywords {
			out = append(out, lowerString(kw))
		}
	}
	if !noGitleaks {
		for i := range gitleaksTable {
			for _, kw := range gitleaksTable[i].keywords {
				out = append(out, lowerString(kw))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var (
	kwOnce  [2]sync.Once
	kwIndex [2]*pairIndex
)

// staticIndex is the index of staticKeywords(noGitleaks), built on first
// use.
func staticIndex(noGitleaks bool) *pairIndex {
	k := 0
	if noGitleaks {
		k = 1
	}
	kwOnce[k].Do(func() { kwIndex[k] = newPairIndex(staticKeywords(noGitleaks)) })
	return kwIndex[k]
}

// maxStaticKeywords bounds the shared keywords (a bit set of them lives
// on the stack of shortHits); TestPairIndexAgrees checks it.
const maxStaticKeywords = 1024

// A pairIndex finds which of a sorted list of keywords (ASCII-lowered) a
// lowered text holds, in one pass over the text: a bit per byte pair says
// whether some keyword starts with it, and only where one does are the
// keywords of that pair (a run of the sorted list) compared. Building it
// costs a pass over the list, where the automaton costs milliseconds.
type pairIndex struct {
	kws  []string             // sorted
	bits [1 << 16 / 64]uint64 // pairs some keyword starts with
	ones []int32              // one-byte keywords
}

func newPairIndex(kws []string) *pairIndex {
	x := &pairIndex{kws: kws}
	for i, kw := range kws {
		switch len(kw) {
		case 0:
		case 1:
			x.ones = append(x.ones, int32(i))
		default:
			pr := uint16(kw[0])<<8 | uint16(kw[1])
			x.bits[pr/64] |= 1 << (pr % 64)
		}
	}
	return x
}

// each calls found with the index of every keyword low holds (a keyword
// held several times may be reported several times).
func (x *pairIndex) each(low []byte, found func(int32)) {
	for i := 0; i+1 < len(low); i++ {
		c0, c1 := low[i], low[i+1]
		pr := uint16(c0)<<8 | uint16(c1)
		if x.bits[pr/64]&(1<<(pr%64)) == 0 {
			continue
		}
		// The first keyword of two bytes or more not below the pair.
		k, _ := slices.BinarySearchFunc(x.kws, pr, func(kw string, pr uint16) int {
			switch len(kw) {
			case 0:
				return -1
			case 1:
				return cmp.Compare(uint16(kw[0])<<8, pr|0xff) // "x" sorts before "x?"
			default:
				return cmp.Compare(uint16(kw[0])<<8|uint16(kw[1]), pr)
			}
		})
		for ; k < len(x.kws) && len(x.kws[k]) >= 2 && x.kws[k][0] == c0 && x.kws[k][1] == c1; k++ {
			if bytes.HasPrefix(low[i:], []byte(x.kws[k])) {
				found(int32(k))
			}
		}
	}
	for _, k := range x.ones {
		if bytes.IndexByte(low, x.kws[k][0]) >= 0 {
			found(k)
		}
	}
}

func lowerString(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	return string(b)
}

// Bytes returns p with every secret replaced by its marker. It returns p
// itself when nothing was redacted.
func (r *Redactor) Bytes(p []byte) []byte {
	var out bytes.Buffer
	var w *Writer
	switch kws, short := r.shortHits(p); {
	case !short:
		w = r.NewWriter(&out)
		w.Write(p)
	case len(kws) == 0:
		return p
	case r.built.Load(): // the whole rule set is at hand: cheaper than narrowing it
		w = r.NewWriter(&out)
		w.Write(p)
	default:
		w = r.narrowWriter(&out, p, kws)
	}
	w.Close()
	if w.Redactions() == 0 {
		return p
	}
	return out.Bytes()
}

// String is Bytes for strings.
func (r *Redactor) String(s string) string {
	b := r.Bytes([]byte(s))
	return string(b)
}

// Redact is Default().Bytes(p).
func Redact(p []byte) []byte { return Default().Bytes(p) }

// A Writer redacts what is written to it and passes it on. It holds back
// the bytes that may still be part of a secret; Close passes on the rest.
// A Writer is not safe for concurrent use.
type Writer struct {
	r       *Redactor
	w       io.Writer
	buf     []byte
	base    int64 // stream offset of buf[0]
	emitted int64 // stream offset up to which output was passed on
	state   uint32
	open    []span  // per rule: the current chain of overlapping windows
	closed  []span  // chains complete in shape, waiting for their bytes
	ranges  []rng   // redactions not yet passed on
	pend    []ahit  // anchored-rule hits waiting for their bytes
	cover   []int64 // per rule: end of its last match; hits before it are skipped
	ends    []int64 // positions of "-----END" (for pemBlock rules)
	out     []byte  // scratch for redacted output on its way out
	awFrom  int64   // rules without keywords have been evaluated up to here
	n       int
	err     error
	closedW bool
}

type span struct {
	rule       int32
	start, end int64
	live       bool
}

type ahit struct {
	rule         int32
	kstart, kend int64
}

type rng struct {
	start, end int64
	kind       string
	order      int32
}

// NewWriter returns a Writer that passes redacted output on to w.
func (r *Redactor) NewWriter(w io.Writer) *Writer {
	r.build()
	// open and cover are made at the first keyword hit: most text has
	// none, and a short message redacted alone (Bytes) would otherwise
	// pay a slot per rule.
	return &Writer{r: r, w: w}
}

// covered is where rule ri's last match ends (0: none yet).
func (w *Writer) covered(ri int32) int64 {
	if w.cover == nil {
		return 0
	}
	return w.cover[ri]
}

func (w *Writer) setCover(ri int32, end int64) {
	if w.cover == nil {
		w.cover = make([]int64, len(w.r.rules))
	}
	w.cover[ri] = max(w.cover[ri], end)
}

// NewWriter is Default().NewWriter(w).
func NewWriter(w io.Writer) *Writer { return Default().NewWriter(w) }

// Redactions reports how many secrets were redacted so far.
func (w *Writer) Redactions() int { return w.n }

// chainCap bounds a chain of overlapping windows (dense keyword hits): past
// it the chain is evaluated in pieces.
const chainCap = 64 << 10

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("redact: write after close")

// Write redacts p and passes on what can no longer be part of a secret. It
// reports len(p) unless the underlying writer failed.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.closedW {
		return 0, ErrClosed
	}
	if len(p) == 0 {
		return 0, nil
	}
	start := w.base + int64(len(w.buf))
	w.buf = append(w.buf, p...)
	w.state = w.r.ac.scan(w.state, p, func(id int32, end int) {
		kend := start + int64(end)
		kstart := kend - int64(w.r.ac.kwLen[id])
		for _, ri := range w.r.kwRules[id] {
			w.hit(ri, kstart, kend)
		}
	})
	w.process(false)
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// Close passes on everything held back. It does not close the underlying
// writer.
func (w *Writer) Close() error {
	if w.closedW {
		return w.err
	}
	w.closedW = true
	if w.err == nil {
		w.process(true)
	}
	w.buf, w.out = nil, nil
	return w.err
}

// Flush passes on everything held back, as if the stream ended here, and
// keeps the Writer open. A secret whose bytes arrive partly before and
// partly after a Flush may be missed, so call it only where the stream is
// known to pause (for example when the producer has been idle for a while
// and a line ended), never after every write.
func (w *Writer) Flush() error {
	if w.err != nil || w.closedW {
		return w.err
	}
	w.process(true)
	w.state = 0
	return w.err
}

// Buffered reports how many bytes are held back.
func (w *Writer) Buffered() int {
	return int(w.base + int64(len(w.buf)) - w.emitted)
}

func (w *Writer) hit(ri int32, kstart, kend int64) {
	ru := w.r.rules[ri]
	if ru.pemEnd {
		w.ends = append(w.ends, kstart)
		return
	}
	if ru.exact != nil {
		if bytes.Equal(w.buf[kstart-w.base:kend-w.base], ru.exact) {
			w.addRange(kstart, kend, ru.kind, ri)
		}
		return
	}
	if ru.anchored {
		if ru.wordStart && kstart > w.base && isWord(w.buf[kstart-1-w.base]) {
			return
		}
		w.pend = append(w.pend, ahit{ri, kstart, kend})
		return
	}
	ws := kstart - int64(ru.before) - 1
	if ws < w.base {
		ws = w.base
	}
	we := kend + int64(ru.after) + 1
	if w.open == nil {
		w.open = make([]span, len(w.r.rules))
	}
	o := &w.open[ri]
	if o.live && ws <= o.end {
		if we > o.end {
			o.end = we
		}
		return
	}
	if o.live {
		w.closed = append(w.closed, *o)
	}
	*o = span{rule: ri, start: ws, end: we, live: true}
}

func (w *Writer) addRange(s, e int64, kind string, order int32) {
	if s < w.emitted {
		s = w.emitted
	}
	if e > s {
		w.ranges = append(w.ranges, rng{s, e, kind, order})
	}
}

func hasLit(p []byte, lits [][]byte) bool {
	for _, l := range lits {
		if bytes.HasPrefix(p, l) {
			return true
		}
	}
	return false
}

func isWord(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// evalAnchored runs an anchored rule at one keyword occurrence.
func (w *Writer) evalAnchored(h ahit, L int64) {
	ru := w.r.rules[h.rule]
	if h.kstart < w.covered(h.rule) {
		return // inside this rule's previous match (FindAll would skip it too)
	}
	e := min(h.kend+int64(ru.after)+1, L)
	if ru.pre != nil && !ru.pre(w.buf[h.kend-w.base:e-w.base]) {
		return
	}
	if ru.litSrc == "" && ru.lits != nil && !hasLit(w.buf[h.kstart-w.base:e-w.base], ru.lits) {
		return // literals known without load (gitleaks rules): no compile for a miss
	}
	ru.load()
	if ru.litSrc != "" && ru.lits != nil && !hasLit(w.buf[h.kstart-w.base:e-w.base], ru.lits) {
		return
	}
	if ru.req != nil && !containsAny(w.buf[h.kstart-w.base:e-w.base], ru.req) {
		return
	}
	if ru.shape != nil && !ru.shape.mayMatch(w.buf[h.kstart-w.base:e-w.base]) {
		return
	}
	if ru.pemBlock {
		w.pemBlock(h, e, L)
		return
	}
	w.match(h.rule, h.kstart, w.buf[h.kstart-w.base:e-w.base], ru.re.FindSubmatchIndex)
}

// pemBlock redacts BEGIN … END of a private key, the END line being the
// first valid one within MaxPEMLen.
func (w *Writer) pemBlock(h ahit, e, L int64) {
	ru := w.r.rules[h.rule]
	hdr := ru.re.FindIndex(w.buf[h.kstart-w.base : min(h.kstart+128, e)-w.base])
	if hdr == nil {
		return
	}
	from := h.kstart + int64(hdr[1])
	i := sort.Search(len(w.ends), func(i int) bool { return w.ends[i] >= from })
	for ; i < len(w.ends) && w.ends[i] < e; i++ {
		p := w.ends[i]
		if m := pemFooterRE().FindIndex(w.buf[p-w.base : min(p+128, L)-w.base]); m != nil {
			end := p + int64(m[1])
			w.addRange(h.kstart, end, ru.kind, h.rule)
			w.setCover(h.rule, end)
			return
		}
	}
}

func (w *Writer) match(ri int32, s int64, text []byte, find func([]byte) []int) {
	ru := w.r.rules[ri]
	m := find(text)
	if m == nil {
		return
	}
	if ru.anchored {
		w.setCover(ri, s+int64(m[1]))
	}
	a, b := m[0], m[1]
	if g := ru.group; g > 0 && 2*g+1 < len(m) && m[2*g] >= 0 {
		a, b = m[2*g], m[2*g+1]
	}
	if b <= a {
		return
	}
	secret := text[a:b]
	if ru.entropy > 0 && entropy(secret) < ru.entropy {
		return
	}
	if ru.notSecret != nil && ru.notSecret(secret) {
		return
	}
	if ru.allow != nil && ru.allowed(text[m[0]:m[1]], secret) {
		return
	}
	w.addRange(s+int64(a), s+int64(b), ru.kind, ri)
}

// eval runs a rule over the stream bytes [s, e).
func (w *Writer) eval(ri int32, s, e int64) {
	ru := w.r.rules[ri]
	ru.load()
	text := w.buf[s-w.base : e-w.base]
	if ru.req != nil && !containsAny(text, ru.req) {
		return
	}
	for _, m := range ru.re.FindAllSubmatchIndex(text, -1) {
		a, b := m[0], m[1]
		if g := ru.group; g > 0 && 2*g+1 < len(m) && m[2*g] >= 0 {
			a, b = m[2*g], m[2*g+1]
		}
		if b <= a {
			continue
		}
		secret := text[a:b]
		if ru.entropy > 0 && entropy(secret) < ru.entropy {
			continue
		}
		if ru.notSecret != nil && ru.notSecret(secret) {
			continue
		}
		if ru.allow != nil && ru.allowed(text[m[0]:m[1]], secret) {
			continue
		}
		w.addRange(s+int64(a), s+int64(b), ru.kind, ri)
	}
}

func (w *Writer) process(final bool) {
	L := w.base + int64(len(w.buf))
	const inf = int64(1) << 62
	horizon := inf
	if !final {
		horizon = L - int64(w.r.ac.stateDepth(w.state)) - maxBefore - 1
	}
	// Chains that can no longer grow and whose bytes have all arrived.
	keep := w.closed[:0]
	for _, c := range w.closed {
		if final || c.end <= L {
			w.eval(c.rule, c.start, min(c.end, L))
		} else {
			keep = append(keep, c)
		}
	}
	w.closed = keep
	cut := min(horizon, L)
	pend := w.pend[:0]
	for _, h := range w.pend {
		if final || h.kend+int64(w.r.rules[h.rule].after)+1 <= L {
			w.evalAnchored(h, L)
		} else {
			pend = append(pend, h)
			cut = min(cut, h.kstart)
		}
	}
	w.pend = pend
	for i := range w.open {
		o := &w.open[i]
		if !o.live {
			continue
		}
		if final || o.end < horizon || (o.end <= L && o.end-o.start > chainCap) {
			w.eval(o.rule, o.start, min(o.end, L))
			o.live = false
			continue
		}
		if L-o.start > chainCap {
			// Keyword hits keep coming: evaluate what has arrived and go
			// on with an overlap wide enough for any match crossing L
			// (matches found twice are merged).
			ru := w.r.rules[o.rule]
			w.eval(o.rule, o.start, L)
			o.start = max(o.start, L-int64(ru.before+ru.after+w.r.ac.maxKw)-2)
		}
		cut = min(cut, o.start)
	}
	for _, c := range w.closed {
		cut = min(cut, c.start)
	}
	// Rules without keywords.
	if len(w.r.always) > 0 {
		limit := L
		if !final {
			limit = L - MaxCustomLen
		}
		if limit > w.awFrom {
			from := max(w.awFrom-maxBefore, w.base)
			next := limit
			for _, ri := range w.r.always {
				ru := w.r.rules[ri]
				text := w.buf[from-w.base:]
				for _, m := range ru.re.FindAllSubmatchIndex(text, -1) {
					ms := from + int64(m[0])
					if ms >= limit {
						break
					}
					if from+int64(m[1]) <= w.awFrom {
						continue
					}
					a, b := m[0], m[1]
					if g := ru.group; g > 0 && m[2*g] >= 0 {
						a, b = m[2*g], m[2*g+1]
					}
					w.addRange(from+int64(a), from+int64(b), ru.kind, ri)
					next = max(next, from+int64(m[1]))
				}
			}
			w.awFrom = next
		}
		if !final {
			cut = min(cut, w.awFrom)
		}
	}
	if cut > L {
		cut = L
	}
	if cut <= w.emitted && len(w.ranges) == 0 {
		return
	}
	// Merge redactions; never cut inside one.
	sort.Slice(w.ranges, func(i, j int) bool {
		a, b := w.ranges[i], w.ranges[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.order != b.order {
			return a.order < b.order
		}
		return a.end > b.end
	})
	merged := w.ranges[:0]
	for _, g := range w.ranges {
		if n := len(merged); n > 0 && g.start < merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, g.end)
			continue
		}
		merged = append(merged, g)
	}
	w.ranges = merged
	for _, g := range merged {
		if g.start < cut && cut < g.end {
			cut = g.start
		}
	}
	if cut < w.emitted {
		cut = w.emitted
	}
	// Pass on [emitted, cut).
	out := w.out[:0]
	i := 0
	for ; i < len(merged) && merged[i].end <= cut; i++ {
		g := merged[i]
		out = append(out, w.buf[w.emitted-w.base:g.start-w.base]...)
		out = append(out, "[REDACTED:"...)
		out = append(out, g.kind...)
		out = append(out, ']')
		w.emitted = g.end
		w.n++
	}
	w.ranges = append(w.ranges[:0], merged[i:]...)
	if i == 0 {
		// Nothing redacted: pass the bytes on without copying.
		out = w.buf[w.emitted-w.base : cut-w.base]
	} else {
		out = append(out, w.buf[w.emitted-w.base:cut-w.base]...)
		w.out = out[:0] // kept for the next redacted chunk
	}
	w.emitted = cut
	if len(out) > 0 {
		if _, err := w.w.Write(out); err != nil {
			w.err = err
			return
		}
	}
	// Drop what no rule needs any more.
	if n := sort.Search(len(w.ends), func(i int) bool { return w.ends[i] >= w.emitted }); n > 0 {
		w.ends = append(w.ends[:0], w.ends[n:]...)
	}
	drop := w.emitted
	if len(w.r.always) > 0 {
		drop = min(drop, max(w.awFrom-maxBefore, w.base))
	}
	if n := drop - w.base; n > 0 {
		if n >= int64(len(w.buf)) {
			w.buf = w.buf[:0]
		} else if n > int64(cap(w.buf))/2 || n > 64<<10 {
			w.buf = append(w.buf[:0], w.buf[n:]...)
		} else {
			return // compact later
		}
		w.base = drop
	}
}
