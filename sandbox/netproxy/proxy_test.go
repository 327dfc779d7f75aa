package netproxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeDNS maps names to addresses; others do not resolve.
func fakeDNS(m map[string][]string) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		var out []netip.Addr
		for _, s := range m[host] {
			out = append(out, netip.MustParseAddr(s))
		}
		if out == nil {
			return nil, errors.New("no such host")
		}
		return out, nil
	}
}

type env struct {
	proxy    *Proxy
	addr     string // the proxy's listener
	upPort   int    // the fake registry's port (plain HTTP)
	tlsPort  int    // the fake registry's port (TLS)
	upstream *httptest.Server
}

// newEnv starts a fake registry (HTTP and HTTPS) on 127.0.0.1 and a proxy
// whose allowlist names it as registry.test, plus names that resolve to
// forbidden or private addresses.
func newEnv(t *testing.T, extra ...string) *env {
	t.Helper()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "registry says hello to "+r.URL.Path)
	})
	up := httptest.NewServer(h)
	t.Cleanup(up.Close)
	ups := httptest.NewTLSServer(h)
	t.Cleanup(ups.Close)
	port := func(s *httptest.Server) int {
		u, _ := url.Parse(s.URL)
		p, _ := strconv.Atoi(u.Port())
		return p
	}
	e := &env{upPort: port(up), tlsPort: port(ups), upstream: ups}
	var al Allowlist
	specs := []string{
		"registry.test:" + strconv.Itoa(e.upPort), "registry.test:" + strconv.Itoa(e.tlsPort),
		"*.mirror.test:*", "meta.test:*", "rebind.test:*",
	}
	if err := al.Add("test", append(specs, extra...)...); err != nil {
		t.Fatal(err)
	}
	e.proxy = New(Options{Allow: al, Lookup: fakeDNS(map[string][]string{
		"registry.test":      {"127.0.0.1"},
		"a.mirror.test":      {"10.1.2.3"},
		"lo.mirror.test":     {"127.0.0.1"},
		"meta.test":          {"169.254.169.254"},
		"rebind.test":        {"127.0.0.1", "169.254.169.254"},
		"ll6.mirror.test":    {"fe80::1"},
		"aliyun.mirror.test": {"100.100.100.200"},
	}), DialTimeout: 5 * time.Second})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.addr = l.Addr().String()
	go e.proxy.Serve(l)
	t.Cleanup(func() { e.proxy.Close() })
	return e
}

func (e *env) client() *http.Client {
	pu, _ := url.Parse("http://" + e.addr)
	tr := &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	return &http.Client{Transport: tr, Timeout: 20 * time.Second}
}

func (e *env) socksClient() *http.Client {
	pu, _ := url.Parse("socks5h://" + e.addr)
	tr := &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	return &http.Client{Transport: tr, Timeout: 20 * time.Second}
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestAllowedHostOverHTTPConnectAndSOCKS(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		name string
		c    *http.Client
		url  string
	}{
		{"http", e.client(), "http://registry.test:" + strconv.Itoa(e.upPort) + "/pkg"},
		{"connect", e.client(), "https://registry.test:" + strconv.Itoa(e.tlsPort) + "/pkg"},
		{"socks5-http", e.socksClient(), "http://registry.test:" + strconv.Itoa(e.upPort) + "/pkg"},
		{"socks5-https", e.socksClient(), "https://registry.test:" + strconv.Itoa(e.tlsPort) + "/pkg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mark := e.proxy.Mark()
			code, body := get(t, tc.c, tc.url)
			if code != 200 || body != "registry says hello to /pkg" {
				t.Fatalf("got %d %q", code, body)
			}
			tc.c.CloseIdleConnections()
			recs := waitRecords(t, e.proxy, mark, 1)
			r := recs[0]
			if !r.Allowed || r.Host != "registry.test" || r.Sent == 0 || r.Received == 0 || !strings.HasPrefix(r.Addr, "127.0.0.1:") {
				t.Fatalf("record %+v", r)
			}
		})
	}
}

// waitRecords waits (bounded) for n records after mark: a tunnel's record
// is written when both sides have closed.
func waitRecords(t *testing.T, p *Proxy, mark uint64, n int) []Conn {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if r := p.Since(mark); len(r) >= n {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("no record after 20 s: %+v", p.Since(mark))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRefusals(t *testing.T) {
	e := newEnv(t)
	up := strconv.Itoa(e.upPort)
	for _, tc := range []struct {
		name, url, why string
		grantable      bool // an entry naming exactly the host and port lifts it
	}{
		{"unlisted", "http://other.test/", "not in the allowlist", true},
		{"unlisted-port", "http://registry.test:1/", "not in the allowlist", true},
		{"ip-literal", "http://127.0.0.1:" + up + "/", "an IP address that is not listed", true},
		{"ip6-literal", "http://[::1]:" + up + "/", "an IP address that is not listed", true},
		{"mapped-literal", "http://[::ffff:127.0.0.1]:" + up + "/", "an IP address that is not listed", true},
		{"metadata-literal", "http://169.254.169.254/", "never allowed", false},
		{"localhost", "http://localhost:" + up + "/", "a name of this machine", true},
		{"localhost-sub", "http://x.localhost:" + up + "/", "a name of this machine", true},
		{"private-by-pattern", "http://a.mirror.test/", "a private address", true},
		{"loopback-by-pattern", "http://lo.mirror.test:" + up + "/", "a loopback address", true},
		{"metadata-name", "http://meta.test/", "169.254.169.254", false},
		{"rebind", "http://rebind.test:" + up + "/", "169.254.169.254", false},
		{"link-local-v6", "http://ll6.mirror.test/", "link-local", false},
		{"metadata-other", "http://aliyun.mirror.test/", "metadata", false},
		{"unresolvable-pattern", "http://nx.mirror.test/", "cannot resolve", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, via := range []string{"http", "connect", "socks"} {
				mark := e.proxy.Mark()
				start := time.Now()
				switch via {
				case "http":
					code, body := get(t, e.client(), tc.url)
					if code != 403 || !strings.Contains(body, tc.why) || !strings.Contains(body, Setting) {
						t.Fatalf("http: got %d %q, want 403 with %q", code, body, tc.why)
					}
				case "connect":
					u, _ := url.Parse(tc.url)
					hp := u.Host
					if u.Port() == "" {
						hp = net.JoinHostPort(u.Hostname(), "443")
					}
					code, body := connect(t, e.addr, hp)
					name := u.Hostname()
					if a, err := netip.ParseAddr(name); err == nil {
						name = a.Unmap().String()
					}
					if code != 403 || !strings.Contains(body, tc.why) || !strings.Contains(body, name) {
						t.Fatalf("connect: got %d %q", code, body)
					}
				case "socks":
					u, _ := url.Parse(tc.url)
					port, _ := strconv.Atoi(u.Port())
					if port == 0 {
						port = 80
					}
					if rep := socksConnect(t, e.addr, u.Hostname(), port); rep != socksNotAllowed {
						t.Fatalf("socks: reply %d, want %d", rep, socksNotAllowed)
					}
				}
				if d := time.Since(start); d > 20*time.Second {
					t.Fatalf("%s: refusal took %v", via, d)
				}
				recs := waitRecords(t, e.proxy, mark, 1)
				if recs[0].Allowed || !strings.Contains(recs[0].Reason, strings.Split(tc.why, " (")[0]) || recs[0].Grantable != tc.grantable {
					t.Fatalf("%s: record %+v (want grantable %v)", via, recs[0], tc.grantable)
				}
			}
		})
	}
}

// connect sends a CONNECT and returns the status and body.
func connect(t *testing.T, proxy, hostport string) (int, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	io.WriteString(c, "CONNECT "+hostport+" HTTP/1.1\r\nHost: "+hostport+"\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// socksConnect sends a SOCKS5 CONNECT by name (or IP when host is one)
// and returns the reply code.
func socksConnect(t *testing.T, proxy, host string, port int) byte {
	t.Helper()
	c, err := net.DialTimeout("tcp", proxy, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	c.Write([]byte{5, 1, 0})
	var rep [2]byte
	if _, err := io.ReadFull(c, rep[:]); err != nil || rep != [2]byte{5, 0} {
		t.Fatalf("greeting reply %v %v", rep, err)
	}
	msg := []byte{5, 1, 0}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Is4() {
			b := a.As4()
			msg = append(append(msg, 1), b[:]...)
		} else {
			b := a.As16()
			msg = append(append(msg, 4), b[:]...)
		}
	} else {
		msg = append(append(msg, 3, byte(len(host))), host...)
	}
	msg = binary.BigEndian.AppendUint16(msg, uint16(port))
	c.Write(msg)
	var r [10]byte
	if _, err := io.ReadFull(c, r[:]); err != nil {
		t.Fatalf("socks reply: %v", err)
	}
	return r[1]
}

func TestListedAddressesAndRanges(t *testing.T) {
	up := "127.0.0.1"
	e := newEnv(t, up+":*", "10.0.0.0/8")
	code, body := get(t, e.client(), "http://127.0.0.1:"+strconv.Itoa(e.upPort)+"/x")
	if code != 200 {
		t.Fatalf("listed IP: %d %q", code, body)
	}
	// A range entry lets a pattern's private address through (checked,
	// not dialled: nothing listens on 10.1.2.3 here).
	if _, err := e.proxy.Check(context.Background(), "a.mirror.test", 443); err != nil {
		t.Fatalf("range-listed private address refused: %v", err)
	}
	// Metadata stays refused whatever is listed.
	e2 := newEnv(t, "169.254.0.0/16:*", "*.test:*")
	if _, err := e2.proxy.Check(context.Background(), "meta.test", 80); err == nil {
		t.Fatal("metadata address allowed")
	}
	if _, err := e2.proxy.Check(context.Background(), "169.254.169.254", 80); err == nil {
		t.Fatal("metadata literal allowed")
	}
}

// TestAttachWith: entries given to one listener allow its connections
// only; the proxy's other listeners and its Check stay as they were, and
// no entry lifts a forbidden address.
func TestAttachWith(t *testing.T) {
	e := newEnv(t)
	up := strconv.Itoa(e.upPort)
	var extra Allowlist
	if err := extra.Add("grant", "granted.test:"+up, "meta2.test:80"); err != nil {
		t.Fatal(err)
	}
	e.proxy.opt.Lookup = fakeDNS(map[string][]string{"granted.test": {"127.0.0.1"}, "meta2.test": {"169.254.169.254"}})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := e.proxy.AttachWith(l, extra)
	pu, _ := url.Parse("http://" + l.Addr().String())
	granted := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}, Timeout: 20 * time.Second}
	if code, body := get(t, granted, "http://granted.test:"+up+"/g"); code != 200 || body != "registry says hello to /g" {
		t.Fatalf("granted listener: %d %q", code, body)
	}
	if code, body := get(t, granted, "http://meta2.test/"); code != 403 || !strings.Contains(body, "never allowed") {
		t.Fatalf("a grant lifted a metadata address: %d %q", code, body)
	}
	if code, body := get(t, e.client(), "http://granted.test:"+up+"/g"); code != 403 {
		t.Fatalf("another listener reached the granted host: %d %q", code, body)
	}
	if _, err := e.proxy.Check(context.Background(), "granted.test", e.upPort); err == nil {
		t.Fatal("Check allowed a host granted to one listener")
	}
	granted.CloseIdleConnections()
	recs := a.Close()
	if len(recs) != 2 || !recs[0].Allowed || recs[0].Host != "granted.test" || recs[1].Allowed || recs[1].Grantable {
		t.Fatalf("records %+v", recs)
	}
}

func TestSOCKSUnsupported(t *testing.T) {
	e := newEnv(t)
	c, err := net.Dial("tcp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	c.Write([]byte{5, 1, 2}) // user/password only
	var rep [2]byte
	io.ReadFull(c, rep[:])
	if rep != [2]byte{5, 0xff} {
		t.Fatalf("reply %v, want no acceptable method", rep)
	}
	c2, _ := net.Dial("tcp", e.addr)
	defer c2.Close()
	c2.SetDeadline(time.Now().Add(20 * time.Second))
	c2.Write([]byte{5, 1, 0})
	io.ReadFull(c2, rep[:])
	c2.Write([]byte{5, 2, 0, 3, 13, 'r', 'e', 'g', 'i', 's', 't', 'r', 'y', '.', 't', 'e', 's', 't', 0, 80}) // BIND
	var r [10]byte
	io.ReadFull(c2, r[:])
	if r[1] != socksCmdUnsupp {
		t.Fatalf("BIND reply %d", r[1])
	}
}

func TestBadHTTPRequests(t *testing.T) {
	e := newEnv(t)
	for _, req := range []string{
		"GET /relative HTTP/1.1\r\nHost: registry.test\r\n\r\n",
		"CONNECT registry.test HTTP/1.1\r\n\r\n",
		"GET ftp://registry.test/ HTTP/1.1\r\n\r\n",
		"garbage\r\n\r\n",
	} {
		c, err := net.Dial("tcp", e.addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(20 * time.Second))
		io.WriteString(c, req)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil || resp.StatusCode != 400 {
			t.Fatalf("%q: %v %v", req, resp, err)
		}
	}
}

func TestParseEntry(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Registry.NPMjs.org", "registry.npmjs.org"},
		{"registry.test.", "registry.test"},
		{"*.Example.com:8443", "*.example.com:8443"},
		{"host:*", "host:*"},
		{"[::1]:80", "[::1]:80"},
		{"::1", "[::1]"},
		{"10.1.2.3/8", "10.0.0.0/8"},
		{"[fd00::/8]:443", "[fd00::/8]:443"},
	} {
		e, err := ParseEntry(tc.in, "t")
		if err != nil || e.String() != tc.want {
			t.Errorf("ParseEntry(%q) = %q, %v; want %q", tc.in, e.String(), err, tc.want)
		}
	}
	for _, bad := range []string{"", "a..b", "host:0", "host:70000", "host:", "[::1", "*.", "a b", "é.test", "host:+1", "[::1]x", "1.2.3.4/99", "-"} {
		if e, err := ParseEntry(bad, "t"); err == nil && bad != "-" {
			t.Errorf("ParseEntry(%q) = %+v, want an error", bad, e)
		}
	}
}

func TestRemove(t *testing.T) {
	var al Allowlist
	al.Add("a", "x.test", "y.test:8080", "y.test:9090")
	if ok, _ := al.Remove("y.test"); !ok {
		t.Fatal("not removed")
	}
	if got := strings.Join(al.Hosts(), " "); got != "x.test" {
		t.Fatalf("left %q", got)
	}
}

// TestAttachAskingWaitingConnection: a connection already waiting when
// the listener is attached with AttachAsking is asked about, not
// refused: the question is in place before anything is served.
func TestAttachAskingWaitingConnection(t *testing.T) {
	e := newEnv(t)
	up := strconv.Itoa(e.upPort)
	e.proxy.opt.Lookup = fakeDNS(map[string][]string{"yes.test": {"127.0.0.1"}})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pu, _ := url.Parse("http://" + l.Addr().String())
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}, Timeout: 30 * time.Second}
	code := make(chan int, 1)
	go func() {
		n, _ := get(t, c, "http://yes.test:"+up+"/x")
		code <- n
	}()
	time.Sleep(100 * time.Millisecond) // the request waits in the listener's queue
	var asked atomic.Int32
	a := e.proxy.AttachAsking(l, Allowlist{}, func(ctx context.Context, hp string) bool {
		asked.Add(1)
		return true
	})
	defer a.Close()
	if n := <-code; n != 200 || asked.Load() != 1 {
		t.Fatalf("status %d, asked %d times: want 200 after one question", n, asked.Load())
	}
}

// TestOnAsk: a destination only the allowlist refuses is asked about
// while its connections wait, once for all of them; yes lets them and
// later ones through, no refuses them and is not asked again; a
// destination no entry may lift is never asked about; closing the
// attachment drops a question still open.
func TestOnAsk(t *testing.T) {
	e := newEnv(t)
	up := strconv.Itoa(e.upPort)
	e.proxy.opt.Lookup = fakeDNS(map[string][]string{"yes.test": {"127.0.0.1"}, "no.test": {"127.0.0.1"}, "meta3.test": {"169.254.169.254"}, "slow.test": {"127.0.0.1"}})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := e.proxy.AttachWith(l, Allowlist{})
	var mu sync.Mutex
	asked := map[string]int{}
	release := make(chan struct{})
	a.OnAsk(func(ctx context.Context, hp string) bool {
		mu.Lock()
		asked[hp]++
		mu.Unlock()
		if strings.HasPrefix(hp, "slow.test") {
			<-ctx.Done() // nobody answers
			close(release)
			return true
		}
		time.Sleep(100 * time.Millisecond) // the others arrive meanwhile
		return strings.HasPrefix(hp, "yes.test")
	})
	pu, _ := url.Parse("http://" + l.Addr().String())
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu), DisableKeepAlives: true}, Timeout: 30 * time.Second}
	var wg sync.WaitGroup
	codes := make([]int, 6)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			host := "yes.test"
			if i%2 == 1 {
				host = "no.test"
			}
			codes[i], _ = get(t, c, "http://"+host+":"+up+"/x")
		}()
	}
	wg.Wait()
	for i, code := range codes {
		if want := []int{200, 403}[i%2]; code != want {
			t.Errorf("request %d: %d, want %d", i, code, want)
		}
	}
	if code, _ := get(t, c, "http://no.test:"+up+"/again"); code != 403 {
		t.Errorf("no.test after the no: %d", code)
	}
	if code, body := get(t, c, "http://meta3.test/"); code != 403 || !strings.Contains(body, "never allowed") {
		t.Errorf("metadata: %d %q", code, body)
	}
	mu.Lock()
	if asked["yes.test:"+up] != 1 || asked["no.test:"+up] != 1 || len(asked) != 2 {
		t.Errorf("asked %v: want each of yes.test and no.test once, nothing else", asked)
	}
	mu.Unlock()
	if _, err := e.proxy.Check(context.Background(), "yes.test", e.upPort); err == nil {
		t.Error("an answer for one attachment reached the proxy's own list")
	}

	done := make(chan int, 1)
	go func() { code, _ := get(t, c, "http://slow.test:"+up+"/"); done <- code }()
	for {
		mu.Lock()
		n := asked["slow.test:"+up]
		mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	recs := a.Close()
	select {
	case <-release:
	case <-time.After(20 * time.Second):
		t.Fatal("closing the attachment did not end the open question")
	}
	if code := <-done; code == 200 {
		t.Error("a connection went through after its attachment closed")
	}
	allowed := 0
	for _, r := range recs {
		if r.Allowed && r.Host == "yes.test" {
			allowed++
		}
	}
	if allowed != 3 {
		t.Errorf("records: %d allowed to yes.test, want 3: %+v", allowed, recs)
	}
}

// TestPlainHTTPForwarding: a plain HTTP request reaches its server in
// origin form with its body whole (fixed length and chunked), the Host
// of its URL, "Connection: close" and none of the fields meant for the
// proxy; the answer comes back whole.
func TestPlainHTTPForwarding(t *testing.T) {
	type seen struct {
		method, uri, host, body, conn string
		proxyAuth, proxyConn          bool
	}
	got := make(chan seen, 4)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.RequestURI, r.Host, string(b), r.Header.Get("Connection"),
			r.Header.Get("Proxy-Authorization") != "", r.Header.Get("Proxy-Connection") != ""}
		io.WriteString(w, strings.Repeat("answer ", 20000))
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	_, l := proxyFor(t, "127.0.0.1:"+u.Port())
	body := strings.Repeat("0123456789", 10000)
	for _, req := range []string{
		"POST " + up.URL + "/up?x=1 HTTP/1.1\r\nHost: elsewhere.example\r\nProxy-Authorization: Basic dXNlcjpwdw==\r\nProxy-Connection: keep-alive\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body,
		"PUT " + up.URL + "/up?x=1 HTTP/1.1\r\nHost: elsewhere.example\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n" + strconv.FormatInt(int64(len(body)), 16) + "\r\n" + body + "\r\n0\r\n\r\n",
	} {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(20 * time.Second))
		io.WriteString(c, req)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		c.Close()
		if err != nil || resp.StatusCode != 200 || len(b) != 7*20000 {
			t.Fatalf("%.40q: %d, %d bytes, %v", req, resp.StatusCode, len(b), err)
		}
		s := <-got
		if s.uri != "/up?x=1" || s.host != u.Host || s.body != body || s.proxyAuth || s.proxyConn || !strings.EqualFold(s.conn, "close") {
			s.body = strconv.Itoa(len(s.body)) + " bytes"
			t.Fatalf("%.40q: the server saw %+v", req, s)
		}
	}
}

// TestPlainHTTPServerStopsReading: a server that answers before reading
// the body, ends its side and holds the connection open does not keep
// the proxy's handler (and its record) waiting on the body.
func TestPlainHTTPServerStopsReading(t *testing.T) {
	ul, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ul.Close() })
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	go func() {
		c, err := ul.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		for {
			l, err := br.ReadString('\n')
			if err != nil || l == "\r\n" {
				break
			}
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
		c.(*net.TCPConn).CloseWrite()
		<-release // holds the connection, reading nothing more
	}()
	p, l := proxyFor(t, ul.Addr().String())
	mark := p.Mark()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	const size = 64 << 20
	io.WriteString(c, "POST http://"+ul.Addr().String()+"/ HTTP/1.1\r\nContent-Length: "+strconv.Itoa(size)+"\r\n\r\n")
	go func() { // more than the socket buffers hold: it blocks until the proxy lets go
		c.Write(make([]byte, size))
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(p.Since(mark)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the handler still waits on the body 10 s after the answer")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// proxyFor serves a proxy that allows exactly the entries, on a listener
// of its own, until the test ends.
func proxyFor(t *testing.T, entries ...string) (*Proxy, net.Listener) {
	t.Helper()
	var al Allowlist
	if err := al.Add("test", entries...); err != nil {
		t.Fatal(err)
	}
	p := New(Options{Allow: al, DialTimeout: 5 * time.Second})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve(l)
	t.Cleanup(func() { p.Close() })
	return p, l
}
