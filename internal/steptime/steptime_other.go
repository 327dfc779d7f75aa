//go:build !unix

package steptime

import "os"

// EnvVar names the file the marks go to (recorded on Unix only).
const EnvVar = "SHELLGUARD_TIMING"

// File is nil here.
func File() *os.File { return nil }

// Adopt does nothing here.
func Adopt(fd int, role string) {}

// On is false here.
func On() bool { return false }

// Now is 0 here.
func Now() int64 { return 0 }

// Mark does nothing here.
func Mark(step string) {}

// MarkAt does nothing here.
func MarkAt(step string, t int64) {}
