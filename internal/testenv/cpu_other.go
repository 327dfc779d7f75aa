//go:build !linux

package testenv

import "time"

// ThreadCPU is 0 here: no per-thread CPU time is read on this platform.
func ThreadCPU() time.Duration { return 0 }

// ProcessCPU is 0 here: no CPU time is read on this platform.
func ProcessCPU() time.Duration { return 0 }
