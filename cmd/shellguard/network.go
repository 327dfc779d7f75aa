package main

import (
	"context"
	"fmt"
	"io"

	"github.com/shellguard/shellguard/config"
	"github.com/shellguard/shellguard/sandbox"
)

// printNetwork writes the network mode and, in allowlist mode, every host
// of the effective allowlist with where it came from, as comment lines.
func printNetwork(w io.Writer, c *config.Config) {
	mode, ok := sandbox.ParseNetMode(c.Sandbox.Network)
	if !ok {
		return
	}
	switch mode {
	case sandbox.NetAllowlist:
		defer fmt.Fprintln(w, "#   the commands of one MCP or serve session share a loopback (a server one starts answers the next); a call may narrow the mode to off (network: off)")
		defer fmt.Fprintln(w, "#   name lookups inside are answered at once by a DNS stub: these hosts resolve (to an unroutable address: connect through the proxy), others do not exist")
	case sandbox.NetOff:
		defer fmt.Fprintln(w, "#   the commands of one MCP or serve session share a loopback (a server one starts answers the next)")
		defer fmt.Fprintln(w, "#   name lookups inside fail at once (a DNS stub answers that no name exists)")
	}
	switch mode {
	case sandbox.NetOff:
		fmt.Fprintln(w, "# network: off (loopback only; toolchains are told they are offline)")
		return
	case sandbox.NetOn:
		fmt.Fprintln(w, "# network: on (the host's network, unfiltered)")
		return
	}
	al := c.NetworkAllowlist(context.Background())
	fmt.Fprintf(w, "# network: allowlist (a proxy at %s inside the sandbox lets out only these hosts; a host without a port means 80 and 443)\n", sandbox.ProxyAddr)
	if len(al.Entries) == 0 {
		fmt.Fprintln(w, "#   (none: no toolchain registry found and sandbox.network_allow is empty)")
	}
	width := 0
	for _, e := range al.Entries {
		width = max(width, len(e.String()))
	}
	for _, e := range al.Entries {
		fmt.Fprintf(w, "#   %-*s  from %s\n", width, e.String(), e.Source)
	}
}
