package analyze

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/internal/hostile"
	"mvdan.cc/sh/v3/syntax"
)

// treeDepth is the depth of the parsed syntax tree of src (recursive:
// only for texts of moderate nesting).
func treeDepth(t *testing.T, src string) int {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return -1
	}
	depth, best := 0, 0
	var stack []bool
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			depth--
			stack = stack[:len(stack)-1]
			return true
		}
		depth++
		stack = append(stack, true)
		if depth > best {
			best = depth
		}
		return true
	})
	return best
}

// nodesPerLevel is how many tree nodes one level of the estimate may
// stand for at most (a command substitution in a word of a command of a
// statement: Stmt, CallExpr, Word, CmdSubst, and the statement inside).
const nodesPerLevel = 6

// TestNestingBoundsTree checks the estimate against the parser's own
// tree for every generated construct at depths up to twice the bound:
// the tree is never deeper than nodesPerLevel nodes per level of the
// estimate, so a text under the bound has a tree of bounded depth.
func TestNestingBoundsTree(t *testing.T) {
	for _, c := range hostile.Constructs {
		for _, n := range []int{1, 10, 100, 2 * MaxNesting} {
			src := c.Build(n)
			est := nesting(src, 1<<30)
			d := treeDepth(t, src)
			if d < 0 {
				continue
			}
			if d > nodesPerLevel*(est+2) {
				t.Errorf("%s/%d: tree %d deep, estimate %d", c.Name, n, d, est)
			}
		}
	}
}

// TestNestingAttempts are texts built to make a lexical estimate read
// low: a closer inside a word or a string, a keyword as an argument, a
// here-document body that holds closers, a chain that goes on across a
// here-document. Each nests n levels for the parser, so the estimate
// must pass n.
func TestNestingAttempts(t *testing.T) {
	const n = 300
	for name, src := range map[string]string{
		"brace-in-word":    strings.Repeat("{ echo }; ", n) + strings.Repeat("}; ", n),
		"keyword-argument": strings.Repeat("while true; do echo done; ", n) + strings.Repeat("done; ", n),
		"paren-in-string":  strings.Repeat(`( echo ")"; `, n) + strings.Repeat(")", n),
		"paren-in-quote":   strings.Repeat(`( echo ')'; `, n) + strings.Repeat(")", n),
		"paren-escaped":    strings.Repeat(`( echo \); `, n) + strings.Repeat(")", n),
		"paren-in-comment": strings.Repeat("( # )\n", n) + "true" + strings.Repeat(")", n),
		"paren-in-hdoc":    strings.Repeat("( cat <<E\n)\nE\n", n) + strings.Repeat(")", n),
		"hdoc-quoted":      strings.Repeat("( cat <<'E'\n) $(\nE\n", n) + strings.Repeat(")", n),
		"hdoc-chain":       strings.Repeat("cat <<E &&\nx\nE\n", n) + "true",
		"chain-newline":    strings.Repeat("true &&\n", n) + "true",
		"chain-comment":    strings.Repeat("true && # x\n", n) + "true",
		"if-in-subst":      strings.Repeat(`( echo "$(echo if)"; `, n) + strings.Repeat(")", n),
		"case-patterns":    strings.Repeat("case x in x) ( ", n) + "true" + strings.Repeat(") ;; esac ", n),
		"time-option":      strings.Repeat("time -p if true; then ", n) + "true; " + strings.Repeat("fi; ", n),
		"backquote-nested": strings.Repeat("( echo `echo {`; ", n) + strings.Repeat(")", n),
		"here-string":      "cat <<< x\n" + strings.Repeat("( ", n) + "true" + strings.Repeat(" )", n),
		"hdoc-empty-delim": strings.Repeat("( cat <<''\n)\n\n", n) + strings.Repeat(")", n),
	} {
		if d := treeDepth(t, src); d < n {
			t.Errorf("%s: the test text does not nest (tree %d deep)", name, d)
		}
		if est := nesting(src, 1<<30); est < n {
			t.Errorf("%s: estimate %d, under the %d levels the parser sees", name, est, n)
		}
	}
}

// TestNestingCommon: ordinary commands are far inside the bound.
func TestNestingCommon(t *testing.T) {
	for _, src := range []string{
		"ls -la", "git status && go test ./...", `echo "$(date +%s)" | tee -a log`,
		"for f in *.go; do gofmt -l \"$f\"; done", "if [ -f x ]; then cat x; else echo none; fi",
		"case $1 in start) run;; stop) halt;; esac", "f() { echo ${1:-${2:-x}}; }; f",
		"cat <<'EOF'\n(((((\nEOF", "echo ':-( ((('", "a=(1 2 3); echo ${a[@]}", "x=$(( (1+2)*3 ))",
	} {
		if est := nesting(src, MaxNesting); est > 8 {
			t.Errorf("%q: estimate %d", src, est)
		}
	}
}

// TestCommandBudgetInSubstitution: when the command budget fills inside a
// substitution, the command holding it is not recorded and nothing
// follows it (the index of a command that was never recorded).
func TestCommandBudgetInSubstitution(t *testing.T) {
	src := "echo $(" + strings.Repeat("true;", 5) + ")"
	r := Analyze(src, Options{MaxCommands: 3})
	if len(r.Commands) != 3 {
		t.Fatalf("%d commands, want the budget of 3", len(r.Commands))
	}
	found := false
	for _, n := range r.Notes {
		found = found || n.Kind == NoteTooManyCommands
	}
	if !found {
		t.Fatalf("no too-many-commands note: %v", r.Notes)
	}
}

// TestRedirectCommandIndex: a redirect belongs to its command, also when
// its target holds a substitution whose commands are recorded first.
func TestRedirectCommandIndex(t *testing.T) {
	r := Analyze("cat a > $(echo f)", Options{})
	for _, rd := range r.Redirects {
		if rd.Cmd < 0 || rd.Cmd >= len(r.Commands) || r.Commands[rd.Cmd].Name() != "cat" {
			t.Fatalf("redirect %+v points at command %d of %d", rd.Target, rd.Cmd, len(r.Commands))
		}
	}
}

// TestWorkBudget: every bound stops the analysis with a note naming it.
func TestWorkBudget(t *testing.T) {
	r := Analyze(strings.Repeat("true; ", 100), Options{MaxWork: 50})
	if !hasNote(r, NoteWorkBudget) {
		t.Fatalf("no work-budget note: %v", r.Notes)
	}
	doubling := "a=xxxxxxxx; " + strings.Repeat("a=$a$a; ", 40) + "echo $a"
	if r := Analyze(doubling, Options{}); !hasNote(r, NoteWorkBudget) {
		t.Fatalf("a doubling value does not spend the budget: %v", r.Notes)
	}
	if r := Analyze("ls", Options{MaxTime: time.Nanosecond}); !hasNote(r, NoteCancelled) {
		t.Fatalf("no note past the time: %v", r.Notes)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := AnalyzeContext(ctx, "ls", Options{}); !hasNote(r, NoteCancelled) || len(r.Commands) != 0 {
		t.Fatalf("cancelled: %v, %d commands", r.Notes, len(r.Commands))
	}
	if r := Analyze("ls -la | wc -l", Options{}); len(r.Notes) != 0 {
		t.Fatalf("a plain command has notes: %v", r.Notes)
	}
}

func hasNote(r *Result, k NoteKind) bool {
	for _, n := range r.Notes {
		if n.Kind == k {
			return true
		}
	}
	return false
}
