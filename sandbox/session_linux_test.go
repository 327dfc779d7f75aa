//go:build linux

package sandbox

// Effect tests of the session, fds and ipc layers. Like the other sandbox
// tests, every attack runs inside the sandbox against scratch targets
// created here, after assertActive proved the sandbox is in force.

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// The test binary doubles as a small tool run inside the sandbox
// (SGTEST_SESSION_TOOL), and as a "caller with a terminal" run outside.
func init() {
	switch os.Getenv("SGTEST_SESSION_TOOL") {
	case "":
		return
	case "connect": // connect to each unix socket path in argv
		for _, p := range os.Args[1:] {
			c, err := net.DialTimeout("unix", p, 3*time.Second)
			if err != nil {
				fmt.Printf("%s: REFUSED %v\n", p, err)
				continue
			}
			c.Write([]byte("via-sandbox\n"))
			c.Close()
			fmt.Printf("%s: CONNECTED\n", p)
		}
		os.Exit(0)
	case "sockets": // socket families and types that must be refused
		try := func(name string, dom, typ, proto int) {
			fd, err := unix.Socket(dom, typ, proto)
			if err != nil {
				fmt.Printf("%s=%s\n", name, unix.ErrnoName(err.(syscall.Errno)))
				return
			}
			unix.Close(fd)
			fmt.Printf("%s=OK\n", name)
		}
		try("vsock", unix.AF_VSOCK, unix.SOCK_STREAM, 0)
		try("packet", unix.AF_PACKET, unix.SOCK_RAW, 0)
		try("netlink-audit", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT)
		try("netlink-route", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE)
		try("unix-dgram", unix.AF_UNIX, unix.SOCK_DGRAM, 0)
		try("unix-stream", unix.AF_UNIX, unix.SOCK_STREAM, 0)
		try("unix-seqpacket", unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
		// the kernel makes an AF_UNIX SOCK_RAW socket a datagram socket
		try("unix-raw", unix.AF_UNIX, unix.SOCK_RAW, 0)
		try("unix-raw-flags", unix.AF_UNIX, unix.SOCK_RAW|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		try("unix-rdm", unix.AF_UNIX, unix.SOCK_RDM, 0)
		try("unix-type7", unix.AF_UNIX, 7, 0)
		pair := func(name string, typ int) {
			if _, err := unix.Socketpair(unix.AF_UNIX, typ, 0); err != nil {
				fmt.Printf("%s=%s\n", name, unix.ErrnoName(err.(syscall.Errno)))
			} else {
				fmt.Printf("%s=OK\n", name)
			}
		}
		pair("socketpair-raw", unix.SOCK_RAW)
		pair("socketpair-raw-flags", unix.SOCK_RAW|unix.SOCK_CLOEXEC)
		pair("socketpair-seqpacket", unix.SOCK_SEQPACKET|unix.SOCK_NONBLOCK)
		if _, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0); err != nil {
			fmt.Printf("socketpair=%v\n", err)
		} else {
			fmt.Println("socketpair=OK")
		}
		if _, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0); err != nil {
			fmt.Printf("socketpair-dgram=%s\n", unix.ErrnoName(err.(syscall.Errno)))
		} else {
			fmt.Println("socketpair-dgram=OK")
		}
		os.Exit(0)
	case "caller": // a caller whose controlling terminal is stdin: run the script sandboxed
		var spec Spec
		spec.Workspace = os.Getenv("SGTEST_WS")
		spec.Home = os.Getenv("SGTEST_WS")
		env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + spec.Home}
		cmd, h, err := Command(context.Background(), spec, os.Args[1], env, spec.Workspace)
		if err != nil {
			fmt.Println("command:", err)
			os.Exit(3)
		}
		cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, os.Stdout, os.Stdout
		if err := cmd.Start(); err != nil {
			fmt.Println("start:", err)
			os.Exit(3)
		}
		h.Started()
		a, _ := h.Applied()
		cmd.Wait()
		h.Close()
		fmt.Println("LAYERS", strings.Join(a.Names(), ","))
		os.Exit(0)
	}
}

// TestInheritedFDsClosed leaks a descriptor open for writing on a file
// outside, a directory outside and a connected socket (none close-on-exec)
// to the sandbox, as a careless caller would; none may reach bash.
func TestInheritedFDsClosed(t *testing.T) {
	f := newFixture(t)
	a := f.assertActive(t, Spec{})
	need(t, a, LayerFDs)
	wfd, err := unix.Open(f.canary, unix.O_WRONLY|unix.O_APPEND, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(wfd)
	dfd, err := unix.Open(f.outside, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dfd)
	sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(sp[0])
	defer unix.Close(sp[1])
	// bash keeps a copy of a descriptor it redirects at the lowest free
	// number from 10 up, so a leaked descriptor at 10 or 11 would be
	// indistinguishable from bash's own saved stderr. Leak them far above.
	wfd, dfd, leaked := high(t, wfd), high(t, dfd), high(t, sp[1])
	script := fmt.Sprintf(`for n in %d %d %d; do
  { echo pwned >&$n; } 2>/dev/null && echo "FD $n WRITABLE"
  { echo pwned > /proc/self/fd/$n; } 2>/dev/null && echo "PROC $n WRITABLE"
  [ -e /proc/self/fd/$n ] && echo "FD $n OPEN"
done
{ echo pwned > /proc/self/fd/%d/canary.txt; } 2>/dev/null && echo "DIR WRITABLE"
ls /proc/self/fd`, wfd, dfd, leaked, dfd)
	r := f.run(t, Spec{}, script, 20*time.Second)
	if strings.Contains(r.out, "WRITABLE") || strings.Contains(r.out, "OPEN") {
		t.Fatalf("an inherited descriptor reached bash:\n%s", r.out)
	}
	f.canaryIntact(t)
	unix.SetNonblock(sp[0], true)
	if n, _ := unix.Read(sp[0], make([]byte, 64)); n > 0 {
		t.Fatalf("the command wrote to the inherited socket")
	}
	// bash's own descriptors: 0, 1, 2 and the one ls opens.
	var fds []string
	for _, l := range strings.Fields(r.out) {
		if _, err := strconv.Atoi(l); err == nil {
			fds = append(fds, l)
		}
	}
	if strings.Join(fds, " ") != "0 1 2 3" {
		t.Fatalf("descriptors inside: %v\n%s", fds, r.out)
	}
}

// high duplicates fd, without close-on-exec, at a free number of 100 or
// more, and closes the duplicate when the test ends.
func high(t *testing.T, fd int) int {
	t.Helper()
	n, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD, 100)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(n) })
	return n
}

// TestNoControllingTerminal runs the sandbox from a caller whose
// controlling terminal is a pty the test holds: the command must not
// open it, change its modes or take its foreground group, and /dev/pts
// must not show the host's terminals.
func TestNoControllingTerminal(t *testing.T) {
	f := newFixture(t)
	a := f.assertActive(t, Spec{})
	need(t, a, LayerSession)
	master, slave, err := pty.Open()
	if err != nil {
		skipOrFail(t, "no pty: %v", err)
	}
	defer master.Close()
	defer slave.Close()
	before, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	script := `if exec 3<>/dev/tty; then echo TTY-OPEN; stty -echo <&3 && echo STTY-CHANGED; fi
for p in /dev/pts/[0-9]*; do [ -e "$p" ] && echo "SEES $p"; { echo pwned > "$p"; } 2>/dev/null && echo "WROTE $p"; done
grep -E '^(Seccomp):' /proc/self/status
awk '{print "TTY_NR", $7}' /proc/self/stat`
	cmd := exec.Command(testBinary(t), script)
	cmd.Env = append(os.Environ(), "SGTEST_SESSION_TOOL=caller", "SGTEST_WS="+f.ws)
	cmd.Stdin = slave
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("caller timed out")
	}
	o := out.String()
	if !strings.Contains(o, "Seccomp:\t2") || !strings.Contains(o, "LAYERS") {
		t.Fatalf("the sandbox did not run:\n%s", o)
	}
	for _, bad := range []string{"TTY-OPEN", "STTY-CHANGED", "WROTE", "SEES"} {
		if strings.Contains(o, bad) {
			t.Fatalf("the command reached a terminal (%s):\n%s", bad, o)
		}
	}
	if !strings.Contains(o, "TTY_NR 0") {
		t.Fatalf("the command has a controlling terminal:\n%s", o)
	}
	after, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil || after.Lflag != before.Lflag {
		t.Fatalf("terminal modes changed: %v", err)
	}
	mfd := int(master.Fd()) // Fd() makes it blocking: call it once
	unix.SetNonblock(mfd, true)
	if n, _ := unix.Read(mfd, make([]byte, 256)); n > 0 {
		t.Fatalf("the command wrote to the caller's terminal")
	}
}

// TestPrivateTmp: the host /tmp, /dev/shm and /run are not visible, what
// a run leaves in /tmp is gone for the next run, and with a SessionTmp
// it is there for the next run of the same session only.
func TestPrivateTmp(t *testing.T) {
	f := newFixture(t)
	a := f.assertActive(t, Spec{})
	need(t, a, LayerIPC)
	host, err := os.CreateTemp("/tmp", "sg-host-secret-")
	if err != nil {
		t.Fatal(err)
	}
	host.WriteString("host-tmp-content")
	host.Close()
	defer os.Remove(host.Name())
	shm := filepath.Join("/dev/shm", filepath.Base(host.Name()))
	if err := os.WriteFile(shm, []byte("host-shm-content"), 0o644); err == nil {
		defer os.Remove(shm)
	}
	left := "sg-left-" + strconv.Itoa(os.Getpid())
	script := fmt.Sprintf(`cat %s %s 2>/dev/null; ls -A /run; echo inside > /tmp/%[3]s; echo inside > /dev/shm/%[3]s; echo inside > "$TMPDIR/%[3]s-2"; cat /tmp/%[3]s-2; echo DONE`, host.Name(), shm, left)
	r := f.run(t, Spec{}, script, 20*time.Second)
	if strings.Contains(r.out, "host-") || !strings.Contains(r.out, "DONE") {
		t.Fatalf("host /tmp or /dev/shm visible:\n%s", r.out)
	}
	if !strings.Contains(r.out, "inside") {
		t.Fatalf("$TMPDIR is not the private /tmp:\n%s", r.out)
	}
	for _, l := range strings.Fields(r.out) {
		if l == "user" || strings.HasSuffix(l, ".sock") || l == "dbus" || l == "docker" {
			t.Fatalf("/run shows %q:\n%s", l, r.out)
		}
	}
	for _, p := range []string{"/tmp/" + left, "/dev/shm/" + left, filepath.Join(f.tmp, left+"-2")} {
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
			t.Fatalf("%s written to the host", p)
		}
	}
	r = f.run(t, Spec{}, `cat /tmp/`+left+` 2>&1`, 20*time.Second)
	if strings.Contains(r.out, "inside") {
		t.Fatalf("a run saw the previous run's /tmp")
	}

	sess, err := NewSessionTmp()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	spec := Spec{SessionTmp: sess.Dir()}
	r = f.run(t, spec, `echo kept > /tmp/kept; echo shm > /dev/shm/kept`, 20*time.Second)
	r = f.run(t, spec, `cat /tmp/kept /dev/shm/kept`, 20*time.Second)
	if !strings.Contains(r.out, "kept") || !strings.Contains(r.out, "shm") {
		t.Fatalf("the session's /tmp did not persist:\n%s", r.out)
	}
	if r.applied.Layers == nil || !strings.Contains(layerDetail(r.applied, LayerIPC), "session") {
		t.Fatalf("ipc layer does not say session: %s", layerDetail(r.applied, LayerIPC))
	}
	r = f.run(t, Spec{}, `cat /tmp/kept 2>&1`, 20*time.Second)
	if strings.Contains(r.out, "kept") && !strings.Contains(r.out, "No such") {
		t.Fatalf("a run outside the session saw its /tmp")
	}
	dir := sess.Dir()
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("session dir mode: %v %v", fi, err)
	}
	sess.Close()
	if _, err := os.Stat(dir); err == nil {
		t.Fatalf("session dir survives Close")
	}
}

func layerDetail(a Applied, name string) string {
	for _, l := range a.Layers {
		if l.Name == name {
			return l.Detail
		}
	}
	return ""
}

// TestSessionTmpRefusesPlantedParent: a parent directory someone else
// prepared (a symlink, or not 0700) is refused.
func TestSessionTmpRefusesPlantedParent(t *testing.T) {
	d := t.TempDir()
	link := filepath.Join(d, "link")
	os.Symlink(d, link)
	if err := ownDir(link); err == nil {
		t.Fatal("a symlink was accepted")
	}
	os.Chmod(d, 0o755)
	if err := ownDir(d); err == nil {
		t.Fatal("a 0755 directory was accepted")
	}
	os.Chmod(d, 0o700)
	if err := ownDir(d); err != nil {
		t.Fatal(err)
	}
}

// listenUnix serves a unix socket at path; every connection's first line
// is recorded.
func listenUnix(t *testing.T, path string) *[]string {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	got := &[]string{}
	ch := make(chan string, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(2 * time.Second))
			b := make([]byte, 64)
			n, _ := c.Read(b)
			c.Close()
			ch <- string(b[:n])
		}
	}()
	t.Cleanup(func() {
		for {
			select {
			case s := <-ch:
				*got = append(*got, s)
			default:
				return
			}
		}
	})
	return got
}

// TestUnixConnectSupervised: a pathname socket outside the writable roots
// (the user's tmux, agent, D-Bus ...) cannot be connected to, directly,
// through a relative path, or through a symlink in the workspace; a
// socket in the workspace and one in the private /tmp can.
func TestUnixConnectSupervised(t *testing.T) {
	f := newFixture(t)
	a := f.assertActive(t, Spec{})
	need(t, a, LayerIPC)
	outSock := filepath.Join(f.root, "svc.sock")
	outside := countingListener(t, outSock) // unixrace_linux_test.go
	defer func() {
		time.Sleep(100 * time.Millisecond) // let it count what reached it
		if n := outside.Load(); n > 0 {
			t.Errorf("the outside socket accepted %d connections", n)
		}
	}()
	inSock := filepath.Join(f.ws, "in.sock")
	listenUnix(t, inSock)
	os.Symlink(outSock, filepath.Join(f.ws, "link.sock"))
	script := fmt.Sprintf(`cd %s && SGTEST_SESSION_TOOL=connect "$SGTEST_BIN" %s ../svc.sock link.sock in.sock %s
SGTEST_SESSION_TOOL=connect "$SGTEST_BIN" /tmp/mine.sock & 
python3 -c 'import socket,os; s=socket.socket(socket.AF_UNIX); s.bind("/tmp/mine.sock"); s.listen(1); c=socket.socket(socket.AF_UNIX); c.connect("/tmp/mine.sock"); print("/tmp/mine.sock: TMP CONNECTED")' 2>/dev/null
wait`, f.ws, outSock, inSock)
	r := f.run(t, Spec{}, script, 30*time.Second)
	for _, p := range []string{outSock, "../svc.sock", "link.sock"} {
		if !strings.Contains(r.out, p+": REFUSED") {
			t.Errorf("%s was not refused:\n%s", p, r.out)
		}
	}
	if !strings.Contains(r.out, "in.sock: CONNECTED") || !strings.Contains(r.out, inSock+": CONNECTED") {
		t.Errorf("a socket in the workspace could not be connected:\n%s", r.out)
	}
	if _, err := exec.LookPath("python3"); err == nil && !strings.Contains(r.out, "TMP CONNECTED") {
		t.Errorf("a socket in the private /tmp could not be connected:\n%s", r.out)
	}
}

// TestSocketFamilies: vsock, packet, netlink other than route and unix
// sockets of any type but stream and seqpacket (SOCK_RAW is a datagram
// socket in the kernel) are refused; unix stream and seqpacket sockets
// and socketpairs work.
func TestSocketFamilies(t *testing.T) {
	f := newFixture(t)
	a := f.assertActive(t, Spec{})
	need(t, a, LayerIPC)
	r := f.run(t, Spec{}, `SGTEST_SESSION_TOOL=sockets "$SGTEST_BIN"`, 20*time.Second)
	want := map[string]string{"vsock": "EAFNOSUPPORT", "packet": "EAFNOSUPPORT", "netlink-audit": "EAFNOSUPPORT",
		"netlink-route": "OK", "unix-dgram": "EACCES", "unix-stream": "OK", "socketpair": "OK", "socketpair-dgram": "EACCES",
		"unix-seqpacket": "OK", "unix-raw": "EACCES", "unix-raw-flags": "EACCES", "unix-rdm": "EACCES", "unix-type7": "EACCES",
		"socketpair-raw": "EACCES", "socketpair-raw-flags": "EACCES", "socketpair-seqpacket": "OK"}
	for k, v := range want {
		if !strings.Contains(r.out, k+"="+v+"\n") {
			t.Errorf("%s: want %s:\n%s", k, v, r.out)
		}
	}
}

// TestAbstractSocketOutside: an abstract socket of the host cannot be
// reached (network namespace and Landlock scope), though the connect is
// performed by the supervisor.
func TestAbstractSocketOutside(t *testing.T) {
	f := newFixture(t)
	a := f.assertActive(t, Spec{})
	need(t, a, LayerIPC)
	name := "@sgtest-abstract-" + strconv.Itoa(os.Getpid())
	l, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan bool, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Close()
			accepted <- true
		}
	}()
	r := f.run(t, Spec{}, `SGTEST_SESSION_TOOL=connect "$SGTEST_BIN" `+name, 20*time.Second)
	if !strings.Contains(r.out, "REFUSED") {
		t.Fatalf("abstract socket of the host reached:\n%s", r.out)
	}
	select {
	case <-accepted:
		t.Fatal("the host's abstract socket accepted a connection")
	case <-time.After(100 * time.Millisecond):
	}
}

// TestCapsEveryThread: no thread of any process in the sandbox (the
// helper acting as init included) holds a capability, and, as root, raw
// devices do not exist and /proc/sys is read-only.
func TestCapsEveryThread(t *testing.T) {
	f := newFixture(t)
	a := f.assertActive(t, Spec{})
	need(t, a, LayerCaps, LayerSession, LayerPidNS)
	r := f.run(t, Spec{}, `for s in /proc/[0-9]*/task/*/status; do grep -H '^Cap\(Inh\|Prm\|Eff\|Amb\)' "$s"; done
ls /dev | tr '\n' ' '; echo
grep ' /proc/sys ' /proc/self/mountinfo | cut -d' ' -f6`, 20*time.Second)
	lines := 0
	for _, l := range strings.Split(r.out, "\n") {
		if strings.Contains(l, "\tCap") || strings.Contains(l, ":Cap") {
			lines++
			if !strings.HasSuffix(l, "0000000000000000") {
				t.Errorf("a thread holds capabilities: %s", l)
			}
		}
	}
	if lines < 8 { // init's threads and bash's, four sets each
		t.Fatalf("too few threads seen:\n%s", r.out)
	}
	if os.Getuid() != 0 {
		return // devices and /proc/sys belong to root: DAC is the second barrier
	}
	for _, dev := range []string{"sda", "mem", "kmsg", "kvm", "port"} {
		if strings.Contains(" "+r.out+" ", " "+dev+" ") {
			t.Errorf("/dev/%s exists in the sandbox:\n%s", dev, r.out)
		}
	}
	if !strings.Contains(r.out, "\nro,") && !strings.Contains(r.out, "\nro\n") {
		t.Errorf("/proc/sys is not read-only:\n%s", r.out)
	}
}
