package policy

import "github.com/shellguard/shellguard/analyze"

// MatchPrefix reports whether argv matches a prefix rule in the
// "npm run test *" style: the rule's words must equal the first words of
// argv (the first may also match argv[0]'s base name, and a word with
// glob characters matches as a glob); a trailing " *" (or ":*") allows
// further arguments, otherwise argv must have exactly the rule's words.
func MatchPrefix(rule string, argv []string) bool {
	rs := compilePrefix([]string{rule})
	return len(rs) == 1 && rs[0].match(argv)
}

// MatchCommand reports whether any command the script src would run
// (after unwrapping wrappers and VAR=value assignments) matches the
// prefix rule. It is how rule examples (match:/not_match:) are checked.
func MatchCommand(rule, src string) bool {
	rs := compilePrefix([]string{rule})
	if len(rs) != 1 {
		return false
	}
	res := analyze.Analyze(src, analyze.Options{})
	for _, c := range res.Commands {
		if rs[0].match(c.Argv) {
			return true
		}
	}
	return false
}
