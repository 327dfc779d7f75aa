package sandbox

import (
	"testing"

	"github.com/shellguard/shellguard/sandbox/netproxy"
)

func TestWithNetMode(t *testing.T) {
	p := netproxy.New(netproxy.Options{})
	defer p.Close()
	on, allow, off := Spec{Network: true, Proxy: p}, Spec{Proxy: p}, Spec{}
	for _, c := range []struct {
		spec Spec
		mode string
		want string // the mode after, or "error"
	}{
		{on, "off", NetOff}, {on, "allowlist", NetAllowlist}, {on, "on", NetOn}, {on, "true", NetOn},
		{allow, "off", NetOff}, {allow, "none", NetOff}, {allow, "allowlist", NetAllowlist}, {allow, "on", "error"},
		{off, "off", NetOff}, {off, "allowlist", "error"}, {off, "on", "error"},
		{Spec{Network: true}, "allowlist", "error"}, // no proxy to narrow to
		{allow, "wide", "error"},
	} {
		got, err := c.spec.WithNetMode(c.mode)
		mode := got.NetMode()
		if err != nil {
			mode = "error"
		}
		if mode != c.want {
			t.Errorf("%s narrowed to %q: %s (%v), want %s", c.spec.NetMode(), c.mode, mode, err, c.want)
		}
	}
	if got := allow.NetModes(); len(got) != 2 || got[0] != NetOff || got[1] != NetAllowlist {
		t.Errorf("NetModes under allowlist = %v", got)
	}
}
