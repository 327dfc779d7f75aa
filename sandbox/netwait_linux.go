//go:build linux

package sandbox

import (
	"sync"

	"golang.org/x/sys/unix"

	"github.com/shellguard/shellguard/sandbox/netproxy"
)

// netWait holds the descriptors of a command's proxy listener and DNS
// stub until the command first uses one of them (a connection or a query
// waits on it), and only then serves them (attachNet, attachDNS): serving
// them takes the parent half a millisecond of work, which it did while
// bash started, and most commands never use the network. Until then
// connections wait in the listener's queue and queries in the socket's.
type netWait struct {
	mu     sync.Mutex
	fds    netFDs
	wake   int           // an eventfd: closeNetWait wakes the watcher
	served bool          // the watcher served the descriptors (and let go of them)
	closed bool          // the run ended first: the watcher closes them
	done   chan struct{} // closed when the watcher returns
}

// prepareNet takes the network's descriptors the helper sent (each -1
// when not sent): the run's NetUse is made now, so that the report holds
// it, and the descriptors are served once one of them is readable.
func (h *Handle) prepareNet(nf netFDs) {
	if nf.proxy >= 0 && (h.proxy == nil || h.applied.Network != NetAllowlist) {
		unix.Close(nf.proxy)
		nf.proxy = -1
	}
	if nf.dns < 0 && nf.dnsTCP >= 0 {
		unix.Close(nf.dnsTCP)
		nf.dnsTCP = -1
	}
	if nf.proxy >= 0 {
		extra, err := NetGrantEntries(h.netGrants)
		if err != nil { // checked by the caller: a bad grant allows nothing
			extra = netproxy.Allowlist{}
		}
		h.netUse = &NetUse{Proxy: ProxyAddr, Granted: extra.Hosts()}
		h.applied.Net = h.netUse
	}
	if nf.dns >= 0 {
		// The names looked up in vain go into the run's NetUse, made
		// here in the off mode (where no proxy makes one): the report
		// the caller holds shares it, and gets them at Close.
		if h.applied.Net == nil {
			h.applied.Net = &NetUse{}
		}
		h.dnsUse = h.applied.Net
	}
	if nf.proxy < 0 && nf.dns < 0 {
		return
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		// Served at once, as the command may use them any time.
		h.attachNet(nf.proxy)
		h.attachDNS(nf.dns, nf.dnsTCP)
		return
	}
	w := &netWait{fds: nf, wake: wake, done: make(chan struct{})}
	h.netWait = w
	go h.awaitNet(w)
}

// awaitNet waits, in a poll of its own (no descriptor enters the
// runtime's poller before it is served), until a descriptor of w is
// readable or closeNetWait wakes it, then serves them or closes them.
func (h *Handle) awaitNet(w *netWait) {
	pfd := []unix.PollFd{{Fd: int32(w.wake), Events: unix.POLLIN}}
	for _, fd := range []int{w.fds.proxy, w.fds.dns, w.fds.dnsTCP} {
		if fd >= 0 {
			pfd = append(pfd, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
		}
	}
	for {
		if _, err := unix.Poll(pfd, -1); err != unix.EINTR {
			break
		}
	}
	defer close(w.done)
	w.mu.Lock()
	defer w.mu.Unlock()
	unix.Close(w.wake)
	if w.closed {
		w.fds.close()
		return
	}
	w.served = true
	h.attachNet(w.fds.proxy)
	h.attachDNS(w.fds.dns, w.fds.dnsTCP) // after attachNet: it asks the command's listener
}

// closeNetWait ends the wait at the end of the run: descriptors not
// served by then are closed by the watcher, without being waited for;
// served ones are closed by closeNet and closeDNS, which come after.
func (h *Handle) closeNetWait() {
	w := h.netWait
	if w == nil {
		return
	}
	h.netWait = nil
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.served {
		w.closed = true
		one := []byte{1, 0, 0, 0, 0, 0, 0, 0}
		unix.Write(w.wake, one)
	}
}

// lockNet holds off the watcher while the caller changes what serving
// the descriptors uses (grants, the question about refused hosts); the
// returned func lets it go.
func (h *Handle) lockNet() func() {
	w := h.netWait
	if w == nil {
		return func() {}
	}
	w.mu.Lock()
	return w.mu.Unlock
}

// netWarn records why the network could not be served, with the post-run
// warnings (the report was given before).
func (h *Handle) netWarn(s string) {
	if h.post != nil {
		h.post.Warnings = append(h.post.Warnings, s)
	}
}
