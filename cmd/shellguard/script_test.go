package main

import (
	"errors"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs the txtar scripts of testdata/script: the CLI's exit
// codes and outputs, as a user sees them. In a script, `sg CODE ARGS…`
// runs `shellguard ARGS…` and fails unless it exits with CODE; stdout and
// stderr are then checked as after exec.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sg": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 1 {
					ts.Fatalf("usage: sg CODE [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("sg: exit code %q: %v", args[0], err)
				}
				got := 0
				if err := ts.Exec("shellguard", args[1:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("sg: %v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("shellguard exited %d, want %d", got, want)
				}
			},
		},
	})
}
