package redact

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A rule's required literals: strings one of which every match of its
// expression contains, derived from the expression (ripgrep and Hyperscan
// search for such "inner literals" first). Where none of them occurs in
// the bytes a rule would look at, the regular expression cannot match
// there and is not run: a search with bytes.Index instead of a regexp
// execution.

// maxRequired bounds a set of required literals; a larger set is not kept.
const maxRequired = 16

// requiredLiterals returns a set of strings one of which every match of
// expr contains, or nil when no useful set is known (the check is then
// skipped). The strings are exact bytes: letters matched without case
// are left out (under (?i) "k" also matches the Kelvin sign), so a
// case-insensitive literal contributes only its runs of other bytes.
func requiredLiterals(expr string) [][]byte {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	set, ok := required(re.Simplify())
	if !ok {
		return nil
	}
	out := make([][]byte, len(set))
	for i, s := range set {
		out[i] = []byte(s)
	}
	return out
}

// required returns strings one of which every match of re contains; ok
// is false when no such set (no longer than maxRequired, without an
// empty string) is known.
func required(re *syntax.Regexp) (set []string, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return []string{string(re.Rune)}, true
		}
		// The longest run of runes that case folding leaves alone.
		best, run := "", []rune(nil)
		for _, r := range append(slices.Clone(re.Rune), utf8.RuneError) {
			if r != utf8.RuneError && unicode.SimpleFold(r) == r {
				run = append(run, r)
				continue
			}
			if len(string(run)) > len(best) {
				best = string(run)
			}
			run = run[:0]
		}
		if best == "" {
			return nil, false
		}
		return []string{best}, true
	case syntax.OpCharClass:
		// A small class is a set of one-rune strings.
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(set) == maxRequired {
					return nil, false
				}
				set = append(set, string(r))
			}
		}
		return set, len(set) > 0
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min < 1 {
			return nil, false
		}
		return required(re.Sub[0])
	case syntax.OpConcat:
		// Adjacent exact literals are one longer literal; of the parts'
		// sets, the one whose shortest string is longest (then the
		// smallest) is kept.
		var subs []*syntax.Regexp
		for _, s := range re.Sub {
			if n := len(subs); n > 0 && s.Op == syntax.OpLiteral && s.Flags&syntax.FoldCase == 0 &&
				subs[n-1].Op == syntax.OpLiteral && subs[n-1].Flags&syntax.FoldCase == 0 {
				subs[n-1] = &syntax.Regexp{Op: syntax.OpLiteral, Rune: append(slices.Clone(subs[n-1].Rune), s.Rune...)}
				continue
			}
			subs = append(subs, s)
		}
		for _, s := range subs {
			if c, ok := required(s); ok && better(c, set) {
				set = c
			}
		}
		return set, set != nil
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			c, ok := required(s)
			if !ok {
				return nil, false
			}
			set = append(set, c...)
		}
		set = minimal(set)
		return set, len(set) <= maxRequired
	}
	return nil, false
}

// better reports whether set a is the better check: its shortest string
// is longer, or as long and it has fewer strings.
func better(a, b []string) bool {
	if b == nil {
		return true
	}
	la, lb := shortest(a), shortest(b)
	return la > lb || la == lb && len(a) < len(b)
}

func shortest(set []string) int {
	n := -1
	for _, s := range set {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return n
}

// minimal drops from set the strings that contain another of its strings
// (that one occurs wherever they do) and the repetitions.
func minimal(set []string) []string {
	slices.Sort(set)
	set = slices.Compact(set)
	var out []string
	for i, s := range set {
		covered := false
		for j, t := range set {
			if i != j && len(t) < len(s) && strings.Contains(s, t) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, s)
		}
	}
	return out
}

// containsAny reports whether p contains one of lits.
func containsAny(p []byte, lits [][]byte) bool {
	for _, l := range lits {
		if len(l) == 1 {
			if bytes.IndexByte(p, l[0]) >= 0 {
				return true
			}
		} else if bytes.Contains(p, l) {
			return true
		}
	}
	return false
}
