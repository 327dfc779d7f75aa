package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/policy"
)

func init() {
	register("check", "analyse a command and print allow/ask/deny with reasons", checkMain)
}

// checkMain implements: shellguard check [--json] [--workspace DIR] (--file PATH | -- COMMAND)
// Exit codes: 0 allow, 1 ask, 2 deny, 3 usage error.
func checkMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	jsonOut := fs.Bool("json", false, "print the verdict as JSON")
	gf := addGuardFlags(fs, false)
	file := fs.String("file", "", "read the command byte for byte from `PATH` (- = stdin)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: shellguard check [--json] [--config FILE] [--workspace DIR] (--file PATH | -- COMMAND-LINE | -- PROGRAM ARG...)")
		fmt.Fprintln(fs.Output(), "One word after -- is a bash command line; several are a program and its arguments, each passed exactly.")
		fmt.Fprintln(fs.Output(), "Exit status: 0 allow, 1 ask, 2 deny, 3 usage error.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout, stderr, 3); done {
		return code
	}
	src, err := commandText(fs.Args(), *file)
	if err != nil {
		argError(stderr, "check", err.Error())
		return 3
	}
	g, c, err := gf.newGuard()
	if err != nil {
		fmt.Fprintln(stderr, "shellguard check:", err)
		return 3
	}
	printConfigNotes(stderr, c)
	v := g.Check(context.Background(), shellguard.Request{Command: src})
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			fmt.Fprintln(stderr, "shellguard check:", err)
			return 3
		}
	} else {
		printVerdict(stdout, src, v)
		fmt.Fprint(stdout, policy.Suggest(src, v, g.Config().Rules))
	}
	switch v.Decision {
	case policy.Allow:
		return 0
	case policy.Ask:
		return 1
	}
	return 2
}

// printVerdict prints the decision and, for each reason, the line of the
// command it is about with a caret line under the span.
func printVerdict(w io.Writer, src string, v policy.Verdict) {
	fmt.Fprintln(w, v.Decision)
	for _, r := range v.Reasons {
		fmt.Fprintf(w, "%s %s: %s\n", r.ID, r.Decision, r.Message)
		line, col, width := caretLine(src, r.Span.Start, r.Span.End)
		fmt.Fprintf(w, "    %s\n", line)
		fmt.Fprintf(w, "    %s%s\n", strings.Repeat(" ", col), strings.Repeat("^", width))
	}
	for _, s := range v.Warnings {
		fmt.Fprintln(w, "note:", s)
	}
}

// caretLine returns the display line holding byte offset start, the
// column of start in it and the caret width, counting runes; control
// characters are shown as '?'.
func caretLine(src string, start, end int) (string, int, int) {
	if start < 0 {
		start = 0
	}
	if start > len(src) {
		start = len(src)
	}
	if end < start {
		end = start
	}
	if end > len(src) {
		end = len(src)
	}
	ls := strings.LastIndexByte(src[:start], '\n') + 1
	le := strings.IndexByte(src[start:], '\n')
	if le < 0 {
		le = len(src)
	} else {
		le += start
	}
	clean := func(s string) string {
		var sb strings.Builder
		for _, r := range s {
			if r < 0x20 || r == 0x7f || r == utf8.RuneError || (r >= 0x80 && r <= 0x9f) || (r >= 0x2000 && r <= 0x206f) || r == 0xfeff || r == 0xa0 {
				sb.WriteByte('?')
			} else {
				sb.WriteRune(r)
			}
		}
		return sb.String()
	}
	// show a window of the line around the span, not a 100 KB line
	const before, after = 40, 60
	e := end
	if e > le {
		e = le
	}
	if e-start > 80 {
		e = start + 80
		for e > start && !utf8.RuneStart(src[e]) {
			e--
		}
	}
	from, prefix := ls, ""
	if start-ls > before {
		from, prefix = start-before, "…"
		for from < start && !utf8.RuneStart(src[from]) {
			from++
		}
	}
	to, suffix := le, ""
	if le-e > after {
		to, suffix = e+after, "…"
		for to > e && !utf8.RuneStart(src[to]) {
			to--
		}
	}
	line := prefix + clean(src[from:to]) + suffix
	col := utf8.RuneCountInString(prefix) + utf8.RuneCountInString(src[from:start])
	width := utf8.RuneCountInString(src[start:e])
	if width == 0 {
		width = 1
	}
	return line, col, width
}
