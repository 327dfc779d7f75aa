package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/shellguard/shellguard/config"

	"github.com/shellguard/shellguard/sandbox"
)

func init() {
	register("doctor", "show what the kernel sandbox can enforce on this machine", doctorMain)
}

// doctorMain prints, layer by layer, what this machine can enforce, and
// for each missing layer why and what would enable it. Exit status 0 when
// every layer is available (--sandbox required works), 1 otherwise.
func doctorMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: shellguard doctor [--json]")
		fmt.Fprintln(fs.Output(), "Shows, layer by layer, what the kernel sandbox can enforce here, the network mode, and the approval pages of running servers; exit 0 when --sandbox required would work.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout, stderr, exitUsage); done {
		return code
	}
	if fs.NArg() > 0 {
		return argError(stderr, "doctor", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	r := sandbox.Probe()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			fmt.Fprintln(stderr, "shellguard doctor:", err)
			return 2
		}
	} else {
		fmt.Fprint(stdout, r.String())
		// The network mode of the configuration that applies here.
		if wd, err := os.Getwd(); err == nil {
			if c, err := config.Load(config.Options{Workspace: wd}); err == nil {
				printNetwork(stdout, c)
				printPages(stdout, c.PagesDir)
			}
		}
	}
	if !r.RequiredOK {
		return 1
	}
	return 0
}
