//go:build unix

package runner

import (
	"os"
	"os/exec"
	"syscall"
)

func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if cmd.SysProcAttr.Setsid {
		return // a new session is a new process group too (the sandbox)
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pgid = 0
}

// exitCode maps a process state to the code a shell would report:
// 128+n for a death by signal n.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return -1
	}
	switch {
	case ws.Exited():
		return ws.ExitStatus()
	case ws.Signaled():
		return 128 + int(ws.Signal())
	}
	return -1
}

// kill signals the command's process group and every process of the run
// that escaped it. force selects SIGKILL over SIGTERM.
func (p *Process) kill(force bool) {
	sig := syscall.SIGTERM
	if force {
		sig = syscall.SIGKILL
	}
	pid := p.cmd.Process.Pid
	syscall.Kill(-pid, sig)
	select {
	case <-p.exited:
	default:
		p.cmd.Process.Signal(sig) // through the pidfd: no reuse race
	}
	killEscapees(p.marker, sig)
	if force {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// killGroup sends SIGKILL to the command's process group only.
func (p *Process) killGroup() { syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) }
