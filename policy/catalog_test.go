package policy

import (
	"strings"
	"testing"

	"github.com/shellguard/shellguard/analyze"
)

// exampleRules are the rules a row's examples are checked under: the
// test workspace and home, plus, for the user rows, rules that name the
// example programs, and read-only mode for the read-only row. Under
// notRules the examples of SG3706 (an invalid pattern) have a valid one.
func exampleRules(f *Finding, notRules bool) Rules {
	r := testRules
	switch f.ID {
	case "SG3706":
		r.CustomDenyPatterns = []string{`(`}
		if notRules {
			r.CustomDenyPatterns = []string{`forbidden-pattern`}
		}
	case "SG3701", "SG3702", "SG3703", "SG3704":
		r.Deny = []string{"forbidden-tool *"}
		r.Ask = []string{"asked-tool *"}
		r.CustomDenyPatterns = []string{`forbidden-pattern`}
		r.BlockedCommands = []string{"blocked-tool"}
	case "SG3705":
		r.AllowedCommands = []string{"ls"}
	case "SG2010":
		r.Readonly = true
	}
	return r
}

// Rows that no command text written in a table can trigger, and the test
// that covers each instead.
var exampleExempt = map[string]string{
	"SG1012": "needs an input over the analysis budget: TestTooLarge",
	"SG1099": "an internal error: the recover in Evaluate",
	"SG9001": "reported by the Guard about a request, not by Check",
	"SG9002": "reported by the Guard about a request, not by Check",
}

func reports(v Verdict, f *Finding) bool {
	for _, r := range v.Reasons {
		if r.ID == f.ID && r.Decision == f.Decision && r.Floor == (f.Tier == Floor) {
			return true
		}
	}
	return false
}

// TestCatalogExamples runs every row's examples: each must report the
// row (its ID at its decision and tier), and no not-example may.
func TestCatalogExamples(t *testing.T) {
	for _, f := range Catalog {
		if why, ok := exampleExempt[f.ID]; ok {
			if len(f.Examples) > 0 {
				t.Errorf("%s is exempt (%s) but has examples", f.ID, why)
			}
			continue
		}
		if len(f.Examples) == 0 || len(f.NotExamples) == 0 {
			t.Errorf("%s/%s: needs examples and not-examples", f.ID, f.Decision)
			continue
		}
		r := exampleRules(f, false)
		for _, src := range f.Examples {
			if v := Check(src, r); !reports(v, f) {
				t.Errorf("%s/%s example %q: got %v", f.ID, f.Decision, src, ids(v))
			}
		}
		r = exampleRules(f, true)
		for _, src := range f.NotExamples {
			if v := Check(src, r); reports(v, f) {
				t.Errorf("%s/%s not-example %q reports it: %v", f.ID, f.Decision, src, ids(v))
			}
		}
	}
}

// TestTooLarge covers SG1012: a command over the review budget asks, is
// still analysed up to the analysis budget (a deny inside is found), and
// is not analysed beyond it.
func TestTooLarge(t *testing.T) {
	pad := "# " + strings.Repeat("a", MaxCommandSize) + "\n"
	v := Check("echo hi\n"+pad, testRules)
	if !reports(v, sg1012) || v.Decision != Ask {
		t.Fatalf("over the review budget: %v %v", v.Decision, ids(v))
	}
	v = Check("rm -rf /\n"+pad, testRules)
	if !reports(v, sg1012) || !reports(v, sg2001) || v.Decision != Deny {
		t.Fatalf("deny inside a large text: %v %v", v.Decision, ids(v))
	}
	huge := "echo " + strings.Repeat("a", analyze.MaxInput)
	if v := Check(huge, testRules); !reports(v, sg1012) || v.Decision != Ask || len(v.Commands) != 0 {
		t.Fatalf("over the analysis budget: %v %v %d commands", v.Decision, ids(v), len(v.Commands))
	}
	if v := Check("echo "+strings.Repeat("a", 1000), testRules); reports(v, sg1012) {
		t.Fatalf("small command reports SG1012")
	}
}
