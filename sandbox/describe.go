package sandbox

import (
	"context"
	"errors"
	"strings"
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
func (a Applied) Words() []string {
	var out, ns []string
	for _, n := range []struct{ layer, word string }{
		{LayerUserNS, "user"}, {LayerMountNS, "mount"}, {LayerPidNS, "pid"}, {LayerNetNS, "net"},
	} {
		if a.Has(n.layer) {
			ns = append(ns, n.word)
		}
	}
	if len(ns) > 0 {
		out = append(out, "namespaces ("+strings.Join(ns, ", ")+")")
	}
	if a.Has(LayerReadOnlyRoot) {
		out = append(out, "read-only outside the writable roots")
	}
	if a.Has(LayerMasks) {
		out = append(out, "home secrets hidden")
	}
	if a.Has(LayerLandlockFS) {
		out = append(out, "landlock")
	}
	if a.Has(LayerSeccomp) {
		out = append(out, "seccomp")
	}
	if a.Has(LayerCaps) && a.Has(LayerNoNewPrivs) {
		out = append(out, "no privileges")
	}
	if a.Has(LayerRootMap) {
		out = append(out, "not root on the host")
	}
	if a.Has(LayerOverlay) {
		out = append(out, "copy-on-write workspace")
	}
	if a.Has(LayerRlimits) {
		out = append(out, "rlimits")
	}
	return out
}
