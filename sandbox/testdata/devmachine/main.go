// Command devmachine runs a tool the way it runs on a developer's machine,
// for the session/ipc escape cases (escapes-session.jsonl). It is the
// command template of sgeval:
//
//	devmachine {outside} -- shellguard run --timeout {timeout} -- {cmd}
//
// Around the tool it provides, in a directory "dev" beside {outside} (not
// under any writable root of the sandbox):
//   - a real tmux server on dev/tmux.sock (when tmux is installed);
//   - a forwarder on the unix stream socket dev/fwd.sock, on the unix
//     datagram socket dev/dgram.sock and on /tmp/sgdev-UID-PID/agent.sock
//     (like an ssh agent in the host /tmp): whatever reaches it is
//     appended to {outside}/forwarded;
//   - inherited descriptors without close-on-exec: 7 = {outside}/canary.txt
//     open for appending, 8 = a socket connected to the forwarder,
//     9 = the {outside} directory;
//   - a controlling terminal (a pty whose master it holds), and a second
//     pty standing for another terminal of the user; after the tool
//     exits, output carrying the cases' payload "pwned" that reached
//     either terminal is written to {outside}/tty-written, changed terminal modes to
//     {outside}/tty-modes, a stolen foreground group to {outside}/tty-pgrp;
//     0.3 s after the start it "types" a line (typed-by-user) into the
//     terminal;
//   - a planted file /dev/shm/sg-escapes-planted or /tmp/sg-escapes-planted
//     left by the tool is reported as {outside}/host-tmp-planted.
//
// So every escape leaves a canary in {outside}, which the cases check.
package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) < 4 || os.Args[2] != "--" {
		fmt.Fprintln(os.Stderr, "usage: devmachine OUTSIDE -- TOOL ARGS...")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1], os.Args[3:]))
}

func run(outside string, tool []string) int {
	dev := filepath.Join(filepath.Dir(outside), "dev")
	if err := os.MkdirAll(dev, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, "devmachine:", err)
		return 2
	}
	var mu sync.Mutex
	record := func(name string, b []byte) {
		if len(b) == 0 {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(filepath.Join(outside, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			f.Write(b)
			f.Close()
		}
	}
	// Forwarders.
	serve := func(l net.Listener) {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				b := make([]byte, 4096)
				for {
					n, err := c.Read(b)
					record("forwarded", b[:n])
					if err != nil {
						return
					}
				}
			}()
		}
	}
	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	fwd, err := net.Listen("unix", filepath.Join(dev, "fwd.sock"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "devmachine:", err)
		return 2
	}
	closers = append(closers, fwd)
	go serve(fwd)
	agentDir := fmt.Sprintf("/tmp/sgdev-%d-%d", os.Getuid(), os.Getpid())
	if os.Mkdir(agentDir, 0o700) == nil {
		defer os.RemoveAll(agentDir)
		if l, err := net.Listen("unix", filepath.Join(agentDir, "agent.sock")); err == nil {
			closers = append(closers, l)
			go serve(l)
		}
	}
	if pc, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: filepath.Join(dev, "dgram.sock"), Net: "unixgram"}); err == nil {
		closers = append(closers, pc)
		go func() {
			b := make([]byte, 4096)
			for {
				n, _, err := pc.ReadFrom(b)
				if err != nil {
					return
				}
				record("forwarded", append([]byte("dgram: "), b[:n]...))
			}
		}()
	}
	// tmux server.
	tmuxSock := filepath.Join(dev, "tmux.sock")
	if p, err := exec.LookPath("tmux"); err == nil {
		c := exec.Command(p, "-S", tmuxSock, "-f", "/dev/null", "new-session", "-d", "-s", "dev", "sleep 600")
		c.Env = append(os.Environ(), "TERM=xterm", "SHELL=/bin/sh")
		out, err := c.CombinedOutput()
		if err == nil {
			defer exec.Command(p, "-S", tmuxSock, "kill-server").Run()
		} else {
			fmt.Fprintf(os.Stderr, "devmachine: tmux: %v: %s\n", err, out)
		}
	}
	// Inherited descriptors.
	canary, err := os.OpenFile(filepath.Join(outside, "canary.txt"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "devmachine:", err)
		return 2
	}
	defer canary.Close()
	conn, err := net.Dial("unix", filepath.Join(dev, "fwd.sock"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "devmachine:", err)
		return 2
	}
	defer conn.Close()
	connFile, _ := conn.(*net.UnixConn).File()
	defer connFile.Close()
	dir, err := os.Open(outside)
	if err != nil {
		fmt.Fprintln(os.Stderr, "devmachine:", err)
		return 2
	}
	defer dir.Close()
	// Terminals.
	master, slave, err := pty.Open()
	if err != nil {
		fmt.Fprintln(os.Stderr, "devmachine: pty:", err)
		return 2
	}
	defer master.Close()
	other, otherSlave, err := pty.Open()
	if err != nil {
		fmt.Fprintln(os.Stderr, "devmachine: pty:", err)
		return 2
	}
	defer other.Close()
	defer otherSlave.Close()
	before, _ := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	var ttyOut bytes.Buffer
	var ttyMu sync.Mutex
	drain := func(f *os.File) {
		b := make([]byte, 4096)
		for {
			n, err := f.Read(b)
			ttyMu.Lock()
			ttyOut.Write(b[:n])
			ttyMu.Unlock()
			if err != nil {
				return
			}
		}
	}
	go drain(master)
	go drain(other)

	cmd := exec.Command(tool[0], tool[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{nil, nil, nil, nil, canary, connFile, dir} // fds 7, 8, 9
	// The user's shell: a session whose controlling terminal is the pty,
	// with the tool in the foreground group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "devmachine:", err)
		return 2
	}
	pgrp := cmd.Process.Pid
	go func() {
		time.Sleep(300 * time.Millisecond)
		master.Write([]byte("typed-by-user\n"))
	}()
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if code < 0 {
			code = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
		}
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "devmachine:", err)
		code = 2
	}
	time.Sleep(100 * time.Millisecond)
	after, _ := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if before != nil && after != nil && (before.Lflag != after.Lflag || before.Iflag != after.Iflag || before.Oflag != after.Oflag) {
		record("tty-modes", []byte("terminal modes changed\n"))
	}
	if fg, err := unix.IoctlGetInt(int(slave.Fd()), unix.TIOCGPGRP); err == nil && fg != pgrp {
		record("tty-pgrp", []byte("foreground group "+strconv.Itoa(fg)+"\n"))
	}
	slave.Close()
	ttyMu.Lock()
	// Only the cases' payload counts: shellguard itself may talk to the
	// terminal (an approval prompt), and the typed line echoes back.
	out := append([]byte(nil), ttyOut.Bytes()...)
	ttyMu.Unlock()
	if bytes.Contains(out, []byte("pwned")) {
		record("tty-written", out)
	}
	for _, p := range []string{"/dev/shm/sg-escapes-planted", "/tmp/sg-escapes-planted"} {
		if _, err := os.Lstat(p); err == nil {
			os.Remove(p)
			record("host-tmp-planted", []byte(p+"\n"))
		}
	}
	return code
}
