// Package hostile generates command texts built to exhaust an analyser:
// deep nesting of every construct bash nests, wide lists, long words and
// many here-documents. Tests and fuzz targets feed them to the analysis,
// which must answer each within bounded time and memory, never allowing
// one and never panicking. The texts are only ever parsed, never run.
package hostile

import (
	"strconv"
	"strings"
)

// Input is one generated command text.
type Input struct {
	Name string
	Src  string
	// Deep inputs nest past any bound an analyser may have: they must
	// never be allowed.
	Deep bool
}

// Construct names one way bash nests or repeats, and builds a text of
// that shape n levels (or items) deep.
type Construct struct {
	Name  string
	Build func(n int) string
	// Flat constructs repeat without nesting (a long word, many words):
	// at moderate sizes they are ordinary commands.
	Flat bool
}

func nest(open, mid, close string, n int) string {
	var b strings.Builder
	b.Grow(n*(len(open)+len(close)) + len(mid))
	for i := 0; i < n; i++ {
		b.WriteString(open)
	}
	b.WriteString(mid)
	for i := 0; i < n; i++ {
		b.WriteString(close)
	}
	return b.String()
}

// backquotes nests command substitutions written with backquotes: each
// level escapes the backslashes and backquotes of the one inside it, so
// the text doubles per level.
func backquotes(n int) string {
	s := "echo x"
	for i := 0; i < n; i++ {
		s = "echo `" + strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace(s) + "`"
	}
	return s
}

// Constructs are the generator family: every construct of bash that nests,
// and the wide and long shapes.
var Constructs = []Construct{
	{"cmdsubst", func(n int) string { return "echo " + nest("$(", "true", ")", n) }, false},
	{"cmdsubst-bare", func(n int) string { return nest("$(", "", ")", n) }, false},
	{"cmdsubst-quoted", func(n int) string { return "echo " + nest(`"$(echo `, "x", `)"`, n) }, false},
	{"backquote", func(n int) string { return backquotes(min(n, 16)) }, true},
	{"subshell", func(n int) string { return nest("(", "true", ")", n) }, false},
	{"open-parens", func(n int) string { return strings.Repeat("(", n) }, false},
	{"group", func(n int) string { return nest("{ ", "true; ", "}; ", n) }, false},
	{"arith", func(n int) string { return "echo $((" + nest("(", "1", ")", n) + "))" }, false},
	{"arith-cmd", func(n int) string { return "((" + nest("(", "1", ")", n) + "))" }, false},
	{"arith-chain", func(n int) string { return "echo $((" + strings.Repeat("1+", n) + "1))" }, false},
	{"arith-ternary", func(n int) string { return "echo $((" + strings.Repeat("1?1:", n) + "1))" }, false},
	{"test-parens", func(n int) string { return "[[ " + nest("( ", "a", " )", n) + " ]]" }, false},
	{"test-chain", func(n int) string { return "[[ " + strings.Repeat("a && ", n) + "a ]]" }, false},
	{"test-not", func(n int) string { return "[[ " + strings.Repeat("! ", n) + "a ]]" }, false},
	{"if", func(n int) string { return nest("if true; then ", "true; ", "fi; ", n) }, false},
	{"if-newlines", func(n int) string { return nest("if true\nthen\n", "true\n", "fi\n", n) }, false},
	{"while", func(n int) string { return nest("while true; do ", "true; ", "done; ", n) }, false},
	{"until", func(n int) string { return nest("until false; do ", "true; ", "done; ", n) }, false},
	{"for", func(n int) string { return nest("for i in a; do ", "true; ", "done; ", n) }, false},
	{"case", func(n int) string { return nest("case x in x) ", "true", " ;; esac", n) }, false},
	{"function", func(n int) string { return nest("f() { ", "true; ", "}; ", n) }, false},
	{"procsubst", func(n int) string { return nest("cat <(", "true", ")", n) }, false},
	{"array", func(n int) string { return nest("a=( $(", "true", ") )", n) }, false},
	{"param", func(n int) string { return "echo " + nest("${a:-", "x", "}", n) }, false},
	{"param-quoted", func(n int) string { return "echo " + nest(`"${a:-`, "x", `}"`, n) }, false},
	{"and-chain", func(n int) string { return strings.Repeat("true && ", n) + "true" }, false},
	{"and-chain-newlines", func(n int) string { return strings.Repeat("true &&\n", n) + "true" }, false},
	{"or-chain", func(n int) string { return strings.Repeat("false || ", n) + "true" }, false},
	{"pipeline", func(n int) string { return strings.Repeat("true | ", n) + "true" }, false},
	{"heredoc-chain", func(n int) string { return strings.Repeat("cat <<E &&\nx\nE\n", n) + "true" }, false},
	{"heredoc-subshells", func(n int) string { return strings.Repeat("( cat <<E\n)\nE\n", n) }, false},
	{"heredocs", func(n int) string { return strings.Repeat("cat <<EOF\nx $(true)\nEOF\n", n) }, false},
	{"heredocs-one-line", func(n int) string {
		return "cat" + strings.Repeat(" <<E", n) + "\n" + strings.Repeat("x\nE\n", n)
	}, true},
	{"list", func(n int) string { return strings.Repeat("true; ", n) }, false},
	{"list-substs", func(n int) string { return "echo $(" + strings.Repeat("true;", n) + ")" }, false},
	{"background", func(n int) string { return strings.Repeat("true & ", n) }, false},
	{"long-word", func(n int) string { return "echo " + strings.Repeat("a", n) }, true},
	{"long-quoted", func(n int) string { return `echo "` + strings.Repeat("$a", n) + `"` }, true},
	{"many-words", func(n int) string { return "echo" + strings.Repeat(" a", n) }, true},
	{"many-redirects", func(n int) string { return "echo" + strings.Repeat(" >x", n) }, true},
	{"brace-expansion", func(n int) string { return "echo " + nest("{a,", "b", "}", n) }, false},
	{"brace-product", func(n int) string { return "echo " + strings.Repeat("{a,b}", n) }, false},
	{"var-doubling", func(n int) string { return "a=xxxxxxxx; " + strings.Repeat("a=$a$a; ", n) + "echo $a" }, false},
	{"eval", func(n int) string { return strings.Repeat("eval ", n) + "true" }, false},
	{"sh-c", func(n int) string {
		s := "true"
		// the text grows fourfold per level: 9 levels pass the
		// analysis's depth (8) in 12 KB
		for i := 0; i < min(n, 9); i++ {
			s = "sh -c '" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		return s
	}, false},
}

// Sizes are the depths every construct is generated at: shallow enough
// to be analysed in full, at the nesting bound, and far past it.
var Sizes = []int{10, 100, 1000, 10000, 100000}

// Family returns every construct at every size, skipping texts over maxLen
// bytes (0: no limit).
func Family(maxLen int) []Input {
	var out []Input
	for _, c := range Constructs {
		for _, n := range Sizes {
			s := c.Build(n)
			if maxLen > 0 && len(s) > maxLen {
				continue
			}
			out = append(out, Input{Name: c.Name + "/" + strconv.Itoa(n), Src: s, Deep: !c.Flat && n >= 1000})
		}
	}
	return out
}

// Reported are the inputs reported to take a server down or to run
// without bound: one substitution holding 10,001 commands, $( nested
// 250,000 and 8,000 deep, and 100 KB of open parentheses.
func Reported() []Input {
	return []Input{
		{"crash-10001-commands", "echo $(" + strings.Repeat("true;", 10001) + ")", true},
		{"cmdsubst-250000", nest("$(", "", ")", 250000), true},
		{"cmdsubst-8000", "echo " + nest("$(", "x", ")", 8000), true},
		{"parens-100KB", strings.Repeat("(", 100000), true},
	}
}
