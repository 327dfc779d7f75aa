package config

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shellguard/shellguard/sandbox"
	"github.com/shellguard/shellguard/sandbox/netproxy"
)

// NetworkAllowlist is the effective allowlist of the allowlist mode, each
// entry with where it came from: what the machine's toolchains are
// configured to use (netproxy.Discover, run with the user's environment
// in HOME, never in the project), then sandbox.network_allow, less every
// host of sandbox.network_deny. It asks the toolchains (or their cached
// answers), so it may take seconds the first time.
func (c *Config) NetworkAllowlist(ctx context.Context) netproxy.Allowlist {
	al := netproxy.Discover(ctx, netproxy.DiscoverOptions{Workspace: c.Workspace, CacheFile: networkCacheFile()})
	c.applyNetworkLists(&al)
	return al
}

func (c *Config) applyNetworkLists(al *netproxy.Allowlist) {
	for i, h := range c.Sandbox.NetworkAllow {
		src := netproxy.SourceUser
		if s, ok := c.Provenance[fmt.Sprintf("sandbox.network_allow[%d]", i)]; ok {
			src = s.String() + " (sandbox.network_allow)"
		}
		al.Add(src, h) // validated when loaded
	}
	for _, h := range c.Sandbox.NetworkDeny {
		al.Remove(h)
	}
}

// networkCacheFile keeps the toolchains' answers (see netproxy.Discover).
func networkCacheFile() string {
	d, err := os.UserCacheDir()
	if err != nil || d == "" {
		return ""
	}
	return filepath.Join(d, "shellguard", "netallow.json")
}

// networkSpec sets the network mode of spec: on, off, or allowlist with a
// proxy whose list is derived at its first connection.
func (c *Config) networkSpec(spec *sandbox.Spec) error {
	mode, ok := sandbox.ParseNetMode(c.Sandbox.Network)
	if !ok {
		return fmt.Errorf("sandbox.network: want off, allowlist or on, got %q", c.Sandbox.Network)
	}
	// The proxy is there in on mode too, so that a request may narrow
	// the network to the allowlist (Spec.WithNetMode); it derives its
	// list at its first connection, so an unused one costs nothing.
	if mode != sandbox.NetOff {
		cc := *c
		spec.Proxy = netproxy.New(netproxy.Options{Discover: func() netproxy.Allowlist {
			return cc.NetworkAllowlist(context.Background())
		}})
	}
	spec.Network = mode == sandbox.NetOn
	return nil
}
