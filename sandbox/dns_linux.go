//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/shellguard/shellguard/sandbox/netproxy"
)

// The DNS stub of the off and allowlist modes. The command's network
// namespace holds only loopback, so the resolver /etc/resolv.conf names
// is out of reach: a lookup fails with a temporary error ("Temporary
// failure in name resolution"), which package managers retry for tens of
// seconds, or waits for its timeout. The helper opens a UDP socket at
// port 53 of the namespace's loopback, hands it out like the proxy's
// listener, and binds a resolv.conf that names it over /etc/resolv.conf
// in the command's mount namespace; shellguard answers there from the
// allowlist alone (netproxy.DNSStub): a name the proxy would let through
// resolves, any other is NXDOMAIN, at once. Nothing is forwarded.

// dnsMsg and dnsTCPMsg prefix the messages that carry the stub's UDP
// socket and TCP listener on the report channel (after the proxy
// listener's netMsg).
const (
	dnsMsg    = 'D'
	dnsTCPMsg = 'T'
)

// resolvConfPath is the file the stub's resolv.conf goes over.
const resolvConfPath = "/etc/resolv.conf"

// dnsAddrs are the addresses the stub may take, at port 53: 127.0.0.1,
// where resolvers look when resolv.conf names none, and in a session's
// namespace, where other commands' stubs may hold it, the first free of
// 127.0.53.1-254. No command can take one: ports below 1024 need a
// capability the helper drops.
func dnsAddrs(shared bool) []netip.Addr {
	out := []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1})}
	if shared {
		for i := 1; i < 255; i++ {
			out = append(out, netip.AddrFrom4([4]byte{127, 0, 53, byte(i)}))
		}
	}
	return out
}

// dnsStub opens the stub's socket, binds the resolv.conf naming it over
// /etc/resolv.conf and hands the socket to the parent over fd 3. Like the
// proxy's listener, it is no protection: without it lookups fail slowly,
// so it is reported as unavailable, never as missing.
func (h *helper) dnsStub(loopbackOK bool) {
	if !h.hs.NetNS || h.hs.Network {
		return
	}
	fail := func(err error) {
		h.applied.Unavailable = append(h.applied.Unavailable, Layer{Name: LayerDNS, Reason: err.Error(),
			Fix: "the DNS stub needs the network namespace with loopback up and the mount namespace"})
	}
	switch {
	case !h.applied.Has(LayerNetNS) || !loopbackOK:
		fail(errors.New("no network namespace of its own"))
		return
	case !h.mountsPrivate:
		// A mount here could reach the host's mount table.
		fail(errors.New("no private mount namespace to name the stub in " + resolvConfPath))
		return
	}
	fd, addr, err := bindDNS(h.hs.SharedNet)
	if err != nil {
		fail(err)
		return
	}
	defer unix.Close(fd)
	where := resolvConfPath
	if err := bindFileOver(resolvConfPath, resolvConf(addr)); err != nil {
		// Without the file, resolvers ask 127.0.0.1: the stub there
		// still answers.
		if !errors.Is(err, os.ErrNotExist) || addr != dnsAddrs(false)[0] {
			fail(fmt.Errorf("naming the stub in %s: %w", resolvConfPath, err))
			return
		}
		where = "no " + resolvConfPath + ": the default"
	}
	// TCP too, for resolvers told to use it ("options use-vc"): no
	// answer of the stub is ever truncated, so nothing else asks for it.
	// Both go out in one message.
	msg, rights := []byte{dnsMsg}, []int{fd}
	proto := "UDP and TCP"
	if tfd, err := listenDNSTCP(addr); err != nil {
		proto = "UDP only (TCP: " + err.Error() + ")"
	} else {
		defer unix.Close(tfd)
		msg, rights = append(msg, dnsTCPMsg), append(rights, tfd)
	}
	if err := unix.Sendmsg(3, msg, unix.UnixRights(rights...), nil, 0); err != nil {
		fail(fmt.Errorf("send the stub's sockets: %w", err))
		return
	}
	answers := "every name NXDOMAIN (no network)"
	if h.hs.Proxy {
		answers = "names the allowlist lets through resolve to " + netproxy.StubAnswer.String() +
			" (unroutable: connect through the proxy), every other name NXDOMAIN"
	}
	h.ok(LayerDNS, "stub at "+addr.String()+":53, "+proto+" ("+where+"): "+answers+"; nothing is forwarded")
}

// bindDNS opens the stub's UDP socket on the first free of dnsAddrs.
func bindDNS(shared bool) (int, netip.Addr, error) {
	var last error
	for _, a := range dnsAddrs(shared) {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return -1, a, fmt.Errorf("socket: %w", err)
		}
		// No SO_REUSEADDR: a second socket on a stub's address would
		// share its queries.
		err = unix.Bind(fd, &unix.SockaddrInet4{Port: 53, Addr: a.As4()})
		if err == nil {
			return fd, a, nil
		}
		unix.Close(fd)
		if err != unix.EADDRINUSE {
			return -1, a, fmt.Errorf("bind %s:53: %w", a, err)
		}
		last = err
	}
	return -1, netip.Addr{}, fmt.Errorf("every address of the stub is taken: %w", last)
}

// listenDNSTCP opens the stub's TCP listener at addr:53.
func listenDNSTCP(addr netip.Addr) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: 53, Addr: addr.As4()}); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("bind %s:53: %w", addr, err)
	}
	if err := unix.Listen(fd, 16); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("listen: %w", err)
	}
	return fd, nil
}

// resolvConf is the resolv.conf that names the stub at addr. The
// resolvers' default timeout stays: the stub answers at once, except the
// first lookup of an allowlist mode, which waits for the list to be
// derived (Proxy.Allowlist, seconds at worst).
func resolvConf(addr netip.Addr) []byte {
	return []byte("# shellguard sandbox: a DNS stub outside the sandbox answers here from the network\n" +
		"# allowlist (sandbox.network); it never forwards a query.\n" +
		"nameserver " + addr.String() + "\n")
}

// bindFileOver mounts a read-only file holding data over target, a
// regular file or a symbolic link. A link is covered itself, not
// followed: /etc/resolv.conf often links into /run (systemd-resolved),
// which the sandbox replaces, so its target may not exist inside; and
// nothing on the host is read or written. The file lives on the
// process's scratch tmpfs (scratchFile). Call it in a private mount
// namespace.
func bindFileOver(target string, data []byte) error {
	fi, err := os.Lstat(target)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
		return fmt.Errorf("%s is neither a file nor a link", target)
	}
	tfd, err := scratchFile(data, 0o444)
	if err != nil {
		return err
	}
	defer unix.Close(tfd)
	// Without MOVE_MOUNT_T_SYMLINKS a link at target is not followed.
	if err := unix.MoveMount(tfd, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount %s: %w", target, err)
	}
	return nil
}

// scratch is a detached tmpfs for the files a helper generates and binds
// over others (resolv.conf, passwd, group): one per process, made on
// first use, never attached anywhere itself.
var scratch struct {
	sync.Mutex
	mfd int // 0: not made yet
	n   int
}

// scratchFile writes data to a new file of mode on the scratch tmpfs and
// returns a read-only detached mount of that file alone, to move over a
// target (the caller closes it).
func scratchFile(data []byte, mode uint32) (int, error) {
	scratch.Lock()
	defer scratch.Unlock()
	if scratch.mfd == 0 {
		fsfd, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
		if err != nil {
			return -1, fmt.Errorf("fsopen: %w", err)
		}
		defer unix.Close(fsfd)
		for _, kv := range [][2]string{{"size", "2m"}, {"nr_inodes", "16"}, {"mode", "0755"}} {
			if err := unix.FsconfigSetString(fsfd, kv[0], kv[1]); err != nil {
				return -1, fmt.Errorf("fsconfig %s: %w", kv[0], err)
			}
		}
		if err := unix.FsconfigCreate(fsfd); err != nil {
			return -1, fmt.Errorf("fsconfig: %w", err)
		}
		mfd, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
		if err != nil {
			return -1, fmt.Errorf("fsmount: %w", err)
		}
		scratch.mfd = mfd
	}
	scratch.n++
	name := "f" + strconv.Itoa(scratch.n)
	fd, err := unix.Openat(scratch.mfd, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, mode)
	if err != nil {
		return -1, err
	}
	for b := data; len(b) > 0; {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			unix.Close(fd)
			return -1, err
		}
		b = b[n:]
	}
	unix.Close(fd)
	tfd, err := unix.OpenTree(scratch.mfd, name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("open_tree: %w", err)
	}
	if err := unix.MountSetattr(tfd, "", unix.AT_EMPTY_PATH, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		unix.Close(tfd)
		return -1, fmt.Errorf("mount_setattr: %w", err)
	}
	return tfd, nil
}

// dnsServe is the parent's side of a command's stub.
type dnsServe struct {
	pc      net.PacketConn
	l       net.Listener // nil: UDP only
	unknown unknownNames
}

// maxUnknownNames bounds the names a command's result lists as looked up
// in vain; past it they are counted.
const maxUnknownNames = 16

// unknownNames are the names a command's stub answered NXDOMAIN because
// no allowlist entry lets them through, each once, in the order first
// asked.
type unknownNames struct {
	mu    sync.Mutex
	names []string
	more  int
}

func (u *unknownNames) add(name string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	switch {
	case slices.Contains(u.names, name):
	case len(u.names) < maxUnknownNames:
		u.names = append(u.names, name)
	default:
		u.more++ // may count a name twice: a bound, not a tally
	}
}

// attachDNS answers on the socket and listener the helper sent (each -1
// when not sent): from the command's proxy listener's allowlist (grants
// included) in allowlist mode, NXDOMAIN to every name without one.
func (h *Handle) attachDNS(fd, tcpFD int) {
	var l net.Listener
	if tcpFD >= 0 {
		f := os.NewFile(uintptr(tcpFD), "sandbox-dns-tcp")
		l, _ = net.FileListener(f) // without it, UDP alone
		f.Close()
	}
	if fd < 0 {
		if l != nil {
			l.Close()
		}
		return
	}
	f := os.NewFile(uintptr(fd), "sandbox-dns")
	pc, err := net.FilePacketConn(f)
	f.Close()
	if err != nil {
		if l != nil {
			l.Close()
		}
		h.netWarn("the DNS stub could not serve the command's socket: " + err.Error())
		return
	}
	d := &dnsServe{pc: pc, l: l}
	stub := &netproxy.DNSStub{Unknown: d.unknown.add}
	if h.netAtt != nil {
		stub.Allowed = h.netAtt.AllowsName
	}
	go stub.ServeUDP(pc)
	if l != nil {
		go stub.ServeTCP(l)
	}
	h.dns = d
}

// closeDNS stops the command's stub. It does not wait for the stub's
// goroutines, which end by themselves once their sockets are closed:
// this is on the way from the command's end to its result.
func (h *Handle) closeDNS() {
	if h.dns == nil {
		return
	}
	// Aside: each Close waits for the goroutine reading the socket to
	// wake up and let go of it. The command has ended; a query still
	// queued is not answered, and no name found after this is kept.
	go h.dns.pc.Close()
	if h.dns.l != nil {
		go h.dns.l.Close()
	}
	u := &h.dns.unknown
	u.mu.Lock()
	names, more := slices.Clone(u.names), u.more
	u.mu.Unlock()
	h.dns = nil
	h.dnsUse.noteUnknown(names, more)
}
