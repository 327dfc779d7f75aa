package netproxy

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// query packs a query for name and type, with an EDNS0 record when opt.
func query(t testing.TB, id uint16, name string, typ dnsmessage.Type, opt bool) []byte {
	t.Helper()
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: id, RecursionDesired: true})
	b.StartQuestions()
	if err := b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName(name), Type: typ, Class: dnsmessage.ClassINET}); err != nil {
		t.Fatal(err)
	}
	if opt {
		b.StartAdditionals()
		var rh dnsmessage.ResourceHeader
		rh.SetEDNS0(1232, dnsmessage.RCodeSuccess, false)
		if err := b.OPTResource(rh, dnsmessage.OPTResource{}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// stubFor is a stub whose allowlist is specs.
func stubFor(t testing.TB, specs ...string) *DNSStub {
	t.Helper()
	var al Allowlist
	if err := al.Add("test", specs...); err != nil {
		t.Fatal(err)
	}
	return &DNSStub{Allowed: al.AllowsName}
}

// stubReply is what a reply says: its rcode, question names and answers.
type stubReply struct {
	msg   dnsmessage.Message
	rcode dnsmessage.RCode
	addrs []string
}

func parseReply(t testing.TB, b []byte) stubReply {
	t.Helper()
	var m dnsmessage.Message
	if err := m.Unpack(b); err != nil {
		t.Fatalf("reply does not parse: %v (% x)", err, b)
	}
	a := stubReply{msg: m, rcode: m.Header.RCode}
	for _, r := range m.Answers {
		switch body := r.Body.(type) {
		case *dnsmessage.AResource:
			a.addrs = append(a.addrs, netip.AddrFrom4(body.A).String())
		case *dnsmessage.AAAAResource:
			a.addrs = append(a.addrs, netip.AddrFrom16(body.AAAA).String())
		default:
			a.addrs = append(a.addrs, r.Body.GoString())
		}
		if r.Header.TTL > 5 {
			t.Errorf("TTL %d", r.Header.TTL)
		}
	}
	if !m.Header.Response || m.Header.RecursionAvailable {
		t.Errorf("header %+v: want a response, no recursion offered", m.Header)
	}
	return a
}

func TestDNSStubAnswers(t *testing.T) {
	d := stubFor(t, "registry.test:8443", "*.pattern.test", "web.test", "all.test:*", "10.0.0.0/8", "listed.localhost")
	stub := StubAnswer.String()
	for _, c := range []struct {
		name  string
		typ   dnsmessage.Type
		rcode dnsmessage.RCode
		addrs string
	}{
		{"registry.test.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, stub}, // allowed on one port only: still a name to resolve
		{"REGISTRY.Test.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, stub},
		{"web.test.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, stub},
		{"all.test.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, stub},
		{"a.b.pattern.test.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, stub},
		{"registry.test.", dnsmessage.TypeAAAA, dnsmessage.RCodeSuccess, ""}, // empty: IPv4 only
		{"registry.test.", dnsmessage.TypeMX, dnsmessage.RCodeSuccess, ""},
		{"registry.test.", dnsmessage.TypeTXT, dnsmessage.RCodeSuccess, ""},
		{"pattern.test.", dnsmessage.TypeA, dnsmessage.RCodeNameError, ""}, // the pattern is for names under it
		{"other.test.", dnsmessage.TypeA, dnsmessage.RCodeNameError, ""},
		{"other.test.", dnsmessage.TypeAAAA, dnsmessage.RCodeNameError, ""},
		{"evilweb.test.", dnsmessage.TypeA, dnsmessage.RCodeNameError, ""},
		{"web.test.evil.", dnsmessage.TypeA, dnsmessage.RCodeNameError, ""},
		{"10.1.2.3.", dnsmessage.TypeA, dnsmessage.RCodeNameError, ""}, // a range lists addresses, not names
		{"localhost.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, "127.0.0.1"},
		{"x.localhost.", dnsmessage.TypeAAAA, dnsmessage.RCodeSuccess, "::1"},
		{"listed.localhost.", dnsmessage.TypeA, dnsmessage.RCodeSuccess, "127.0.0.1"}, // the namespace's own loopback
		{"bad!name.test.", dnsmessage.TypeA, dnsmessage.RCodeNameError, ""},
		{".", dnsmessage.TypeNS, dnsmessage.RCodeNameError, ""},
	} {
		for _, opt := range []bool{false, true} {
			q := query(t, 0x1234, c.name, c.typ, opt)
			r, ok := d.Respond(q)
			if !ok {
				t.Errorf("%s %v: dropped", c.name, c.typ)
				continue
			}
			a := parseReply(t, r)
			if a.rcode != c.rcode || strings.Join(a.addrs, ",") != c.addrs {
				t.Errorf("%s %v (opt %v): %v %v, want %v %q", c.name, c.typ, opt, a.rcode, a.addrs, c.rcode, c.addrs)
			}
			h := a.msg.Header
			if h.ID != 0x1234 || !h.RecursionDesired || !h.Authoritative {
				t.Errorf("%s: header %+v", c.name, h)
			}
			if len(a.msg.Questions) != 1 || !strings.EqualFold(a.msg.Questions[0].Name.String(), c.name) || a.msg.Questions[0].Type != c.typ {
				t.Errorf("%s: question not echoed: %+v", c.name, a.msg.Questions)
			}
			hasOPT := len(a.msg.Additionals) == 1 && a.msg.Additionals[0].Header.Type == dnsmessage.TypeOPT
			if hasOPT != opt || (!opt && len(a.msg.Additionals) > 0) {
				t.Errorf("%s: EDNS0 in query %v, reply additionals %+v", c.name, opt, a.msg.Additionals)
			}
		}
	}
}

// Off mode: no allowlist, every name but the machine's own is NXDOMAIN.
func TestDNSStubOff(t *testing.T) {
	d := &DNSStub{}
	for _, n := range []string{"registry.npmjs.org.", "proxy.golang.org.", "x.test."} {
		r, ok := d.Respond(query(t, 7, n, dnsmessage.TypeA, false))
		if a := parseReply(t, r); !ok || a.rcode != dnsmessage.RCodeNameError {
			t.Errorf("%s: %v %v", n, ok, a.rcode)
		}
	}
	r, _ := d.Respond(query(t, 7, "localhost.", dnsmessage.TypeA, false))
	if a := parseReply(t, r); a.rcode != dnsmessage.RCodeSuccess || len(a.addrs) != 1 || a.addrs[0] != "127.0.0.1" {
		t.Errorf("localhost: %v %v", a.rcode, a.addrs)
	}
}

// TestDNSStubUnknown: the stub tells Unknown every host name it answers
// NXDOMAIN for want of an allowlist entry, normalised, and nothing else
// (allowed names, the machine's own, malformed names).
func TestDNSStubUnknown(t *testing.T) {
	var got []string
	d := stubFor(t, "registry.test:443")
	d.Unknown = func(n string) { got = append(got, n) }
	for _, n := range []string{"registry.test.", "Other.TEST.", "localhost.", "x.localhost.", "bad!name.test.", "other.test."} {
		d.Respond(query(t, 9, n, dnsmessage.TypeA, false))
	}
	if want := []string{"other.test", "other.test"}; !slices.Equal(got, want) {
		t.Errorf("Unknown was told %q, want %q", got, want)
	}
	got = nil
	off := &DNSStub{Unknown: func(n string) { got = append(got, n) }}
	off.Respond(query(t, 9, "registry.test.", dnsmessage.TypeAAAA, false))
	off.Respond(query(t, 9, "localhost.", dnsmessage.TypeA, false))
	if want := []string{"registry.test"}; !slices.Equal(got, want) {
		t.Errorf("off mode: Unknown was told %q, want %q", got, want)
	}
}

func TestDNSStubMalformed(t *testing.T) {
	d := stubFor(t, "registry.test")
	good := query(t, 0xbeef, "registry.test.", dnsmessage.TypeA, false)
	withHeader := func(qd, an uint16, rest []byte) []byte {
		b := append([]byte(nil), good[:12]...)
		b[4], b[5] = byte(qd>>8), byte(qd)
		b[6], b[7] = byte(an>>8), byte(an)
		return append(b, rest...)
	}
	question := good[12:]
	manyQ := withHeader(40, 0, bytes.Repeat(question, 40))
	twoOPT := func() []byte {
		b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: 0xbeef})
		b.StartQuestions()
		b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName("registry.test."), Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET})
		b.StartAdditionals()
		for range 2 {
			var rh dnsmessage.ResourceHeader
			rh.SetEDNS0(1232, dnsmessage.RCodeSuccess, false)
			b.OPTResource(rh, dnsmessage.OPTResource{})
		}
		out, _ := b.Finish()
		return out
	}()
	response := append([]byte(nil), good...)
	response[2] |= 0x80
	notify := append([]byte(nil), good...)
	notify[2] |= 4 << 3
	chaos := append([]byte(nil), good...)
	chaos[len(chaos)-1] = 3
	dotted := withHeader(1, 0, []byte{5, 'a', '.', 'b', 'c', 0, 0, 1, 0, 1})
	oversized := withHeader(1, 0, append(append([]byte(nil), question...), make([]byte, MaxDNSQuery)...))
	for _, c := range []struct {
		name  string
		q     []byte
		drop  bool
		rcode dnsmessage.RCode
	}{
		{"empty", nil, true, 0},
		{"short header", good[:11], true, 0},
		{"a response", response, true, 0},
		{"header only", good[:12], false, dnsmessage.RCodeFormatError},
		{"no question", withHeader(0, 0, nil), false, dnsmessage.RCodeFormatError},
		{"truncated question", good[:len(good)-2], false, dnsmessage.RCodeFormatError},
		{"two questions", withHeader(2, 0, append(append([]byte(nil), question...), question...)), false, dnsmessage.RCodeFormatError},
		{"40 questions", manyQ, false, dnsmessage.RCodeFormatError},
		{"65535 questions claimed", withHeader(65535, 0, question), false, dnsmessage.RCodeFormatError},
		{"an answer claimed, none sent", withHeader(1, 1, question), false, dnsmessage.RCodeFormatError},
		{"two OPT records", twoOPT, false, dnsmessage.RCodeFormatError},
		{"a dot inside a label", dotted, false, dnsmessage.RCodeFormatError},
		{"a pointer loop", withHeader(1, 0, []byte{0xc0, 12, 0, 1, 0, 1}), false, dnsmessage.RCodeFormatError},
		{"oversized", oversized, false, dnsmessage.RCodeFormatError},
		{"NOTIFY", notify, false, dnsmessage.RCodeNotImplemented},
		{"class CHAOS", chaos, false, dnsmessage.RCodeRefused},
	} {
		r, ok := d.Respond(c.q)
		if c.drop {
			if ok {
				t.Errorf("%s: answered % x", c.name, r)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: dropped", c.name)
			continue
		}
		a := parseReply(t, r)
		if a.rcode != c.rcode || len(a.addrs) != 0 || a.msg.Header.ID != 0xbeef {
			t.Errorf("%s: %v %v id %x, want %v and no answer", c.name, a.rcode, a.addrs, a.msg.Header.ID, c.rcode)
		}
		if len(a.msg.Questions) > 1 {
			t.Errorf("%s: %d questions in the reply", c.name, len(a.msg.Questions))
		}
	}
}

// TestDNSStubServeUDP: over a real socket on 127.0.0.1, each query is
// answered, never more than maxDNSInFlight at once, and ServeUDP returns
// once the socket is closed.
func TestDNSStubServeUDP(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var cur, peak, calls atomic.Int64
	d := &DNSStub{Allowed: func(name string) bool {
		n := cur.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		calls.Add(1)
		<-release
		cur.Add(-1)
		return name == "registry.test"
	}}
	done := make(chan error, 1)
	go func() { done <- d.ServeUDP(pc) }()
	c, err := net.Dial("udp", pc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n = maxDNSInFlight + 8
	for i := range n {
		name := "other.test."
		if i%2 == 0 {
			name = "registry.test."
		}
		if _, err := c.Write(query(t, uint16(i), name, dnsmessage.TypeA, false)); err != nil {
			t.Fatal(err)
		}
	}
	// Every slot taken: the rest wait in the socket's buffer.
	deadline := time.Now().Add(20 * time.Second)
	for cur.Load() < maxDNSInFlight && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	// A stub without the bound would start the rest meanwhile (a pause
	// that only strengthens the check, never fails it).
	time.Sleep(200 * time.Millisecond)
	close(release)
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	got := map[uint16]dnsmessage.RCode{}
	buf := make([]byte, 2048)
	for len(got) < n {
		k, err := c.Read(buf)
		if err != nil {
			t.Fatalf("after %d replies: %v", len(got), err)
		}
		a := parseReply(t, buf[:k])
		got[a.msg.Header.ID] = a.rcode
	}
	for i := range n {
		want := dnsmessage.RCodeNameError
		if i%2 == 0 {
			want = dnsmessage.RCodeSuccess
		}
		if got[uint16(i)] != want {
			t.Errorf("query %d: %v, want %v", i, got[uint16(i)], want)
		}
	}
	if p := peak.Load(); p > maxDNSInFlight || calls.Load() != n {
		t.Errorf("peak %d in flight (bound %d), %d calls for %d queries", p, maxDNSInFlight, calls.Load(), n)
	}
	pc.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeUDP: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ServeUDP did not return after Close")
	}
}

// AllowsName follows the proxy's own rules for names: the stub answers a
// name exactly when the proxy would connect to it on some port.
func TestAllowsNameAgreesWithCheck(t *testing.T) {
	var al Allowlist
	if err := al.Add("test", "registry.test:8443", "*.pattern.test", "web.test", "1.2.3.4", "localhost:3000", "*.localhost"); err != nil {
		t.Fatal(err)
	}
	p := New(Options{Allow: al, Lookup: func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("192.0.2.7")}, nil
	}})
	defer p.Close()
	for _, name := range []string{"registry.test", "web.test", "x.pattern.test", "pattern.test", "other.test", "1.2.3.4",
		"localhost", "x.localhost", "LOCALHOST", "bad..name"} {
		some := false
		for _, port := range []int{80, 443, 8443, 3000} {
			if _, err := p.Check(context.Background(), name, port); err == nil {
				some = true
			}
		}
		if _, err := netip.ParseAddr(name); err == nil {
			some = false // an address is not a name to look up
		}
		if got := al.AllowsName(name); got != some {
			t.Errorf("AllowsName(%q) = %v, Check allows some port: %v", name, got, some)
		}
	}
}

// A grant on one listener lets its stub resolve the name; the proxy's
// other listeners do not.
func TestAttachedAllowsName(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	var extra Allowlist
	extra.Add("granted", "granted.test:443")
	var as []*Attached
	for _, x := range []Allowlist{extra, {}} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, p.AttachWith(l, x))
	}
	if !as[0].AllowsName("granted.test") || as[1].AllowsName("granted.test") || as[0].AllowsName("other.test") {
		t.Errorf("grants: %v %v %v", as[0].AllowsName("granted.test"), as[1].AllowsName("granted.test"), as[0].AllowsName("other.test"))
	}
	for _, a := range as {
		a.Close()
	}
}

// TestDNSStubServeTCP: queries over TCP, each with its length, answered
// in turn on one connection; a length over the bound ends the
// connection; ServeTCP returns once the listener is closed, closing the
// connections still open.
func TestDNSStubServeTCP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := stubFor(t, "registry.test")
	done := make(chan error, 1)
	go func() { done <- d.ServeTCP(l) }()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(20 * time.Second))
		return c
	}
	ask := func(c net.Conn, id uint16, name string) (stubReply, error) {
		q := query(t, id, name, dnsmessage.TypeA, false)
		if _, err := c.Write(append([]byte{byte(len(q) >> 8), byte(len(q))}, q...)); err != nil {
			return stubReply{}, err
		}
		var hdr [2]byte
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return stubReply{}, err
		}
		b := make([]byte, int(hdr[0])<<8|int(hdr[1]))
		if _, err := io.ReadFull(c, b); err != nil {
			return stubReply{}, err
		}
		return parseReply(t, b), nil
	}
	c := dial()
	for i, q := range []struct {
		name  string
		rcode dnsmessage.RCode
	}{{"registry.test.", dnsmessage.RCodeSuccess}, {"other.test.", dnsmessage.RCodeNameError}} {
		a, err := ask(c, uint16(i), q.name)
		if err != nil || a.rcode != q.rcode || a.msg.Header.ID != uint16(i) {
			t.Fatalf("%s over TCP: %v %v", q.name, a.rcode, err)
		}
	}
	if _, err := c.Write([]byte{0xff, 0xff}); err != nil {
		t.Fatal(err)
	}
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatalf("read %d bytes after an oversized length", n)
	}
	// A connection still open when the listener closes is closed.
	open := dial()
	if _, err := ask(open, 9, "registry.test."); err != nil {
		t.Fatal(err)
	}
	l.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeTCP: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ServeTCP did not return after Close")
	}
	if n, err := open.Read(make([]byte, 1)); err == nil {
		t.Errorf("a connection is still open after ServeTCP returned (read %d)", n)
	}
}

// A yes to OnAsk lets the attachment's stub resolve the name too (the
// stub reads the grants while the question is answered: -race watches
// that); a no does not.
func TestAttachedAllowsNameAfterAsk(t *testing.T) {
	e := newEnv(t)
	up := strconv.Itoa(e.upPort)
	e.proxy.opt.Lookup = fakeDNS(map[string][]string{"yes.test": {"127.0.0.1"}, "no.test": {"127.0.0.1"}})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := e.proxy.AttachWith(l, Allowlist{})
	defer a.Close()
	a.OnAsk(func(_ context.Context, hp string) bool { return strings.HasPrefix(hp, "yes.test:") })
	if a.AllowsName("yes.test") {
		t.Fatal("yes.test resolves before anyone was asked")
	}
	stop := make(chan struct{})
	lookups := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				lookups <- n
				return
			default:
				a.AllowsName("yes.test")
				n++
			}
		}
	}()
	pu, _ := url.Parse("http://" + l.Addr().String())
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}, Timeout: 30 * time.Second}
	for host, want := range map[string]int{"yes.test": 200, "no.test": 403} {
		if code, _ := get(t, c, "http://"+host+":"+up+"/"); code != want {
			t.Errorf("%s: %d, want %d", host, code, want)
		}
	}
	close(stop)
	<-lookups
	if !a.AllowsName("yes.test") || a.AllowsName("no.test") {
		t.Errorf("after the answers: yes.test %v, no.test %v", a.AllowsName("yes.test"), a.AllowsName("no.test"))
	}
}
