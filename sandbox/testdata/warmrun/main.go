// Command warmrun runs one command the way a long-lived face (the MCP
// server, serve, a library Session) runs it: in a session whose warm
// sandbox helper had applied every layer before the command arrived. It is
// a command template of sgeval, so that the effect corpora run through the
// warm path as they run through `shellguard run`:
//
//	warmrun [--sandbox MODE] TIMEOUT -- COMMAND
//
// It loads the configuration as `shellguard run` does (defaults, user
// file, the project file of the working directory, which is the
// workspace), opens a session, runs `true` twice (the second one makes
// the session's pool), waits until a warm helper is ready, and runs
// COMMAND. It prints the command's output (stdout, then stderr) and exits
// with its exit code; 126 when the policy refused it (nothing ran), 124
// on timeout, and 125 when shellguard failed — including when the command
// did not run in a warm helper, so that a cold start never passes for a
// warm one.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/config"
	"github.com/shellguard/shellguard/internal/runner"
	"github.com/shellguard/shellguard/sandbox"
)

func main() {
	sandbox.Main()
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	mode := ""
	if len(args) >= 2 && args[0] == "--sandbox" {
		mode, args = args[1], args[2:]
	}
	if len(args) != 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "usage: warmrun [--sandbox MODE] TIMEOUT -- COMMAND")
		return 2
	}
	secs, err := strconv.ParseFloat(args[0], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "warmrun: bad timeout:", err)
		return 2
	}
	command := args[2]
	runner.EnableSubreaper()
	ws, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "warmrun:", err)
		return 125
	}
	o := config.Options{Workspace: ws}
	if mode != "" {
		o.Flags = []config.Setting{{Flag: "--sandbox", Key: "sandbox.mode", Value: mode}}
	}
	g, _, err := config.LoadGuard(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "warmrun:", err)
		return 125
	}
	defer g.Close()
	s := g.NewSession(shellguard.SessionOptions{BlockingBudget: -1})
	defer s.Close()
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		if r, err := s.Run(ctx, shellguard.Request{Command: "true"}); err != nil || r.ExitCode == nil || *r.ExitCode != 0 {
			fmt.Fprintf(os.Stderr, "warmrun: warming up: %v %s\n", err, r.Error)
			return 125
		}
	}
	if !helperReady(10 * time.Second) {
		fmt.Fprintln(os.Stderr, "warmrun: no warm helper became ready")
		return 125
	}
	// It has started; applying its layers takes a few milliseconds. A
	// command that still finds none ready is reported below.
	time.Sleep(300 * time.Millisecond)
	res, err := s.Run(ctx, shellguard.Request{Command: command, Timeout: time.Duration(secs * float64(time.Second))})
	fmt.Fprint(os.Stdout, res.Stdout)
	fmt.Fprint(os.Stderr, res.Stderr)
	var denied *shellguard.DeniedError
	switch {
	case errors.As(err, &denied):
		fmt.Fprintln(os.Stderr, "warmrun: not run: refused by the policy")
		return 126
	case res.ExitCode == nil:
		fmt.Fprintln(os.Stderr, "warmrun:", err)
		return 125
	case res.Sandbox == nil || !res.Sandbox.Warm:
		fmt.Fprintln(os.Stderr, "warmrun: the command did not run in a warm helper")
		return 125
	case res.TimedOut:
		return 124
	}
	return *res.ExitCode
}

// helperReady waits until a child of this process is a warm helper (its
// last argument is "warm") that has not been handed a command.
func helperReady(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		tasks, _ := os.ReadDir("/proc/self/task")
		for _, t := range tasks {
			b, _ := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
			for _, pid := range strings.Fields(string(b)) {
				cl, _ := os.ReadFile("/proc/" + pid + "/cmdline")
				if strings.HasSuffix(string(cl), "\x00warm\x00") {
					return true
				}
			}
		}
		time.Sleep(time.Millisecond)
	}
	return false
}
