//go:build !unix

package sandbox

import "os"

// Without flock there is no lock: every session directory counts as
// held, and none is removed as stale.
func lockSession(string) (*os.File, error) { return nil, nil }

func sessionLocked(string) (*os.File, bool) { return nil, true }
