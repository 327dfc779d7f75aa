package sandbox

import (
	"fmt"
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

// TestNetUseGrantable: a host is offered for a grant only when every one
// of its refusals is one an entry naming it would lift.
func TestNetUseGrantable(t *testing.T) {
	var u NetUse
	u.fill([]netproxy.Conn{
		{Host: "a.test", Port: 443, Grantable: true},
		{Host: "a.test", Port: 443, Grantable: true},
		{Host: "169.254.169.254", Port: 80},
		{Host: "b.test", Port: 443, Grantable: true},
		{Host: "b.test", Port: 443}, // later resolved to a forbidden address
		{Host: "ok.test", Port: 443, Allowed: true},
	})
	if got := fmt.Sprint(u.Refused); got != "[169.254.169.254:80 a.test:443 b.test:443]" {
		t.Errorf("refused %s", got)
	}
	if got := fmt.Sprint(u.Grantable); got != "[a.test:443]" {
		t.Errorf("grantable %s", got)
	}
}

func TestNetGrantEntries(t *testing.T) {
	al, err := NetGrantEntries([]string{"a.test:443", "127.0.0.1:8080", "[::1]:99"})
	if err != nil || fmt.Sprint(al.Hosts()) != "[a.test:443 127.0.0.1:8080 [::1]:99]" {
		t.Fatalf("%v %v", al.Hosts(), err)
	}
	for _, bad := range []string{"a.test", "a.test:*", "*.a.test:443", "10.0.0.0/8:443", "", "a b:1"} {
		if _, err := NetGrantEntries([]string{bad}); err == nil {
			t.Errorf("%q accepted as a grant", bad)
		}
	}
}
