//go:build !linux

package capture

import "time"

func threadCPU() time.Duration { return 0 }
