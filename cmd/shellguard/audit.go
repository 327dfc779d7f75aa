package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/shellguard/shellguard/audit"
)

func init() {
	register("audit", "verify an audit log's hash chain (audit verify FILE)", auditMain)
}

func auditMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "verify" {
		fmt.Fprintln(stderr, "usage: shellguard audit verify [--key-file FILE] LOG")
		return 2
	}
	fs := flag.NewFlagSet("audit verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keyFile := fs.String("key-file", "", "file holding the HMAC key the log was written with")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: shellguard audit verify [--key-file FILE] LOG")
		return 2
	}
	var key []byte
	if *keyFile != "" {
		k, err := os.ReadFile(*keyFile)
		if err != nil {
			fmt.Fprintln(stderr, "shellguard audit:", err)
			return 2
		}
		key = k
	}
	name := fs.Arg(0)
	f, err := os.Open(name)
	if err != nil {
		fmt.Fprintln(stderr, "shellguard audit:", err)
		return 2
	}
	defer f.Close()
	res, err := audit.VerifyChain(f, key)
	var ve *audit.VerifyError
	switch {
	case errors.As(err, &ve):
		fmt.Fprintf(stdout, "%s:%d: %s (%d lines intact before it)\n", name, ve.Line, ve.Reason, res.Lines)
		return 1
	case err != nil:
		fmt.Fprintln(stderr, "shellguard audit:", err)
		return 2
	}
	fmt.Fprintf(stdout, "%s: OK, %d lines, head %s\n", name, res.Lines, res.Head)
	fmt.Fprintln(stdout, "(lines removed from the end cannot be detected: compare the count and head with a copy kept elsewhere)")
	return 0
}
