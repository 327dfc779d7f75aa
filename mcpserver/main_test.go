package mcpserver

import (
	"os"
	"testing"

	"github.com/shellguard/shellguard/sandbox"
)

// TestMain makes the test binary its own sandbox helper: the Guard of the
// tests runs every command in the kernel sandbox, as the servers do.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
