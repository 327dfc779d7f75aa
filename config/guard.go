package config

import (
	"fmt"
	"time"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/audit"
	"github.com/shellguard/shellguard/sandbox"
)

// Guard builds the Guard the configuration describes: the same one the
// CLI and the MCP server run commands with. A library user loads the
// CLI's YAML files with Load and calls Guard:
//
//	c, err := config.Load(config.Options{Workspace: dir})
//	...
//	g, err := c.Guard()
func (c *Config) Guard() (*shellguard.Guard, error) {
	gc, err := c.GuardConfig()
	if err != nil {
		return nil, err
	}
	return shellguard.New(gc)
}

// GuardConfig turns the configuration into the library's, for a caller
// that adds what YAML cannot say (an Approver, Environ) before
// shellguard.New.
func (c *Config) GuardConfig() (shellguard.Config, error) {
	sec := func(n int) time.Duration { return time.Duration(n) * time.Second }
	gc := shellguard.Config{
		Workspace:        c.Workspace,
		Timeout:          sec(c.Timeout.Default),
		MaxTimeout:       sec(c.Timeout.Max),
		MaxOutput:        int(c.Output.MaxBytes),
		MaxTotalOutput:   c.Output.MaxTotalBytes,
		Env:              shellguard.EnvPolicy{Allow: c.Env.Allow, Scrub: c.Env.Scrub},
		ExcludedCommands: c.Sandbox.ExcludedCommands,
		AllowUnsandboxed: c.Sandbox.AllowUnsandboxed,
		Rules:            c.PolicyRules(),
		RedactPatterns:   c.RedactPatterns(),
		AuditPath:        c.Audit.Path,
		GrantsFile:       c.GrantsFile,
		AuditFailOpen:    c.Audit.FailOpen,
		KeepEscapes:      c.Output.Escapes == "keep",
		Tasks: shellguard.SessionOptions{
			MaxTasks:       c.Tasks.Max,
			OutputLines:    c.Tasks.RingLines,
			BlockingBudget: sec(c.Tasks.BlockingBudget),
		},
		MaxRunningTasks: c.Tasks.MaxTotal,
	}
	if c.Audit.KeyFile != "" {
		key, err := audit.ReadKeyFile(c.Audit.KeyFile)
		if err != nil {
			return gc, fmt.Errorf("audit.key_file: %w", err)
		}
		gc.AuditKey = key
	}
	// Directories the sandbox lets commands write are fine for the policy too.
	gc.Rules.AllowedRoots = append(gc.Rules.AllowedRoots, c.Sandbox.WritableRoots...)
	mode, err := sandbox.ParseMode(c.Sandbox.Mode)
	if err != nil {
		return gc, err
	}
	// Off is a spec too, so every result says plainly that no sandbox ran.
	spec := &sandbox.Spec{
		Mode:          mode,
		WritableRoots: append(append([]string(nil), c.Sandbox.WritableRoots...), c.Rules.AllowedRoots...),
		MaskedPaths:   c.Sandbox.MaskedPaths,
		HomeAllow:     c.Sandbox.HomeAllow,
		Pool:          c.Sandbox.Pool,
		Review:        c.Sandbox.Review,
	}
	if err := c.networkSpec(spec); err != nil {
		return gc, err
	}
	if spec.Pool == 0 {
		spec.Pool = -1 // sandbox.pool: 0 means no warm helpers
	}
	if c.Audit.KeyFile != "" {
		// Commands in the sandbox must not read the key that signs the log.
		spec.MaskedPaths = append(append([]string(nil), spec.MaskedPaths...), c.Audit.KeyFile)
	}
	if c.PagesDir != "" {
		// Nor the address of an approval page: whoever holds it answers.
		spec.MaskedPaths = append(append([]string(nil), spec.MaskedPaths...), c.PagesDir)
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
	return gc, nil
}

// LoadGuard loads the configuration as Load does and builds its Guard:
// the CLI's YAML files (user file, o.ConfigFile, the project's
// .shellguard.yaml) to a Guard in one call.
func LoadGuard(o Options) (*shellguard.Guard, *Config, error) {
	c, err := Load(o)
	if err != nil {
		return nil, nil, err
	}
	g, err := c.Guard()
	return g, c, err
}
