package shellguard

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The limits a request may set, and the one rule every face (library, CLI,
// MCP, HTTP) applies to them: a value outside its range is refused with
// the range, never clamped or silently replaced by the default. "Not
// given" is the only way to get the default.

// LimitError says which request field is out of range and what the range
// is.
type LimitError struct {
	Field  string // "timeout", "max_output", "cwd"
	Reason string // e.g. "0 is out of range: give seconds above 0, at most 600"
}

func (e *LimitError) Error() string { return e.Field + ": " + e.Reason }

// CheckTimeout accepts a requested timeout above 0 and at most max (0:
// 600 s, the default Config.MaxTimeout). A face checks a request with the
// Guard's values (Guard.Config) before asking anyone to approve it; Run
// applies the same check.
func CheckTimeout(d, max time.Duration) error {
	if max <= 0 {
		max = defaultMaxTimeout
	}
	if d > 0 && d <= max {
		return nil
	}
	return &LimitError{Field: "timeout", Reason: fmt.Sprintf("%s is out of range: give seconds above 0, at most %s (timeout.max)",
		seconds(d), seconds(max))}
}

// CheckMaxOutput accepts a requested per-stream capture size from 1 byte
// to max, the bytes a command may write in total (0: 1 GiB, the default
// Config.MaxTotalOutput).
func CheckMaxOutput(n int, max int64) error {
	if max <= 0 {
		max = defaultMaxTotal
	}
	if n > 0 && int64(n) <= max {
		return nil
	}
	return &LimitError{Field: "max_output", Reason: fmt.Sprintf("%d is out of range: give bytes from 1 to %d (output.max_total_bytes)", n, max)}
}

// ResolveCwd makes cwd absolute (relative to workspace) and accepts it
// when it is an existing directory inside workspace or one of roots,
// symbolic links resolved. Empty cwd is the workspace. A Guard's are
// Config().Workspace and Config().Rules.AllowedRoots.
func ResolveCwd(cwd, workspace string, roots []string) (string, error) {
	if strings.TrimSpace(cwd) == "" {
		return workspace, nil
	}
	bad := func(format string, args ...any) error {
		return &LimitError{Field: "cwd", Reason: fmt.Sprintf(format, args...)}
	}
	if strings.IndexByte(cwd, 0) >= 0 {
		return "", bad("contains a NUL byte")
	}
	p := cwd
	if !filepath.IsAbs(p) {
		p = filepath.Join(workspace, p)
	}
	p = filepath.Clean(p)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", bad("%q does not exist", cwd)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return "", bad("%q is not a directory", cwd)
	}
	for _, r := range append([]string{workspace}, roots...) {
		if r == "" {
			continue
		}
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			rr = filepath.Clean(r)
		}
		if within(real, rr) {
			return p, nil
		}
	}
	return "", bad("%q is outside the workspace %s and the allowed roots", cwd, workspace)
}

func within(p, root string) bool {
	if p == root {
		return true
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}
