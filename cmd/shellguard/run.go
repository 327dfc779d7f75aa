package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/internal/runner"
	"github.com/shellguard/shellguard/sandbox"
)

func init() {
	register("run", "check and run a command in the sandbox", runMain)
}

// Exit codes of `shellguard run` in text mode besides the command's own.
const (
	exitUsage   = 2
	exitTimeout = 124
	exitFailure = 125 // shellguard could not run the command
	exitStopped = 137 // the command was stopped (output limit, cancel)
	exitDenied  = 126 // the policy refused the command; nothing ran
)

func runMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print the result as JSON and exit 0 whenever a result was printed")
	timeout := fs.Float64("timeout", 0, "seconds before the command is stopped (default 120, max 600)")
	cwd := fs.String("cwd", "", "working directory (default: the workspace)")
	maxOutput := fs.Int("max-output", 0, "bytes of each stream to keep, head and tail (default 65536)")
	file := fs.String("file", "", "read the command byte for byte from `PATH` (- = stdin)")
	gf := addGuardFlags(fs, true)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: shellguard run [flags] (--file PATH | -- COMMAND)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	command, err := commandText(fs.Args(), *file)
	if err != nil {
		fmt.Fprintln(stderr, "shellguard run:", err)
		fs.Usage()
		return exitUsage
	}
	if *timeout < 0 || *maxOutput < 0 {
		fmt.Fprintln(stderr, "shellguard run: --timeout and --max-output must not be negative")
		return exitUsage
	}
	if _, err := sandbox.ParseMode(gf.sandbox); err != nil {
		fmt.Fprintln(stderr, "shellguard run:", err)
		return exitUsage
	}

	runner.EnableSubreaper() // best effort: the process group and marker still work without it
	g, _, err := gf.newGuard()
	if err != nil {
		fmt.Fprintln(stderr, "shellguard:", err)
		return exitFailure
	}
	defer g.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	res, err := g.Run(ctx, shellguard.Request{
		Command:   command,
		Cwd:       *cwd,
		Timeout:   time.Duration(*timeout * float64(time.Second)),
		MaxOutput: *maxOutput,
		Approve:   ttyApprover(command, stderr),
	})
	if *jsonOut {
		writeJSON(stdout, res) // a failed request says why in its error field
		return 0
	}
	var denied *shellguard.DeniedError
	if errors.As(err, &denied) {
		printVerdict(stderr, command, denied.Verdict)
		if denied.Asked {
			fmt.Fprintln(stderr, "shellguard: not run:", denied.Reason)
		} else {
			fmt.Fprintln(stderr, "shellguard: not run: the policy denies this command")
		}
		return exitDenied
	}
	if !res.Started() {
		// Nothing ran: a bad cwd, or --sandbox required and a layer is missing.
		fmt.Fprintln(stderr, "shellguard:", err)
		return exitFailure
	}
	for _, w := range res.SandboxWarnings {
		fmt.Fprintln(stderr, "shellguard: warning:", w)
	}
	io.WriteString(stdout, res.Stdout)
	io.WriteString(stderr, res.Stderr)
	switch {
	case res.TimedOut:
		fmt.Fprintf(stderr, "shellguard: timed out after %.1fs; the command and everything it started were stopped\n", res.Duration)
		return exitTimeout
	case res.OutputLimitExceeded:
		fmt.Fprintln(stderr, "shellguard: output limit exceeded; the command was stopped")
		return exitStopped
	case err != nil:
		fmt.Fprintln(stderr, "shellguard:", err)
		return exitStopped
	}
	return *res.ExitCode // set: the command ran to its end
}

// ttyApprover asks the person at the terminal about a command whose
// verdict is ask. Without a terminal there is no one to ask: nil.
func ttyApprover(command string, stderr io.Writer) func(context.Context, shellguard.Verdict) (bool, error) {
	if !isTerminal(os.Stdin) {
		return nil
	}
	return func(ctx context.Context, v shellguard.Verdict) (bool, error) {
		tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return false, err
		}
		defer tty.Close()
		printVerdict(tty, command, v)
		fmt.Fprint(tty, "Run this command? [y/N] ")
		var answer string
		fmt.Fscanln(tty, &answer)
		answer = strings.ToLower(strings.TrimSpace(answer))
		return answer == "y" || answer == "yes", nil
	}
}

// commandText returns the command from the arguments after "--" (joined by
// spaces) or from a file.
func commandText(args []string, file string) (string, error) {
	if file != "" {
		if len(args) > 0 {
			return "", errors.New("give either --file or a command, not both")
		}
		var b []byte
		var err error
		if file == "-" {
			b, err = io.ReadAll(io.LimitReader(os.Stdin, maxCommandBytes+1))
		} else {
			var f *os.File
			f, err = os.Open(file)
			if err == nil {
				b, err = io.ReadAll(io.LimitReader(f, maxCommandBytes+1))
				f.Close()
			}
		}
		if err != nil {
			return "", err
		}
		if len(b) > maxCommandBytes {
			return "", fmt.Errorf("command file is larger than %d bytes", maxCommandBytes)
		}
		return string(b), nil
	}
	if len(args) == 0 {
		return "", errors.New("no command given")
	}
	cmd := strings.Join(args, " ")
	if len(cmd) > maxCommandBytes {
		return "", fmt.Errorf("command is larger than %d bytes", maxCommandBytes)
	}
	return cmd, nil
}

// maxCommandBytes bounds the size of one command.
const maxCommandBytes = 1 << 20

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}
