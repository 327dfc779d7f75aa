package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/config"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/runner"
	"github.com/shellguard/shellguard/sandbox"
)

// guardFlags are the flags every subcommand that runs or checks commands
// shares; they become the strongest configuration source but the project
// file, which may only tighten.
type guardFlags struct {
	fs        *flag.FlagSet
	config    string
	workspace string
	sandbox   string
	network   bool
}

func addGuardFlags(fs *flag.FlagSet, withSandbox bool) *guardFlags {
	g := &guardFlags{fs: fs}
	fs.StringVar(&g.config, "config", "", "configuration `FILE` (YAML), applied over the user's config file")
	fs.StringVar(&g.workspace, "workspace", "", "project `DIR`: writable, and where paths are confined (default: the current directory)")
	if withSandbox {
		fs.StringVar(&g.sandbox, "sandbox", "", "kernel sandbox `MODE`: auto (apply what the kernel allows; default), required (fail closed) or off")
		fs.BoolVar(&g.network, "network", false, "allow network access (default: no network)")
	}
	return g
}

// load reads the configuration: defaults, user file, --config, these
// flags (plus extra settings), then the project file.
func (g *guardFlags) load(extra ...config.Setting) (*config.Config, error) {
	ws := g.workspace
	if ws == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("workspace: %w", err)
		}
		ws = wd
	}
	switch st, err := os.Stat(ws); {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("workspace %s does not exist", ws)
	case err != nil:
		return nil, fmt.Errorf("workspace: %w", err)
	case !st.IsDir():
		return nil, fmt.Errorf("workspace %s is not a directory", ws)
	}
	var flags []config.Setting
	set := map[string]bool{}
	g.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["sandbox"] {
		flags = append(flags, config.Setting{Flag: "--sandbox", Key: "sandbox.mode", Value: strconv.Quote(g.sandbox)})
	}
	if set["network"] {
		flags = append(flags, config.Setting{Flag: "--network", Key: "sandbox.network", Value: strconv.FormatBool(g.network)})
	}
	flags = append(flags, extra...)
	return config.Load(config.Options{
		ConfigFile:   g.config,
		Workspace:    ws,
		Flags:        flags,
		CheckExample: checkExample,
	})
}

// checkExample checks a rule's match:/not_match: examples the way the
// policy matches rules: against every command the example would run,
// wrappers and assignments stripped.
func checkExample(rule, cmd, kind string) (bool, error) {
	return policy.MatchCommand(rule, cmd), nil
}

// guardConfig turns the effective configuration into the library's.
func guardConfig(c *config.Config) (shellguard.Config, error) {
	sec := func(n int) time.Duration { return time.Duration(n) * time.Second }
	gc := shellguard.Config{
		Workspace:        c.Workspace,
		Timeout:          sec(c.Timeout.Default),
		MaxTimeout:       sec(c.Timeout.Max),
		MaxOutput:        int(c.Output.MaxBytes),
		MaxTotalOutput:   c.Output.MaxTotalBytes,
		Env:              runner.EnvPolicy{Allow: c.Env.Allow, Scrub: c.Env.Scrub},
		ExcludedCommands: c.Sandbox.ExcludedCommands,
		AllowUnsandboxed: c.Sandbox.AllowUnsandboxed,
		Rules:            c.PolicyRules(),
		RedactPatterns:   c.RedactPatterns(),
		AuditPath:        c.Audit.Path,
		Tasks: shellguard.SessionOptions{
			MaxTasks:       c.Tasks.Max,
			OutputLines:    c.Tasks.RingLines,
			BlockingBudget: sec(c.Tasks.BlockingBudget),
		},
	}
	// Directories the sandbox lets commands write are fine for the policy too.
	gc.Rules.AllowedRoots = append(gc.Rules.AllowedRoots, c.Sandbox.WritableRoots...)
	mode, err := sandbox.ParseMode(c.Sandbox.Mode)
	if err != nil {
		return gc, err
	}
	// Off is a spec too, so every result says plainly that no sandbox ran.
	{
		spec := &sandbox.Spec{
			Mode:          mode,
			Network:       c.Sandbox.Network,
			WritableRoots: append(append([]string(nil), c.Sandbox.WritableRoots...), c.Rules.AllowedRoots...),
			MaskedPaths:   c.Sandbox.MaskedPaths,
			HomeAllow:     c.Sandbox.HomeAllow,
		}
		// Configured limits cap the built-in ones; they never raise them.
		d := sandbox.DefaultLimits()
		l := c.Sandbox.Limits
		capAt := func(def, v int64) int64 {
			if v > 0 && (def <= 0 || v < def) {
				return v
			}
			return 0 // the default
		}
		spec.Limits.Procs = capAt(d.Procs, int64(l.Processes))
		spec.Limits.DataBytes = capAt(d.DataBytes, l.MemoryMB<<20)
		spec.Limits.FileBytes = capAt(d.FileBytes, l.FileSizeMB<<20)
		spec.Limits.CPUSecs = capAt(d.CPUSecs, int64(l.CPUSeconds))
		spec.Limits.OpenFiles = capAt(d.OpenFiles, int64(l.OpenFiles))
		if l.CPUPercent > 0 {
			spec.Limits.CPUPercent = int64(l.CPUPercent)
		}
		gc.Sandbox = spec
	}
	return gc, nil
}

// newGuard loads the configuration and builds a Guard from it.
func (g *guardFlags) newGuard(extra ...config.Setting) (*shellguard.Guard, *config.Config, error) {
	c, err := g.load(extra...)
	if err != nil {
		return nil, nil, err
	}
	gc, err := guardConfig(c)
	if err != nil {
		return nil, c, err
	}
	guard, err := shellguard.New(gc)
	return guard, c, err
}

// printConfigNotes tells the user what they should know about their
// configuration files (a config.yml that is not read, …).
func printConfigNotes(w io.Writer, c *config.Config) {
	if c == nil {
		return
	}
	for _, n := range c.Notes {
		fmt.Fprintln(w, "shellguard: note:", n)
	}
}
