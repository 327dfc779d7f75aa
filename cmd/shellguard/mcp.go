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

	"github.com/shellguard/shellguard/internal/version"
	"github.com/shellguard/shellguard/mcpserver"
	"github.com/shellguard/shellguard/runner"
)

func init() {
	register("mcp", "serve the bash tool over MCP on stdin/stdout", mcpMain)
}

// newEngine builds the engine the servers use from the shared guard flags:
// the configuration files and the kernel sandbox (auto by default), as for
// run and check. The caller closes its Guard on exit, so that no
// background task outlives the server.
func newEngine(gf *guardFlags, stderr io.Writer) (*mcpserver.GuardEngine, error) {
	g, c, err := gf.newGuard()
	if err != nil {
		return nil, err
	}
	printConfigNotes(stderr, c)
	// The first command's output should not wait for the redaction rules
	// to compile: do it while the client connects.
	go g.Prepare()
	return mcpserver.NewGuardEngine(g), nil
}

// startServer builds what both server faces share: the engine, the MCP
// server, and a context ended by SIGINT/SIGTERM/SIGHUP. stop ends the
// signal handling and every background task, whatever ended the server.
func startServer(gf *guardFlags, stderr io.Writer) (srv *mcpserver.Server, ctx context.Context, stop func(), err error) {
	runner.EnableSubreaper()
	eng, err := newEngine(gf, stderr)
	if err != nil {
		return nil, nil, nil, err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv = mcpserver.New(eng, &mcpserver.Options{Version: version.String(), Logger: logger})
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	return srv, ctx, func() { cancel(); eng.G.Close() }, nil
}

func mcpMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	gf := addGuardFlags(fs, true)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: shellguard mcp [--config FILE] [--workspace DIR] [--sandbox MODE] [--network]")
		fmt.Fprintln(fs.Output(), "Serves one MCP session over stdin and stdout; logs go to stderr.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout, stderr, exitUsage); done {
		return code
	}
	if fs.NArg() > 0 {
		return argError(stderr, "mcp", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	srv, ctx, stop, err := startServer(gf, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "shellguard mcp:", err)
		return exitFailure
	}
	defer stop()
	if err := srv.RunStdio(ctx); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		fmt.Fprintln(stderr, "shellguard mcp:", err)
		return exitFailure
	}
	return 0
}
