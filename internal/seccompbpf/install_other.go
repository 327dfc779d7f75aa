//go:build !linux

package seccompbpf

import "errors"

// Install is not supported on this platform.
func Install(p *Program) error { return errors.New("seccompbpf: seccomp is Linux-only") }

// Available is false on this platform.
func Available() bool { return false }
