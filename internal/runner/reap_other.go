//go:build !linux

package runner

import (
	"errors"
	"os/exec"
	"syscall"
)

// EnableSubreaper is only supported on Linux.
func EnableSubreaper() error { return errors.New("runner: child subreaper is only supported on Linux") }

func startTracked(cmd *exec.Cmd) error { return cmd.Start() }

// StartTracked starts cmd (no child subreaper here to tell it apart).
func StartTracked(cmd *exec.Cmd) error { return cmd.Start() }

// Forget does nothing here.
func Forget(int) {}

func sendTracked(_ *exec.Cmd, send func() error) error { return send() }

func forgetLeader(int) {}

func killEscapees(string, syscall.Signal) {}
