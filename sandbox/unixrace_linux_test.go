//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sockaddrWords is a sockaddr_un laid out in 64-bit words, so that a
// thread can rewrite it with atomic stores while another passes it to
// connect(2) (the race detector of a -race test binary then has nothing
// to report: only the kernel reads it).
type sockaddrWords [16]uint64

func sockaddrOf(path string) sockaddrWords {
	var w sockaddrWords
	b := (*[128]byte)(unsafe.Pointer(&w))
	*(*uint16)(unsafe.Pointer(&b[0])) = unix.AF_UNIX
	copy(b[2:], path)
	return w
}

// The connect-race tool runs inside the sandbox: it connects ROUNDS times
// to a unix socket address that another thread keeps rewriting between
// ALLOWED and FORBIDDEN (two paths of the same length), and prints how
// many connects succeeded and how many were refused.
func init() {
	if os.Getenv("SGTEST_RACE_TOOL") != "connect-race" {
		return
	}
	allowed, forbidden := os.Args[1], os.Args[2]
	rounds, _ := strconv.Atoi(os.Args[3])
	a, b := sockaddrOf(allowed), sockaddrOf(forbidden)
	var addr sockaddrWords
	for i := range addr {
		atomic.StoreUint64(&addr[i], a[i])
	}
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(done)
		for !stop.Load() {
			for _, src := range []*sockaddrWords{&b, &a} {
				for i := range addr {
					atomic.StoreUint64(&addr[i], src[i])
				}
			}
		}
	}()
	// A third thread interrupts the connecting thread with a signal
	// (handled, SA_RESTART) again and again, as the runtime's preemption
	// and a busy machine do now and then: a connect the supervisor made
	// must still be the command's, never one it is told failed.
	runtime.LockOSThread()
	tid := unix.Gettid()
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs, syscall.SIGUSR1)
	go func() {
		for {
			select {
			case <-sigs:
			case <-done:
				return
			}
		}
	}()
	go func() {
		pid := os.Getpid()
		for !stop.Load() {
			unix.Tgkill(pid, tid, unix.SIGUSR1)
			time.Sleep(20 * time.Microsecond)
		}
	}()
	size := uintptr(2 + len(allowed) + 1)
	var connected, refused int
	for i := 0; i < rounds; i++ {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			fmt.Println("socket:", err)
			os.Exit(1)
		}
		_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&addr)), size)
		for e == unix.EINTR {
			// Interrupted: the connect did not happen (or, for a socket
			// the kernel had begun to connect, goes on); ask again.
			_, _, e = unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&addr)), size)
		}
		if e == 0 {
			connected++
		} else {
			refused++
		}
		unix.Close(fd)
	}
	stop.Store(true)
	<-done
	fmt.Printf("connected=%d refused=%d\n", connected, refused)
	os.Exit(0)
}

// countingListener accepts and closes connections on a unix socket at
// path, counting them.
func countingListener(t *testing.T, path string) *atomic.Int64 {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	n := &atomic.Int64{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close() })
	return n
}

// TestUnixConnectRace: a thread of the command rewrites the address of a
// connect(2) between a socket in the workspace and one outside while the
// supervisor decides. The supervisor copies the address once and connects
// on that copy itself, so the outside socket never gets a connection, and
// both outcomes (allowed and refused) occur, showing that the race ran.
func TestUnixConnectRace(t *testing.T) {
	f := newFixture(t)
	a := f.assertActive(t, Spec{})
	need(t, a, LayerIPC)
	// Two absolute paths of the same length: ROOT/ws/in.sock (the
	// workspace) and ROOT/out/s.sock (outside every writable root).
	inSock := filepath.Join(f.ws, "in.sock")
	outDir := filepath.Join(f.root, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	outSock := filepath.Join(outDir, "s.sock")
	if len(inSock) != len(outSock) || len(inSock) > 100 {
		t.Fatalf("paths of different lengths: %q %q", inSock, outSock)
	}
	inside := countingListener(t, inSock)
	outside := countingListener(t, outSock)

	var connected, refused int
	for round := 0; round < 3 && (connected == 0 || refused == 0); round++ {
		r := f.run(t, Spec{}, fmt.Sprintf(`SGTEST_RACE_TOOL=connect-race "$SGTEST_BIN" %s %s 1500`, inSock, outSock), 60*time.Second)
		var c, rf int
		if _, err := fmt.Sscanf(strings.TrimSpace(r.out), "connected=%d refused=%d", &c, &rf); err != nil {
			t.Fatalf("tool output: %q (exit %d)", r.out, r.code)
		}
		connected += c
		refused += rf
	}
	// Let the listener goroutines count what reached them (on a busy
	// machine they may lag behind the command); equality is checked below.
	for end := time.Now().Add(5 * time.Second); inside.Load() < int64(connected) && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if n := outside.Load(); n != 0 {
		t.Fatalf("the socket outside the writable roots accepted %d connections", n)
	}
	if connected == 0 || refused == 0 {
		t.Fatalf("the race did not run: %d connected, %d refused", connected, refused)
	}
	if n := inside.Load(); n != int64(connected) {
		t.Errorf("%d connects succeeded, the workspace socket accepted %d", connected, n)
	}
	t.Logf("%d connects to the workspace socket, %d refused, 0 outside", connected, refused)
}
