package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Conn is the record of one connection through the proxy.
type Conn struct {
	Host    string `json:"host"`
	Port    int    `json:"port"`
	Proto   string `json:"proto"` // "http", "connect" or "socks5"
	Allowed bool   `json:"allowed"`
	// Reason says why a connection was refused or failed.
	Reason string `json:"reason,omitempty"`
	// Grantable marks a refusal that an allowlist entry naming exactly
	// this host and port would lift (the host is not listed). A refusal
	// no entry lifts (a link-local or metadata address, a malformed host
	// or port, a name that resolves to a forbidden address) is never
	// grantable.
	Grantable bool `json:"grantable,omitempty"`
	// Addr is the address dialled.
	Addr string `json:"addr,omitempty"`
	// Sent and Received count the bytes from the client to the host and
	// back (the tunnel's payload, or the request and response).
	Sent     int64     `json:"sent"`
	Received int64     `json:"received"`
	Start    time.Time `json:"-"`
	seq      uint64
}

// Options configure a Proxy. The zero value of each field is usable.
type Options struct {
	Allow Allowlist
	// Discover, when set, is called once, at the first connection, and
	// its entries are added to Allow: deriving the list (see Discover)
	// costs nothing to commands that never connect.
	Discover func() Allowlist
	// Lookup resolves a name (default: the system resolver).
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to a checked address (default: net.Dialer).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// DialTimeout bounds resolution plus dialling (default 15 s).
	DialTimeout time.Duration
	// HeaderTimeout bounds the wait for a request (default 30 s).
	HeaderTimeout time.Duration
	// OnConn is called once per connection when it ends (or is refused).
	OnConn func(Conn)
}

// Proxy serves the allowlist on any number of listeners.
type Proxy struct {
	opt Options

	mu     sync.Mutex
	lns    map[net.Listener]bool
	conns  map[net.Conn]bool
	log    []Conn
	seq    uint64
	closed bool
	wg     sync.WaitGroup
	refuse atomic.Int64

	allowOnce sync.Once
	allow     Allowlist
}

// maxLog bounds the records kept for Since.
const maxLog = 4096

// New returns a proxy for opt.
func New(opt Options) *Proxy {
	if opt.Lookup == nil {
		opt.Lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	if opt.Dial == nil {
		d := &net.Dialer{}
		opt.Dial = d.DialContext
	}
	if opt.DialTimeout <= 0 {
		opt.DialTimeout = 15 * time.Second
	}
	if opt.HeaderTimeout <= 0 {
		opt.HeaderTimeout = 30 * time.Second
	}
	return &Proxy{opt: opt, lns: map[net.Listener]bool{}, conns: map[net.Conn]bool{}}
}

// Allowlist returns the proxy's allowlist (deriving it on first use).
func (p *Proxy) Allowlist() Allowlist {
	p.allowOnce.Do(func() {
		p.allow.Entries = append([]Entry(nil), p.opt.Allow.Entries...)
		if p.opt.Discover != nil {
			d := p.opt.Discover()
			p.allow.Entries = append(d.Entries, p.allow.Entries...)
		}
	})
	return p.allow
}

// Refused counts the refused connections so far.
func (p *Proxy) Refused() int64 { return p.refuse.Load() }

// Serve accepts connections on l until l or the proxy is closed. It
// returns nil when the proxy was closed.
func (p *Proxy) Serve(l net.Listener) error { return p.serve(l, nil) }

func (p *Proxy) serve(l net.Listener, a *Attached) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		l.Close()
		return nil
	}
	p.lns[l] = true
	p.wg.Add(1)
	p.mu.Unlock()
	defer p.wg.Done()
	for {
		c, err := l.Accept()
		if err != nil {
			p.mu.Lock()
			closed := p.closed
			delete(p.lns, l)
			p.mu.Unlock()
			var ne net.Error
			if !closed && errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if closed || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		if !p.track(c, true) {
			c.Close()
			return nil
		}
		if a != nil && !a.track(c, true) {
			p.track(c, false)
			c.Close()
			continue
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.track(c, false)
			defer c.Close()
			if a != nil {
				defer a.track(c, false)
			}
			p.handle(c, a)
		}()
	}
}

func (p *Proxy) track(c net.Conn, add bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if add {
		if p.closed {
			return false
		}
		p.conns[c] = true
	} else {
		delete(p.conns, c)
	}
	return true
}

// Close stops every listener and connection and waits for their
// goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for l := range p.lns {
		l.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

// Mark returns a position in the connection log for Since.
func (p *Proxy) Mark() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seq
}

// Since returns the records of the connections that ended after mark,
// oldest first.
func (p *Proxy) Since(mark uint64) []Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Conn
	for _, c := range p.log {
		if c.seq > mark {
			out = append(out, c)
		}
	}
	return out
}

func (p *Proxy) record(c Conn, a *Attached) {
	p.mu.Lock()
	p.seq++
	c.seq = p.seq
	p.log = append(p.log, c)
	if len(p.log) > maxLog {
		p.log = append(p.log[:0], p.log[len(p.log)-maxLog/2:]...)
	}
	p.mu.Unlock()
	if !c.Allowed {
		p.refuse.Add(1)
	}
	if p.opt.OnConn != nil {
		p.opt.OnConn(c)
	}
	if a != nil {
		a.mu.Lock()
		if len(a.recs) < maxLog {
			a.recs = append(a.recs, c)
		}
		a.mu.Unlock()
	}
}

// Attached is one listener served by the proxy, with the records of its
// own connections: a sandboxed command's share of a shared proxy.
type Attached struct {
	p     *Proxy
	l     net.Listener
	mu    sync.Mutex
	conns map[net.Conn]bool
	wg    sync.WaitGroup
	recs  []Conn
	shut  bool
	extra []Entry // allowed on this listener only (AttachWith, OnAsk)
	// ask and asked: OnAsk's question and its answers, by host:port.
	ask    func(ctx context.Context, hostport string) bool
	asked  map[string]*answer
	ctx    context.Context // ends with Close: a question still open is dropped
	cancel context.CancelFunc
}

// answer is the one answer to a destination's question; done closes
// when it is known.
type answer struct {
	done  chan struct{}
	allow bool
}

// AskTimeout bounds how long a connection waits for OnAsk's answer.
const AskTimeout = 2 * time.Minute

// OnAsk makes a destination that only the allowlist refuses (a grant of
// exactly host:port would let it through: Conn.Grantable) a question:
// the connection waits while fn is asked, once per destination for the
// whole attachment (other connections to it wait for the same answer). A
// yes lets it and every later connection to it through; a no, an expired
// AskTimeout or a closed attachment refuses it as before, and it is not
// asked again. A destination no entry may lift is never asked about.
func (a *Attached) OnAsk(fn func(ctx context.Context, hostport string) bool) {
	a.mu.Lock()
	a.ask = fn
	a.mu.Unlock()
}

// askable returns the destination of a refusal a grant may lift and the
// entry that would, when the attachment asks.
func (a *Attached) askable(err error) (string, []Entry, bool) {
	var ref *refusal
	if a == nil || !errors.As(err, &ref) || !ref.grantable {
		return "", nil, false
	}
	a.mu.Lock()
	fn := a.ask
	a.mu.Unlock()
	hp := hostPort(ref.Host, ref.Port)
	var e Allowlist
	if fn == nil || e.Add("asked", hp) != nil {
		return "", nil, false
	}
	return hp, e.Entries, true
}

// askAbout puts hp to the attachment's question and reports whether it
// was allowed; entries, which name it, are then allowed on the
// attachment.
func (a *Attached) askAbout(hp string, entries []Entry) bool {
	a.mu.Lock()
	fn := a.ask
	if fn == nil || a.shut {
		a.mu.Unlock()
		return false
	}
	if a.asked == nil {
		a.asked = map[string]*answer{}
	}
	ans, known := a.asked[hp]
	if !known {
		ans = &answer{done: make(chan struct{})}
		a.asked[hp] = ans
	}
	a.mu.Unlock()
	if !known {
		ctx, cancel := context.WithTimeout(a.ctx, AskTimeout)
		allow := fn(ctx, hp) && ctx.Err() == nil
		cancel()
		if allow {
			a.mu.Lock()
			a.extra = append(slices.Clip(a.extra), entries...)
			a.mu.Unlock()
			ans.allow = true
		}
		close(ans.done)
	}
	select {
	case <-ans.done:
		return ans.allow
	case <-a.ctx.Done():
		return false
	}
}

// Allow allows extra's entries on the attachment's connections from now
// on, as AttachWith does from the start: for a listener attached before
// the command it serves, and what was granted to that command, were known.
func (a *Attached) Allow(extra Allowlist) {
	a.mu.Lock()
	a.extra = append(slices.Clip(a.extra), extra.Entries...)
	a.mu.Unlock()
}

func (a *Attached) extraEntries() []Entry {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.extra
}

// Attach serves l until the Attached or the proxy is closed.
func (p *Proxy) Attach(l net.Listener) *Attached { return p.AttachWith(l, Allowlist{}) }

// AttachWith is Attach with extra entries allowed on l's connections only,
// in addition to the proxy's allowlist (hosts granted to one command).
func (p *Proxy) AttachWith(l net.Listener, extra Allowlist) *Attached {
	return p.AttachAsking(l, extra, nil)
}

// AttachAsking is AttachWith with the question of OnAsk (nil: none) in
// place before the first connection is served: a listener attached when
// its first connection is already waiting would otherwise serve it
// before OnAsk is called.
func (p *Proxy) AttachAsking(l net.Listener, extra Allowlist, ask func(ctx context.Context, hostport string) bool) *Attached {
	a := &Attached{p: p, l: l, conns: map[net.Conn]bool{}, extra: extra.Entries, ask: ask}
	a.ctx, a.cancel = context.WithCancel(context.Background())
	go p.serve(l, a)
	return a
}

func (a *Attached) track(c net.Conn, add bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if add {
		if a.shut {
			return false
		}
		a.conns[c] = true
		a.wg.Add(1)
	} else if a.conns[c] {
		delete(a.conns, c)
		a.wg.Done()
	}
	return true
}

// Records returns the records of the connections that have ended, in
// the order they began: a kept-alive connection ends after the requests
// that followed it, so the order of ending is the scheduler's, not the
// command's.
func (a *Attached) Records() []Conn {
	a.mu.Lock()
	out := append([]Conn(nil), a.recs...)
	a.mu.Unlock()
	slices.SortStableFunc(out, func(x, y Conn) int { return x.Start.Compare(y.Start) })
	return out
}

// Close stops the listener, ends its open connections, waits for them
// and returns every record. The listener is closed aside: its Close
// waits for the serving goroutine's Accept to return, and no connection
// is taken once the attachment is shut (track), so the records are
// complete without that wait, which is on the way to a command's result.
func (a *Attached) Close() []Conn {
	a.mu.Lock()
	a.shut = true
	a.cancel()
	for c := range a.conns {
		c.Close()
	}
	a.mu.Unlock()
	go a.l.Close()
	a.wg.Wait()
	return a.Records()
}

// refusal is why a destination is not allowed.
type refusal struct {
	Host      string
	Port      int
	Reason    string
	grantable bool // an entry naming host:port would lift it
}

func (r *refusal) Error() string {
	return fmt.Sprintf("connection to %s refused: %s", hostPort(r.Host, r.Port), r.Reason)
}

// Message is the refusal as the command sees it: the host, why, and the
// setting that would allow it.
func (r *refusal) Message() string {
	return fmt.Sprintf("shellguard: connection to %s refused: %s.\nTo allow it, add %q to %s in the user configuration (shellguard config path).\n",
		hostPort(r.Host, r.Port), r.Reason, suggest(r.Host, r.Port), Setting)
}

func suggest(host string, port int) string {
	e := Entry{Host: host, Port: port}
	if port == 80 || port == 443 {
		e.Port = 0
	}
	return e.String()
}

func hostPort(h string, port int) string {
	return net.JoinHostPort(h, strconv.Itoa(port))
}

// Check decides whether host:port may be reached and returns the
// addresses to dial (every one checked). host is a name or an IP literal.
func (p *Proxy) Check(ctx context.Context, host string, port int) ([]netip.Addr, error) {
	return p.check(ctx, host, port, nil)
}

// check is Check with extra entries allowed besides the allowlist.
func (p *Proxy) check(ctx context.Context, host string, port int, extra []Entry) ([]netip.Addr, error) {
	refuse := func(why string) error { return &refusal{Host: host, Port: port, Reason: why} }
	// unlisted: refused only because no entry names host:port.
	unlisted := func(why string) error { return &refusal{Host: host, Port: port, Reason: why, grantable: true} }
	if port < 1 || port > 65535 {
		return nil, refuse("bad port")
	}
	allow := p.Allowlist()
	if len(extra) > 0 {
		allow.Entries = append(slices.Clip(allow.Entries), extra...)
	}
	al := &allow
	if a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")); err == nil {
		a = a.Unmap()
		host = a.String()
		if forbidden, _, why := addrClass(a); forbidden {
			return nil, refuse(why + ", never allowed")
		}
		if _, ok := al.matchAddr(a, port); !ok {
			return nil, unlisted("an IP address that is not listed (name the host instead)")
		}
		return []netip.Addr{a}, nil
	}
	name, err := NormalizeName(host)
	if err != nil {
		return nil, refuse(err.Error())
	}
	host = name
	_, exact, ok := al.matchName(name, port)
	if !ok {
		if isLocalhostName(name) {
			return nil, unlisted("a name of this machine, not listed")
		}
		return nil, unlisted("not in the allowlist")
	}
	if isLocalhostName(name) && !exact {
		return nil, unlisted("a name of this machine, not listed")
	}
	addrs, err := p.opt.Lookup(ctx, name)
	if err != nil {
		return nil, refuse("cannot resolve: " + err.Error())
	}
	if len(addrs) == 0 {
		return nil, refuse("the name has no address")
	}
	out := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		a = a.Unmap().WithZone("")
		forbidden, local, why := addrClass(a)
		if forbidden {
			// One bad address refuses the name: a resolver that mixes
			// a metadata address in is not to be trusted with the rest.
			return nil, refuse("resolves to " + a.String() + ", " + why + ", never allowed")
		}
		if local && !exact {
			if _, ok := al.matchAddr(a, port); !ok {
				return nil, unlisted("resolves to " + a.String() + ", " + why + " (list the name itself or the range)")
			}
		}
		out = append(out, a)
	}
	return out, nil
}

// dial checks host:port and dials the first checked address that
// answers.
func (p *Proxy) dial(ctx context.Context, host string, port int, a *Attached) (net.Conn, string, error) {
	ctx, cancel := context.WithTimeout(ctx, p.opt.DialTimeout)
	defer cancel()
	var extra []Entry
	if a != nil {
		extra = a.extraEntries()
	}
	addrs, err := p.check(ctx, host, port, extra)
	if hp, entries, ok := a.askable(err); ok {
		// Asked only when the grant would lift it: a name that
		// resolves to a forbidden address is refused for that.
		if _, err2 := p.check(ctx, host, port, slices.Concat(extra, entries)); err2 != nil {
			err = err2
		} else if a.askAbout(hp, entries) {
			cancel()
			ctx, cancel = context.WithTimeout(context.Background(), p.opt.DialTimeout)
			defer cancel()
			addrs, err = p.check(ctx, host, port, a.extraEntries())
		}
	}
	if err != nil {
		return nil, "", err
	}
	var last error
	for _, a := range addrs {
		addr := netip.AddrPortFrom(a, uint16(port)).String()
		c, err := p.opt.Dial(ctx, "tcp", addr)
		if err == nil {
			return c, addr, nil
		}
		last = err
	}
	return nil, "", last
}

// handle serves one client connection: SOCKS5 when its first byte is 5,
// HTTP otherwise.
func (p *Proxy) handle(c net.Conn, a *Attached) {
	c.SetReadDeadline(time.Now().Add(p.opt.HeaderTimeout))
	lr := &io.LimitedReader{R: c, N: 64 << 10}
	br := bufio.NewReaderSize(lr, 4096)
	first, err := br.Peek(1)
	if err != nil {
		return
	}
	if first[0] == 5 {
		p.socks(c, br, lr, a)
		return
	}
	p.http(c, br, lr, a)
}

func (p *Proxy) http(c net.Conn, br *bufio.Reader, lr *io.LimitedReader, a *Attached) {
	record := func(r Conn) { p.record(r, a) }
	req, err := readRequestHead(br)
	if err != nil {
		io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\nshellguard proxy: "+err.Error()+"\n")
		return
	}
	rec := Conn{Proto: "http", Start: time.Now()}
	host, port := req.host, req.port
	if req.connect {
		rec.Proto = "connect"
	}
	rec.Host, rec.Port = host, port
	up, addr, err := p.dial(context.Background(), host, port, a)
	if err != nil {
		rec.Reason = err.Error()
		var ref *refusal
		status := "502 Bad Gateway"
		body := "shellguard: cannot reach " + hostPort(host, port) + ": " + err.Error() + "\n"
		if errors.As(err, &ref) {
			status, body = "403 Forbidden", ref.Message()
			rec.Reason, rec.Grantable = ref.Reason, ref.grantable
			if ref.grantable {
				rec.Host = ref.Host // as checked (normalized)
			}
		} else {
			rec.Allowed = true
		}
		fmt.Fprintf(c, "HTTP/1.1 %s\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nX-Shellguard-Refused: %s\r\n\r\n%s",
			status, len(body), hostPort(host, port), body)
		record(rec)
		return
	}
	defer up.Close()
	rec.Allowed, rec.Addr = true, addr
	c.SetReadDeadline(time.Time{})
	lr.N = 1<<63 - 1
	if req.connect {
		if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			record(rec)
			return
		}
		rec.Sent, rec.Received = splice(c, up, br)
		record(rec)
		return
	}
	// Plain HTTP: the request in origin form, then whatever the client
	// sends after its head (the body) to the same destination, until the
	// response has been passed back: one request per connection.
	n, err := up.Write(req.forward)
	if err != nil {
		rec.Reason = "forwarding the request: " + err.Error()
		rec.Sent = int64(n)
		record(rec)
		return
	}
	body := make(chan int64, 1)
	go func() { body <- sendRest(up, br, c) }()
	rec.Received, _ = io.Copy(c, up)
	// The answer is whole: both ends are closed, which ends the copy of
	// the body whether it waits on the client or on the server.
	c.Close()
	up.Close()
	rec.Sent = int64(n) + <-body
	record(rec)
}

// A requestHead is the head of a request to the proxy: a CONNECT to
// host:port, or a plain HTTP request for an absolute http:// URL, with
// the head to send its server (origin form, the proxy's own fields
// removed, "Connection: close").
type requestHead struct {
	connect bool
	host    string
	port    int
	forward []byte
}

// hopFields are the fields meant for the proxy, not passed on.
var hopFields = map[string]bool{"Proxy-Connection": true, "Proxy-Authorization": true, "Connection": true,
	"Keep-Alive": true, "Host": true}

// readRequestHead reads the head of a proxy request (RFC 9112: request
// line, fields, an empty line) from br.
func readRequestHead(br *bufio.Reader) (*requestHead, error) {
	tp := textproto.NewReader(br)
	line, err := tp.ReadLine()
	if err != nil {
		return nil, errors.New("bad request")
	}
	method, rest, ok1 := strings.Cut(line, " ")
	target, proto, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || !validMethod(method) || target == "" || strings.ContainsAny(target, " \t") ||
		(proto != "HTTP/1.1" && proto != "HTTP/1.0") {
		return nil, errors.New("bad request")
	}
	fields, err := tp.ReadMIMEHeader()
	if err != nil {
		return nil, errors.New("bad request")
	}
	rh := &requestHead{connect: method == "CONNECT"}
	if rh.connect {
		// An authority (host:port), as a URL's would be.
		if u, err := url.ParseRequestURI("http://" + target); err != nil || u.Host != target {
			return nil, errors.New("bad CONNECT target")
		}
		rh.host, rh.port, err = SplitHostPort(target, 0)
		return rh, err
	}
	u, err := url.ParseRequestURI(target)
	if err != nil || u.Host == "" || !u.IsAbs() {
		return nil, errors.New("only absolute http:// URLs (or CONNECT) are proxied")
	}
	if u.Scheme != "http" {
		return nil, errors.New("only http:// URLs are forwarded; https goes through CONNECT")
	}
	if rh.host, rh.port, err = SplitHostPort(u.Host, 80); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(method + " " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\n")
	names := make([]string, 0, len(fields))
	for k := range fields {
		if !hopFields[k] {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		for _, v := range fields[k] {
			b.WriteString(k + ": " + v + "\r\n")
		}
	}
	b.WriteString("Connection: close\r\n\r\n")
	rh.forward = []byte(b.String())
	return rh, nil
}

// validMethod reports a request method that is an RFC 9110 token.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for i := 0; i < len(m); i++ {
		c := m[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return true
}

// splice copies both ways until either side ends; buffered holds what the
// client sent after its request.
func splice(c, up net.Conn, buffered *bufio.Reader) (sent, received int64) {
	done := make(chan int64, 1)
	go func() {
		n, _ := io.Copy(c, up)
		closeWrite(c)
		done <- n
	}()
	n := sendRest(up, buffered, c)
	closeWrite(up)
	received = <-done
	return n, received
}

// sendRest sends up what the client sent after its request head: what
// buffered holds of it, then the rest of c until it ends.
func sendRest(up io.Writer, buffered *bufio.Reader, c io.Reader) int64 {
	var n int64
	if k := buffered.Buffered(); k > 0 {
		b, _ := buffered.Peek(k)
		m, _ := up.Write(b)
		n += int64(m)
	}
	m, _ := io.Copy(up, c)
	return n + m
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	} else {
		c.Close()
	}
}

// SplitHostPort splits "host:port", "[v6]:port" or, with a default port,
// a bare host, and checks the port.
func SplitHostPort(s string, defPort int) (string, int, error) {
	if s == "" {
		return "", 0, errors.New("empty host")
	}
	h, ps, err := net.SplitHostPort(s)
	if err != nil {
		if defPort == 0 {
			return "", 0, fmt.Errorf("bad host:port %q", s)
		}
		h, ps = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"), strconv.Itoa(defPort)
		if strings.ContainsAny(h, "[]") {
			return "", 0, fmt.Errorf("bad host %q", s)
		}
	}
	if h == "" {
		return "", 0, fmt.Errorf("bad host:port %q", s)
	}
	port, err := parsePort(ps)
	if err != nil {
		return "", 0, err
	}
	return h, port, nil
}
