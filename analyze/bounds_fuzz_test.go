package analyze

import (
	"strings"
	"testing"

	"github.com/shellguard/shellguard/internal/hostile"
)

// FuzzNesting checks the nesting estimate against the parser's tree on
// any text: the tree is never more than nodesPerLevel nodes deeper per
// level than the estimate says, so no text under MaxNesting makes the
// parser or a walk recurse without bound. Inputs are only parsed.
func FuzzNesting(f *testing.F) {
	for _, c := range hostile.Constructs {
		f.Add(c.Build(3))
	}
	f.Add("cat <<E &&\n)\nE\ntrue")
	f.Add(`( echo "$(echo if)"; )`)
	f.Fuzz(func(t *testing.T, src string) {
		est := nesting(src, 1<<30)
		if est > 4*MaxNesting || len(src) > 1<<16 {
			return
		}
		if d := treeDepth(t, src); d > nodesPerLevel*(est+2) {
			t.Fatalf("tree %d deep, estimate %d", d, est)
		}
	})
}

// FuzzAnalyzeHostile runs the analysis on the hostile family under a
// size and depth generator: a construct, a depth up to 8 times the
// nesting bound, and a fuzzed text spliced in at its innermost level.
// It must end without a panic, within its work budget, and a text past
// the nesting bound is never parsed.
func FuzzAnalyzeHostile(f *testing.F) {
	for i := range hostile.Constructs {
		f.Add(uint8(i), uint16(10), "ls")
		f.Add(uint8(i), uint16(MaxNesting+1), "rm -rf /")
	}
	f.Fuzz(func(t *testing.T, kind uint8, depth uint16, inner string) {
		c := hostile.Constructs[int(kind)%len(hostile.Constructs)]
		src := c.Build(int(depth) % (8 * MaxNesting))
		if i := strings.Index(src, "true"); i >= 0 {
			src = src[:i] + inner + src[i+len("true"):]
		} else {
			src += inner
		}
		if len(src) > 1<<18 {
			return // the size is the family's own test (TestCheckHostile)
		}
		r := Analyze(src, Options{})
		deep := nesting(src, MaxNesting) > MaxNesting
		if deep && !hasNote(r, NoteTooDeep) {
			t.Fatalf("estimate past the bound and no too-deep note: %v", r.Notes)
		}
		if deep && len(r.Commands) > 0 {
			t.Fatalf("a text past the nesting bound was analysed: %d commands", len(r.Commands))
		}
	})
}
