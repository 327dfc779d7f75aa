//go:build linux

package sandbox

import (
	"fmt"
	"os"
)

// startedAsHelper is decided when the package is initialised, before the
// program's main runs: this process was started as the sandbox helper.
var startedAsHelper = IsHelper(os.Args)

// RefuseIfHelper stops a process that was started as the sandbox helper
// but is running its own code, because its main did not call Main first:
// left alone, it would build a sandboxed command, start the program again,
// and again. It tells the parent (which fails the command with ErrNoMain)
// and the user (on stderr) what to fix, and exits. In any other process it
// returns at once. shellguard.New and Command call it; a program need not.
func RefuseIfHelper() {
	if !startedAsHelper {
		return
	}
	report(helperReport{Fatal: true, Error: ErrNoMain.Error()})
	fmt.Fprintln(os.Stderr, ErrNoMain)
	os.Exit(helperExit)
}
