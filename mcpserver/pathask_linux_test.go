//go:build linux

package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/internal/testenv"
	"github.com/shellguard/shellguard/sandbox"
)

// pathAsker answers the server's forms: a command's approval always, a
// path question with accept and the scripted scope.
type pathAsker struct {
	mu    sync.Mutex
	scope string
	asked []string
}

func (a *pathAsker) handle(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !strings.Contains(r.Params.Message, "The sandbox refused the command") {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
	}
	a.asked = append(a.asked, r.Params.Message)
	if a.scope == "" {
		return &mcp.ElicitResult{Action: "decline", Content: map[string]any{}}, nil
	}
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{rememberKey: a.scope}}, nil
}

// TestPathQuestionOverMCP: a write the sandbox refused is put to the user
// as a form naming the command, the path and the access; accepted, the
// command runs once more with exactly that grant, which is in the result;
// declined, the refusal stands and it does not run again.
func TestPathQuestionOverMCP(t *testing.T) {
	scratch, err := os.MkdirTemp("/var/tmp", "sg-pathask-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	ws, outside := filepath.Join(scratch, "ws"), filepath.Join(scratch, "outside")
	canary := filepath.Join(outside, "canary")
	for _, d := range []string{ws, outside, filepath.Join(scratch, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A workspace script whose write the policy cannot see: the sandbox
	// is what refuses it.
	if err := os.WriteFile(filepath.Join(ws, "w.sh"), []byte("echo written >> "+canary+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := shellguard.New(shellguard.Config{Workspace: ws, Sandbox: &sandbox.Spec{},
		GrantsFile: filepath.Join(scratch, "config", "grants.json"),
		Environ:    []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(scratch, "home")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	a := &pathAsker{}
	cs := connect(t, New(g, nil), &mcp.ClientOptions{ElicitationHandler: a.handle})
	writes := func() int {
		b, _ := os.ReadFile(canary)
		return strings.Count(string(b), "written\n")
	}

	r := callBash(t, cs, map[string]any{"command": "bash ./w.sh", "detail": true})
	o := structured(t, r)
	if o.Sandbox == nil || !o.Sandbox.Has(sandbox.LayerLandlockFS) && !o.Sandbox.Has(sandbox.LayerReadOnlyRoot) {
		testenv.SkipOrFail(t, "no file-system sandbox here: %+v", o.SandboxWarnings)
	}
	if writes() != 0 || len(a.asked) != 1 || len(o.Sandbox.FSRefused) != 1 || o.Grant != nil {
		t.Fatalf("declined: %d writes, %d questions, %s", writes(), len(a.asked), textOf(r))
	}
	for _, want := range []string{"bash ./w.sh", "refused writing " + canary, "write in " + outside, "writing " + outside} {
		if !strings.Contains(a.asked[0], want) {
			t.Errorf("the form lacks %q:\n%s", want, a.asked[0])
		}
	}

	a.mu.Lock()
	a.scope, a.asked = "once", nil
	a.mu.Unlock()
	r = callBash(t, cs, map[string]any{"command": "bash ./w.sh", "detail": true})
	o = structured(t, r)
	if o.ExitCode == nil || *o.ExitCode != 0 || writes() != 1 || len(a.asked) != 1 {
		t.Fatalf("accepted once: %d writes, %d questions, %s", writes(), len(a.asked), textOf(r))
	}
	if o.Grant == nil || o.Grant.Scope != "once" || !slices.Equal(o.Grant.Paths, []shellguard.PathGrant{{Path: outside, Write: true, Refused: canary}}) {
		t.Errorf("the grant is not in the result: %+v", o.Grant)
	}
}
