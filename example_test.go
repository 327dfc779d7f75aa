package shellguard_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

func askUser(v policy.Verdict) (bool, error) { return false, nil }

// Example is the README's library example (TestReadmeExample keeps the
// two the same). It has no Output comment: go test compiles it but does
// not run it.
func Example() {
	sandbox.Main() // first: the binary is also the sandbox helper
	ctx := context.Background()
	g, err := shellguard.New(shellguard.Config{
		Workspace: "/home/me/project",
		Sandbox:   &sandbox.Spec{}, // auto mode, no network; nil: no sandbox (every result then says so)
		Rules:     policy.Rules{Allow: []string{"npm run test *"}},
		Approver:  func(ctx context.Context, r shellguard.Request, v policy.Verdict) (bool, error) { return askUser(v) },
	})
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close()
	v := g.Check(ctx, shellguard.Request{Command: "rm -rf build/"}) // verdict only, nothing runs
	fmt.Println(v.Decision, v.Reasons)
	res, err := g.Run(ctx, shellguard.Request{Command: "go test ./...", Timeout: 5 * time.Minute})
	// res.ExitCode (nil if it did not run), res.Stdout, res.Stderr, res.TimedOut, res.Decision,
	// res.Reasons, res.Sandbox, res.SandboxWarnings … (the JSON is docs/result.schema.json).
	// err: *shellguard.DeniedError (errors.Is(err, shellguard.ErrDenied)) when refused; otherwise
	// only when nothing could run (or ctx was cancelled: then res holds the partial output).
	if errors.Is(err, shellguard.ErrDenied) {
		fmt.Println("refused:", err)
	}
	fmt.Print(res.Stdout)
}

// TestReadmeExample: the README's library example (the first main in its
// Library section; the quick start's main.go comes before it and is
// e2e/quickstart_test.go's) is Example's body.
func TestReadmeExample(t *testing.T) {
	body := func(path, after, open string) []string {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var lines []string
		in, past := false, after == ""
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			l := sc.Text()
			switch {
			case !past:
				past = l == after
			case !in && l == open:
				in = true
			case in && l == "}":
				return lines
			case in:
				lines = append(lines, strings.TrimRight(l, " "))
			}
		}
		t.Fatalf("%s: no %q block after %q", path, open, after)
		return nil
	}
	readme, example := body("README.md", "## Library", "func main() {"), body("example_test.go", "", "func Example() {")
	if strings.Join(readme, "\n") != strings.Join(example, "\n") {
		t.Errorf("README.md's library example differs from Example:\nREADME:\n%s\nExample:\n%s",
			strings.Join(readme, "\n"), strings.Join(example, "\n"))
	}
}

// A zero Config runs without a sandbox, and the result says so.
func TestZeroConfigSaysNoSandbox(t *testing.T) {
	t.Chdir(t.TempDir())
	g, err := shellguard.New(shellguard.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	res, err := g.Run(context.Background(), shellguard.Request{Command: "true"})
	if err != nil || res.Sandbox != nil || len(res.SandboxWarnings) == 0 || !strings.Contains(res.SandboxWarnings[0], "no sandbox") {
		t.Errorf("%v %+v", err, res)
	}
}
