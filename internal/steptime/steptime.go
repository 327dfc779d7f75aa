//go:build unix

// Package steptime records when each step of a sandboxed launch happens,
// for measuring where the start-up time goes. It is off unless the
// environment variable SHELLGUARD_TIMING names a file: then every Mark
// appends "ROLE/PID STEP NANOSECONDS" (CLOCK_MONOTONIC, which every
// process of the machine shares, so the lines of the CLI and of its
// sandbox helper merge into one timeline). bench/steps.sh turns the file
// into a per-step table. Off, a Mark costs one branch.
package steptime

import (
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// EnvVar names the file the marks go to.
const EnvVar = "SHELLGUARD_TIMING"

var (
	mu  sync.Mutex
	out *os.File
	who string
)

func init() {
	if p := os.Getenv(EnvVar); p != "" {
		if f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			out, who = f, "main/"+strconv.Itoa(os.Getpid())
		}
	}
}

// File is the file being recorded into (nil when off), for passing on to
// a child process that records into it with Adopt.
func File() *os.File { return out }

// Adopt records into the inherited descriptor fd (see File); role names
// the process in the file. The sandbox helper uses it: a file it opened
// itself would be open for writing on a mount of its own namespace, and
// making that mount read-only would then fail.
func Adopt(fd int, role string) {
	unix.CloseOnExec(fd)
	mu.Lock()
	out, who = os.NewFile(uintptr(fd), "steptime"), role+"/"+strconv.Itoa(os.Getpid())
	mu.Unlock()
}

// On reports whether marks are recorded.
func On() bool { return out != nil }

// Now is the time Mark would record.
func Now() int64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// Mark records that step has just ended.
func Mark(step string) {
	if out == nil {
		return
	}
	MarkAt(step, Now())
}

// MarkAt records that step ended at t (from Now), for a step that ended
// before recording could start.
func MarkAt(step string, t int64) {
	if out == nil {
		return
	}
	mu.Lock()
	out.WriteString(who + " " + step + " " + strconv.FormatInt(t, 10) + "\n")
	mu.Unlock()
}
