//go:build linux

package sandbox

// gitSpec protects the workspace's .git.
type gitSpec struct{}
