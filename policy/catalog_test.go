package policy

import (
	"context"
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
	"SG1015": "needs a text nested past analyze.MaxNesting: TestAnalysisBounds",
	"SG1016": "needs a text past the work budget: TestAnalysisBounds",
	"SG1017": "needs a cancelled or late analysis: TestAnalysisBounds",
	"SG1018": "needs an input over analyze.MaxInput: TestAnalysisBounds",
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

// TestAnalysisBounds covers SG1015–SG1017: a text nested past
// analyze.MaxNesting, one whose analysis spends the work budget and one
// whose caller has gone each ask, on the floor, whatever the rules
// allow; and a text just inside the nesting bound is analysed.
func TestAnalysisBounds(t *testing.T) {
	allowAll := testRules
	allowAll.Allow = []string{"*"}
	deep := strings.Repeat("( ", analyze.MaxNesting+1) + "ls" + strings.Repeat(" )", analyze.MaxNesting+1)
	if v := Check(deep, allowAll); !reports(v, sg1015) || v.Decision != Ask {
		t.Fatalf("past the nesting bound: %v %v", v.Decision, ids(v))
	}
	inside := strings.Repeat("( ", analyze.MaxNesting/2) + "rm -rf /" + strings.Repeat(" )", analyze.MaxNesting/2)
	if v := Check(inside, testRules); reports(v, sg1015) || !reports(v, sg2001) {
		t.Fatalf("inside the nesting bound: %v %v", v.Decision, ids(v))
	}
	// a value that doubles with each assignment spends the budget by its size
	doubling := "a=xxxxxxxx; " + strings.Repeat("a=$a$a; ", 40) + "echo $a"
	if v := Check(doubling, allowAll); !reports(v, sg1016) || v.Decision != Ask {
		t.Fatalf("past the work budget: %v %v", v.Decision, ids(v))
	}
	huge := "echo " + strings.Repeat("a", analyze.MaxInput)
	if v := Check(huge, Rules{Workspace: "/ws", Home: "/home/u", DisableDefaults: true}); !reports(v, sg1018) || v.Decision != Ask {
		t.Fatalf("over the size bound, defaults off: %v %v", v.Decision, ids(v))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v := CheckContext(ctx, "ls", allowAll); !reports(v, sg1017) || v.Decision != Ask {
		t.Fatalf("cancelled: %v %v", v.Decision, ids(v))
	}
	if v := Check("ls", allowAll); reports(v, sg1015) || reports(v, sg1016) || reports(v, sg1017) {
		t.Fatalf("a plain command reports a bound: %v", ids(v))
	}
}
