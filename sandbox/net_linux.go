//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/shellguard/shellguard/sandbox/netproxy"
)

// netMsg prefixes the message that carries the proxy listener on the
// report channel (before the connect supervisor's 'L' and the report).
const netMsg = 'N'

// proxyListener opens the proxy's listening socket on the loopback of the
// command's network namespace and hands it to the parent over fd 3: the
// parent accepts there, so the namespace stays loopback-only and no
// process inside ever holds a socket of the host's network.
func (h *helper) proxyListener(loopbackOK bool) {
	if !h.hs.Proxy {
		return
	}
	fail := func(err error) {
		// Not a missing protection: without its listener the command
		// has no network at all, stricter than asked.
		h.applied.Unavailable = append(h.applied.Unavailable, Layer{Name: LayerNetProxy, Reason: err.Error(),
			Fix: "the allowlist needs the network namespace with loopback up"})
	}
	if !h.hs.NetNS || !h.applied.Has(LayerNetNS) || !loopbackOK {
		fail(errors.New("no network namespace of its own"))
		return
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		fail(fmt.Errorf("socket: %w", err))
		return
	}
	defer unix.Close(fd)
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	// In the session's namespace, where other commands' proxies listen
	// too, a free port: the command's variables are pointed at it before
	// bash starts (proxyEnv).
	port := ProxyPort
	if h.hs.SharedNet {
		port = 0
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		fail(fmt.Errorf("bind 127.0.0.1:%d: %w", port, err))
		return
	}
	sa, err := unix.Getsockname(fd)
	in4, ok := sa.(*unix.SockaddrInet4)
	if err != nil || !ok {
		fail(fmt.Errorf("getsockname: %v", err))
		return
	}
	addr := "127.0.0.1:" + strconv.Itoa(in4.Port)
	if err := unix.Listen(fd, 128); err != nil {
		fail(fmt.Errorf("listen: %w", err))
		return
	}
	if err := unix.Sendmsg(3, []byte{netMsg}, unix.UnixRights(fd), nil, 0); err != nil {
		fail(fmt.Errorf("send listener: %w", err))
		return
	}
	h.ok(LayerNetProxy, "allowlist proxy at "+addr+" (HTTP, CONNECT, SOCKS5); nothing else leaves the namespace")
	h.netProxy, h.proxyAddr = true, addr
}

// proxyEnv points the proxy settings of env (set to ProxyAddr by the
// parent, proxyEnv in net.go) at the port the listener got, when that is
// not ProxyPort.
func (h *helper) proxyEnv(env []string) []string {
	if !h.netProxy || h.proxyAddr == ProxyAddr {
		return env
	}
	out := make([]string, len(env))
	for i, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.Contains(v, "://"+ProxyAddr) {
			kv = k + "=" + strings.ReplaceAll(v, "://"+ProxyAddr, "://"+h.proxyAddr)
		}
		out[i] = kv
	}
	return out
}

// netFDs are the network's descriptors a helper sends: the proxy's
// listener and the DNS stub's socket and listener (dns_linux.go), each
// -1 when not sent.
type netFDs struct{ proxy, dns, dnsTCP int }

// takeNetFDs splits the network's messages off the front of the report
// channel's data: their descriptors, and the rest. A message that comes
// twice closes the first one's descriptor.
func takeNetFDs(data []byte, fds []int) ([]byte, []int, netFDs) {
	nf := netFDs{-1, -1, -1}
	for len(data) > 0 && len(fds) > 0 && (data[0] == netMsg || data[0] == dnsMsg || data[0] == dnsTCPMsg) {
		p := &nf.proxy
		switch data[0] {
		case dnsMsg:
			p = &nf.dns
		case dnsTCPMsg:
			p = &nf.dnsTCP
		}
		if *p >= 0 {
			unix.Close(*p)
		}
		*p = fds[0]
		data, fds = data[1:], fds[1:]
	}
	return data, fds, nf
}

func (nf netFDs) close() {
	for _, fd := range []int{nf.proxy, nf.dns, nf.dnsTCP} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// attachNet serves the listener the helper sent (prepareNet kept it) with
// the spec's proxy, once the command first connects (netWait). The
// grants are those known then (grantNet). Without it the command's
// connections are refused: a warning says why.
func (h *Handle) attachNet(fd int) {
	if fd < 0 {
		return
	}
	f := os.NewFile(uintptr(fd), "sandbox-netproxy")
	l, err := net.FileListener(f)
	f.Close()
	if err != nil {
		h.netWarn("the allowlist proxy could not serve the command's listener: " + err.Error())
		return
	}
	extra, err := NetGrantEntries(h.netGrants)
	if err != nil { // checked by the caller: a bad grant allows nothing
		extra = netproxy.Allowlist{}
	}
	// The question is in place before the first connection is served:
	// the listener is served once a connection waits (netwait_linux.go).
	h.netAtt = h.proxy.AttachAsking(l, extra, h.askFunc())
}

// grantNet allows grants (Spec.NetGrants) on a warm helper's proxy
// listener, which was attached when the helper was warmed, before its
// command and what was granted to it (a session's hosts, a remembered
// grant given since) were known.
func (h *Handle) grantNet(grants []string) {
	defer h.lockNet()() // not served yet: attachNet takes them
	h.netGrants = grants
	if len(grants) == 0 {
		return
	}
	extra, err := NetGrantEntries(grants)
	if err != nil { // checked by the caller: a bad grant allows nothing
		return
	}
	if h.netAtt != nil {
		h.netAtt.Allow(extra)
	}
	if h.netUse != nil {
		h.netUse.Granted = append(h.netUse.Granted, extra.Hosts()...)
	}
}

// installAsk gives the command's proxy listener the question of
// OnNetAsk, once both exist (a warm helper's listener is attached before
// its command arrives).
func (h *Handle) installAsk() {
	if ask := h.askFunc(); ask != nil && h.netAtt != nil {
		h.netAtt.OnAsk(ask)
	}
}

// askFunc is the question of OnNetAsk as the proxy puts it, recording
// the answers (nil without OnNetAsk).
func (h *Handle) askFunc() func(ctx context.Context, hostport string) bool {
	ask := h.netAsk
	if ask == nil {
		return nil
	}
	return func(ctx context.Context, hp string) bool {
		ok := ask(ctx, hp)
		h.netMu.Lock()
		if h.netAsked == nil {
			h.netAsked = map[string]bool{}
		}
		h.netAsked[hp] = ok
		h.netMu.Unlock()
		return ok
	}
}

// OnNetAsk makes a connection the allowlist proxy refuses, where a grant
// of exactly its host:port would let it through, wait while fn is asked
// (once per destination and run, netproxy.AskTimeout at most): true lets
// it and the run's later connections to it through. NetUse.Asked reports
// the answers. Call it before Applied; without the allowlist mode it does
// nothing.
func (h *Handle) OnNetAsk(fn func(ctx context.Context, hostport string) bool) {
	defer h.lockNet()() // not served yet: attachNet installs it
	h.netAsk = fn
	h.installAsk()
}

// closeNet stops serving the command's listener and fills in its records.
func (h *Handle) closeNet() {
	if h.netAtt == nil {
		return
	}
	recs := h.netAtt.Close()
	h.netAtt = nil
	if h.netUse != nil {
		h.netUse.fill(recs)
		h.netMu.Lock()
		for hp, ok := range h.netAsked {
			h.netUse.Asked = append(h.netUse.Asked, hp)
			if ok {
				h.netUse.Granted = append(h.netUse.Granted, hp)
			}
		}
		h.netMu.Unlock()
		slices.Sort(h.netUse.Asked)
	}
}

// threadGroup returns the thread group (process) of thread tid, or -1.
func threadGroup(tid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", tid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Tgid:"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n
			}
		}
	}
	return -1
}
