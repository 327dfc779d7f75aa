//go:build race

package mcpserver

// raceEnabled: the race detector slows every sandboxed call (the helper is
// this test binary) several times over.
const raceEnabled = true
