package policy

import (
	"strings"

	"github.com/shellguard/shellguard/analyze"
)

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
	// A rule matches a command's words only. A command that also writes
	// through a redirect, runs with leading assignments, under a wrapper,
	// or with words known only at run time would be allowed by its rule
	// with any target, environment or value: nothing is offered for it.
	res := analyze.Analyze(command, AnalyzeOptions(rules))
	var out []string
	var covers []Span
	for _, c := range res.Commands {
		rule, ok := exactRule(c.Argv)
		if !ok || len(c.Args) == 0 || !plainCommand(c) {
			continue
		}
		if lifts(command, rules, rule) {
			out = appendOnce(out, rule)
			covers = append(covers, Span{Start: c.Args[0].Span.Start, End: c.Args[len(c.Args)-1].Span.End})
		}
	}
	if len(out) == 0 {
		return nil
	}
	// Every finding that blocks must be about the words the rules spell.
	for _, r := range v.Reasons {
		if r.Decision < Ask {
			continue
		}
		inside := false
		for _, cv := range covers {
			if cv.Start <= r.Start && r.End <= cv.End {
				inside = true
			}
		}
		if !inside {
			return nil
		}
	}
	r2 := rules
	r2.Allow = append(append([]string(nil), rules.Allow...), out...)
	if Check(command, r2).Decision != Allow {
		return nil
	}
	return out
}

// plainCommand: the command is its words alone (no writing redirect, no
// leading assignment, no wrapper, every word known before it runs).
func plainCommand(c *analyze.Command) bool {
	if len(c.Assigns) > 0 || len(c.Wrappers) > 0 || c.Remote {
		return false
	}
	for _, rd := range c.Redirects {
		if rd.Write {
			return false
		}
	}
	for _, a := range c.Args {
		if a.Dynamic || a.Glob || a.ProcSubst || len(a.Subst) > 0 || a.IFS || a.Positional {
			return false
		}
	}
	return true
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
