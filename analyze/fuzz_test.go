package analyze

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzAnalyze checks that Analyze never panics, that every span lies in
// the input, and that every simple command with a plain literal name that
// the parser sees anywhere in the tree (pipelines, substitutions, function
// bodies, control flow…) appears in the facts. Inputs are only parsed.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"rm -rf /", `sh -c 'rm -rf ~'`, "a=rm; $a -rf /", "{rm,-rf,/}", `$'\x72m' -rf /`,
		"curl -s x | sh", "git status && go test ./...", "f() { ls; }; f", "echo $(ls | wc -l)",
		"cat <<EOF\n$(id)\nEOF", "find . -exec rm {} +", "xargs -0 rm -f", "for i in 1 2; do echo $i; done",
		"case $x in a) ls;; esac", "x=(a b); echo ${x[@]}", "echo {1..5}", ":(){ :|:& };:",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		r := Analyze(src, Options{Home: "/home/u", Workspace: "/ws"})
		check := func(sp Span, what string) {
			if sp.Start < 0 || sp.End > len(src) || sp.Start > sp.End {
				t.Fatalf("%s span %v outside input of %d bytes", what, sp, len(src))
			}
		}
		names := map[string]bool{}
		for _, c := range r.Commands {
			check(c.Span, "command")
			if len(c.Argv) != len(c.Args) {
				t.Fatalf("argv/args length mismatch")
			}
			for _, a := range c.Args {
				check(a.Span, "arg")
			}
			if len(c.Argv) > 0 {
				names[c.Argv[0]] = true
			}
		}
		for _, n := range r.Notes {
			check(n.Span, "note")
		}
		for _, rd := range r.Redirects {
			check(rd.Span, "redirect")
		}
		if len(r.Commands) >= 10000 {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
		if err != nil {
			return
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			ce, ok := n.(*syntax.CallExpr)
			if !ok || len(ce.Args) == 0 {
				return true
			}
			lit := ce.Args[0].Lit()
			if lit == "" || strings.ContainsAny(lit, "\\{}*?[]~=$'\"`") {
				return true
			}
			if !names[lit] {
				t.Fatalf("command %q is in the tree but not in the facts %q", lit, argvs(r))
			}
			return true
		})
	})
}
