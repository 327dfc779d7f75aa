//go:build linux && !amd64

package runner

func isLegacyPollSyscall(int64) bool   { return false }
func isLegacySelectSyscall(int64) bool { return false }
