package policy

import (
	"fmt"
	"strings"

	"github.com/shellguard/shellguard/analyze"
)

// Decision is the outcome of a policy evaluation. The zero value is Allow,
// and decisions are ordered: Allow < Ask < Deny. Combining verdicts always
// keeps the strictest one, so rule order never matters.
type Decision int

const (
	Allow Decision = iota
	Ask
	Deny
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// Max returns the stricter of d and o.
func (d Decision) Max(o Decision) Decision {
	if o > d {
		return o
	}
	return d
}

// ParseDecision parses "allow", "ask" or "deny" (case-insensitive).
func ParseDecision(s string) (Decision, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return Allow, fmt.Errorf("policy: unknown decision %q (want allow, ask or deny)", s)
}

func (d Decision) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

func (d *Decision) UnmarshalText(b []byte) error {
	v, err := ParseDecision(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Span is a half-open byte range [Start, End) in the command text: the
// analysis's span, which a Reason points at.
type Span = analyze.Span

// Reason explains one finding that contributed to a verdict.
type Reason struct {
	ID       string   `json:"id"`              // stable identifier, "SG" + number
	Decision Decision `json:"decision"`        // what this finding alone asks for
	Floor    bool     `json:"floor,omitempty"` // no rule can lower it (Tier Floor)
	Message  string   `json:"message"`         // one line, for humans and models
	Span              // the part of the command it is about (start, end)
	Rule     string   `json:"rule,omitempty"` // the user rule that matched, if any
}

// Verdict is the result of checking one command.
type Verdict struct {
	Decision Decision `json:"decision"`
	Reasons  []Reason `json:"reasons"`
	Warnings []string `json:"warnings"`
	// ExitCodeNotes say what exit code 1 means for commands of the line
	// (grep: no matches): true only once one exited with it, so a Result
	// adds them to its warnings only then.
	ExitCodeNotes  []string   `json:"exit_code_notes,omitempty"`
	Classification string     `json:"classification"`
	Commands       [][]string `json:"commands"`
}
