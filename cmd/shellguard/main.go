// Command shellguard checks and runs shell commands for AI agents under a
// policy and a kernel sandbox. See README.md for the subcommands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/shellguard/shellguard/internal/steptime"
	"github.com/shellguard/shellguard/internal/version"
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

func commandNames() []string {
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: shellguard <command> [flags] [-- COMMAND]")
	fmt.Fprintln(w, "       shellguard --version")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, subcommands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "shellguard <command> --help shows the flags of a command.")
}

func init() {
	register("version", "print the version of shellguard", func(args []string, stdout, stderr io.Writer) int {
		if len(args) > 0 {
			if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
				fmt.Fprintln(stdout, "usage: shellguard version")
				return 0
			}
			return argError(stderr, "version", fmt.Sprintf("unexpected argument %q", args[0]))
		}
		fmt.Fprintln(stdout, "shellguard", version.String())
		return 0
	})
}

func main() {
	sandbox.Main() // the re-exec'd sandbox helper: never returns when it is one
	steptime.Mark("cli.main")
	code := mainArgs(os.Args[1:], os.Stdout, os.Stderr)
	steptime.Mark("cli.exit")
	os.Exit(code)
}

func mainArgs(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	case "-version", "--version", "-V":
		return subcommands["version"].main(nil, stdout, stderr)
	}
	sc, ok := subcommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "shellguard: unknown command %q\n", args[0])
		fmt.Fprintln(stderr, "see 'shellguard --help'")
		return exitUsage
	}
	return sc.main(args[1:], stdout, stderr)
}

// parseFlags parses args into fs. -h/--help prints the command's usage on
// stdout (done, exit 0); a wrong flag prints one line and where to look
// (done, exit code usageExit). The flag set's name is the subcommand's
// ("run", "config show").
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer, usageExit int) (exit int, done bool) {
	usage := fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(joinNetworkArg(fs, args))
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(stdout)
		if fs.Usage != nil {
			fs.Usage()
		} else {
			fs.PrintDefaults()
		}
		return 0, true
	case err != nil:
		fs.SetOutput(stderr)
		argError(stderr, fs.Name(), err.Error())
		return usageExit, true
	}
	fs.SetOutput(stderr)
	return 0, false
}

// argError reports a mistake in the arguments in one line, plus where the
// usage is, and returns the usage exit code.
func argError(w io.Writer, cmd, msg string) int {
	fmt.Fprintf(w, "shellguard %s: %s\nsee 'shellguard %s --help'\n", cmd, msg, cmd)
	return exitUsage
}

// joinNetworkArg lets --network take its mode as the next word
// ("--network allowlist") although it is a boolean flag (bare --network
// means on): the word is joined to it before parsing. Only words before
// the first non-flag or "--" count.
func joinNetworkArg(fs *flag.FlagSet, args []string) []string {
	if fs.Lookup("network") == nil {
		return args
	}
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			return append(out, args[i:]...)
		}
		if (a == "--network" || a == "-network") && i+1 < len(args) {
			switch args[i+1] {
			case "off", "allowlist", "on":
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}
