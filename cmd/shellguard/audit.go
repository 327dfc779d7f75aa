package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/shellguard/shellguard/audit"
)

func init() {
	register("audit", "verify an audit log's hash chain (audit verify FILE)", auditMain)
}

const auditUsage = `usage: shellguard audit verify [--key-file FILE] [--no-checkpoint] LOG
Checks the hash chain of an audit log and reports the first line that was
edited, deleted, inserted or moved, then compares the log with its
checkpoint (LOG.head) to find lines removed from the end or an emptied
file. Give --key-file when the log was written with audit.key_file
(HMAC-SHA256): then only someone with the key can forge it.
Exit status: 0 intact, 1 tampered (or no checkpoint), 2 not checked (no
such file, or a signed log read without its key).`

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
	noCheckpoint := fs.Bool("no-checkpoint", false, "check the chain alone when the log has no checkpoint (lines removed from the end then go unnoticed)")
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
	res, err := audit.VerifyLog(name, key)
	var ve *audit.VerifyError
	switch {
	case errors.As(err, &ve) && ve.Line == 0:
		fmt.Fprintf(stdout, "%s: %s (the log's %d lines are chained)\n", audit.CheckpointPath(name), ve.Reason, res.Lines)
		return 1
	case errors.As(err, &ve):
		fmt.Fprintf(stdout, "%s:%d: %s (%d lines intact before it)\n", name, ve.Line, ve.Reason, res.Lines)
		return 1
	case errors.Is(err, audit.ErrNeedKey):
		fmt.Fprintf(stdout, "%s: signed with a key (HMAC-SHA256): give --key-file to verify it; its %d lines are linked in order and match the checkpoint's count, but edits cannot be told without the key\n", name, res.Lines)
		return 2
	case errors.Is(err, audit.ErrNoCheckpoint) && !*noCheckpoint:
		fmt.Fprintf(stdout, "%s: no checkpoint (%s): its %d lines are chained, but lines removed from the end cannot be detected (--no-checkpoint accepts that)\n", name, audit.CheckpointPath(name), res.Lines)
		return 1
	case errors.Is(err, audit.ErrNoCheckpoint):
	case err != nil:
		fmt.Fprintln(stderr, "shellguard audit:", err)
		return 2
	}
	fmt.Fprintf(stdout, "%s: OK, %d lines, head %s\n", name, res.Lines, res.Head)
	return 0
}
