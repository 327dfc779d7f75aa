package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/config"
)

// guardFlags are the flags every subcommand that runs or checks commands
// shares; they become the strongest configuration source but the project
// file, which may only tighten.
type guardFlags struct {
	fs        *flag.FlagSet
	config    string
	workspace string
	sandbox   string
	network   netFlag
}

// netFlag is --network: bare it means on, else off, allowlist or on.
type netFlag string

func (n *netFlag) String() string   { return string(*n) }
func (n *netFlag) IsBoolFlag() bool { return true }
func (n *netFlag) Set(v string) error {
	switch v {
	case "true", "on":
		*n = "on"
	case "false", "off":
		*n = "off"
	case "allowlist":
		*n = "allowlist"
	default:
		return fmt.Errorf("want off, allowlist or on, got %q", v)
	}
	return nil
}

func addGuardFlags(fs *flag.FlagSet, withSandbox bool) *guardFlags {
	g := &guardFlags{fs: fs}
	fs.StringVar(&g.config, "config", "", "configuration `FILE` (YAML), applied over the user's config file")
	fs.StringVar(&g.workspace, "workspace", "", "project `DIR`: writable, and where paths are confined (default: the current directory)")
	if withSandbox {
		fs.StringVar(&g.sandbox, "sandbox", "", "kernel sandbox `MODE`: auto (apply what the kernel allows; default), required (fail closed), strict (required with a copy-on-write workspace) or off")
		fs.Var(&g.network, "network", "network `MODE`: off, allowlist (the hosts of sandbox.network_allow and the toolchains' registries, through a proxy; default) or on; bare --network means on")
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
		flags = append(flags, config.Setting{Flag: "--network", Key: "sandbox.network", Value: string(g.network)})
	}
	flags = append(flags, extra...)
	return config.Load(config.Options{
		ConfigFile: g.config,
		Workspace:  ws,
		Flags:      flags,
	})
}

// newGuard loads the configuration and builds a Guard from it.
func (g *guardFlags) newGuard(extra ...config.Setting) (*shellguard.Guard, *config.Config, error) {
	c, err := g.load(extra...)
	if err != nil {
		return nil, nil, err
	}
	guard, err := c.Guard()
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
