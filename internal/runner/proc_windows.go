package runner

import (
	"os"
	"os/exec"
)

func setProcessGroup(*exec.Cmd) {}

func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	return ps.ExitCode()
}

func (p *Process) kill(bool) { p.cmd.Process.Kill() }

// killGroup is kill here.
func (p *Process) killGroup() { p.kill(true) }
