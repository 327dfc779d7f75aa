package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/shellguard/shellguard/config"
)

func init() {
	register("config", "show the effective configuration or check a file (config show|check|defaults)", configMain)
}

const configUsage = `usage:
  shellguard config show [--json] [--config FILE] [--workspace DIR]
      the effective configuration; each value with its source
  shellguard config check [--project] FILE
      validate FILE and run its rules' match/not_match examples
      (--project, or a file named .shellguard.yaml: only tightening keys)
  shellguard config defaults
      print the built-in defaults file`

func configMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return argError(stderr, "config", "missing subcommand: show, check or defaults")
	}
	switch args[0] {
	case "show":
		fs := flag.NewFlagSet("config", flag.ContinueOnError)
		fs.Usage = func() { fmt.Fprintln(fs.Output(), configUsage); fs.PrintDefaults() }
		asJSON := fs.Bool("json", false, "print JSON")
		file := fs.String("config", "", "configuration file (over the user file)")
		ws := fs.String("workspace", "", "workspace whose "+config.ProjectFile+" applies (default: the current directory)")
		if code, done := parseFlags(fs, args[1:], stdout, stderr, exitUsage); done {
			return code
		}
		if fs.NArg() != 0 {
			return argError(stderr, "config", fmt.Sprintf("show: unexpected argument %q", fs.Arg(0)))
		}
		if *ws == "" {
			if wd, err := os.Getwd(); err == nil {
				*ws = wd
			}
		}
		c, err := config.Load(config.Options{ConfigFile: *file, Workspace: *ws})
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		if err := c.Show(stdout, *asJSON); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		if !*asJSON {
			printNetwork(stdout, c)
		}
		return 0
	case "check":
		fs := flag.NewFlagSet("config", flag.ContinueOnError)
		fs.Usage = func() { fmt.Fprintln(fs.Output(), configUsage); fs.PrintDefaults() }
		project := fs.Bool("project", false, "check FILE as a project file (only tightening keys)")
		if code, done := parseFlags(fs, args[1:], stdout, stderr, exitUsage); done {
			return code
		}
		if fs.NArg() != 1 {
			return argError(stderr, "config", "check: give exactly one FILE")
		}
		if filepath.Base(fs.Arg(0)) == config.ProjectFile {
			*project = true
		}
		if _, err := config.CheckFile(fs.Arg(0), *project); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintf(stdout, "%s: OK\n", fs.Arg(0))
		return 0
	case "defaults":
		stdout.Write(config.DefaultsYAML())
		return 0
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, configUsage)
		return 0
	}
	return argError(stderr, "config", fmt.Sprintf("unknown subcommand %q (want show, check or defaults)", args[0]))
}
