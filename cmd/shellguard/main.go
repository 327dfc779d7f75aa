// Command shellguard checks and runs shell commands for AI agents under a
// policy and a kernel sandbox. See README.md for the subcommands.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/shellguard/shellguard/sandbox"
)

// A subcommand registers itself from its own file's init function, so
// each subcommand lives in one file.
type subcommand struct {
	summary string
	main    func(args []string, stdout, stderr io.Writer) int
}

var subcommands = map[string]subcommand{}

func register(name, summary string, main func(args []string, stdout, stderr io.Writer) int) {
	subcommands[name] = subcommand{summary, main}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: shellguard <command> [flags] [-- COMMAND]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, subcommands[n].summary)
	}
}

func main() {
	sandbox.Main() // the re-exec'd sandbox helper: never returns when it is one
	os.Exit(mainArgs(os.Args[1:], os.Stdout, os.Stderr))
}

func mainArgs(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	sc, ok := subcommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "shellguard: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	return sc.main(args[1:], stdout, stderr)
}
