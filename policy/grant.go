package policy

import "strings"

// Grant proposes the narrowest allow rules under which command, asked
// about with verdict v, would run without being asked again: for each
// command of the line that a finding blocks, its exact words (the program
// as written, its subcommand and every argument; no trailing "*", so the
// rule matches this command and no other). It returns nil when no such
// rules let the command run: a deny, a floor finding or one about the
// line as a whole, a rule of the user's own, or words a rule cannot spell
// (blanks, glob characters, expansions the analysis could not resolve).
func Grant(command string, v Verdict, rules Rules) []string {
	if v.Decision != Ask {
		return nil
	}
	for _, r := range v.Reasons {
		if r.Decision >= Ask && (r.Floor || r.Rule != "") {
			return nil
		}
	}
	var out []string
	for _, argv := range v.Commands {
		rule, ok := exactRule(argv)
		if !ok {
			continue
		}
		if lifts(command, rules, rule) {
			out = appendOnce(out, rule)
		}
	}
	if len(out) == 0 {
		return nil
	}
	r2 := rules
	r2.Allow = append(append([]string(nil), rules.Allow...), out...)
	if Check(command, r2).Decision != Allow {
		return nil
	}
	return out
}

// lifts reports whether adding rule lowers the number of blocking findings.
func lifts(command string, rules Rules, rule string) bool {
	count := func(v Verdict) int {
		n := 0
		for _, r := range v.Reasons {
			if r.Decision >= Ask {
				n++
			}
		}
		return n
	}
	r2 := rules
	r2.Allow = append(append([]string(nil), rules.Allow...), rule)
	return count(Check(command, r2)) < count(Check(command, rules))
}

// exactRule spells argv as a prefix rule that matches it exactly, when
// every word can be written in one and means itself: no blanks (rules
// split on them), no glob characters (a rule word with them is a
// pattern), no "$" or "`" (the analysis keeps an expansion it cannot
// resolve as its text, which would then stand for any value), nothing
// empty.
func exactRule(argv []string) (string, bool) {
	if len(argv) == 0 {
		return "", false
	}
	for _, w := range argv {
		if w == "" || strings.ContainsAny(w, " \t\n\r*?[]\\$`") || !printable(w) {
			return "", false
		}
	}
	return strings.Join(argv, " "), true
}

func printable(s string) bool {
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}
