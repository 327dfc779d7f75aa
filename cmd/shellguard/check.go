package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/terminal"
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
		terminal.Explain(stdout, src, v)
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
