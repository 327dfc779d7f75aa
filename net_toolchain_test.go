package shellguard

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/internal/testenv"
	"github.com/shellguard/shellguard/sandbox"
	"github.com/shellguard/shellguard/sandbox/netproxy"
)

// TestToolchainsThroughAllowlist runs this machine's real toolchains in
// the default network mode: the allowlist derived from their own
// configuration, caches in a fresh directory (so the module is not in the
// cache). A toolchain is skipped, with the reason, only where it is not
// installed or has no registry configured.
func TestToolchainsThroughAllowlist(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("talks to the configured registries; linux only")
	}
	scratch, err := os.MkdirTemp("/var/tmp", "sg-net-test-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(scratch)
	ws, cache := filepath.Join(scratch, "ws"), filepath.Join(scratch, "cache")
	os.Mkdir(ws, 0o755)
	os.Mkdir(cache, 0o700)
	home, _ := os.UserHomeDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	al := netproxy.Discover(ctx, netproxy.DiscoverOptions{Home: home})
	sources := map[string]bool{}
	for _, e := range al.Entries {
		sources[strings.Fields(e.Source)[0]] = true
	}
	t.Logf("allowlist: %v", al.Hosts())
	p := netproxy.New(netproxy.Options{Allow: al})
	defer p.Close()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	for _, k := range []string{"GOPROXY", "GOSUMDB", "GOFLAGS"} {
		if v := os.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	g, err := New(Config{Workspace: ws, Sandbox: &sandbox.Spec{Proxy: p, CacheDir: cache}, Environ: env})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	run := func(t *testing.T, cmd string) Result {
		t.Helper()
		res, err := g.Run(ctx, Request{Command: cmd, Timeout: 150 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if res.Sandbox == nil || res.Sandbox.Network != sandbox.NetAllowlist {
			testenv.SkipOrFail(t, "allowlist mode not applied: %v", res.SandboxWarnings)
		}
		return res
	}
	t.Run("npm", func(t *testing.T) {
		if _, err := exec.LookPath("npm"); err != nil || !sources["npm"] {
			t.Skip("npm not installed or no registry configured")
		}
		res := run(t, "npm view is-number version && npm install --no-audit --no-fund --no-save is-number@7.0.0 && cat node_modules/is-number/package.json")
		if res.ExitCode == nil || *res.ExitCode != 0 || !strings.Contains(res.Stdout, `"name": "is-number"`) {
			t.Fatalf("npm through the proxy: %+v", res)
		}
	})
	t.Run("go", func(t *testing.T) {
		if _, err := exec.LookPath("go"); err != nil || !sources["go"] {
			t.Skip("go not installed or no module proxy configured")
		}
		res := run(t, "GOFLAGS=-mod=mod go mod download -json rsc.io/quote@v1.5.2")
		if res.ExitCode == nil || *res.ExitCode != 0 || !strings.Contains(res.Stdout, `"Zip"`) {
			t.Fatalf("go mod download through the proxy: %+v", res)
		}
	})
	t.Run("refused", func(t *testing.T) {
		if _, err := exec.LookPath("curl"); err != nil {
			t.Skip("curl not installed")
		}
		start := time.Now()
		res := run(t, "curl -sS -m 20 https://unlisted.invalid/")
		if d := time.Since(start); d > 20*time.Second || !strings.Contains(res.Stderr+res.Stdout, "403") ||
			!strings.Contains(strings.Join(res.SandboxWarnings, " "), "unlisted.invalid:443") {
			t.Fatalf("refusal (%v): %+v", d, res)
		}
	})
}
