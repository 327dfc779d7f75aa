//go:build amd64 && !purego

package capture

import "golang.org/x/sys/cpu"

// plainVector tells whether plain runs plainBlocks, as the processor
// and the kernel offer AVX2.
var plainVector = cpu.X86.HasAVX2

// plainBlocks reports whether the whole 64-byte blocks at the start of p
// are ASCII without ESC, 64 bytes a round.
//
//go:noescape
func plainBlocks(p []byte) bool
