//go:build !unix

package runner

import (
	"errors"
	"os"
	"os/exec"
)

func openPTY(*exec.Cmd, uint16, uint16) (master, slave *os.File, err error) {
	return nil, nil, errors.New("pseudo-terminals are not supported on this platform")
}
