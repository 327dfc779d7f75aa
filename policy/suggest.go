package policy

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Suggest explains how the user could let command run without being
// refused (or asked), given the verdict v it got under rules: for each
// command of the line, a prefix rule is tried by checking again with it
// added to rules.Allow; the rules that lift a finding are suggested, and
// every finding that stays is explained (the user's own rule, the
// built-in floor, or a finding about the command line as a whole). It
// returns "" for an allowed command.
func Suggest(command string, v Verdict, rules Rules) string {
	if v.Decision == Allow {
		return ""
	}
	var b strings.Builder
	base := v
	base.Reasons = nil
	for _, r := range v.Reasons {
		switch r.ID {
		case UnsandboxedOff.ID:
			b.WriteString("Running outside the sandbox needs sandbox.allow_unsandboxed: true in the user's configuration (then it is always asked). Run the command inside the sandbox instead.\n")
		case UnsandboxedAsk.ID:
		default:
			base.Reasons = append(base.Reasons, r)
		}
	}
	if len(base.Reasons) == 0 {
		return b.String()
	}
	blocking := func(vv Verdict) map[string]bool {
		m := map[string]bool{}
		for _, r := range vv.Reasons {
			if r.Decision >= Ask {
				m[reasonKey(r)] = true
			}
		}
		return m
	}
	before := blocking(base)
	var useful []string
	for _, cand := range candidateRules(v.Commands) {
		r2 := rules
		r2.Allow = append(append([]string(nil), rules.Allow...), cand)
		after := blocking(Check(command, r2))
		if len(after) < len(before) {
			useful = append(useful, cand)
		}
	}
	after := before
	if len(useful) > 0 {
		r2 := rules
		r2.Allow = append(append([]string(nil), rules.Allow...), useful...)
		v2 := Check(command, r2)
		after = blocking(v2)
		decision := v2.Decision
		var lifted []string
		for _, r := range base.Reasons {
			if before[reasonKey(r)] && !after[reasonKey(r)] {
				lifted = appendOnce(lifted, r.ID)
			}
		}
		quoted := make([]string, len(useful))
		for i, u := range useful {
			quoted[i] = strconv.Quote(u)
		}
		fmt.Fprintf(&b, "How to allow it: the user can add to their shellguard configuration (the user config file or the --config file; a project .shellguard.yaml cannot loosen rules):\n  rules:\n    allow: [%s]\nThat lifts %s", strings.Join(quoted, ", "), strings.Join(lifted, ", "))
		switch {
		case decision == Allow:
			b.WriteString("; the command would then run.\n")
		case decision == Ask && v.Decision == Deny:
			b.WriteString("; the command would then still need approval.\n")
		default:
			b.WriteString(".\n")
		}
	}
	var seen []string
	for _, r := range base.Reasons {
		if !after[reasonKey(r)] || contains(seen, r.ID) {
			continue
		}
		seen = append(seen, r.ID)
		switch {
		case r.Rule != "":
			fmt.Fprintf(&b, "%s comes from the user's own rule %q: only changing that rule in the configuration lifts it.\n", r.ID, r.Rule)
		case r.Floor:
			fmt.Fprintf(&b, "%s is part of the built-in floor: no configuration can allow it.\n", r.ID)
		default:
			fmt.Fprintf(&b, "%s is not lifted by an allow rule (rules.builtin_defaults: false switches the overridable defaults off for trusted environments).\n", r.ID)
		}
	}
	return b.String()
}

func reasonKey(r Reason) string {
	return fmt.Sprintf("%s@%d-%d", r.ID, r.Span.Start, r.Span.End)
}

// candidateRules are prefix rules for the commands of a line: the command
// name and its subcommand when it has one ("git push *"), else the name
// alone ("printenv *").
func candidateRules(cmds [][]string) []string {
	var out []string
	for _, argv := range cmds {
		if len(argv) == 0 || argv[0] == "" {
			continue
		}
		name := filepath.Base(argv[0])
		if !isWord(name) {
			continue
		}
		rule := name + " *"
		if len(argv) > 1 && isWord(argv[1]) {
			rule = name + " " + argv[1] + " *"
		}
		out = appendOnce(out, rule)
	}
	return out
}

// isWord: a plain name (subcommand), not an option, path or expansion.
func isWord(s string) bool {
	if s == "" || len(s) > 40 || s[0] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func appendOnce(list []string, s string) []string {
	if contains(list, s) {
		return list
	}
	return append(list, s)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
