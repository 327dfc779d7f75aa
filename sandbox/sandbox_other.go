//go:build !linux

package sandbox

import (
	"context"
	"os/exec"
	"runtime"
)

// Handle connects a started command to what was applied (nothing here).
type Handle struct{ mode Mode }

// Command runs bash without a sandbox in Auto and Off mode and fails with
// ErrUnsupported in Required mode: only Linux has a sandbox.
func Command(ctx context.Context, spec Spec, script string, env []string, dir string) (*exec.Cmd, *Handle, error) {
	if spec.Mode.Requires() || spec.Review {
		return nil, nil, ErrUnsupported
	}
	bash := "bash"
	if p, err := exec.LookPath("bash"); err == nil {
		bash = p
	}
	cmd := exec.CommandContext(ctx, bash, "-p", "-c", script)
	cmd.Env = env
	cmd.Dir = dir
	return cmd, &Handle{mode: spec.Mode}, nil
}

// Started does nothing here.
func (h *Handle) Started() {}

// StartFailed never asks for a retry here.
func (h *Handle) StartFailed(err error) bool { return false }

// Applied reports that nothing was applied.
func (h *Handle) Applied() (Applied, error) {
	a := Applied{Mode: h.mode, Platform: runtime.GOOS, Network: "host"}
	if h.mode != Off {
		a.Missing = []Layer{{Name: "sandbox", Reason: "the sandbox is only implemented on Linux"}}
	}
	return a, nil
}

// CanReview fails here: only Linux has the copy-on-write workspace.
func CanReview(spec Spec, env []string) error { return ErrUnsupported }

// OnNetAsk does nothing here: there is no allowlist proxy.
func (h *Handle) OnNetAsk(fn func(ctx context.Context, hostport string) bool) {}

// OnReview does nothing here: a review run is refused (Command).
func (h *Handle) OnReview(fn func(changes []Change) (apply []string, err error)) {}

// Close does nothing here.
func (h *Handle) Close() error { return nil }

// Contained is false on this platform.
func (h *Handle) Contained() bool { return false }

// Main does nothing on this platform.
func Main() {}

// Prewarm does nothing on this platform.
func Prewarm(spec Spec) {}

// RefuseIfHelper does nothing on this platform: there is no helper.
func RefuseIfHelper() {}

// DefaultLimits returns the default limits (not enforced on this platform).
func DefaultLimits() Limits { return Limits{} }

// DefaultCacheDir is empty here: no cache redirection without a sandbox.
func DefaultCacheDir(env []string) string { return "" }

// Probe reports that this platform has no sandbox.
func Probe() Report {
	return Report{
		Platform: runtime.GOOS,
		UID:      -1,
		Layers:   []ProbeResult{{Layer: Layer{Name: "sandbox", Reason: "the shellguard sandbox is only implemented on Linux", Fix: "run shellguard on Linux (a VM or container) for kernel confinement"}}},
		Summary:  "no kernel sandbox on " + runtime.GOOS + ": commands run with the full rights of the user (policy checks still apply)",
	}
}

// Ended reports nothing here: take the status from the process.
func (h *Handle) Ended() (code int, ok bool) { return 0, false }

// Reaped does nothing here.
func (h *Handle) Reaped() {}

// SessionNet is a session's shared network namespace; there is none on
// this platform.
type SessionNet struct{}

// NewSessionNet returns a SessionNet that does nothing here.
func NewSessionNet() *SessionNet { return &SessionNet{} }

// Close does nothing on this platform.
func (n *SessionNet) Close() error { return nil }

// Tree is the process the command's processes descend from: the leader.
func (h *Handle) Tree() int { return 0 }
