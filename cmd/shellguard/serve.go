package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/shellguard/shellguard/mcpserver"
)

func init() {
	register("serve", "serve MCP at /mcp and POST /tools/bash/execute over HTTP", serveMain)
}

func serveMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8765", "listen address `HOST:PORT`; anything but loopback needs --token-file")
	tokenFile := fs.String("token-file", "", "`FILE` holding the bearer token clients must send")
	gf := addGuardFlags(fs, true)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: shellguard serve [--addr 127.0.0.1:PORT] [--token-file F] [--config FILE] [--workspace DIR] [--sandbox MODE] [--network]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "shellguard serve: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	var token string
	if *tokenFile != "" {
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			fmt.Fprintln(stderr, "shellguard serve: --token-file:", err)
			return exitUsage
		}
		token = strings.TrimSpace(string(b))
		if len(token) < 16 {
			fmt.Fprintln(stderr, "shellguard serve: --token-file: the token must be at least 16 characters")
			return exitUsage
		}
	}
	if !mcpserver.IsLoopbackAddr(*addr) && token == "" {
		fmt.Fprintf(stderr, "shellguard serve: refusing to listen on %s without a token: anything but loopback needs --token-file\n", *addr)
		return exitUsage
	}
	srv, ctx, stop, err := startServer(gf, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "shellguard serve:", err)
		return exitFailure
	}
	defer stop()
	err = srv.ListenAndServe(ctx, *addr, mcpserver.HTTPOptions{Token: token}, func(a net.Addr) {
		fmt.Fprintf(stderr, "shellguard: serving MCP at http://%s/mcp and POST http://%s/tools/bash/execute\n", a, a)
	})
	if err != nil {
		fmt.Fprintln(stderr, "shellguard serve:", err)
		return exitFailure
	}
	return 0
}
