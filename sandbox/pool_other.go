//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
)

// DefaultPool is the number of warm helpers a Pool keeps when its size is 0.
const DefaultPool = 2

// Pool keeps warm sandbox helpers on Linux; here every command starts as
// Command builds it.
type Pool struct{}

// NewPool returns nil here: there is no helper to keep warm.
func NewPool(size int) *Pool { return nil }

// Command is Command.
func (p *Pool) Command(ctx context.Context, spec Spec, script string, env []string, dir string) (*exec.Cmd, *Handle, error) {
	return Command(ctx, spec, script, env, dir)
}

// Close does nothing here.
func (p *Pool) Close() error { return nil }

// Stats reports no warm starts.
func (p *Pool) Stats() (hits, misses int) { return 0, 0 }

// Ready is 0 here.
func (p *Pool) Ready() int { return 0 }

// Warm is false here.
func (h *Handle) Warm() bool { return false }

// Send fails here: no command is started warm.
func (h *Handle) Send(stdin, stdout, stderr *os.File) error {
	return errors.New("sandbox: not a warm helper")
}
