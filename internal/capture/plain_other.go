//go:build !amd64 || purego

package capture

const plainVector = false

// plainBlocks is not called where plainVector is false.
func plainBlocks([]byte) bool { panic("capture: no vector loop here") }
