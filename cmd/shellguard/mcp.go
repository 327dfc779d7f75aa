package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/approvalpage"
	"github.com/shellguard/shellguard/internal/runner"
	"github.com/shellguard/shellguard/internal/version"
	"github.com/shellguard/shellguard/mcpserver"
	"github.com/shellguard/shellguard/sandbox"
)

func init() {
	register("mcp", "serve the bash tool over MCP on stdin/stdout", mcpMain)
}

// startServer builds what both server faces share: the Guard (from the
// configuration files and the kernel sandbox, auto by default, as for run
// and check), the MCP server, and a context ended by SIGINT/SIGTERM/SIGHUP.
// stop ends the signal handling and every background task, whatever
// ended the server. With tolerant, a configuration that cannot be loaded
// does not stop the server: it starts without a Guard and every call
// answers what is wrong (mcpserver.NewFailed), since an MCP client shows
// only "connection closed" for a server that exits.
func startServer(gf *guardFlags, lf *limitFlags, stderr io.Writer, tolerant bool) (srv *mcpserver.Server, ctx context.Context, stop func(), err error) {
	runner.EnableSubreaper()
	// What a server killed before it could close its sessions left behind.
	sandbox.RemoveStaleSessions()
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	g, c, err := gf.newGuard()
	opts := &mcpserver.Options{Version: version.String(), Logger: logger, OutputBudget: lf.outputBudget,
		DrainTimeout: time.Duration(lf.drain * float64(time.Second))}
	var scratch string     // the describing Guard's workspace (see below)
	unpublish := func() {} // removes the approval page's record
	if gf.workspace == "" {
		// No workspace given: a session runs in its client's first root.
		opts.Roots = func(dir string) (*shellguard.Guard, error) {
			at := *gf
			at.workspace = dir
			g, _, err := at.newGuard()
			return g, err
		}
		if err != nil {
			// The current directory cannot be the workspace (an editor
			// starts servers in / or HOME): serve the clients that say
			// where their project is, and tell the others what to do.
			// A Guard on an empty directory only describes the tool.
			if dir, derr := os.MkdirTemp("", "shellguard-noworkspace-"); derr == nil {
				at := *gf
				at.workspace = dir
				if g2, c2, err2 := at.newGuard(); err2 == nil {
					opts.NoWorkspace, g, c, err, scratch = err, g2, c2, nil, dir
				} else {
					os.Remove(dir)
				}
			}
		}
	}
	if c != nil {
		// The flags win over the configuration's server keys.
		lf.calls = cmp.Or(lf.calls, c.Server.MaxCalls)
		lf.queued = cmp.Or(lf.queued, c.Server.MaxQueued)
		lf.sessions = cmp.Or(lf.sessions, c.Server.MaxSessions)
	}
	opts.MaxCalls, opts.MaxQueued = lf.calls, lf.queued
	switch {
	case err != nil && !tolerant:
		return nil, nil, nil, err
	case err != nil:
		fmt.Fprintln(stderr, "shellguard: serving, but every call fails:", err)
		srv = mcpserver.NewFailed(err, opts)
	default:
		printConfigNotes(stderr, c)
		// The first command's output should not wait for the redaction
		// rules to compile: do it while the client connects.
		go g.Prepare()
		if lf.page {
			if opts.Page, err = approvalpage.Start(); err != nil {
				g.Close()
				return nil, nil, nil, fmt.Errorf("approval page: %w", err)
			}
			fmt.Fprintf(stderr, "shellguard: approve commands at %s\n", opts.Page.URL())
			rm, err := publishPage(c.PagesDir, opts.Page.URL(), gf.workspace)
			if err != nil {
				fmt.Fprintln(stderr, "shellguard: note: shellguard doctor will not list the approval page:", err)
			}
			unpublish = rm
		}
		srv = mcpserver.New(g, opts)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	if opts.NoWorkspace != nil {
		fmt.Fprintf(stderr, "shellguard: serving the clients that offer roots only: %v\n", opts.NoWorkspace)
	}
	return srv, ctx, func() {
		cancel()
		if opts.Page != nil {
			unpublish()
			opts.Page.Close()
		}
		srv.Close()
		if g != nil {
			g.Close()
		}
		if scratch != "" {
			os.RemoveAll(scratch)
		}
	}, nil
}

func mcpMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	gf := addGuardFlags(fs, true)
	lf := addLimitFlags(fs)
	fs.Float64Var(&lf.drain, "drain-timeout", 0, "`SECONDS` each command may go on running after the client's input ends, before it is stopped and answered so (default 2)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: shellguard mcp [--config FILE] [--workspace DIR] [--sandbox MODE] [--network] [--max-calls N] [--drain-timeout SECONDS]")
		fmt.Fprintln(fs.Output(), "Serves one MCP session over stdin and stdout; logs go to stderr.")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout, stderr, exitUsage); done {
		return code
	}
	if fs.NArg() > 0 {
		return argError(stderr, "mcp", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	if lf.calls < 0 || lf.queued < 0 {
		return argError(stderr, "mcp", "--max-calls and --max-queued take a number of at least 1 (0: the default)")
	}
	if lf.drain < 0 || lf.drain > 3600 || lf.drain != lf.drain {
		return argError(stderr, "mcp", "--drain-timeout takes seconds from 0 (the default, 2) to 3600")
	}
	srv, ctx, stop, err := startServer(gf, lf, stderr, true)
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

// limitFlags bound what a server runs at once (mcpserver.Options).
type limitFlags struct {
	calls, queued, sessions, outputBudget int
	page                                  bool
	drain                                 float64 // mcp: seconds after stdin ends
}

func addLimitFlags(fs *flag.FlagSet) *limitFlags {
	l := &limitFlags{}
	fs.IntVar(&l.calls, "max-calls", 0, "commands run at once, over all sessions (default: server.max_calls, else twice the CPUs, at least 4)")
	fs.IntVar(&l.queued, "max-queued", 0, "calls waiting for a free slot before further ones are answered \"busy\" (default: server.max_queued, 64)")
	fs.BoolVar(&l.page, "approval-page", false, "serve a local page (127.0.0.1, secret address printed on stderr) where the user answers asks the client cannot put to them")
	fs.IntVar(&l.outputBudget, "output-budget", 0, "`BYTES` of stdout and stderr together in one result for the model, cut from the middle (default 30000; -1: only output.max_bytes per stream)")
	return l
}
