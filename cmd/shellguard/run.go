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

	"mvdan.cc/sh/v3/syntax"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/internal/runner"
	"github.com/shellguard/shellguard/internal/steptime"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
	"github.com/shellguard/shellguard/terminal"
)

func init() {
	register("run", "check and run a command in the sandbox", runMain)
}

// Exit codes of `shellguard run` in text mode besides the command's own.
const (
	exitUsage   = 2
	exitTimeout = 124
	exitFailure = 125 // shellguard could not run the command
	exitStopped = 137 // the command was stopped (output limit)
	exitDenied  = 126 // the policy refused the command; nothing ran
)

const runUsage = `usage: shellguard run [flags] -- COMMAND-LINE
       shellguard run [flags] -- PROGRAM ARG...
       shellguard run [flags] --file PATH

One word after -- is a bash command line ('ls -la | wc -l'); several words
are a program and its arguments, each passed exactly as given.
`

func runMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	jsonOut := fs.Bool("json", false, "print the result as JSON and exit 0 whenever a result was printed")
	timeout := fs.Float64("timeout", 0, "`SECONDS` before the command is stopped (default: timeout.default, 120; at most timeout.max, 600)")
	cwd := fs.String("cwd", "", "working `DIR`, inside the workspace or an allowed root (default: the workspace)")
	maxOutput := fs.Int("max-output", 0, "`BYTES` of each stream to keep in the result, head and tail (default: output.max_bytes, 65536)")
	file := fs.String("file", "", "read the command byte for byte from `PATH` (- = stdin)")
	review := fs.Bool("review", false, "run in a copy-on-write workspace and show what the command changed, with diffs, before any of it lands; asks on the terminal")
	gf := addGuardFlags(fs, true)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), runUsage)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout, stderr, exitUsage); done {
		return code
	}
	command, err := commandText(fs.Args(), *file)
	if err != nil {
		return argError(stderr, "run", err.Error())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if _, err := sandbox.ParseMode(gf.sandbox); err != nil {
		return argError(stderr, "run", err.Error())
	}

	steptime.Mark("cli.flags")
	// Ctrl-C, SIGTERM and SIGHUP stop the command and everything it
	// started; shellguard then exits 128+signal like a shell would. The
	// first signal.Notify of a process starts a thread of the runtime
	// (a quarter of a millisecond): it is done while the configuration
	// loads, and is in place before the command starts.
	sigs := make(chan os.Signal, 1)
	sigSet := make(chan struct{})
	go func() {
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		close(sigSet)
	}()
	defer func() { <-sigSet; signal.Stop(sigs) }()
	runner.EnableSubreaper() // best effort: the process group and marker still work without it
	g, c, err := gf.newGuard()
	steptime.Mark("cli.guard")
	if err != nil {
		fmt.Fprintln(stderr, "shellguard:", err)
		return exitFailure
	}
	if s := g.Config().Sandbox; s != nil {
		sandbox.Prewarm(*s) // meanwhile the command is checked
	}
	defer g.Close()
	printConfigNotes(stderr, c)
	req := shellguard.Request{Command: command, Cwd: *cwd, Review: *review}
	if set["timeout"] {
		req.Timeout = time.Duration(*timeout * float64(time.Second))
		if err := shellguard.CheckTimeout(req.Timeout, g.Config().MaxTimeout); err != nil {
			return argError(stderr, "run", "--"+err.Error())
		}
	}
	if set["max-output"] {
		req.MaxOutput = *maxOutput
		if err := shellguard.CheckMaxOutput(req.MaxOutput, g.Config().MaxTotalOutput); err != nil {
			return argError(stderr, "run", "--"+strings.Replace(err.Error(), "max_output", "max-output", 1))
		}
	}
	if req.Cwd, err = shellguard.ResolveCwd(*cwd, g.Config().Workspace, g.Config().Rules.AllowedRoots); err != nil {
		return argError(stderr, "run", "--"+err.Error())
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got os.Signal
	sigDone := make(chan struct{})
	go func() {
		defer close(sigDone)
		select {
		case got = <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()

	ask := &asker{command: command, stderr: stderr, g: g}
	var live *liveOutput
	if !*jsonOut {
		live = newLiveOutput(stdout, stderr)
		ask.onAsk = live.ask
		req.Stdout, req.Stderr = live.stdout, live.stderr
		// Both streams end up in the same place (one terminal, one file
		// or pipe): one pipe for the command keeps their real order.
		req.MergeStderr = sameFile(stdout, stderr)
	}
	req.Approve = ask.approver()
	if !ask.noTTY {
		// One run, no session: once or always.
		expand := terminal.SandboxApprover(g, &terminal.Options{OnAsk: ask.onAsk, NoSession: true})
		req.ApproveSandbox = func(ctx context.Context, grant shellguard.Grant) (string, error) { return expand(ctx, req, grant) }
		review := terminal.ChangeReviewer(&terminal.Options{OnAsk: ask.onAsk})
		req.ReviewChanges = func(ctx context.Context, cs []sandbox.Change) ([]string, error) { return review(ctx, req, cs) }
	} else if *review || (g.Config().Sandbox != nil && g.Config().Sandbox.Review) {
		return argError(stderr, "run", "a review shows the changes on the terminal, and stdin is not a terminal")
	}
	<-sigSet
	steptime.Mark("cli.setup")
	res, err := g.Run(ctx, req)
	cancel()
	<-sigDone
	if live != nil {
		live.close()
	}
	if *jsonOut {
		if err != nil {
			res.Error = plainError(res, err, got) // a failed request says why
		}
		writeJSON(stdout, res)
		return 0
	}
	var denied *shellguard.DeniedError
	if errors.As(err, &denied) {
		terminal.Explain(stderr, command, denied.Verdict)
		switch {
		case !denied.Asked:
			fmt.Fprintln(stderr, "shellguard: not run: the policy denies this command")
		default:
			fmt.Fprintln(stderr, "shellguard: not run:", ask.why(denied))
		}
		return exitDenied
	}
	started := res.ExitCode != nil // Guard.Run sets it for every command it started
	if got != nil && !started {
		fmt.Fprintln(stderr, "shellguard:", plainError(res, err, got))
		return signalExit(got)
	}
	if !started {
		// Nothing ran: a bad cwd, or --sandbox required and a layer is missing.
		fmt.Fprintln(stderr, "shellguard:", plainError(res, err, nil))
		return exitFailure
	}
	for _, w := range res.SandboxWarnings {
		fmt.Fprintln(stderr, "shellguard: warning:", w)
	}
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, "review: ") { // what of a review landed
			fmt.Fprintln(stderr, "shellguard:", w)
		}
	}
	switch {
	case got != nil:
		fmt.Fprintln(stderr, "shellguard:", plainError(res, err, got))
		return signalExit(got)
	case res.TimedOut:
		fmt.Fprintf(stderr, "shellguard: timed out after %.1fs; the command and everything it started were stopped\n", res.Duration)
		return exitTimeout
	case res.OutputLimitExceeded:
		fmt.Fprintln(stderr, "shellguard: output limit exceeded; the command was stopped")
		return exitStopped
	case err != nil:
		fmt.Fprintln(stderr, "shellguard:", plainError(res, err, nil))
		return exitFailure
	}
	return *res.ExitCode // set: the command ran to its end
}

// plainError says in words why a run ended early; a signal to shellguard
// itself reads as what the person did, not as "context canceled". The
// text is the result's (Error), which quotes names from the workspace
// only filtered and redacted.
func plainError(res shellguard.Result, err error, sig os.Signal) string {
	if sig != nil {
		return fmt.Sprintf("stopped by %s; the command and everything it started were stopped", signalName(sig))
	}
	if err == nil {
		return ""
	}
	if res.Error != "" {
		return res.Error
	}
	return err.Error()
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "an interrupt (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "a hangup (SIGHUP)"
	}
	return sig.String()
}

// signalExit is the exit status of a process ended by sig: 128+n.
func signalExit(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// asker puts an ask verdict to the person at the terminal and remembers
// what happened, so a refusal can be told in plain words.
type asker struct {
	command  string
	stderr   io.Writer
	noTTY    bool  // stdin is not a terminal: there is no one to ask
	answered bool  // the person answered (and said no, if it was refused)
	ttyErr   error // the terminal could not be opened
	onAsk    func(asking bool)
	g        *shellguard.Guard
}

func (a *asker) approver() func(context.Context, policy.Verdict) (bool, error) {
	if !isTerminal(os.Stdin) {
		a.noTTY = true
		return nil
	}
	ask := terminal.Approver(a.g, &terminal.Options{OnAsk: a.onAsk})
	return func(ctx context.Context, v policy.Verdict) (bool, error) {
		ok, err := ask(ctx, shellguard.Request{Command: a.command}, v)
		if err != nil {
			a.ttyErr = err
		} else {
			a.answered = true
		}
		return ok, err
	}
}

// why says why an ask was not run.
func (a *asker) why(d *shellguard.DeniedError) string {
	switch {
	case a.answered:
		return "you answered no"
	case a.noTTY:
		return "this command needs your approval, and there is no terminal to ask on (stdin is not a terminal); " +
			"run it from a terminal, or allow it in your configuration (rules.allow; see 'shellguard config show')"
	case a.ttyErr != nil:
		return "this command needs your approval, and " + a.ttyErr.Error()
	}
	return strings.TrimPrefix(d.Reason, "shellguard: ")
}

// commandText returns the command from the arguments after "--" or from a
// file. One argument is a bash command line as it stands; several are a
// program and its arguments, quoted so that bash passes each on exactly.
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
		return "", errors.New("no command given: put it after -- (or use --file)")
	}
	cmd, err := argvCommand(args)
	if err != nil {
		return "", err
	}
	if len(cmd) > maxCommandBytes {
		return "", fmt.Errorf("command is larger than %d bytes", maxCommandBytes)
	}
	return cmd, nil
}

// argvCommand turns the words after "--" into the command line bash runs:
// one word as it stands, several quoted one by one.
func argvCommand(args []string) (string, error) {
	if len(args) == 1 {
		return args[0], nil
	}
	words := make([]string, len(args))
	for i, a := range args {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			return "", fmt.Errorf("argument %d cannot be passed to bash: %v", i+1, err)
		}
		words[i] = q
	}
	return strings.Join(words, " "), nil
}

// maxCommandBytes bounds the size of one command.
const maxCommandBytes = 1 << 20

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}
