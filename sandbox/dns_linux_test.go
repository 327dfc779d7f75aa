//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellguard/shellguard/sandbox/netproxy"
	"golang.org/x/sys/unix"
)

// lookScript prints, for each name, getent's status, how long it took in
// milliseconds and what it printed (over TCP for a name written
// tcp:NAME), then what Go's own resolver says (resolveTool), then the
// nameservers of resolv.conf.
const lookScript = `ms() { local s=${1/./} e=${EPOCHREALTIME/./}; echo $(( (10#$e - 10#$s) / 1000 )); }
look() { local n=$1 o= t=$EPOCHREALTIME out rc; case $n in tcp:*) n=${n#tcp:} o=use-vc;; esac
  out=$(RES_OPTIONS=$o getent hosts "$n" 2>&1); rc=$?; echo "look $1 rc=$rc ms=$(ms $t) out=${out//$'\n'/ }"; }
for n in "$@"; do look "$n"; done
SGTEST_TOOL=resolve "$SGTEST_BIN" "${@//tcp:*/}"
echo "resolv: $(grep '^nameserver' /etc/resolv.conf | tr '\n' ' ')"`

type lookup struct {
	rc, ms int
	out    string
}

var lookLine = regexp.MustCompile(`(?m)^look (\S+) rc=(\d+) ms=(\d+) out=(.*)$`)

func lookups(t *testing.T, out string) map[string]lookup {
	t.Helper()
	m := map[string]lookup{}
	for _, g := range lookLine.FindAllStringSubmatch(out, -1) {
		rc, _ := strconv.Atoi(g[2])
		ms, _ := strconv.Atoi(g[3])
		m[g[1]] = lookup{rc, ms, g[4]}
	}
	return m
}

// lookNames runs lookScript for names under spec.
func (f *fixture) lookNames(t *testing.T, spec Spec, names ...string) (result, map[string]lookup) {
	t.Helper()
	script := "set -- " + strings.Join(names, " ") + "\n" + lookScript
	r := f.run(t, spec, script, 60*time.Second)
	return r, lookups(t, r.out)
}

// hostResolvConf is what the host's /etc/resolv.conf is (link and
// content), to prove the sandbox changed nothing of it.
func hostResolvConf() string {
	fi, err := os.Lstat("/etc/resolv.conf")
	if err != nil {
		return "absent: " + err.Error()
	}
	link, _ := os.Readlink("/etc/resolv.conf")
	b, _ := os.ReadFile("/etc/resolv.conf")
	return fmt.Sprintf("%v %d link=%q %q", fi.Mode(), fi.ModTime().UnixNano(), link, b)
}

// noDNSTimeout is far below a resolver's timeout (5 s by default), far
// above an answer: it only tells the two apart.
const noDNSTimeout = 2000

// TestNetDNSStub: inside the sandbox a name of the allowlist resolves at
// once (to the stub's unroutable address), any other name fails at once,
// in allowlist and in off mode; the host's resolv.conf is untouched.
func TestNetDNSStub(t *testing.T) {
	if _, err := exec.LookPath("getent"); err != nil {
		skipOrFail(t, "getent not installed")
	}
	before := hostResolvConf()
	p, _ := registryProxy(t)
	f := newFixture(t)
	spec := Spec{Proxy: p}
	f.assertActive(t, spec)
	r, got := f.lookNames(t, spec, "registry.test", "other.test", "localhost", "tcp:registry.test", "tcp:other.test")
	need(t, r.applied, LayerNetNS, LayerLoopback)
	if !r.applied.Has(LayerDNS) {
		t.Fatalf("no %s layer: %+v\n%s", LayerDNS, r.applied, r.out)
	}
	if g := got["registry.test"]; g.rc != 0 || !strings.Contains(g.out, netproxy.StubAnswer.String()) || g.ms > noDNSTimeout {
		t.Errorf("an allowed name: %+v\n%s", g, r.out)
	}
	if g, ok := got["other.test"]; !ok || g.rc == 0 || g.ms > noDNSTimeout {
		t.Errorf("an unlisted name: %+v (want a failure within %d ms)\n%s", g, noDNSTimeout, r.out)
	}
	if g := got["tcp:registry.test"]; g.rc != 0 || !strings.Contains(g.out, netproxy.StubAnswer.String()) {
		t.Errorf("an allowed name over TCP: %+v\n%s", g, r.out)
	}
	if g, ok := got["tcp:other.test"]; !ok || g.rc == 0 || g.ms > noDNSTimeout {
		t.Errorf("an unlisted name over TCP: %+v\n%s", g, r.out)
	}
	if g := got["localhost"]; g.rc != 0 {
		t.Errorf("localhost: %+v", g)
	}
	for _, want := range []string{"go registry.test ok " + netproxy.StubAnswer.String() + "\n", "go other.test notfound\n"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("Go's resolver: no %q:\n%s", want, r.out)
		}
	}
	if !strings.Contains(r.out, "resolv: nameserver 127.0.0.1 \n") {
		t.Errorf("resolv.conf does not name the stub alone:\n%s", r.out)
	}
	// The result names what was looked up in vain, and only that.
	if n := r.applied.Net; n == nil || !slices.Equal(n.Unknown, []string{"other.test"}) {
		t.Errorf("allowlist mode: unknown names %+v, want [other.test]", n)
	} else if w := strings.Join(r.applied.Warnings(), "\n"); !strings.Contains(w, "lookups of other.test were answered") || !strings.Contains(w, netproxy.Setting) {
		t.Errorf("allowlist mode: the warnings do not name the name and the setting:\n%s", w)
	}

	r, got = f.lookNames(t, Spec{}, "registry.test", "other.test")
	if !r.applied.Has(LayerDNS) {
		t.Fatalf("off mode: no %s layer: %+v", LayerDNS, r.applied)
	}
	for _, n := range []string{"registry.test", "other.test"} {
		if g, ok := got[n]; !ok || g.rc == 0 || g.ms > noDNSTimeout {
			t.Errorf("off mode, %s: %+v (want a failure within %d ms)\n%s", n, g, noDNSTimeout, r.out)
		}
		if want := "go " + n + " notfound\n"; !strings.Contains(r.out, want) {
			t.Errorf("off mode, Go's resolver: no %q:\n%s", want, r.out)
		}
	}
	if n := r.applied.Net; n == nil || !slices.Equal(n.Unknown, []string{"registry.test", "other.test"}) || n.Proxy != "" {
		t.Errorf("off mode: unknown names %+v, want [registry.test other.test] and no proxy", n)
	} else if w := strings.Join(r.applied.Warnings(), "\n"); !strings.Contains(w, "lookups of registry.test, other.test were answered") || !strings.Contains(w, "network is off") {
		t.Errorf("off mode: the warnings do not name the names:\n%s", w)
	}
	if after := hostResolvConf(); after != before {
		t.Errorf("the host's /etc/resolv.conf changed:\n%s\n%s", before, after)
	}
}

// TestNetDNSStubGrant: a host granted to one command resolves in it.
func TestNetDNSStubGrant(t *testing.T) {
	if _, err := exec.LookPath("getent"); err != nil {
		skipOrFail(t, "getent not installed")
	}
	p, _ := registryProxy(t)
	f := newFixture(t)
	r, got := f.lookNames(t, Spec{Proxy: p, NetGrants: []string{"granted.test:443"}}, "granted.test", "other.test")
	need(t, r.applied, LayerNetNS, LayerLoopback, LayerDNS)
	if g := got["granted.test"]; g.rc != 0 || !strings.Contains(g.out, netproxy.StubAnswer.String()) {
		t.Errorf("a granted name: %+v\n%s", g, r.out)
	}
	if g := got["other.test"]; g.rc == 0 {
		t.Errorf("other.test: %+v", g)
	}
}

// TestSessionNetDNS: commands of one session running at once each get a
// stub of their own on the shared loopback, and each answers.
func TestSessionNetDNS(t *testing.T) {
	if _, err := exec.LookPath("getent"); err != nil {
		skipOrFail(t, "getent not installed")
	}
	p, _ := registryProxy(t)
	f := newFixture(t)
	sn := NewSessionNet()
	defer sn.Close()
	spec := Spec{Proxy: p, SessionNet: sn}
	bg := f.startBackground(t, spec, `echo READY; sleep 60`)
	bg.waitLine(t, "READY")
	r, got := f.lookNames(t, spec, "registry.test", "other.test")
	need(t, r.applied, LayerNetNS, LayerLoopback, LayerDNS)
	if g := got["registry.test"]; g.rc != 0 || !strings.Contains(g.out, netproxy.StubAnswer.String()) || g.ms > noDNSTimeout {
		t.Errorf("an allowed name in the second command of a session: %+v\n%s", g, r.out)
	}
	if g, ok := got["other.test"]; !ok || g.rc == 0 || g.ms > noDNSTimeout {
		t.Errorf("an unlisted name: %+v\n%s", g, r.out)
	}
	if strings.Contains(r.out, "nameserver 127.0.0.1 ") {
		t.Errorf("the second command names the address the first one's stub holds:\n%s", r.out)
	}
}

// TestBindFileOverSymlink: the generated file goes over a symlink itself
// (systemd-resolved links /etc/resolv.conf into /run, which the sandbox
// replaces), dangling or not, and over a plain file, and nothing of the
// originals changes.
func TestBindFileOverSymlink(t *testing.T) {
	if ok, why := nsAllowed(); !ok {
		skipOrFail(t, "no user namespaces: %s", why)
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "real.conf")
	if err := os.WriteFile(real, []byte("nameserver 192.0.2.53\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{"dangling": "../run/none/stub-resolv.conf", "link": "real.conf"}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var targets []string
	for _, n := range []string{"dangling", "link", "plain"} {
		targets = append(targets, filepath.Join(dir, n))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testBinary(t))
	cmd.Env = append(os.Environ(), "SGTEST_TOOL=bind-over", "SGTEST_TARGETS="+strings.Join(targets, ":"))
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: []uintptr{capSysAdmin},
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	for _, p := range targets {
		want := fmt.Sprintf("%s: -r--r--r-- %q read-only", p, "generated\n")
		if !strings.Contains(string(out), want) {
			t.Errorf("inside, want %s:\n%s", want, out)
		}
	}
	for name, to := range links {
		if got, err := os.Readlink(filepath.Join(dir, name)); err != nil || got != to {
			t.Errorf("the link %s changed: %q %v", name, got, err)
		}
	}
	for p, want := range map[string]string{real: "nameserver 192.0.2.53\n", plain: "old\n"} {
		if b, err := os.ReadFile(p); err != nil || string(b) != want {
			t.Errorf("%s changed: %q %v", p, b, err)
		}
	}
}

// resolveTool looks up each name of its arguments with Go's own resolver
// (which reads /etc/resolv.conf itself) and prints "go NAME ok ADDRS",
// "go NAME notfound" (NXDOMAIN: a definite answer, not retried) or "go
// NAME error ERR" (an unreachable resolver: a temporary failure, which
// package managers retry).
func resolveTool() int {
	r := &net.Resolver{PreferGo: true}
	for _, n := range os.Args[1:] {
		if n == "" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		addrs, err := r.LookupHost(ctx, n)
		cancel()
		var de *net.DNSError
		switch {
		case err == nil:
			fmt.Printf("go %s ok %s\n", n, strings.Join(addrs, ","))
		case errors.As(err, &de) && de.IsNotFound:
			fmt.Printf("go %s notfound\n", n)
		default:
			fmt.Printf("go %s error %v\n", n, err)
		}
	}
	return 0
}

// bindOverTool runs in a new user and mount namespace: it binds a
// generated file over each of SGTEST_TARGETS and prints what it sees
// there.
func bindOverTool() int {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		fmt.Println("private:", err)
		return 1
	}
	var b bytes.Buffer
	for _, p := range strings.Split(os.Getenv("SGTEST_TARGETS"), ":") {
		if err := bindFileOver(p, []byte("generated\n")); err != nil {
			fmt.Fprintf(&b, "%s: %v\n", p, err)
			continue
		}
		fi, err := os.Lstat(p)
		data, rerr := os.ReadFile(p)
		if err != nil || rerr != nil {
			fmt.Fprintf(&b, "%s: %v %v\n", p, err, rerr)
			continue
		}
		ro := "writable"
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err != nil {
			ro = "read-only"
		} else {
			f.Close()
		}
		fmt.Fprintf(&b, "%s: %v %q %s\n", p, fi.Mode(), data, ro)
	}
	os.Stdout.Write(b.Bytes())
	return 0
}
