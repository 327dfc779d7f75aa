//go:build linux && amd64

package seccompbpf

import (
	"encoding/binary"
	"syscall"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// data builds a struct seccomp_data as the filter sees it. The kernel's
// seccomp loads are native-endian while x/net/bpf's VM loads big-endian
// (packet order), so each 32-bit word the filter reads is stored
// big-endian at its offset: the nr, the arch and the low word of each
// argument.
func data(arch, nr uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], nr)
	binary.BigEndian.PutUint32(b[4:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(a))
	}
	return b
}

// TestFilterDecisions runs the assembled filter in x/net/bpf's VM.
func TestFilterDecisions(t *testing.T) {
	for _, denyInet := range []bool{false, true} {
		p, err := Build(Options{DenyInetDatagram: denyInet})
		if err != nil {
			t.Fatal(err)
		}
		insns, ok := bpf.Disassemble(p.Insns)
		if !ok {
			t.Fatal("disassemble")
		}
		vm, err := bpf.NewVM(insns)
		if err != nil {
			t.Fatal(err)
		}
		x86 := uint32(unix.AUDIT_ARCH_X86_64)
		errno := func(e syscall.Errno) uint32 { return retErrno | uint32(e) }
		cases := []struct {
			name string
			in   []byte
			want uint32
		}{
			{"read", data(x86, unix.SYS_READ), retAllow},
			{"execve", data(x86, unix.SYS_EXECVE), retAllow},
			{"i386", data(unix.AUDIT_ARCH_I386, 1), retKillProcess},
			{"x32", data(x86, 0x40000000|unix.SYS_READ), errno(syscall.ENOSYS)},
			{"ptrace", data(x86, unix.SYS_PTRACE), errno(syscall.EPERM)},
			{"mount", data(x86, unix.SYS_MOUNT), errno(syscall.EPERM)},
			{"bpf", data(x86, unix.SYS_BPF), errno(syscall.EPERM)},
			{"clone thread", data(x86, unix.SYS_CLONE, unix.CLONE_VM|unix.CLONE_THREAD), retAllow},
			{"clone newuser", data(x86, unix.SYS_CLONE, unix.CLONE_NEWUSER), errno(syscall.EPERM)},
			{"clone3", data(x86, unix.SYS_CLONE3), errno(syscall.ENOSYS)},
			{"unshare files", data(x86, unix.SYS_UNSHARE, unix.CLONE_FILES), retAllow},
			{"unshare newns", data(x86, unix.SYS_UNSHARE, unix.CLONE_NEWNS), errno(syscall.EPERM)},
			{"ioctl tiocsti", data(x86, unix.SYS_IOCTL, 0, tiocsti), errno(syscall.EPERM)},
			{"ioctl tcgets", data(x86, unix.SYS_IOCTL, 0, unix.TCGETS), retAllow},
			{"personality query", data(x86, unix.SYS_PERSONALITY, 0xffffffff), retAllow},
			{"personality rie", data(x86, unix.SYS_PERSONALITY, 0x0400000), errno(syscall.EPERM)},
			{"socket tcp", data(x86, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0), retAllow},
			{"socket mptcp", data(x86, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_STREAM, 262), errno(syscall.EPROTONOSUPPORT)},
			{"socket unix dgram", data(x86, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_DGRAM, 0), retAllow},
		}
		udpWant, packetWant := uint32(retAllow), uint32(retAllow)
		if denyInet {
			udpWant, packetWant = errno(syscall.EACCES), errno(syscall.EACCES)
		}
		cases = append(cases,
			struct {
				name string
				in   []byte
				want uint32
			}{"socket udp", data(x86, unix.SYS_SOCKET, unix.AF_INET6, unix.SOCK_DGRAM|unix.SOCK_NONBLOCK, 0), udpWant},
			struct {
				name string
				in   []byte
				want uint32
			}{"socket packet", data(x86, unix.SYS_SOCKET, unix.AF_PACKET, unix.SOCK_RAW, 0), packetWant},
		)
		for _, c := range cases {
			got, err := vm.Run(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if uint32(got) != c.want {
				t.Errorf("denyInet=%v %s: got %#x, want %#x", denyInet, c.name, got, c.want)
			}
		}
	}
}

// TestSocketFamilies checks the family allowlist with and without the
// datagram rule for AF_INET/AF_INET6.
func TestSocketFamilies(t *testing.T) {
	x86 := uint32(unix.AUDIT_ARCH_X86_64)
	errno := func(e syscall.Errno) uint32 { return retErrno | uint32(e) }
	for _, denyInet := range []bool{false, true} {
		p, err := Build(Options{DenyInetDatagram: denyInet, RestrictFamilies: true})
		if err != nil {
			t.Fatal(err)
		}
		insns, _ := bpf.Disassemble(p.Insns)
		vm, err := bpf.NewVM(insns)
		if err != nil {
			t.Fatal(err)
		}
		udp := uint32(retAllow)
		if denyInet {
			udp = errno(syscall.EACCES)
		}
		cases := []struct {
			name string
			in   []byte
			want uint32
		}{
			{"read", data(x86, unix.SYS_READ), retAllow},
			{"tcp", data(x86, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0), retAllow},
			{"tcp6", data(x86, unix.SYS_SOCKET, unix.AF_INET6, unix.SOCK_STREAM, 6), retAllow},
			{"udp", data(x86, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_DGRAM, 0), udp},
			{"mptcp", data(x86, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_STREAM, 262), errno(syscall.EPROTONOSUPPORT)},
			{"unix stream", data(x86, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0), retAllow},
			{"unix seqpacket", data(x86, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_SEQPACKET, 0), retAllow},
			{"unix dgram", data(x86, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0), errno(syscall.EACCES)},
			// unix_create turns SOCK_RAW into SOCK_DGRAM: only stream and
			// seqpacket pass, whatever the flag bits, and unknown types fail.
			{"unix raw", data(x86, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_RAW, 0), errno(syscall.EACCES)},
			{"unix raw cloexec nonblock", data(x86, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0), errno(syscall.EACCES)},
			{"unix rdm", data(x86, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_RDM, 0), errno(syscall.EACCES)},
			{"unix packet", data(x86, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_PACKET, 0), errno(syscall.EACCES)},
			{"unix type 7", data(x86, unix.SYS_SOCKET, unix.AF_UNIX, 7, 0), errno(syscall.EACCES)},
			{"unix type 0", data(x86, unix.SYS_SOCKET, unix.AF_UNIX, 0, 0), errno(syscall.EACCES)},
			{"unix seqpacket flags", data(x86, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0), retAllow},
			{"vsock", data(x86, unix.SYS_SOCKET, unix.AF_VSOCK, unix.SOCK_STREAM, 0), errno(syscall.EAFNOSUPPORT)},
			{"packet", data(x86, unix.SYS_SOCKET, unix.AF_PACKET, unix.SOCK_RAW, 0), errno(syscall.EAFNOSUPPORT)},
			{"bluetooth", data(x86, unix.SYS_SOCKET, unix.AF_BLUETOOTH, unix.SOCK_STREAM, 0), errno(syscall.EAFNOSUPPORT)},
			{"alg", data(x86, unix.SYS_SOCKET, unix.AF_ALG, unix.SOCK_SEQPACKET, 0), errno(syscall.EAFNOSUPPORT)},
			{"netlink route", data(x86, unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE), retAllow},
			{"netlink audit", data(x86, unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT), errno(syscall.EAFNOSUPPORT)},
			{"netlink uevent", data(x86, unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_DGRAM, unix.NETLINK_KOBJECT_UEVENT), errno(syscall.EAFNOSUPPORT)},
			{"socketpair stream", data(x86, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0), retAllow},
			{"socketpair dgram", data(x86, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_DGRAM, 0), errno(syscall.EACCES)},
			{"socketpair raw", data(x86, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_RAW, 0), errno(syscall.EACCES)},
			{"socketpair raw flags", data(x86, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_RAW|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0), errno(syscall.EACCES)},
			{"socketpair rdm", data(x86, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_RDM, 0), errno(syscall.EACCES)},
			{"socketpair type 9", data(x86, unix.SYS_SOCKETPAIR, unix.AF_UNIX, 9, 0), errno(syscall.EACCES)},
			{"socketpair seqpacket flags", data(x86, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_NONBLOCK, 0), retAllow},
			{"socketpair inet", data(x86, unix.SYS_SOCKETPAIR, unix.AF_INET, unix.SOCK_STREAM, 0), errno(syscall.EAFNOSUPPORT)},
			{"ioctl tioclinux", data(x86, unix.SYS_IOCTL, 0, tioclinux), errno(syscall.EPERM)},
			{"io_uring", data(x86, unix.SYS_IO_URING_SETUP), errno(syscall.ENOSYS)},
		}
		for _, c := range cases {
			got, err := vm.Run(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if uint32(got) != c.want {
				t.Errorf("denyInet=%v %s: got %#x, want %#x", denyInet, c.name, got, c.want)
			}
		}
	}
}

// TestConnectNotifyAndFallback: the supervisor filter notifies on connect
// only; the fallback refuses AF_UNIX sockets only.
func TestConnectNotifyAndFallback(t *testing.T) {
	x86 := uint32(unix.AUDIT_ARCH_X86_64)
	run := func(p *Program, in []byte) uint32 {
		insns, _ := bpf.Disassemble(p.Insns)
		vm, err := bpf.NewVM(insns)
		if err != nil {
			t.Fatal(err)
		}
		got, err := vm.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		return uint32(got)
	}
	n, err := BuildConnectNotify()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   []byte
		want uint32
	}{
		{data(x86, unix.SYS_CONNECT, 3, 0, 110), retUserNotif},
		{data(x86, unix.SYS_SENDTO, 3), retAllow},
		{data(x86, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_STREAM), retAllow},
		{data(unix.AUDIT_ARCH_I386, 102), retKillProcess},
	} {
		if got := run(n, c.in); got != c.want {
			t.Errorf("notify filter: got %#x, want %#x", got, c.want)
		}
	}
	f, err := BuildRefuseUnixSocket()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   []byte
		want uint32
	}{
		{data(x86, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_STREAM), retErrno | uint32(syscall.EACCES)},
		{data(x86, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_STREAM), retAllow},
		{data(x86, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_STREAM), retAllow},
		{data(x86, unix.SYS_CONNECT, 3), retAllow},
	} {
		if got := run(f, c.in); got != c.want {
			t.Errorf("fallback filter: got %#x, want %#x", got, c.want)
		}
	}
}
