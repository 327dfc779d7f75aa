package policy

// Tier says whether rules can lower a finding.
type Tier int

const (
	// Default findings are lowered by an allow rule that matches the
	// command they are about, and switched off by DisableDefaults.
	Default Tier = iota
	// Floor findings are never lowered, whatever the rules say.
	Floor
	// User findings come from the user's own deny and ask rules; allow
	// rules do not lower them.
	User
)

func (t Tier) String() string {
	switch t {
	case Floor:
		return "floor"
	case User:
		return "user"
	}
	return "default"
}

// Finding is one row of the rule table: a finding ID at one decision.
// Every finding the policy reports is emitted through its row, so the
// decision and the tier are stated once, here. A finding whose severity
// depends on the case (ask for a path in home, deny for a parent of the
// workspace) has one row per decision under the same ID. IDs are stable:
// a finding keeps its ID across releases, and a retired ID is never
// reused.
type Finding struct {
	ID       string
	Group    string
	Tier     Tier
	Decision Decision
	Summary  string
	// Examples are commands that report this row (its ID at its
	// decision) under the default rules with the workspace /ws and home
	// /home/u; NotExamples are near misses that must not. Tests run both.
	Examples    []string
	NotExamples []string
}

// Floor reports whether the finding is on the floor tier.
func (f *Finding) Floor() bool { return f.Tier == Floor }

// Rows the Guard reports about a request rather than a command text.
var (
	// UnsandboxedOff: running outside the sandbox was requested but is
	// not enabled.
	UnsandboxedOff = &Finding{ID: "SG9001", Group: "sandbox", Tier: Floor, Decision: Deny,
		Summary: "running outside the sandbox is not enabled"}
	// UnsandboxedAsk: running outside the sandbox is enabled and always asks.
	UnsandboxedAsk = &Finding{ID: "SG9002", Group: "sandbox", Tier: Floor, Decision: Ask,
		Summary: "the command asks to run outside the sandbox"}
)

// Catalog lists every finding the policy can report, by ID.
var Catalog = []*Finding{
	sg1001, sg1002, sg1003, sg1004, sg1005, sg1006, sg1007, sg1008, sg1009, sg1010, sg1011, sg1012,
	sg1013, sg1014, sg1015, sg1016, sg1017, sg1018, sg1099, sg2001, sg2002floor, sg2002deny, sg2003deny, sg2003ask, sg2004deny,
	sg2004ask, sg2005, sg2006, sg2007deny, sg2007ask, sg2008, sg2010, sg2101floor, sg2101ask, sg2102,
	sg2201, sg2202, sg2203deny, sg2203ask, sg2204, sg2301, sg2302floor, sg2302deny,
	sg2303deny, sg2303ask, sg2304, sg2305, sg2306, sg2401deny, sg2401ask, sg2402, sg2403, sg2404,
	sg2405deny, sg2405ask, sg2406, sg2501, sg2502, sg2503, sg2504, sg2505, sg2506, sg2507deny,
	sg2507ask, sg2508, sg2510, sg2511, sg2512, sg2601deny, sg2601ask, sg2602, sg2603deny, sg2603ask,
	sg2604, sg2702, sg2703, sg2704, sg2705floor, sg2705deny, sg2706, sg2707, sg2801deny,
	sg2801ask, sg2802, sg2803deny, sg2803ask, sg2804, sg2805deny, sg2805ask, sg2806, sg2901, sg2902,
	sg2903deny, sg2903ask, sg2904deny, sg2904ask, sg2905, sg3001, sg3002, sg3101deny, sg3101ask,
	sg3102, sg3103, sg3104, sg3105, sg3106, sg3107, sg3108, sg3201deny, sg3201ask, sg3202deny,
	sg3202ask, sg3203, sg3204deny, sg3204ask, sg3205deny, sg3205ask, sg3206, sg3207, sg3301, sg3401,
	sg3402, sg3403deny, sg3403ask, sg3404, sg3405, sg3406, sg3501, sg3502, sg3503deny, sg3503ask,
	sg3504, sg3601, sg3602, sg3701, sg3702, sg3703, sg3704, sg3705, sg3706,
	sg4001, sg4002, sg4003, sg4004, sg4005, sg4006, sg4007, sg4008, sg4009, sg4010, sg4011,
	sg4012, sg4013, sg4014, sg4015, sg4016, sg4017, sg4018, sg4019, sg4020, sg4021,
	UnsandboxedOff, UnsandboxedAsk,
}
