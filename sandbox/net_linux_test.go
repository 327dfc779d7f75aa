//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellguard/shellguard/sandbox/netproxy"
)

// registryProxy is a fake registry on 127.0.0.1 and a proxy whose
// allowlist names it registry.test (resolved to 127.0.0.1 by a fake
// resolver), plus meta.test, which resolves to a metadata address.
func registryProxy(t *testing.T) (*netproxy.Proxy, string) {
	t.Helper()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "registry-ok "+r.URL.Path)
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	var al netproxy.Allowlist
	if err := al.Add("test", "registry.test:"+u.Port(), "meta.test:*"); err != nil {
		t.Fatal(err)
	}
	p := netproxy.New(netproxy.Options{Allow: al, Lookup: func(_ context.Context, h string) ([]netip.Addr, error) {
		switch h {
		case "registry.test", "asked.test", "nope.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		case "meta.test":
			return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
		}
		return nil, errors.New("no such host")
	}})
	t.Cleanup(func() { p.Close() })
	return p, u.Port()
}

func TestNetworkAllowlist(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		skipOrFail(t, "curl not installed")
	}
	p, port := registryProxy(t)
	f := newFixture(t)
	spec := Spec{Proxy: p}
	a := f.assertActive(t, spec)
	need(t, a, LayerNetNS, LayerLoopback, LayerNetProxy)
	if a.Network != NetAllowlist {
		t.Fatalf("Applied.Network = %q, want allowlist", a.Network)
	}
	script := fmt.Sprintf(`curl -sS -m 10 http://registry.test:%[1]s/http; echo
curl -sS -m 10 --socks5-hostname "$HTTP_PROXY" http://registry.test:%[1]s/socks 2>&1 | tr -d '\n'; echo
curl -sS -m 10 -o /dev/null -w 'other=%%{http_code}\n' http://other.test/ 
curl -sS -m 10 -o /dev/null -w 'meta=%%{http_code}\n' http://meta.test/
curl -sS -m 10 -o /dev/null -w 'ip=%%{http_code}\n' http://198.51.100.7:%[1]s/
curl -sS -m 10 http://other.test/ | head -2
echo proxy=$HTTPS_PROXY`, port)
	start := time.Now()
	r := f.run(t, spec, strings.ReplaceAll(script, "--socks5-hostname \"$HTTP_PROXY\"", "--socks5-hostname "+ProxyAddr), 60*time.Second)
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("took %v", d)
	}
	for _, want := range []string{"registry-ok /http", "registry-ok /socks", "other=403", "meta=403", "ip=403",
		"connection to other.test:80 refused: not in the allowlist", netproxy.Setting, "proxy=http://" + ProxyAddr} {
		if !strings.Contains(r.out, want) {
			t.Errorf("output lacks %q:\n%s", want, r.out)
		}
	}
	if r.applied.Net == nil {
		t.Fatalf("no connection records: %+v", r.applied)
	}
	var allowed, refused int
	for _, c := range r.applied.Net.Connections {
		if c.Allowed {
			allowed++
			if c.Host != "registry.test" || c.Received == 0 {
				t.Errorf("record %+v", c)
			}
		} else {
			refused++
		}
	}
	if allowed != 2 || refused != 4 {
		t.Errorf("allowed %d refused %d: %+v", allowed, refused, r.applied.Net.Connections)
	}
	w := strings.Join(r.applied.Warnings(), "\n")
	for _, h := range []string{"other.test:80", "meta.test:80", "198.51.100.7:" + port} {
		if !strings.Contains(w, h) {
			t.Errorf("warnings lack %s: %s", h, w)
		}
	}
}

// Off mode: no listener, toolchains told they are offline.
func TestNetworkOffTellsToolchains(t *testing.T) {
	f := newFixture(t)
	r := f.run(t, Spec{}, `echo "npm=$npm_config_offline go=$GOPROXY proxy=$HTTP_PROXY"; (exec 3<>/dev/tcp/127.0.0.1/`+fmt.Sprint(ProxyPort)+`) 2>/dev/null && echo LISTENER`, 20*time.Second)
	if !strings.Contains(r.out, "npm=true") || !strings.Contains(r.out, "go=off") || !strings.Contains(r.out, "proxy=\n") || strings.Contains(r.out, "LISTENER") {
		t.Fatalf("off mode:\n%s", r.out)
	}
}

// TestNetworkAskLive: with OnNetAsk, a host only the allowlist refuses
// is put to the person while the command's connection waits: yes and
// the command gets its answer in the same run, no and it gets the 403;
// each host is asked once; the run's report has the answers.
func TestNetworkAskLive(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		skipOrFail(t, "curl not installed")
	}
	p, port := registryProxy(t)
	f := newFixture(t)
	spec := Spec{Proxy: p}
	need(t, f.assertActive(t, spec), LayerNetNS, LayerLoopback, LayerNetProxy)
	var mu sync.Mutex
	asked := map[string]int{}
	f.netAsk = func(_ context.Context, hp string) bool {
		mu.Lock()
		defer mu.Unlock()
		asked[hp]++
		return strings.HasPrefix(hp, "asked.test:")
	}
	script := fmt.Sprintf(`curl -sS -m 20 http://asked.test:%[1]s/one; echo
curl -sS -m 20 -o /dev/null -w 'nope=%%{http_code}\n' http://nope.test:%[1]s/
curl -sS -m 20 http://asked.test:%[1]s/two; echo
curl -sS -m 20 -o /dev/null -w 'meta=%%{http_code}\n' http://meta.test/`, port)
	r := f.run(t, spec, script, 60*time.Second)
	for _, want := range []string{"registry-ok /one", "registry-ok /two", "nope=403", "meta=403"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("output lacks %q:\n%s", want, r.out)
		}
	}
	mu.Lock()
	if asked["asked.test:"+port] != 1 || asked["nope.test:"+port] != 1 || len(asked) != 2 {
		t.Errorf("asked %v: want asked.test and nope.test once each (meta.test never)", asked)
	}
	mu.Unlock()
	if r.applied.Net == nil || fmt.Sprint(r.applied.Net.Asked) != fmt.Sprintf("[asked.test:%[1]s nope.test:%[1]s]", port) ||
		fmt.Sprint(r.applied.Net.Granted) != fmt.Sprintf("[asked.test:%s]", port) {
		t.Errorf("report: %+v", r.applied.Net)
	}
}

// TestPoolNetGrants: a warm helper, whose proxy listener was attached when
// it was warmed, lets through the hosts granted to the command it is
// given (a session's hosts, a grant remembered since), exactly those.
func TestPoolNetGrants(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		skipOrFail(t, "curl not installed")
	}
	p, port := registryProxy(t)
	f := newFixture(t)
	spec := Spec{Proxy: p}
	warmPool(t, f, spec, 1)
	granted := spec
	granted.NetGrants = []string{"asked.test:" + port}
	r := f.run(t, granted, fmt.Sprintf(`curl -sS -m 10 http://asked.test:%[1]s/granted; echo
curl -sS -m 10 -o /dev/null -w 'nope=%%{http_code}\n' http://nope.test:%[1]s/`, port), 60*time.Second)
	if !f.lastWarm {
		skipOrFail(t, "the command did not run warm")
	}
	if !strings.Contains(r.out, "registry-ok /granted") || !strings.Contains(r.out, "nope=403") {
		t.Errorf("a warm helper with a grant:\n%s", r.out)
	}
	if r.applied.Net == nil || !slices.Contains(r.applied.Net.Granted, "asked.test:"+port) {
		t.Errorf("the grant is not in the report: %+v", r.applied.Net)
	}
}

// The proxy's listener and the DNS stub are served only once the command
// uses one of them: a command that never connects costs the parent none
// of it, and their descriptors are closed after the run; one that
// connects is served, and its connection recorded.
func TestNetServedOnFirstUse(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		skipOrFail(t, "curl not installed")
	}
	p, port := registryProxy(t)
	f := newFixture(t)
	spec := Spec{Proxy: p, Workspace: f.ws, Home: f.home}
	need(t, f.assertActive(t, spec), LayerNetNS, LayerNetProxy, LayerDNS)
	served := func(h *Handle) bool {
		defer h.lockNet()()
		return h.netAtt != nil && h.dns != nil
	}
	for _, tc := range []struct {
		script string
		use    bool
	}{
		{"true", false},
		{"sleep 1; curl -sS -m 10 http://registry.test:" + port + "/first-use", true},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd, h, err := Command(ctx, spec, tc.script, f.env(), f.ws)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		h.Started()
		a, err := h.Applied()
		if err != nil {
			t.Fatal(err)
		}
		w := h.netWait
		if w == nil || served(h) {
			t.Errorf("%s: served before the command used the network (wait %v)", tc.script, w)
		}
		cmd.Wait()
		if got := served(h); got != tc.use {
			t.Errorf("%s: served %v after the run, want %v", tc.script, got, tc.use)
		}
		h.Close()
		cancel()
		select {
		case <-w.done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the watcher did not end after Close", tc.script)
		}
		if tc.use {
			if !strings.Contains(out.String(), "registry-ok /first-use") {
				t.Errorf("%s: %s", tc.script, out.String())
			}
			if a.Net == nil || len(a.Net.Connections) != 1 || !a.Net.Connections[0].Allowed {
				t.Errorf("%s: records %+v", tc.script, a.Net)
			}
		} else if a.Net == nil || len(a.Net.Connections) != 0 || a.Net.Proxy != ProxyAddr {
			t.Errorf("%s: records %+v", tc.script, a.Net)
		}
	}
}
