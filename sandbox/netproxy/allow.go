// Package netproxy is the network proxy of the sandbox's allowlist mode:
// one listener that speaks HTTP (absolute-URI requests and CONNECT, no TLS
// interception) and SOCKS5, and lets a connection through only when its
// host name and port are on an allowlist.
//
// Every connection is checked by name first: IP literals and localhost
// aliases are refused unless an entry names them, and names are matched
// exactly or by a "*.example.com" pattern. An allowed name is then
// resolved here, every address it resolves to is checked (link-local and
// cloud-metadata addresses are always refused; loopback and private ones
// only pass when the name itself or a range covering the address is
// listed), and the proxy dials the checked address, never the name again,
// so a second resolution cannot bring in another address (DNS rebinding).
//
// A refusal is answered at once: 403 with a body that names the host and
// the setting that would allow it, or a SOCKS5 "not allowed by ruleset"
// reply. Every connection is recorded with its outcome and the bytes sent
// each way.
//
// The package does not decide which hosts are allowed (the caller passes
// the list, see Discover), does not intercept or inspect TLS, and does
// not authenticate clients: it is meant to be reachable only from inside
// the sandbox's network namespace.
package netproxy

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Setting is the configuration key that adds hosts; refusals name it.
const Setting = "sandbox.network_allow"

// Entry is one allowed destination.
type Entry struct {
	// Host is a lower-case host name, a "*.example.com" pattern (any name
	// under example.com, not example.com itself), an IP address or a
	// CIDR range ("10.0.0.0/8").
	Host string `json:"host"`
	// Port is the allowed port; 0 means the web ports (80 and 443) and
	// AnyPort every port.
	Port int `json:"port,omitempty"`
	// Source says where the entry came from ("npm config get registry",
	// "user config sandbox.network_allow", …).
	Source string `json:"source,omitempty"`

	prefix netip.Prefix // for IP and CIDR entries
}

// AnyPort as Entry.Port allows every port ("host:*").
const AnyPort = -1

// String is the entry as it is written in the configuration.
func (e Entry) String() string {
	h := e.Host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	switch e.Port {
	case 0:
		return h
	case AnyPort:
		return h + ":*"
	}
	return h + ":" + strconv.Itoa(e.Port)
}

// ParseEntry parses "host", "host:port", "host:*", "*.example.com[:port]",
// "1.2.3.4[:port]", "[::1][:port]" or "10.0.0.0/8[:port]".
func ParseEntry(s, source string) (Entry, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return Entry{}, errors.New("empty host")
	}
	e := Entry{Source: source}
	host, portStr := s, ""
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return Entry{}, fmt.Errorf("%q: missing ]", orig)
		}
		host, portStr = s[1:end], s[end+1:]
		if portStr != "" {
			if portStr[0] != ':' {
				return Entry{}, fmt.Errorf("%q: unexpected text after ]", orig)
			}
			portStr = portStr[1:]
			if portStr == "" {
				return Entry{}, fmt.Errorf("%q: empty port", orig)
			}
		}
	} else if i := strings.LastIndexByte(s, ':'); i >= 0 && strings.Count(s, ":") == 1 {
		host, portStr = s[:i], s[i+1:]
		if portStr == "" {
			return Entry{}, fmt.Errorf("%q: empty port", orig)
		}
	}
	switch portStr {
	case "":
	case "*":
		e.Port = AnyPort
	default:
		p, err := parsePort(portStr)
		if err != nil {
			return Entry{}, fmt.Errorf("%q: %v", orig, err)
		}
		e.Port = p
	}
	if strings.Contains(host, "/") {
		p, err := netip.ParsePrefix(host)
		if err != nil {
			return Entry{}, fmt.Errorf("%q: bad address range: %v", orig, err)
		}
		e.prefix = p.Masked()
		e.Host = e.prefix.String()
		return e, nil
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return Entry{}, fmt.Errorf("%q: an address with a zone", orig)
		}
		a = a.Unmap()
		e.prefix = netip.PrefixFrom(a, a.BitLen())
		e.Host = a.String()
		return e, nil
	}
	name := host
	wild := strings.HasPrefix(name, "*.")
	if wild {
		name = name[2:]
	}
	n, err := NormalizeName(name)
	if err != nil {
		return Entry{}, fmt.Errorf("%q: %v", orig, err)
	}
	if wild {
		n = "*." + n
	}
	e.Host = n
	return e, nil
}

func parsePort(s string) (int, error) {
	if s == "" || len(s) > 5 {
		return 0, fmt.Errorf("bad port %q", s)
	}
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 || s[0] == '+' || s[0] == '-' {
		return 0, fmt.Errorf("bad port %q", s)
	}
	return p, nil
}

// NormalizeName lower-cases a DNS host name and drops one trailing dot. It
// refuses anything that is not a plain name: empty labels, characters
// other than letters, digits, '-' and '_', labels over 63 bytes, names
// over 253.
func NormalizeName(s string) (string, error) {
	s = strings.TrimSuffix(strings.ToLower(s), ".")
	if s == "" {
		return "", errors.New("empty host name")
	}
	if len(s) > 253 {
		return "", errors.New("host name longer than 253 bytes")
	}
	label := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if label == 0 {
				return "", fmt.Errorf("bad host name %q: empty label", s)
			}
			label = 0
			continue
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return "", fmt.Errorf("bad host name %q: character %q", s, c)
		}
		label++
		if label > 63 {
			return "", fmt.Errorf("bad host name %q: label longer than 63 bytes", s)
		}
	}
	if label == 0 {
		return "", fmt.Errorf("bad host name %q: empty label", s)
	}
	return s, nil
}

// Allowlist is an ordered list of entries. The zero value allows nothing.
type Allowlist struct {
	Entries []Entry
}

// Add appends the entries of specs (see ParseEntry), all with source.
func (a *Allowlist) Add(source string, specs ...string) error {
	var errs []error
	for _, s := range specs {
		e, err := ParseEntry(s, source)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		a.Entries = append(a.Entries, e)
	}
	return errors.Join(errs...)
}

// Remove drops every entry whose host and port are those of spec (a
// project file may only remove). It reports whether any was dropped.
func (a *Allowlist) Remove(spec string) (bool, error) {
	e, err := ParseEntry(spec, "")
	if err != nil {
		return false, err
	}
	kept := a.Entries[:0]
	dropped := false
	for _, x := range a.Entries {
		if x.Host == e.Host && (e.Port == 0 || x.Port == e.Port) {
			dropped = true
			continue
		}
		kept = append(kept, x)
	}
	a.Entries = kept
	return dropped, nil
}

// Hosts lists the entries as written, without duplicates, in order.
func (a *Allowlist) Hosts() []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range a.Entries {
		if s := e.String(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// portOK reports whether e allows port; AnyPort asks whether it allows
// some port (always).
func (e Entry) portOK(port int) bool {
	if port == AnyPort {
		return true
	}
	switch e.Port {
	case AnyPort:
		return true
	case 0:
		return port == 80 || port == 443
	}
	return port == e.Port
}

// matchName returns the entry that allows name:port, exact entries first.
// exact reports whether it names the host itself (not by a pattern).
func (a *Allowlist) matchName(name string, port int) (e Entry, exact, ok bool) {
	for _, x := range a.Entries {
		if x.Host == name && x.portOK(port) {
			return x, true, true
		}
	}
	for _, x := range a.Entries {
		if suf, wild := strings.CutPrefix(x.Host, "*"); wild && strings.HasSuffix(name, suf) && len(name) > len(suf) && x.portOK(port) {
			return x, false, true
		}
	}
	return Entry{}, false, false
}

// matchAddr returns the IP or range entry that covers addr:port.
func (a *Allowlist) matchAddr(addr netip.Addr, port int) (Entry, bool) {
	for _, x := range a.Entries {
		if x.prefix.IsValid() && x.prefix.Contains(addr) && x.portOK(port) {
			return x, true
		}
	}
	return Entry{}, false
}

// isLocalhostName reports names that mean this machine whatever DNS says.
func isLocalhostName(n string) bool {
	return n == "localhost" || strings.HasSuffix(n, ".localhost") ||
		n == "localhost.localdomain" || n == "ip6-localhost" || n == "ip6-loopback"
}

// metadata are the cloud instance-metadata addresses outside the
// link-local ranges (those are refused as a class).
var metadata = []netip.Prefix{
	netip.MustParsePrefix("100.100.100.200/32"), // Alibaba Cloud
	netip.MustParsePrefix("fd00:ec2::254/128"),  // AWS over IPv6
	netip.MustParsePrefix("168.63.129.16/32"),   // Azure's wire server
}

// addrClass says why an address is never, or only when listed, dialled.
// forbidden: link-local, metadata, unspecified or multicast, always
// refused; local: loopback or private, allowed only when listed.
func addrClass(a netip.Addr) (forbidden, local bool, why string) {
	a = a.Unmap()
	for _, p := range metadata {
		if p.Contains(a) {
			return true, false, "a cloud metadata address"
		}
	}
	switch {
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return true, false, "a link-local address (cloud metadata lives there)"
	case a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast():
		return true, false, "an unspecified or multicast address"
	case a.Is4() && a.As4()[0] == 0:
		return true, false, "an address in 0.0.0.0/8"
	case a.IsLoopback():
		return false, true, "a loopback address"
	case a.IsPrivate() || cgnat.Contains(a):
		return false, true, "a private address"
	}
	return false, false, ""
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")
