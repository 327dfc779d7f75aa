package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// FuzzParseEntry: no panic; an accepted entry prints to a form that parses
// back to itself.
func FuzzParseEntry(f *testing.F) {
	for _, s := range []string{"registry.npmjs.org", "*.example.com:443", "[::1]:80", "10.0.0.0/8", "host:*",
		"a..b", "[::1", "1.2.3.4/99", "x:0", "*.*.x", "fe80::1%eth0", "[fd00::/8]:443", "\x00", "é.x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseEntry(s, "fuzz")
		if err != nil {
			return
		}
		e2, err := ParseEntry(e.String(), "fuzz")
		if err != nil || e2.String() != e.String() {
			t.Fatalf("%q -> %q -> %q, %v", s, e.String(), e2.String(), err)
		}
	})
}

// FuzzSOCKS: the greeting and request parsers never panic, and a parsed
// CONNECT request has a port and a host the checker accepts as input.
func FuzzSOCKS(f *testing.F) {
	f.Add([]byte{5, 1, 0, 5, 1, 0, 3, 4, 'a', '.', 'b', 'c', 0, 80})
	f.Add([]byte{5, 1, 0, 5, 1, 0, 1, 127, 0, 0, 1, 1, 187})
	f.Add([]byte{5, 1, 0, 5, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 22})
	f.Add([]byte{5, 2, 0, 2, 5, 2, 0, 3, 0})
	f.Add([]byte{5, 0})
	f.Add([]byte{5, 255})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		if err := readSocksGreeting(r, io.Discard); err != nil {
			return
		}
		req, code, err := readSocksRequest(r)
		if err != nil {
			if code == socksOK {
				t.Fatalf("error %v with code OK", err)
			}
			return
		}
		if req.Cmd != 1 || req.Port < 1 || req.Port > 65535 {
			t.Fatalf("accepted %+v", req)
		}
		p := New(Options{Lookup: func(context.Context, string) ([]netip.Addr, error) { return nil, errors.New("no") }})
		if _, err := p.Check(context.Background(), req.Host, req.Port); err == nil {
			t.Fatalf("empty allowlist allowed %+v", req)
		}
	})
}

// FuzzCheck: host names from the wire never panic the checker, and with
// an allowlist of one name, only that name (in any spelling) resolves.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"registry.test", "REGISTRY.test.", "x.registry.test", "127.0.0.1", "[::1]",
		"localhost", "169.254.169.254", "::ffff:169.254.169.254", "registry.test\x00", "", ".", "a..b"} {
		f.Add(s, 443)
	}
	var al Allowlist
	al.Add("fuzz", "registry.test")
	p := New(Options{Allow: al, Lookup: func(_ context.Context, h string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("198.51.100.7")}, nil
	}})
	f.Fuzz(func(t *testing.T, host string, port int) {
		addrs, err := p.Check(context.Background(), host, port)
		if err != nil {
			return
		}
		n, _ := NormalizeName(host)
		if n != "registry.test" || (port != 80 && port != 443) || len(addrs) != 1 {
			t.Fatalf("allowed %q:%d -> %v", host, port, addrs)
		}
	})
}

// FuzzHandle: whatever a client sends, the proxy answers or closes, never
// panics, and never dials (the allowlist is empty).
func FuzzHandle(f *testing.F) {
	for _, s := range []string{
		"CONNECT registry.test:443 HTTP/1.1\r\nHost: registry.test:443\r\n\r\n",
		"GET http://registry.test/x HTTP/1.1\r\nHost: registry.test\r\n\r\n",
		"CONNECT [::1]:443 HTTP/1.1\r\n\r\n",
		"CONNECT :443 HTTP/1.1\r\n\r\n",
		"GET http://[::1/ HTTP/1.1\r\n\r\n",
		"POST http://a.b:99999/ HTTP/1.0\r\nContent-Length: 5\r\n\r\nhello",
		"\x05\x01\x00\x05\x01\x00\x03\x01a\x00\x50",
		"\x04\x01\x00\x50\x7f\x00\x00\x01\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dialed := false
		p := New(Options{
			Lookup: func(context.Context, string) ([]netip.Addr, error) {
				return []netip.Addr{netip.MustParseAddr("198.51.100.7")}, nil
			},
			Dial: func(context.Context, string, string) (net.Conn, error) {
				dialed = true
				return nil, errors.New("no dialling in the fuzzer")
			},
			HeaderTimeout: time.Second,
		})
		p.handle(&byteConn{r: bytes.NewReader(b)}, nil)
		if dialed {
			t.Fatalf("dialled for %q", b)
		}
		for _, r := range p.Since(0) {
			if r.Allowed {
				t.Fatalf("allowed %+v", r)
			}
			if strings.ContainsAny(r.Host, "\r\n") && r.Proto != "socks5" {
				t.Fatalf("host with a line break %q", r.Host)
			}
		}
	})
}

// byteConn is a connection whose client sent b and then closed.
type byteConn struct {
	net.Conn
	r *bytes.Reader
}

func (c *byteConn) Read(p []byte) (int, error)      { return c.r.Read(p) }
func (c *byteConn) Write(p []byte) (int, error)     { return len(p), nil }
func (c *byteConn) Close() error                    { return nil }
func (c *byteConn) SetReadDeadline(time.Time) error { return nil }
func (c *byteConn) SetDeadline(time.Time) error     { return nil }
func (c *byteConn) RemoteAddr() net.Addr            { return &net.TCPAddr{} }
func (c *byteConn) LocalAddr() net.Addr             { return &net.TCPAddr{} }

// FuzzDNSRespond: the stub never panics; what it answers parses, is a
// response to the query's ID with at most one question, and holds an
// address only for a name it was asked about that is allowed or local.
func FuzzDNSRespond(f *testing.F) {
	f.Add(query(f, 1, "registry.test.", dnsmessage.TypeA, false))
	f.Add(query(f, 2, "registry.test.", dnsmessage.TypeAAAA, true))
	f.Add(query(f, 3, "other.test.", dnsmessage.TypeA, true))
	f.Add(query(f, 4, "x.localhost.", dnsmessage.TypeAAAA, false))
	f.Add(query(f, 5, "a.pattern.test.", dnsmessage.TypeMX, false))
	two := query(f, 6, "registry.test.", dnsmessage.TypeA, false)
	two[5] = 2
	f.Add(append(two, two[12:]...))
	f.Add([]byte{0, 7, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1})
	f.Add([]byte{0, 8, 0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0, 9})
	d := stubFor(f, "registry.test", "*.pattern.test")
	f.Fuzz(func(t *testing.T, q []byte) {
		r, ok := d.Respond(q)
		if !ok {
			return
		}
		if len(q) < 12 {
			t.Fatalf("answered a query of %d bytes", len(q))
		}
		var m dnsmessage.Message
		if err := m.Unpack(r); err != nil {
			t.Fatalf("reply does not parse: %v", err)
		}
		if !m.Header.Response || m.Header.ID != uint16(q[0])<<8|uint16(q[1]) || len(m.Questions) > 1 {
			t.Fatalf("reply header %+v, %d questions", m.Header, len(m.Questions))
		}
		if len(m.Answers) == 0 {
			return
		}
		if len(m.Answers) != 1 || len(m.Questions) != 1 || m.Header.RCode != dnsmessage.RCodeSuccess {
			t.Fatalf("answers %+v to %+v", m.Answers, m.Questions)
		}
		name, err := NormalizeName(m.Questions[0].Name.String())
		if err != nil || !(isLocalhostName(name) || name == "registry.test" || strings.HasSuffix(name, ".pattern.test")) {
			t.Fatalf("an address for %q", m.Questions[0].Name.String())
		}
	})
}

// FuzzRequestHead: the proxy's request parser never panics; a request it
// accepts net/http accepts too, for the same destination; and the head it
// forwards is one request net/http reads back in origin form, for the
// URL's host, with none of the proxy's own fields.
func FuzzRequestHead(f *testing.F) {
	for _, s := range []string{
		"GET http://registry.test/pkg HTTP/1.1\r\nHost: x\r\nProxy-Authorization: Basic eA==\r\n\r\n",
		"CONNECT registry.test:443 HTTP/1.1\r\nHost: registry.test:443\r\n\r\n",
		"POST http://[::1]:8080/a?b=c HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc",
		"GET /relative HTTP/1.1\r\n\r\n", "GET ftp://h/ HTTP/1.1\r\n\r\n", "garbage\r\n\r\n",
		"GET http://h/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n", "G(T http://h/ HTTP/1.1\r\n\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rh, err := readRequestHead(bufio.NewReader(strings.NewReader(s)))
		if err != nil {
			return
		}
		req, herr := http.ReadRequest(bufio.NewReader(strings.NewReader(s)))
		if herr != nil {
			t.Fatalf("%q: accepted (%s:%d), net/http refuses it: %v", s, rh.host, rh.port, herr)
		}
		target := req.Host
		if rh.connect {
			target = req.RequestURI
		}
		if h, p, err := SplitHostPort(target, 80); err != nil || h != rh.host || p != rh.port {
			t.Fatalf("%q: destination %s:%d, net/http %q", s, rh.host, rh.port, target)
		}
		if rh.connect {
			return
		}
		fw, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(rh.forward)))
		if err != nil {
			t.Fatalf("%q: the forwarded head %q does not parse: %v", s, rh.forward, err)
		}
		if fw.Method != req.Method || fw.RequestURI != req.URL.RequestURI() || fw.Host != req.URL.Host ||
			fw.Header.Get("Proxy-Authorization") != "" || fw.Header.Get("Proxy-Connection") != "" || !fw.Close {
			t.Fatalf("%q: forwarded %q", s, rh.forward)
		}
	})
}
