package sandbox

import (
	"context"
	"errors"
	"time"
)

// Describe runs `exit 0` in the sandbox spec describes, with env and in
// spec.Workspace, and returns what the helper enforced: the same Applied
// a command's result carries, with the writable roots as the helper
// resolved them. A face uses it to tell its users what commands will
// meet. The binary must call Main first thing.
func Describe(spec Spec, env []string) (Applied, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for attempt := 0; attempt < 2; attempt++ {
		cmd, h, err := Command(ctx, spec, "exit 0", env, spec.Workspace)
		if err != nil {
			return Applied{Mode: spec.Mode}, err
		}
		if err := cmd.Start(); err != nil {
			if h.StartFailed(err) {
				continue
			}
			return Applied{Mode: spec.Mode}, err
		}
		h.Started()
		a, aerr := h.Applied()
		werr := cmd.Wait()
		h.Close()
		return a, errors.Join(aerr, werr)
	}
	return Applied{Mode: spec.Mode}, errors.New("sandbox: could not start the helper")
}

// Words names the applied protections in a few words each, for a tool
// description: "namespaces (user, mount, pid, net)", "read-only outside
// the writable roots", "home secrets hidden", "landlock", "seccomp", "no
// privileges", "rlimits". Empty when nothing was applied.
func (a Applied) Words() []string { return wordsOf(a) }
