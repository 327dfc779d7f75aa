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

const auditUsage = `usage: shellguard audit verify [--key-file FILE] LOG
Checks the hash chain of an audit log and reports the first line that was
edited, deleted, inserted or moved. Give --key-file when the log was written
with audit.key_file (HMAC-SHA256): then only someone with the key can forge it.`

func auditMain(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprintln(stdout, auditUsage)
		return 0
	}
	if len(args) == 0 {
		return argError(stderr, "audit", "missing subcommand: verify")
	}
	if args[0] != "verify" {
		return argError(stderr, "audit", fmt.Sprintf("unknown subcommand %q (want verify)", args[0]))
	}
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	keyFile := fs.String("key-file", "", "`FILE` holding the HMAC key the log was written with (audit.key_file)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), auditUsage)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args[1:], stdout, stderr, exitUsage); done {
		return code
	}
	if fs.NArg() != 1 {
		return argError(stderr, "audit", "give exactly one LOG file")
	}
	var key []byte
	if *keyFile != "" {
		k, err := audit.ReadKeyFile(*keyFile)
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
