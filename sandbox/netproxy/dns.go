package netproxy

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// The DNS stub of the sandbox's network namespace. Inside it there is no
// resolver to reach (the namespace has only loopback), so a lookup that
// goes to the host's resolver fails with a temporary error, which package
// managers retry for tens of seconds, or waits for its timeout. The stub
// answers at once instead, from the allowlist alone: it never resolves,
// recurses or forwards.
//
//   - A name the allowlist lets through on some port gets an A record,
//     StubAnswer, an address no route inside the namespace leads to: a
//     tool that connects directly fails at once ("network is
//     unreachable") instead of hanging, while one that goes through the
//     proxy never asks (the proxy resolves outside). Its other types
//     (AAAA, MX, …) get an empty answer.
//   - The names of this machine (localhost, *.localhost) resolve to the
//     namespace's own loopback, as RFC 6761 asks of every resolver.
//   - Every other name is NXDOMAIN, at once.
//
// Malformed queries get FORMERR when their header can be read, and are
// dropped otherwise (as are responses, so two stubs never loop).

// StubAnswer is the address the stub gives the allowed names: TEST-NET-1
// (RFC 5737), never routed, and not loopback, so a tool that checks a
// resolved address against NO_PROXY still sends it to the proxy.
var StubAnswer = netip.AddrFrom4([4]byte{192, 0, 2, 1})

// MaxDNSQuery bounds a query the stub reads; a longer one is answered
// FORMERR. A query holds one name (at most 255 bytes) and an EDNS record:
// far less.
const MaxDNSQuery = 1024

// maxDNSInFlight bounds the queries answered at once: the first one waits
// for the allowlist to be derived (Proxy.Allowlist), and the socket's
// buffer holds what arrives meanwhile.
const maxDNSInFlight = 16

// stubTTL is the TTL of every answer: none is cached, so a host granted
// later resolves at once.
const stubTTL = 0

// stubUDPSize is the payload size the stub announces over EDNS0.
const stubUDPSize = 1232

// DNSStub answers the name lookups of one sandboxed command.
type DNSStub struct {
	// Allowed reports whether the proxy would let name through on some
	// port (see Allowlist.AllowsName); nil allows none (the off mode).
	Allowed func(name string) bool
	// Unknown, when set, is told each name answered NXDOMAIN because
	// Allowed refused it (a host name; not one malformed), so that the
	// command's result can say which hosts it looked for in vain. It is
	// called from the goroutines serving queries.
	Unknown func(name string)
}

// Respond answers one query. It returns false when the query is to be
// dropped (too short for a header, or not a query but a response).
func (d *DNSStub) Respond(query []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil || h.Response {
		return nil, false
	}
	reply := dnsmessage.Header{ID: h.ID, Response: true, OpCode: h.OpCode, Authoritative: true,
		RecursionDesired: h.RecursionDesired}
	fail := func(code dnsmessage.RCode, q *dnsmessage.Question, opt bool) ([]byte, bool) {
		reply.Authoritative = false
		reply.RCode = code
		return build(reply, q, nil, opt), true
	}
	if len(query) > MaxDNSQuery {
		return fail(dnsmessage.RCodeFormatError, nil, false)
	}
	if h.OpCode != 0 {
		return fail(dnsmessage.RCodeNotImplemented, nil, false)
	}
	// Exactly one question: no resolver sends more, and which of several
	// an answer is for would be ambiguous.
	qs, err := p.AllQuestions()
	if err != nil || len(qs) != 1 {
		return fail(dnsmessage.RCodeFormatError, nil, false)
	}
	q := qs[0]
	if err := p.SkipAllAnswers(); err != nil {
		return fail(dnsmessage.RCodeFormatError, &q, false)
	}
	if err := p.SkipAllAuthorities(); err != nil {
		return fail(dnsmessage.RCodeFormatError, &q, false)
	}
	opt := false
	for {
		rh, err := p.AdditionalHeader()
		if err == dnsmessage.ErrSectionDone {
			break
		}
		if err != nil {
			return fail(dnsmessage.RCodeFormatError, &q, false)
		}
		if rh.Type == dnsmessage.TypeOPT {
			if opt {
				// RFC 6891: more than one OPT record is FORMERR.
				return fail(dnsmessage.RCodeFormatError, &q, false)
			}
			opt = true
		}
		if err := p.SkipAdditional(); err != nil {
			return fail(dnsmessage.RCodeFormatError, &q, false)
		}
	}
	if q.Class != dnsmessage.ClassINET {
		return fail(dnsmessage.RCodeRefused, &q, opt)
	}
	name, err := NormalizeName(q.Name.String())
	if err != nil {
		// Not a host name: nothing the proxy could let through.
		reply.RCode = dnsmessage.RCodeNameError
		return build(reply, &q, nil, opt), true
	}
	local := isLocalhostName(name)
	if !local && (d.Allowed == nil || !d.Allowed(name)) {
		if d.Unknown != nil {
			d.Unknown(name)
		}
		reply.RCode = dnsmessage.RCodeNameError
		return build(reply, &q, nil, opt), true
	}
	var body dnsmessage.ResourceBody
	switch {
	case q.Type == dnsmessage.TypeA && local:
		body = &dnsmessage.AResource{A: [4]byte{127, 0, 0, 1}}
	case q.Type == dnsmessage.TypeAAAA && local:
		body = &dnsmessage.AAAAResource{AAAA: netip.IPv6Loopback().As16()}
	case q.Type == dnsmessage.TypeA:
		body = &dnsmessage.AResource{A: StubAnswer.As4()}
	}
	var ans *dnsmessage.Resource
	if body != nil {
		ans = &dnsmessage.Resource{Header: dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: stubTTL}, Body: body}
	}
	return build(reply, &q, ans, opt), true
}

// build packs a reply: the question (when known), the answer (or none),
// and an OPT record when the query had one.
func build(h dnsmessage.Header, q *dnsmessage.Question, ans *dnsmessage.Resource, opt bool) []byte {
	b := dnsmessage.NewBuilder(make([]byte, 0, 512), h)
	b.EnableCompression()
	err := b.StartQuestions()
	if err == nil && q != nil {
		err = b.Question(*q)
	}
	if err == nil {
		err = b.StartAnswers()
	}
	if err == nil && ans != nil {
		switch body := ans.Body.(type) {
		case *dnsmessage.AResource:
			err = b.AResource(ans.Header, *body)
		case *dnsmessage.AAAAResource:
			err = b.AAAAResource(ans.Header, *body)
		}
	}
	if err == nil && opt {
		err = b.StartAdditionals()
		if err == nil {
			var rh dnsmessage.ResourceHeader
			if err = rh.SetEDNS0(stubUDPSize, h.RCode, false); err == nil {
				err = b.OPTResource(rh, dnsmessage.OPTResource{})
			}
		}
	}
	out, berr := b.Finish()
	if err != nil || berr != nil {
		// Only a question the parser accepted gets here, which packs:
		// should it not, the header alone still answers.
		h.RCode = dnsmessage.RCodeServerFailure
		b := dnsmessage.NewBuilder(make([]byte, 0, 12), h)
		out, _ = b.Finish()
	}
	return out
}

// ServeUDP answers the queries that arrive on pc until it is closed, at
// most maxDNSInFlight at once, and then waits for those. It returns nil
// once pc is closed.
func (d *DNSStub) ServeUDP(pc net.PacketConn) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	sem := make(chan struct{}, maxDNSInFlight)
	// One byte over the bound: a longer datagram is cut to it, and so
	// still known to be too long.
	buf := make([]byte, MaxDNSQuery+1)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		q := append([]byte(nil), buf[:n]...)
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if r, ok := d.Respond(q); ok {
				pc.WriteTo(r, from)
			}
		}()
	}
}

// dnsTCPIdle bounds the wait for a query on a TCP connection.
const dnsTCPIdle = 10 * time.Second

// ServeTCP answers queries over TCP (each with its two-byte length, RFC
// 1035 4.2.2; resolvers use it when told to, "options use-vc") on l until
// it is closed: at most maxDNSInFlight connections at once, each closed
// after dnsTCPIdle without a query. It returns nil once l is closed,
// after closing the connections still open.
func (d *DNSStub) ServeTCP(l net.Listener) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	defer func() {
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	}()
	sem := make(chan struct{}, maxDNSInFlight)
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		select {
		case sem <- struct{}{}:
		default:
			c.Close() // busy: the resolver tries again
			continue
		}
		mu.Lock()
		conns[c] = true
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			d.serveConn(c)
			mu.Lock()
			delete(conns, c)
			mu.Unlock()
			c.Close()
		}()
	}
}

// serveConn answers the queries of one TCP connection until it ends, is
// idle for dnsTCPIdle, or sends a query to be dropped.
func (d *DNSStub) serveConn(c net.Conn) {
	buf := make([]byte, 2+MaxDNSQuery)
	for {
		c.SetDeadline(time.Now().Add(dnsTCPIdle))
		if _, err := io.ReadFull(c, buf[:2]); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint16(buf[:2]))
		if n > MaxDNSQuery {
			return
		}
		if _, err := io.ReadFull(c, buf[:n]); err != nil {
			return
		}
		r, ok := d.Respond(buf[:n])
		if !ok {
			return
		}
		out := binary.BigEndian.AppendUint16(make([]byte, 0, 2+len(r)), uint16(len(r)))
		if _, err := c.Write(append(out, r...)); err != nil {
			return
		}
	}
}

// AllowsName reports whether the allowlist lets name through on some port
// (the question a DNS stub asks: a lookup carries no port). It follows
// Check's rules for names: an IP literal is no name, and the names of
// this machine pass only when an entry names them exactly.
func (a *Allowlist) AllowsName(name string) bool {
	n, err := NormalizeName(name)
	if err != nil {
		return false
	}
	if _, err := netip.ParseAddr(n); err == nil {
		return false
	}
	_, exact, ok := a.matchName(n, AnyPort)
	return ok && (exact || !isLocalhostName(n))
}

// AllowsName is Allowlist.AllowsName for the connections of this
// listener: the proxy's allowlist and the entries granted to it (at
// attachment, or by an answer to OnAsk since). A name only an answer
// could allow is not: its connection through the proxy asks, not a
// lookup.
func (a *Attached) AllowsName(name string) bool {
	al := a.p.Allowlist()
	if extra := a.extraEntries(); len(extra) > 0 {
		al.Entries = append(append([]Entry(nil), al.Entries...), extra...)
	}
	return al.AllowsName(name)
}
