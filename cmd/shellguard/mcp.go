package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/mcpserver"
	"github.com/shellguard/shellguard/runner"
)

func init() {
	register("mcp", "serve the bash tool over MCP on stdin/stdout", mcpMain)
}

// loadConfig turns --config and --workspace into a Config. It is a hook
// for the config package: until that lands, --config is an error.
var loadConfig = func(file, workspace string) (shellguard.Config, error) {
	if file != "" {
		return shellguard.Config{}, errors.New("--config: configuration files are not supported by this build yet")
	}
	return shellguard.Config{Workspace: workspace}, nil
}

// newEngine builds the engine the servers use. The caller closes its Guard
// on exit, so that no background task outlives the server.
func newEngine(configFile, workspace string) (*mcpserver.GuardEngine, error) {
	cfg, err := loadConfig(configFile, workspace)
	if err != nil {
		return nil, err
	}
	if cfg.Workspace != "" {
		if fi, err := os.Stat(cfg.Workspace); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("--workspace %s: not a directory", cfg.Workspace)
		}
	}
	g, err := shellguard.New(cfg)
	if err != nil {
		return nil, err
	}
	return mcpserver.NewGuardEngine(g), nil
}

func mcpMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "configuration `FILE`")
	workspace := fs.String("workspace", "", "workspace `DIR` commands run in (default: the current directory)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: shellguard mcp [--config FILE] [--workspace DIR]")
		fmt.Fprintln(fs.Output(), "Serves one MCP session over stdin and stdout; logs go to stderr.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "shellguard mcp: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	runner.EnableSubreaper()
	eng, err := newEngine(*config, *workspace)
	if err != nil {
		fmt.Fprintln(stderr, "shellguard mcp:", err)
		return exitFailure
	}
	defer eng.G.Close() // kills every task, whatever ended the server
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := mcpserver.New(eng, &mcpserver.Options{Version: version, Logger: logger})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := srv.RunStdio(ctx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintln(stderr, "shellguard mcp:", err)
		return exitFailure
	}
	return 0
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"
