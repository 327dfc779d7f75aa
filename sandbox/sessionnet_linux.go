//go:build linux

package sandbox

// One network namespace per session.
//
// Each sandboxed command gets a network namespace of its own, so a server
// a background task starts on 127.0.0.1 cannot be reached by the next
// call. A SessionNet keeps one namespace for all the commands of a
// session: a holder process, started once with a new user and network
// namespace, brings loopback up and then starts every helper of the
// session itself (new mount, pid and IPC namespaces, the user and network
// namespaces inherited from it). Joining the namespace from here is not
// possible: a multithreaded process cannot enter a user namespace, and
// outside it an unprivileged process has no right to enter its network
// namespace.
//
// The runner still starts and waits for an ordinary child: a join process
// (this binary, argv[0] "shellguard-join:FD") that hands its argv,
// environment, directory and descriptors to the holder over FD, waits for
// the helper's status and exits with it, and passes signals on. When the
// join process dies (killed with its process group), the holder kills the
// helper, pid 1 of its pid namespace, and with it every process of the
// command.
//
//	parent ──ctl (seqpacket)──> holder [user+net ns] ──fork──> helper [mount, pid, ipc ns] ─> bash
//	   └──start──> join ──link (stream)──┘

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shellguard/shellguard/internal/runner"
	"golang.org/x/sys/unix"
)

// netHolderArg is the argument of the holder process (os.Args[2]).
const netHolderArg = "netns-holder"

// joinName is argv[0] of a join process, followed by ":" and the number
// of its link descriptor.
const joinName = "shellguard-join"

// SessionNet is the network namespace shared by the sandboxed commands of
// one session (Spec.SessionNet), so that a server one of them starts on
// loopback answers the next. Sessions never share one. Close it when the
// session ends: every command started through it is killed.
type SessionNet struct {
	mu     sync.Mutex
	h      *netHolder
	err    error
	closed bool
}

// NewSessionNet returns a SessionNet; its holder starts with the first
// command that uses it.
func NewSessionNet() *SessionNet { return &SessionNet{} }

// Close ends the holder and with it every command of the session still
// running. Safe to call more than once and on nil.
func (n *SessionNet) Close() error {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	h := n.h
	n.h, n.closed = nil, true
	n.mu.Unlock()
	if h != nil {
		h.close()
	}
	return nil
}

// netHolder is the parent's side of a running holder.
type netHolder struct {
	cmd  *exec.Cmd
	ctl  *os.File
	wmu  sync.Mutex // one message at a time on ctl
	mu   sync.Mutex
	next uint64
	pids map[uint64]chan int
	dead chan struct{} // closed when ctl reads EOF (the holder is gone)
}

// holderLaunch is the parent's message to the holder for one command,
// with the link's descriptor (and the cgroup's) as rights: how to start
// the helper that the join process on the other end of the link asks for.
type holderLaunch struct {
	ID     uint64
	Flags  uint64
	Caps   []uint64
	Cgroup bool
}

// holderReply answers a holderLaunch once the helper is started (Pid)
// or could not be (Err); ID 0 is the holder's ready message.
type holderReply struct {
	ID  uint64
	Pid int
	Err string
}

// joinRequest is what a join process sends on its link (its descriptors
// 0..n-1 as rights): the helper's program, argv, environment and dir.
type joinRequest struct {
	Path string
	Argv []string
	Env  []string
	Dir  string
}

// holderCaps are the capabilities the holder keeps for the helpers it
// starts: the union of what Command gives a helper.
func holderCaps() []uintptr {
	return append([]uintptr{capSetPCap, capNetAdmin, capSysAdmin, capNetBindService}, overlayCaps...)
}

// holder returns the running holder, starting it on first use.
func (n *SessionNet) holder() (*netHolder, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, errors.New("the session has ended")
	}
	if n.h != nil {
		select {
		case <-n.h.dead:
			n.h.close()
			n.h = nil
		default:
			return n.h, nil
		}
	}
	if n.err != nil {
		return nil, n.err
	}
	h, err := startHolder()
	if err != nil {
		// Not retried: the session's commands fall back to a namespace
		// each (see Command).
		n.err = err
		return nil, err
	}
	n.h = h
	return h, nil
}

func startHolder() (*netHolder, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	ctl, child := os.NewFile(uintptr(fds[0]), "sandbox-netns"), os.NewFile(uintptr(fds[1]), "sandbox-netns")
	defer child.Close()
	cmd := exec.Command(helperFor(nil), helperArg, netHolderArg)
	cmd.Args[0] = "shellguard-netns"
	cmd.Env = []string{}
	cmd.ExtraFiles = []*os.File{child}
	uid, gid := os.Getuid(), os.Getgid()
	attr := &syscall.SysProcAttr{
		Setsid:      true,
		Pdeathsig:   syscall.SIGKILL,
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: holderCaps(),
	}
	if uid == 0 {
		// As in Command: the helpers switch to RootMapID
		// (rootmap_linux.go) and drop root's groups.
		attr.UidMappings = append(attr.UidMappings, syscall.SysProcIDMap{ContainerID: RootMapID, HostID: RootMapID, Size: 1})
		attr.GidMappings = append(attr.GidMappings, syscall.SysProcIDMap{ContainerID: RootMapID, HostID: RootMapID, Size: 1})
		attr.GidMappingsEnableSetgroups = true
	}
	cmd.SysProcAttr = attr
	// As a leader of the runner: with a child subreaper, a run's
	// clean-up would otherwise take this child it did not start, with no
	// run's marker, for an escaped process (internal/runner).
	if err := runner.StartTracked(cmd); err != nil {
		ctl.Close()
		return nil, fmt.Errorf("starting the session's network namespace: %w", err)
	}
	h := &netHolder{cmd: cmd, ctl: ctl, pids: map[uint64]chan int{}, dead: make(chan struct{})}
	ready := make(chan error, 1)
	go h.read(ready)
	select {
	case err = <-ready:
	case <-time.After(10 * time.Second):
		err = errors.New("no answer in 10 s")
	}
	if err != nil {
		h.close()
		return nil, fmt.Errorf("the session's network namespace: %w", err)
	}
	return h, nil
}

// read dispatches the holder's replies until ctl ends.
func (h *netHolder) read(ready chan<- error) {
	defer close(h.dead)
	first := true
	buf := make([]byte, 4096)
	for {
		n, err := h.ctl.Read(buf)
		if err != nil || n == 0 {
			if first {
				ready <- errors.New("the holder exited")
			}
			h.mu.Lock()
			for id, c := range h.pids {
				close(c)
				delete(h.pids, id)
			}
			h.mu.Unlock()
			return
		}
		var r holderReply
		if err := wireDecode(string(buf[:n]), &r); err != nil {
			continue
		}
		if first {
			first = false
			if r.Err != "" {
				ready <- errors.New(r.Err)
			} else {
				ready <- nil
			}
			continue
		}
		h.mu.Lock()
		c := h.pids[r.ID]
		delete(h.pids, r.ID)
		h.mu.Unlock()
		if c != nil {
			if r.Err == "" {
				c <- r.Pid
			}
			close(c)
		}
	}
}

// launch asks the holder to start the helper that a join process will
// request on the returned link (to be passed to it); pid delivers the
// helper's pid once started (closed without one on failure).
func (h *netHolder) launch(flags uintptr, caps []uintptr, cg int) (link *os.File, pid <-chan int, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	defer unix.Close(fds[1])
	l := holderLaunch{Flags: uint64(flags), Cgroup: cg >= 0}
	for _, c := range caps {
		l.Caps = append(l.Caps, uint64(c))
	}
	rights := []int{fds[1]}
	if cg >= 0 {
		rights = append(rights, cg)
	}
	c := make(chan int, 1)
	h.mu.Lock()
	h.next++
	l.ID = h.next
	h.pids[l.ID] = c
	h.mu.Unlock()
	h.wmu.Lock()
	err = unix.Sendmsg(int(h.ctl.Fd()), wireAppend(nil, &l), unix.UnixRights(rights...), nil, 0)
	h.wmu.Unlock()
	if err != nil {
		h.mu.Lock()
		delete(h.pids, l.ID)
		h.mu.Unlock()
		unix.Close(fds[0])
		return nil, nil, fmt.Errorf("the session's network namespace: %w", err)
	}
	return os.NewFile(uintptr(fds[0]), "sandbox-join"), c, nil
}

// close ends the holder: it kills every helper it started when ctl
// closes; it is killed itself if it has not exited a second later.
func (h *netHolder) close() {
	h.ctl.Close()
	done := make(chan struct{})
	go func() { h.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		h.cmd.Process.Kill()
		<-done
	}
	runner.Forget(h.cmd.Process.Pid)
}

// ---- inside: the holder ----

// netHolderMain runs the holder: fd 3 is the control channel.
func netHolderMain() int {
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	unix.CloseOnExec(3)
	hd := &holderState{kids: map[int]bool{}}
	reply := func(r holderReply) {
		hd.wmu.Lock()
		unix.Sendmsg(3, wireAppend(nil, &r), nil, nil, 0)
		hd.wmu.Unlock()
	}
	if err := loopbackUp(); err != nil {
		reply(holderReply{Err: "loopback: " + err.Error()})
		return helperExit
	}
	reply(holderReply{})
	buf := make([]byte, 4096)
	oob := make([]byte, unix.CmsgSpace(2*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(3, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			break
		}
		fds := rightsOf(oob[:oobn])
		var l holderLaunch
		if wireDecode(string(buf[:n]), &l) != nil || len(fds) < 1 || (l.Cgroup && len(fds) < 2) {
			closeAll(fds)
			continue
		}
		cg := -1
		if l.Cgroup {
			cg = fds[1]
		}
		go func() {
			pid, err := hd.serve(l, fds[0], cg)
			if cg >= 0 {
				unix.Close(cg)
			}
			r := holderReply{ID: l.ID, Pid: pid}
			if err != nil {
				r.Err = err.Error()
			}
			reply(r)
		}()
	}
	// The parent is gone or closed the session: end every command.
	hd.mu.Lock()
	hd.closing = true
	for pid := range hd.kids {
		unix.Kill(pid, unix.SIGKILL)
	}
	hd.mu.Unlock()
	return 0
}

type holderState struct {
	wmu     sync.Mutex
	mu      sync.Mutex
	kids    map[int]bool
	closing bool
}

// rightsOf returns the descriptors of a control message.
func rightsOf(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if f, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, f...)
		}
	}
	return fds
}

// serve starts the helper a join process asks for on link, returns its
// pid, and in the background passes signals on, sends its status and
// kills it if the join process goes away first.
func (hd *holderState) serve(l holderLaunch, link, cg int) (int, error) {
	req, files, err := readJoin(link)
	if err != nil {
		unix.Close(link)
		return 0, err
	}
	caps := make([]uintptr, len(l.Caps))
	for i, c := range l.Caps {
		caps[i] = uintptr(c)
	}
	sys := &syscall.SysProcAttr{
		Setsid:      true,
		Pdeathsig:   syscall.SIGKILL,
		Cloneflags:  uintptr(l.Flags),
		AmbientCaps: caps,
	}
	if cg >= 0 {
		sys.UseCgroupFD, sys.CgroupFD = true, cg
	}
	fdv := make([]uintptr, len(files))
	for i, f := range files {
		fdv[i] = uintptr(f)
	}
	hd.mu.Lock()
	if hd.closing {
		hd.mu.Unlock()
		closeAll(files)
		unix.Close(link)
		return 0, errors.New("the session has ended")
	}
	pid, err := syscall.ForkExec(req.Path, req.Argv, &syscall.ProcAttr{Dir: req.Dir, Env: req.Env, Files: fdv, Sys: sys})
	if err == nil {
		hd.kids[pid] = true
	}
	hd.mu.Unlock()
	closeAll(files)
	if err != nil {
		writeLink(link, 'E', err.Error())
		unix.Close(link)
		return 0, err
	}
	writeLink(link, 'P', strconv.Itoa(pid))
	exited := make(chan struct{})
	go func() {
		// Signals from the join process; its end (killed, or done) kills
		// the helper if it is still there.
		var b [64]byte
		for {
			n, err := unix.Read(link, b[:])
			if err == unix.EINTR {
				continue
			}
			if err != nil || n == 0 {
				break
			}
			for _, s := range strings.Fields(string(b[:n])) {
				if s[0] != 'S' {
					continue
				}
				if sig, err := strconv.Atoi(s[1:]); err == nil && sig > 0 && sig < 65 {
					hd.signal(pid, syscall.Signal(sig))
				}
			}
		}
		select {
		case <-exited:
		default:
			hd.signal(pid, syscall.SIGKILL)
		}
	}()
	go func() {
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(pid, &ws, 0, nil)
			if err != syscall.EINTR {
				break
			}
		}
		hd.mu.Lock()
		delete(hd.kids, pid)
		hd.mu.Unlock()
		close(exited)
		writeLink(link, 'X', strconv.FormatUint(uint64(ws), 10))
		// The reader above ends when the join process closes its end.
		unix.Shutdown(link, unix.SHUT_WR)
	}()
	return pid, nil
}

// signal sends sig to a helper of ours that has not been reaped.
func (hd *holderState) signal(pid int, sig syscall.Signal) {
	hd.mu.Lock()
	defer hd.mu.Unlock()
	if hd.kids[pid] {
		unix.Kill(pid, sig)
	}
}

// writeLink writes one message: a kind byte, the text, a newline.
func writeLink(fd int, kind byte, text string) {
	b := append([]byte{kind}, text...)
	b = append(b, '\n')
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return
		}
		b = b[n:]
	}
}

// maxJoinFDs bounds the descriptors a join process may pass.
const maxJoinFDs = 64

// readJoin reads a join process's request: an 8-byte length with the
// descriptors as rights, then the encoded request.
func readJoin(link int) (*joinRequest, []int, error) {
	var hdr [8]byte
	oob := make([]byte, unix.CmsgSpace(maxJoinFDs*4))
	n, oobn, _, _, err := unix.Recvmsg(link, hdr[:], oob, unix.MSG_CMSG_CLOEXEC)
	for err == unix.EINTR {
		n, oobn, _, _, err = unix.Recvmsg(link, hdr[:], oob, unix.MSG_CMSG_CLOEXEC)
	}
	if err != nil {
		return nil, nil, err
	}
	files := rightsOf(oob[:oobn])
	if n != len(hdr) {
		closeAll(files)
		return nil, nil, errors.New("short join request")
	}
	size := binary.LittleEndian.Uint64(hdr[:])
	if size > 16<<20 {
		closeAll(files)
		return nil, nil, errors.New("join request too large")
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(fdReader(link), body); err != nil {
		closeAll(files)
		return nil, nil, err
	}
	var req joinRequest
	if err := wireDecode(string(body), &req); err != nil || len(req.Argv) == 0 || req.Path == "" {
		closeAll(files)
		return nil, nil, errors.New("bad join request")
	}
	return &req, files, nil
}

type fdReader int

func (f fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(f), p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

// ---- the join process ----

// joinLink returns the link descriptor named by argv[0] of a join process.
func joinLink(args []string) (int, bool) {
	if len(args) == 0 {
		return 0, false
	}
	s, ok := strings.CutPrefix(args[0], joinName+":")
	if !ok {
		return 0, false
	}
	fd, err := strconv.Atoi(s)
	if err != nil || fd < 3 || fd > maxJoinFDs {
		return 0, false
	}
	return fd, true
}

// joinMain hands this process's command to the holder on link and
// stands for the helper: it exits as the helper did.
func joinMain(link int) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "shellguard: session network namespace:", err)
		return helperExit
	}
	// Signals are passed on from the start: one that arrives before the
	// helper exists is sent once it does.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT,
		syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH, syscall.SIGCONT)
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return fail(err)
	}
	wd, _ := os.Getwd()
	argv := append([]string{"shellguard-sandbox"}, os.Args[1:]...)
	body := wireAppend(nil, &joinRequest{Path: exe, Argv: argv, Env: os.Environ(), Dir: wd})
	var hdr [8]byte
	binary.LittleEndian.PutUint64(hdr[:], uint64(len(body)))
	fds := make([]int, link)
	for i := range fds {
		fds[i] = i
	}
	if err := unix.Sendmsg(link, hdr[:], unix.UnixRights(fds...), nil, 0); err != nil {
		return fail(err)
	}
	for b := body; len(b) > 0; {
		n, err := unix.Write(link, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fail(err)
		}
		b = b[n:]
	}
	// The helper holds them now: ends seen by the parent (the report,
	// the output pipes) must not wait for this process.
	if null, err := unix.Open("/dev/null", unix.O_RDWR, 0); err == nil {
		for fd := 0; fd < 3; fd++ {
			unix.Dup2(null, fd)
		}
		if null > 2 {
			unix.Close(null)
		}
	}
	for fd := 3; fd < link; fd++ {
		unix.Close(fd)
	}
	msgs := make(chan string)
	go func() {
		defer close(msgs)
		var rest []byte
		var b [256]byte
		for {
			n, err := unix.Read(link, b[:])
			if err == unix.EINTR {
				continue
			}
			if err != nil || n == 0 {
				return
			}
			rest = append(rest, b[:n]...)
			for {
				i := strings.IndexByte(string(rest), '\n')
				if i < 0 {
					break
				}
				msgs <- string(rest[:i])
				rest = rest[i+1:]
			}
		}
	}()
	var pending []syscall.Signal
	started := false
	send := func(s syscall.Signal) {
		if !started {
			pending = append(pending, s)
			return
		}
		writeLink(link, 'S', strconv.Itoa(int(s)))
	}
	for {
		select {
		case s := <-sigs:
			send(s.(syscall.Signal))
		case m, ok := <-msgs:
			if !ok {
				return fail(errors.New("the holder went away"))
			}
			if m == "" {
				continue
			}
			switch m[0] {
			case 'E':
				return fail(errors.New(m[1:]))
			case 'P':
				started = true
				for _, s := range pending {
					send(s)
				}
				pending = nil
			case 'X':
				v, err := strconv.ParseUint(m[1:], 10, 32)
				if err != nil {
					return fail(errors.New("bad status"))
				}
				ws := syscall.WaitStatus(v)
				if ws.Signaled() {
					// Die the same way, so the caller sees the same status.
					signal.Reset(ws.Signal())
					unix.Kill(os.Getpid(), ws.Signal())
					time.Sleep(time.Second)
					return 128 + int(ws.Signal())
				}
				return ws.ExitStatus()
			}
		}
	}
}
