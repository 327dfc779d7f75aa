//go:build !amd64 || purego

package redact

const gridVector = false

// gridRounds is the grid's coarse loop (see gridFilter.candidate).
func gridRounds(tab *[1 << 16]uint64, p []byte, e int) int {
	return gridRoundsGo(tab, p, e)
}
