//go:build linux

package sandbox

// Supervised unix connects. Landlock before ABI 9 has no right for
// connecting to a pathname unix socket, and a mount namespace does not
// stop it either (connect needs write permission on the socket inode, not
// a writable mount). So the helper stacks a second seccomp filter that
// turns every connect(2) into a user notification, and hands the listener
// to the supervising shellguard process over the report channel before
// bash starts; the helper closes its copy, so nothing in the sandbox can
// answer its own notifications.
//
// The supervisor never lets the kernel re-run a connect it looked at
// (SECCOMP_USER_NOTIF_FLAG_CONTINUE): between the check and the re-run
// another thread of the command could rewrite the address, or dup2() a
// different socket onto the descriptor number. Instead it
//   1. takes the socket itself with pidfd_getfd (a reference to the open
//      file: later dup2()s in the command cannot change which socket it is),
//   2. copies the address once from /proc/PID/mem (later rewrites of that
//      memory change nothing), then checks the notification is still
//      live, so the pid was not reused,
//   3. decides on that copy and that socket, and performs the connect
//      itself on the socket; its result is the reply.
// For a pathname address it opens the path O_PATH inside the command's own
// root (/proc/PID/root, RESOLVE_IN_ROOT, no magic links), requires a
// socket whose mount is one of the writable roots of the sandbox (their
// mount ids come from the helper), and connects to /proc/self/fd/N of that
// very inode: a rename or symlink swap after the check cannot redirect it.
// Abstract addresses are connected on the command's socket, whose network
// namespace decides which abstract namespace is searched; without a
// network namespace of its own (--network) they are refused, since the
// supervisor is not subject to the Landlock scope that would apply.
// Other families (inet, inet6, netlink) are connected on the command's
// socket too: with a network namespace the socket can only reach that
// namespace; without one, Landlock would have refused TCP, so the
// supervisor refuses when the network is off and connects when it is on.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/shellguard/shellguard/internal/seccompbpf"
	"golang.org/x/sys/unix"
)

// listenerInfo travels with the listener descriptor.
type listenerInfo struct {
	MntIDs  []uint64 `json:"mnt"`
	Roots   []string `json:"roots"`
	NetNS   bool     `json:"netns"`
	Network bool     `json:"net"`
	MountNS bool     `json:"mountns"`
}

// unixConnect installs the connect-notify filter on this thread (which
// execs bash) and sends the listener to the parent over fd 3.
func (h *helper) unixConnect() {
	prog, err := seccompbpf.BuildConnectNotify()
	var fd int
	if err == nil {
		fd, err = seccompbpf.InstallListener(prog)
	}
	if err != nil {
		// Older kernels: no supervisor, so no unix socket may be created
		// (socketpair still works). seccomp cannot see the family of a
		// descriptor passed to connect, hence the refusal at socket().
		h.ipc.unixErr = err
		if p, e := seccompbpf.BuildRefuseUnixSocket(); e == nil && seccompbpf.Install(p) == nil {
			h.ipc.unixErr = fmt.Errorf("%v; fallback: socket(AF_UNIX) refused, socketpair allowed", err)
		}
		return
	}
	info := listenerInfo{Roots: h.hs.Writable, NetNS: h.hs.NetNS, Network: h.hs.Network, MountNS: h.hs.UserNS}
	for _, w := range h.hs.Writable {
		var stx unix.Statx_t
		if unix.Statx(unix.AT_FDCWD, w, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_MNT_ID, &stx) == nil && stx.Mask&unix.STATX_MNT_ID != 0 {
			info.MntIDs = append(info.MntIDs, stx.Mnt_id)
		}
	}
	msg := wireAppend([]byte{'L'}, &info) // the report follows it (wire.go)
	err = unix.Sendmsg(3, msg, unix.UnixRights(fd), nil, 0)
	unix.Close(fd)
	if err != nil {
		h.ipc.unixErr = fmt.Errorf("send listener: %w", err)
		return
	}
	h.ipc.unix = "unix connect supervised: only sockets in the writable roots"
}

// reportChannel is the helper's fd 3: a socketpair, since the listener
// descriptor travels on it.
func reportChannel() (r, w *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "sandbox-report"), os.NewFile(uintptr(fds[1]), "sandbox-report"), nil
}

// readReport reads the channel to its end: the report, and, when the
// helper installed the connect filter, the listener (started here).
func readReport(r *os.File) ([]byte, *supervisor, netFDs, error) {
	none := netFDs{-1, -1, -1}
	rc, err := r.SyscallConn()
	if err != nil {
		return nil, nil, none, err
	}
	data, fds, err := recvAll(1<<20, 4, func(p, oob []byte) (n, oobn int, err error) {
		cerr := rc.Read(func(fd uintptr) bool {
			n, oobn, _, _, err = unix.Recvmsg(int(fd), p, oob, unix.MSG_CMSG_CLOEXEC)
			return err != unix.EAGAIN
		})
		if cerr != nil {
			err = cerr
		}
		return n, oobn, err
	})
	if err != nil {
		return nil, nil, none, err
	}
	// The proxy listener and the DNS stub come first (net_linux.go).
	data, fds, nf := takeNetFDs(data, fds)
	if len(data) == 0 || data[0] != 'L' {
		closeAll(fds)
		return data, nil, nf, nil
	}
	var info listenerInfo
	rest, err := wireDecodePrefix(string(data[1:]), &info)
	if len(fds) != 1 || err != nil {
		closeAll(fds)
		nf.close()
		return nil, nil, none, errors.New("sandbox: bad connect-supervisor message")
	}
	s, err := startSupervisor(fds[0], info)
	if err != nil {
		unix.Close(fds[0])
		return []byte(rest), nil, nf, err
	}
	return []byte(rest), s, nf, nil
}

// recvAll reads a unix socket to its end (or until limit bytes) through
// recv, collecting the descriptors that come with the data (up to maxFDs
// per message). On an error the descriptors received so far are closed.
func recvAll(limit, maxFDs int, recv func(p, oob []byte) (n, oobn int, err error)) ([]byte, []int, error) {
	var data []byte
	var fds []int
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(maxFDs*4))
	for len(data) < limit {
		n, oobn, err := recv(buf, oob)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			closeAll(fds)
			return nil, nil, err
		}
		if oobn > 0 {
			if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
				for _, m := range msgs {
					if got, err := unix.ParseUnixRights(&m); err == nil {
						fds = append(fds, got...)
					}
				}
			}
		}
		if n == 0 {
			break
		}
		data = append(data, buf[:n]...)
	}
	return data, fds, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// seccomp_notif and seccomp_notif_resp (linux/seccomp.h).
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// supervisor answers the connect notifications of one sandboxed run.
type supervisor struct {
	fd       int
	info     listenerInfo
	stopR    int
	stopW    int
	stopOnce sync.Once
	done     chan struct{}
	pending  sync.WaitGroup
}

func startSupervisor(fd int, info listenerInfo) (*supervisor, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return nil, err
	}
	s := &supervisor{fd: fd, info: info, stopR: p[0], stopW: p[1], done: make(chan struct{})}
	go s.loop()
	return s, nil
}

// Stop ends the supervisor (pending notifications fail in the command
// with ENOSYS once the listener is closed) and waits for it.
func (s *supervisor) Stop() {
	if s == nil {
		return
	}
	s.stopOnce.Do(func() {
		unix.Write(s.stopW, []byte{0}) // EPIPE once the loop has ended: fine
		<-s.done
		unix.Close(s.stopW)
	})
}

func (s *supervisor) loop() {
	defer func() {
		// A connect in progress may block for as long as its peer makes
		// it; the listener is closed once the last one has answered.
		go func() { s.pending.Wait(); unix.Close(s.fd) }()
		unix.Close(s.stopR)
		close(s.done)
	}()
	for {
		pfd := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLIN}, {Fd: int32(s.stopR), Events: unix.POLLIN}}
		if _, err := unix.Poll(pfd, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		if pfd[1].Revents != 0 {
			return
		}
		if pfd[0].Revents&unix.POLLIN != 0 {
			var n seccompNotif
			if err := ioctlPtr(s.fd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n)); err != nil {
				if err == unix.EINTR || err == unix.ENOENT {
					continue // the task went away before we read it
				}
				return
			}
			s.pending.Add(1)
			go func() {
				defer s.pending.Done()
				val, errno := s.decide(&n)
				resp := seccompNotifResp{ID: n.ID, Val: val, Error: -int32(errno)}
				ioctlPtr(s.fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
			}()
			continue
		}
		if pfd[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
			return // every task of the sandbox has exited
		}
	}
}

func ioctlPtr(fd int, req uint, p unsafe.Pointer) error {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(p))
	if e != 0 {
		return e
	}
	return nil
}

func (s *supervisor) valid(id uint64) bool {
	return ioctlPtr(s.fd, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

// decide performs (or refuses) the connect of notification n and returns
// the value and errno for the reply.
func (s *supervisor) decide(n *seccompNotif) (int64, syscall.Errno) {
	pid := int(n.Pid)
	sockfd := int(int32(n.Args[0]))
	addrPtr, addrLen := n.Args[1], n.Args[2]
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		// pid is a thread other than its process's leader (a Go
		// program dials on any thread; the kernel says EINVAL or
		// ENOENT): its descriptors are those of its thread group
		// (net_linux.go).
		if tg := threadGroup(pid); tg > 0 && tg != pid {
			pidfd, err = unix.PidfdOpen(tg, 0)
		}
	}
	if err != nil {
		return -1, unix.ESRCH
	}
	defer unix.Close(pidfd)
	if !s.valid(n.ID) { // pidfd refers to the task that is waiting
		return -1, unix.ESRCH
	}
	sock, err := unix.PidfdGetfd(pidfd, sockfd, 0)
	if err != nil {
		return -1, errnoOf(err, unix.EBADF)
	}
	defer unix.Close(sock)
	var st unix.Stat_t
	if unix.Fstat(sock, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return -1, unix.ENOTSOCK
	}
	if addrLen > unix.SizeofSockaddrAny {
		addrLen = unix.SizeofSockaddrAny // the kernel refuses longer anyway
	}
	addr := make([]byte, addrLen)
	if addrLen > 0 {
		mem, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
		if err != nil {
			return -1, unix.EFAULT
		}
		_, err = mem.ReadAt(addr, int64(addrPtr))
		mem.Close()
		if err != nil {
			return -1, unix.EFAULT
		}
	}
	if !s.valid(n.ID) { // what we read was the waiting task's memory
		return -1, unix.ESRCH
	}
	domain, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_DOMAIN)
	if err != nil {
		return -1, unix.ENOTSOCK
	}
	switch {
	case domain != unix.AF_UNIX:
		if !s.info.NetNS && !s.info.Network {
			return -1, unix.EACCES // Landlock would refuse; we are not under it
		}
		return connectRaw(sock, addr)
	case len(addr) < 2 || binary.NativeEndian.Uint16(addr) != unix.AF_UNIX || len(addr) == 2:
		return connectRaw(sock, addr) // the kernel's own EINVAL/EAFNOSUPPORT
	case addr[2] == 0: // abstract
		if !s.info.NetNS {
			return -1, unix.EACCES
		}
		return connectRaw(sock, addr)
	}
	path := string(addr[2:])
	if i := strings.IndexByte(path, 0); i >= 0 {
		path = path[:i]
	}
	target, errno := s.openSocketFile(pid, n.ID, path)
	if errno != 0 {
		return -1, errno
	}
	defer unix.Close(target)
	sa := &unix.SockaddrUnix{Name: fmt.Sprintf("/proc/self/fd/%d", target)}
	if err := unix.Connect(sock, sa); err != nil {
		return -1, errnoOf(err, unix.ECONNREFUSED)
	}
	return 0, 0
}

// openSocketFile opens path as the command sees it and checks that it is
// a socket on one of the writable roots' mounts.
func (s *supervisor) openSocketFile(pid int, id uint64, path string) (int, syscall.Errno) {
	if path == "" {
		return -1, unix.ENOENT
	}
	if !filepath.IsAbs(path) {
		cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
		if err != nil || !filepath.IsAbs(cwd) {
			return -1, unix.EACCES
		}
		path = filepath.Join(cwd, path)
	}
	root, err := unix.Open(fmt.Sprintf("/proc/%d/root", pid), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, unix.ESRCH
	}
	defer unix.Close(root)
	if !s.valid(id) {
		return -1, unix.ESRCH
	}
	fd, err := unix.Openat2(root, path, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return -1, errnoOf(err, unix.ENOENT)
	}
	var stx unix.Statx_t
	if err := unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_TYPE|unix.STATX_MNT_ID, &stx); err != nil {
		unix.Close(fd)
		return -1, unix.EACCES
	}
	if stx.Mode&unix.S_IFMT != unix.S_IFSOCK {
		unix.Close(fd)
		return -1, unix.ECONNREFUSED // what connect says for a non-socket
	}
	if !s.allowed(fd, stx.Mnt_id) {
		unix.Close(fd)
		return -1, unix.EACCES
	}
	return fd, 0
}

// allowed: the socket's mount is a writable root's bind mount; without a
// mount namespace of its own (the writable roots are then not mounts) its
// path must also lie under a writable root.
func (s *supervisor) allowed(fd int, mnt uint64) bool {
	found := false
	for _, id := range s.info.MntIDs {
		if id == mnt {
			found = true
		}
	}
	if !found {
		return false
	}
	if s.info.MountNS {
		return true
	}
	p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	if err != nil {
		return false
	}
	for _, r := range s.info.Roots {
		if under(p, r) {
			return true
		}
	}
	return false
}

// connectRaw connects sock to the copied address bytes.
func connectRaw(sock int, addr []byte) (int64, syscall.Errno) {
	var p unsafe.Pointer
	if len(addr) > 0 {
		p = unsafe.Pointer(&addr[0])
	}
	_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(sock), uintptr(p), uintptr(len(addr)))
	if e != 0 {
		return -1, e
	}
	return 0, 0
}

func errnoOf(err error, def syscall.Errno) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return def
}
