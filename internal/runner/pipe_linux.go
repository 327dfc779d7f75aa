package runner

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is the capacity asked for an output pipe (the default
// /proc/sys/fs/pipe-max-size): a command writing a flood of output then
// runs ahead of the reader by this much, and both are woken up far less
// often than with the 64 KiB default.
const pipeSize = 1 << 20

// growPipe asks for pipeSize on the pipe of f. The kernel may refuse (a
// user over its pipe quota); the pipe then keeps its size.
// (Through SyscallConn: Fd would put f in blocking mode.)
func growPipe(f *os.File) {
	if c, err := f.SyscallConn(); err == nil {
		c.Control(func(fd uintptr) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) })
	}
}
