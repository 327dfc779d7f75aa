package policy

import (
	"errors"
	"fmt"
	"path"
)

// ErrSystemWorkspace is returned by CheckWorkspace for a workspace that
// is "/" or a system directory.
var ErrSystemWorkspace = errors.New("the workspace is the root or a system directory")

// CheckWorkspace validates a workspace directory against the home
// directory, both absolute. A workspace that is "/", a system directory
// (/usr, /etc, /var, …) or a direct child of one that belongs to the
// system (/usr/local, /var/lib) confines nothing: it is refused with an
// error wrapping ErrSystemWorkspace. The home directory itself is allowed
// with a warning: every file in it but configuration, keys and documents
// is then writable. The floor does not depend on the workspace either
// way: Check denies deleting "/", a system directory or home whatever the
// workspace is.
func CheckWorkspace(ws, home string) (warning string, err error) {
	if !path.IsAbs(ws) {
		return "", fmt.Errorf("policy: workspace %q is not an absolute path", ws)
	}
	ws = path.Clean(ws)
	if home != "" {
		home = path.Clean(home)
	}
	if systemWorkspace(ws, home) {
		return "", fmt.Errorf("policy: workspace %q: %w; run from a project directory or set the workspace to one", ws, ErrSystemWorkspace)
	}
	if home != "" && ws == home {
		return "the workspace is the home directory: commands may write and delete any file in it except configuration, keys and documents; prefer a project directory", nil
	}
	return "", nil
}
