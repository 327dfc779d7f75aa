//go:build amd64 && !purego

package redact

import "golang.org/x/sys/cpu"

// gridVector tells whether gridRounds runs the vector loop of
// grid_amd64.s: AVX-512 (F for the gather, the shifts and the mask test,
// BW and VL for the word loads and widening) as the processor and the
// kernel offer it.
var gridVector = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL

// gridRounds is the grid's coarse loop (see gridFilter.candidate): from
// grid place e, sixteen bytes a round, it returns the first round's place
// where one of its eight grid places lets a keyword through, or the place
// where too few bytes are left for a round (48 in the vector loop, 20
// in Go).
func gridRounds(tab *[1 << 16]uint64, p []byte, e int) int {
	if gridVector {
		return gridRounds512(tab, p, e)
	}
	return gridRoundsGo(tab, p, e)
}

// gridRounds512 is gridRounds with eight pairs a gather.
//
//go:noescape
func gridRounds512(tab *[1 << 16]uint64, p []byte, e int) int
