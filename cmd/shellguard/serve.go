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
	addr := fs.String("addr", "127.0.0.1:8765", "listen address `HOST:PORT`; anything but loopback needs --token-file")
	tokenFile := fs.String("token-file", "", "`FILE` holding the bearer token clients must send")
	gf := addGuardFlags(fs, true)
	lf := addLimitFlags(fs)
	fs.IntVar(&lf.sessions, "max-sessions", 0, fmt.Sprintf("MCP sessions open at once (default: server.max_sessions, %d)", mcpserver.DefaultMaxSessions))
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: shellguard serve [--addr 127.0.0.1:PORT] [--token-file F] [--config FILE] [--workspace DIR] [--sandbox MODE] [--network] [--max-calls N] [--max-sessions N]")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout, stderr, exitUsage); done {
		return code
	}
	if fs.NArg() > 0 {
		return argError(stderr, "serve", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	if err := checkListenAddr(*addr); err != nil {
		return argError(stderr, "serve", err.Error())
	}
	var token string
	if *tokenFile != "" {
		t, err := readTokenFile(*tokenFile)
		if err != nil {
			return argError(stderr, "serve", "--token-file: "+err.Error())
		}
		token = t
	}
	if !mcpserver.IsLoopbackAddr(*addr) && token == "" {
		fmt.Fprintf(stderr, "shellguard serve: refusing to listen on %s without a token: anything but loopback needs --token-file\n", *addr)
		return exitUsage
	}
	if lf.calls < 0 || lf.queued < 0 || lf.sessions < 0 {
		return argError(stderr, "serve", "--max-calls, --max-queued and --max-sessions take a number of at least 1 (0: the default)")
	}
	srv, ctx, stop, err := startServer(gf, lf, stderr, false)
	if err != nil {
		fmt.Fprintln(stderr, "shellguard serve:", err)
		return exitFailure
	}
	defer stop()
	err = srv.ListenAndServe(ctx, *addr, mcpserver.HTTPOptions{Token: token, MaxSessions: lf.sessions}, func(a net.Addr) {
		fmt.Fprintf(stderr, "shellguard: serving MCP at http://%s/mcp and POST http://%s/tools/bash/execute\n", a, a)
	})
	if err != nil {
		fmt.Fprintln(stderr, "shellguard serve:", err)
		return exitFailure
	}
	return 0
}

// checkListenAddr accepts HOST:PORT with a numeric port (HOST may be empty
// for every interface, a name or an IP address).
func checkListenAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err == nil {
		var n int
		if _, perr := fmt.Sscanf(port, "%d", &n); perr != nil || fmt.Sprint(n) != port || n < 0 || n > 65535 {
			err = fmt.Errorf("port %q is not a number from 0 to 65535", port)
		} else if strings.ContainsAny(host, " /\t") {
			err = fmt.Errorf("host %q is not a host name or IP address", host)
		}
	}
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			err = errors.New(ae.Err)
		}
		return fmt.Errorf("--addr %q is not a valid address (%v): give HOST:PORT, e.g. 127.0.0.1:8765", addr, err)
	}
	return nil
}

// readTokenFile reads the bearer token. A token file others can read is
// refused: anyone who can read it can run commands through the server.
func readTokenFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if err := checkPrivate(st); err != nil {
		return "", fmt.Errorf("%s %v", path, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return "", err
	}
	token := strings.TrimSpace(string(b))
	if len(token) < 16 {
		return "", errors.New("the token must be at least 16 characters")
	}
	return token, nil
}
