package runner

import (
	"errors"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pipeSize is what a command's output pipe is grown to once output
// flows: room for a flood to keep flowing while the reader works on what
// it took.
const pipeSize = 1 << 20

// maxGrown bounds the pipes grown at a time. Pipe pages count against a
// per-user limit (fs.pipe-user-pages-soft, 64 MiB by default) past which
// every new pipe of the user's is made small: 16 MiB at most keeps
// shellguard's share of it to a quarter.
const maxGrown = 16

var grown atomic.Int32 // pipes grown and not closed

// A reader waits for a flowing pipe to fill for a pause between
// minPause and maxPause, in nanoseconds, the first one firstPause
// (see nextPause).
const (
	minPause   = 50_000
	firstPause = 200_000
	maxPause   = 1_000_000
)

// floodRead is the least a read must return, after a wait, for the
// output to count as flowing: a pipe page, what a buffered writer
// (coreutils, stdio) writes at once.
const floodRead = 4096

// pausing is held by the one reader whose thread is in a flood pause
// (it keeps its P meanwhile, see pause).
var pausing atomic.Bool

// outputPipe makes a pipe for a command's output: w for the command
// (blocking, as a program expects its stdout), r for the reader.
//
// r reads so that a flood costs few wake-ups. A reader that waits for an
// empty pipe is woken by every write the command makes into it (4 KiB
// for tr, cat, most of coreutils), and every wake-up costs both sides a
// context switch; a descriptor in the runtime's poller also wakes the
// thread waiting in the poller at every such write, even while no one
// waits for it. On two cores that made a 300 MB flood take three times
// as long as into /dev/null. So r's descriptor stays out of the poller,
// which sees only a duplicate of it, for as long as r waits; and while
// output flows, a reader that finds the pipe empty sleeps a pause
// (nextPause) and reads again, the command meanwhile writing into the
// pipe, grown for it (grow), without waking anyone. A pipe still empty
// after the pause is left to the poller.
func outputPipe() (r io.ReadCloser, w *os.File, err error) {
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, nil, os.NewSyscallError("fcntl", err)
	}
	size, err := unix.FcntlInt(uintptr(fds[0]), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		size = 64 << 10
	}
	return &pipeReader{fd: fds[0], size: size}, os.NewFile(uintptr(fds[1]), "|1"), nil
}

var errPipeClosed = errors.New("runner: output pipe closed")

// pipeReader is the read end of outputPipe.
type pipeReader struct {
	fd      int // non-blocking, not in the poller
	flowing bool
	size    int   // the pipe's capacity
	pauseNs int64 // the next pause
	drained int   // bytes read since the last pause
	waits   int   // times Read waited in the poller

	mu      sync.Mutex
	grown   bool     // grown by grow, counted in grown
	reading bool     // a Read is under way: it closes fd if Close came meanwhile
	closed  bool     // Close was called
	waiting *os.File // the duplicate in the poller while Read waits
}

// Read reads the pipe. It may be called by one goroutine at a time;
// Close, from any other, ends a Read that waits.
func (p *pipeReader) Read(b []byte) (int, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return 0, errPipeClosed
	}
	p.reading = true
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.reading = false
		if p.closed {
			unix.Close(p.fd)
		}
		p.mu.Unlock()
	}()

	paused := false
	for {
		n, err := unix.Read(p.fd, b)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN && p.flowing && !paused && p.pause():
			paused = true
			continue
		case err == unix.EAGAIN:
			p.waits++
			n, err = p.wait(b)
			p.flowing = err == nil && n >= floodRead
		case err != nil:
			err = os.NewSyscallError("read", err)
		default:
			p.flowing = true
		}
		if err == nil && n == 0 {
			err = io.EOF
		}
		if err != nil {
			p.flowing = false
			return 0, err
		}
		p.drained += n
		if p.flowing && !p.grown {
			p.grow()
		}
		return n, nil
	}
}

// grow makes the pipe pipeSize, once, if fewer than maxGrown are. A
// refusal (the user's pipe pages are spent) leaves it as it was.
func (p *pipeReader) grow() {
	if grown.Add(1) > maxGrown {
		grown.Add(-1)
		return // tried again when output next starts flowing
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		grown.Add(-1)
		return
	}
	p.grown = true
	if n, err := unix.FcntlInt(uintptr(p.fd), unix.F_SETPIPE_SZ, pipeSize); err == nil {
		p.size = n
	}
}

// nextPause is the pause after cur, when the reader drained drained
// bytes of a pipe of size since the last one: half as long when that
// was the pipe's worth or more (the command may have had to wait for
// room), twice as long when it was less than half, within minPause and
// maxPause.
func nextPause(cur int64, drained, size int) int64 {
	switch {
	case cur == 0:
		return firstPause
	case drained >= size:
		return max(cur/2, minPause)
	case drained < size/2:
		return min(cur*2, maxPause)
	}
	return cur
}

// wait reads into b once the pipe has data or its end, waiting in the
// runtime's poller through a duplicate of the descriptor that leaves it
// again when wait returns (or when Close closes it).
func (p *pipeReader) wait(b []byte) (n int, err error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return 0, errPipeClosed
	}
	dup, err := unix.FcntlInt(uintptr(p.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		p.mu.Unlock()
		return 0, os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(dup), "|0") // non-blocking: in the poller
	p.waiting = f
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.waiting = nil
		p.mu.Unlock()
		f.Close()
	}()
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	rerr := rc.Read(func(fd uintptr) bool {
		for {
			n, err = unix.Read(int(fd), b)
			if err != unix.EINTR {
				return err != unix.EAGAIN
			}
		}
	})
	switch {
	case rerr != nil:
		return 0, errPipeClosed
	case err != nil:
		return 0, os.NewSyscallError("read", err)
	}
	return n, nil
}

// Close ends a Read that waits and closes the pipe (at once, or when a
// Read under way returns).
func (p *pipeReader) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	if p.grown {
		grown.Add(-1)
	}
	if p.waiting != nil {
		p.waiting.Close()
	}
	if !p.reading {
		return unix.Close(p.fd)
	}
	return nil
}

// pause sleeps on this thread without giving up its P, for as long as
// nextPause says, and reports whether it did. A sleep through the
// scheduler costs what the pause saves (the runtime hands the P over and
// takes it back, waking other threads); holding the P is bounded to one
// reader at a time, so that the rest of the process always has the other
// Ps, and is not done with only one. A signal (the runtime's preemption)
// ends the sleep early.
func (p *pipeReader) pause() bool {
	if runtime.GOMAXPROCS(0) < 2 || !pausing.CompareAndSwap(false, true) {
		return false
	}
	p.pauseNs = nextPause(p.pauseNs, p.drained, p.size)
	p.drained = 0
	ts := unix.NsecToTimespec(p.pauseNs)
	syscall.RawSyscall(unix.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
	pausing.Store(false)
	return true
}
