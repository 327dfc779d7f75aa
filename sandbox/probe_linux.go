//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Probe reports what this machine can enforce. It runs a real sandboxed
// `exit 0` in Auto mode (so the answer comes from the enforcing calls, as
// for a real command) and adds, for each missing layer, why and what would
// enable it. The binary must call Main first thing (shellguard and its
// test binaries do).
func Probe() Report {
	r := Report{Platform: "linux", UID: os.Getuid()}
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		r.Kernel = unix.ByteSliceToString(uts.Release[:])
	}
	ws, err := os.MkdirTemp("", "shellguard-doctor-")
	if err != nil {
		r.Summary = "cannot create a scratch workspace: " + err.Error()
		return r
	}
	defer os.RemoveAll(ws)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	if t := os.Getenv("TMPDIR"); t != "" {
		env = append(env, "TMPDIR="+t)
	}
	// A .git so that the git layer is exercised too.
	for _, d := range []string{".git/objects", ".git/refs/heads"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	os.WriteFile(filepath.Join(ws, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	a, runErr := probeRun(Spec{Workspace: ws}, env, ws)
	if p, why := HelperProgram([]string{ws}); why == "" {
		r.Helper = p + " (standalone, same build)"
	} else {
		r.Helper = "this executable (" + why + ")"
	}

	// The overlay is strict mode's alone: probed by a strict run of its own.
	if sa, err := probeRun(Spec{Workspace: ws, Mode: Strict}, env, ws); err == nil || len(sa.Layers) > 0 {
		for _, l := range sa.Layers {
			if l.Name == LayerOverlay {
				a.Layers = append(a.Layers, l)
			}
		}
		for _, m := range sa.Missing {
			if m.Name == LayerOverlay {
				a.Missing = append(a.Missing, m)
			}
		}
	}
	for _, name := range probedLayers(os.Getuid() == 0, true) {
		pr := ProbeResult{Layer: Layer{Name: name}}
		for _, l := range a.Layers {
			if l.Name == name {
				pr.OK, pr.Detail = true, l.Detail
			}
		}
		for _, m := range append(append([]Layer{}, a.Missing...), a.Unavailable...) {
			if m.Name == name {
				pr.Reason, pr.Fix = m.Reason, m.Fix
			}
		}
		if !pr.OK && pr.Reason == "" {
			if name == LayerLandlockNet && a.Has(LayerNetNS) {
				pr.OK, pr.Detail = true, "not needed: the network namespace already cuts the network"
			} else if runErr != nil {
				pr.Reason = runErr.Error()
			} else {
				pr.Reason = "not applied"
			}
		}
		if !pr.OK {
			pr.Reason, pr.Fix = explain(name, pr.Reason, pr.Fix)
		}
		r.Layers = append(r.Layers, pr)
	}
	var missing []string
	for _, l := range r.Layers {
		if li, _ := layerOf(l.Name); !l.OK && !li.bestEffort { // best effort, or strict mode's only: does not stop required mode
			missing = append(missing, l.Name)
		}
	}
	r.RequiredOK = len(missing) == 0 && runErr == nil
	switch {
	case runErr != nil && len(a.Layers) == 0:
		r.Summary = "the sandbox helper did not run: " + runErr.Error()
	case len(missing) == 0:
		r.Summary = "every layer is enforced: --sandbox required works here"
	case !a.Has(LayerUserNS):
		r.Summary = "no user namespaces: auto mode runs with Landlock + seccomp + rlimits only (missing: " + strings.Join(missing, ", ") + "); --sandbox required refuses to run"
	default:
		r.Summary = "auto mode runs without: " + strings.Join(missing, ", ") + "; --sandbox required refuses to run"
	}
	for _, l := range r.Layers {
		if l.Name == LayerCgroup && !l.OK {
			r.Summary += "; no cgroup v2 here, so memory, tasks and CPU are bounded per process (rlimits), not for the whole tree"
		}
	}
	return r
}

func probeRun(spec Spec, env []string, dir string) (Applied, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for attempt := 0; attempt < 2; attempt++ {
		cmd, h, err := Command(ctx, spec, "exit 0", env, dir)
		if err != nil {
			return Applied{}, err
		}
		if err := cmd.Start(); err != nil {
			if h.StartFailed(err) {
				continue
			}
			return Applied{}, err
		}
		h.Started()
		a, aerr := h.Applied()
		werr := cmd.Wait()
		h.Close()
		if aerr != nil {
			return a, aerr
		}
		if werr != nil {
			return a, fmt.Errorf("probe command: %w", werr)
		}
		return a, nil
	}
	return Applied{}, fmt.Errorf("could not start the helper")
}

// explain adds machine facts to a missing layer's reason and fix.
func explain(name, reason, fix string) (string, string) {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	li, _ := layerOf(name)
	switch li.facts {
	case userNSFacts:
		var facts []string
		if v := read("/proc/sys/user/max_user_namespaces"); v != "" {
			facts = append(facts, "user.max_user_namespaces="+v)
		}
		if v := read("/proc/sys/kernel/unprivileged_userns_clone"); v != "" {
			facts = append(facts, "kernel.unprivileged_userns_clone="+v)
		}
		if v := read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); v != "" {
			facts = append(facts, "kernel.apparmor_restrict_unprivileged_userns="+v)
		}
		if _, err := os.Stat("/.dockerenv"); err == nil {
			facts = append(facts, "inside a Docker container")
		}
		if len(facts) > 0 {
			reason += " [" + strings.Join(facts, ", ") + "]"
		}
	case landlockFacts:
		abi, err := llsys.LandlockGetABIVersion()
		if err != nil {
			reason += " [landlock_create_ruleset: " + err.Error() + "]"
		} else {
			reason += fmt.Sprintf(" [Landlock ABI %d]", abi)
		}
	}
	return reason, fix
}
