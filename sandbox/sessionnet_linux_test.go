//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// bgCommand is a command started in the background through Command.
type bgCommand struct {
	cmd  *exec.Cmd
	h    *Handle
	out  *bufio.Reader
	pr   *os.File      // out's pipe: closed by kill, after the wait
	done chan struct{} // closed once waited for
	once sync.Once
}

func (f *fixture) startBackground(t *testing.T, spec Spec, script string) *bgCommand {
	t.Helper()
	spec.Workspace, spec.Home = f.ws, f.home
	env := append(f.env(), "SGTEST_BIN="+testBinary(t))
	env = envSet(env, "PATH", filepath.Dir(testBinary(t))+":/usr/local/bin:/usr/bin:/bin")
	cmd, h, err := Command(context.Background(), spec, script, env, f.ws)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	h.Started()
	if _, err := h.Applied(); err != nil {
		t.Fatal(err)
	}
	b := &bgCommand{cmd: cmd, h: h, out: bufio.NewReader(pr), pr: pr, done: make(chan struct{})}
	// The pipe stays open after the wait: what the command wrote last is
	// still to be read (closing it here lost a line a reader had not
	// reached yet, under load). Its end comes when the command's
	// processes have all gone.
	go func() { cmd.Wait(); close(b.done) }()
	t.Cleanup(func() { b.kill(t) })
	return b
}

// kill ends the command as the runner does: SIGKILL to its process
// group, then waits (bounded).
func (b *bgCommand) kill(t *testing.T) {
	b.once.Do(func() {
		syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-b.done:
		case <-time.After(20 * time.Second):
			t.Errorf("the command did not end within 20 s of SIGKILL")
		}
		b.pr.Close()
		b.h.Close()
	})
}

func (b *bgCommand) waitLine(t *testing.T, want string) {
	t.Helper()
	c := make(chan string, 1)
	go func() {
		var seen strings.Builder
		for {
			l, err := b.out.ReadString('\n')
			seen.WriteString(l)
			if strings.Contains(l, want) || err != nil {
				c <- seen.String()
				return
			}
		}
	}()
	select {
	case s := <-c:
		if !strings.Contains(s, want) {
			t.Fatalf("no %q from the background command:\n%s", want, s)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no %q from the background command within 30 s", want)
	}
}

// freePort returns a port free on the host's loopback (the namespaces
// have their own, so it is only a likely-free number).
func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// TestSessionNetShared: a server a background command of a session starts
// on loopback answers the session's next command, not another session's
// nor a command of no session; killing the server's command ends it, and
// closing the session ends its commands.
func TestSessionNetShared(t *testing.T) {
	f := newFixture(t)
	sn := NewSessionNet()
	defer sn.Close()
	a := f.assertActive(t, Spec{SessionNet: sn})
	need(t, a, LayerNetNS, LayerLoopback, LayerPidNS)
	if d := layerDetail(a, LayerNetNS); !strings.Contains(d, "session") {
		t.Fatalf("the command is not in the session's namespace: %q", d)
	}
	port := freePort(t)
	srv := f.startBackground(t, Spec{SessionNet: sn}, `SGTEST_TOOL=listen SGTEST_PORT=`+port+` "$SGTEST_BIN"`)
	srv.waitLine(t, "LISTENING")
	if tree := srv.h.Tree(); tree <= 0 || tree == srv.cmd.Process.Pid {
		t.Errorf("Tree() = %d, want the helper's pid (not the join process %d)", tree, srv.cmd.Process.Pid)
	}
	client := `(exec 3<>/dev/tcp/127.0.0.1/` + port + ` && head -1 <&3) 2>&1 || echo NO-CONNECTION`
	if r := f.run(t, Spec{SessionNet: sn}, client, 30*time.Second); !strings.Contains(r.out, "hello from the session's server") {
		t.Errorf("the session's next command cannot reach its server:\n%s", r.out)
	}
	other := NewSessionNet()
	defer other.Close()
	if r := f.run(t, Spec{SessionNet: other}, client, 30*time.Second); !strings.Contains(r.out, "NO-CONNECTION") {
		t.Errorf("another session reached the server:\n%s", r.out)
	}
	if r := f.run(t, Spec{}, client, 30*time.Second); !strings.Contains(r.out, "NO-CONNECTION") {
		t.Errorf("a command of no session reached the server:\n%s", r.out)
	}
	// Killed as the runner kills (the process group of what it
	// started): the server, inside the holder's tree, ends too.
	tree := srv.h.Tree()
	srv.kill(t)
	deadline := time.Now().Add(20 * time.Second)
	for alive := true; alive; {
		alive = syscall.Kill(tree, 0) == nil && !zombie(tree)
		if alive && time.Now().After(deadline) {
			t.Fatalf("the helper %d outlived its killed command", tree)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r := f.run(t, Spec{SessionNet: sn}, client, 30*time.Second); !strings.Contains(r.out, "NO-CONNECTION") {
		t.Errorf("the killed server still answers:\n%s", r.out)
	}
	// Closing the session ends what still runs in it.
	srv2 := f.startBackground(t, Spec{SessionNet: sn}, `SGTEST_TOOL=listen SGTEST_PORT=`+port+` "$SGTEST_BIN"`)
	srv2.waitLine(t, "LISTENING")
	sn.Close()
	select {
	case <-srv2.done:
	case <-time.After(20 * time.Second):
		t.Fatal("a command of a closed session still runs after 20 s")
	}
}

// TestSessionNetStatusAndSignals: the status, output and signals of a
// command in the session's namespace are those of one of its own.
func TestSessionNetStatusAndSignals(t *testing.T) {
	f := newFixture(t)
	sn := NewSessionNet()
	defer sn.Close()
	for _, c := range []struct {
		script string
		code   int
	}{{`echo out; echo err >&2; exit 7`, 7}, {`kill -TERM $$`, 143}, {`true`, 0}} {
		r := f.run(t, Spec{SessionNet: sn}, c.script, 30*time.Second)
		if r.code != c.code {
			t.Errorf("%q: exit %d, want %d:\n%s", c.script, r.code, c.code, r.out)
		}
		if c.code == 7 && (!strings.Contains(r.out, "out") || !strings.Contains(r.out, "err")) {
			t.Errorf("output lost: %q", r.out)
		}
	}
	// SIGTERM to the started process reaches the command (go-init
	// passes it to bash, whose trap answers).
	bg := f.startBackground(t, Spec{SessionNet: sn}, `trap 'echo GOT-TERM; exit 3' TERM; echo READY; while :; do sleep 0.1; done`)
	bg.waitLine(t, "READY")
	bg.cmd.Process.Signal(syscall.SIGTERM)
	bg.waitLine(t, "GOT-TERM")
	select {
	case <-bg.done:
	case <-time.After(20 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
	if code := bg.cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("exit %d after the trap, want 3", code)
	}
	// Concurrent commands of one session (a fixture each: run records
	// the helper's pid in it).
	var wg sync.WaitGroup
	outs := make([]string, 6)
	for i := range outs {
		fi := newFixture(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = fi.run(t, Spec{SessionNet: sn}, `echo call-`+strconv.Itoa(i), 60*time.Second).out
		}()
	}
	wg.Wait()
	for i, o := range outs {
		if !strings.Contains(o, "call-"+strconv.Itoa(i)) {
			t.Errorf("concurrent call %d: %q", i, o)
		}
	}
}

// TestSessionNetProxyPorts: commands of one session running at once each
// get a proxy listener of their own, and their variables point at it.
func TestSessionNetProxyPorts(t *testing.T) {
	p, port := registryProxy(t)
	f := newFixture(t)
	sn := NewSessionNet()
	defer sn.Close()
	spec := Spec{Proxy: p, SessionNet: sn}
	bg := f.startBackground(t, spec, `echo "P=$HTTP_PROXY"; echo READY; sleep 60`)
	bg.waitLine(t, "READY")
	script := `echo "P=$HTTP_PROXY"; ` + fmt.Sprintf(`curl -sS -m 10 http://registry.test:%s/shared`, port)
	if _, err := exec.LookPath("curl"); err != nil {
		skipOrFail(t, "curl not installed")
	}
	r := f.run(t, spec, script, 30*time.Second)
	if !strings.Contains(r.out, "registry-ok /shared") {
		t.Errorf("the proxy of a second command of the session:\n%s", r.out)
	}
	if r.applied.Network != NetAllowlist {
		t.Errorf("Network = %q", r.applied.Network)
	}
	if strings.Contains(r.out, "P=http://"+ProxyAddr+"\n") {
		t.Errorf("the variables name the fixed port, which the background command's listener may hold:\n%s", r.out)
	}
}

// zombie reports whether pid has exited and waits to be reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z'
}
