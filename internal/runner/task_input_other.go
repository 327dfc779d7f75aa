//go:build !linux

package runner

// WaitingForInput is only implemented on Linux; elsewhere it reports false.
func (p *Process) WaitingForInput() bool { return false }

// StdinPending is only implemented on Linux; elsewhere it reports 0.
func (p *Process) StdinPending() int { return 0 }
