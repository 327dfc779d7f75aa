package e2e

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// TestRootsWithNpmClient: `shellguard mcp` started in / without
// --workspace runs each call where the npm client's roots say, follows
// roots/list_changed, and refuses a root of /.
func TestRootsWithNpmClient(t *testing.T) {
	setup(t)
	first, second := workspace(t), workspace(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "node", "roots.mjs", "--bin", binPath, "--first", first, "--second", second).CombinedOutput()
	if err != nil {
		t.Fatalf("node roots.mjs: %v\n%s", err, out)
	}
}
