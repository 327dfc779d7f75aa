// Command nomain embeds shellguard with the sandbox but forgets to call
// sandbox.Main: the test in the module root checks that it fails with a
// plain error instead of starting itself again and again.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/sandbox"
)

func main() {
	// sandbox.Main() is missing here on purpose.
	g, err := shellguard.New(shellguard.Config{Workspace: os.Args[1], Sandbox: &sandbox.Spec{}})
	if err != nil {
		fmt.Println("new:", err)
		os.Exit(1)
	}
	defer g.Close()
	res, err := g.Run(context.Background(), shellguard.Request{Command: "echo ran"})
	fmt.Printf("stdout=%q err=%v\n", res.Stdout, err)
}
