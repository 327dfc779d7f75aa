// Command shellguard-sandbox is shellguard's sandbox helper as a program
// of its own. shellguard starts it, instead of starting itself again, for
// each sandboxed command when it lies beside the shellguard binary and
// comes from the same build (`make build`, the release archives): it
// links only the sandbox, so it starts faster. It is not meant to be run
// by hand.
package main

import (
	"fmt"
	"os"

	"github.com/shellguard/shellguard/sandbox"
)

func main() {
	sandbox.Main()
	fmt.Fprintln(os.Stderr, "shellguard-sandbox: this is the sandbox helper of shellguard; shellguard starts it, it is not run by hand")
	os.Exit(2)
}
