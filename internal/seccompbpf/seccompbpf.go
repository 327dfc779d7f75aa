// Package seccompbpf builds and installs the seccomp deny-list filter of the
// shellguard sandbox in pure Go (classic BPF assembled with
// golang.org/x/net/bpf; no cgo, no libseccomp).
//
// The filter is a deny-list: everything not listed is allowed. It kills the
// process on a foreign architecture (i386 int 0x80, or any ABI other than
// the native one), answers ENOSYS to the x32 ABI, and returns an errno for
// the listed system calls, some of them only for certain argument values
// (clone with namespace flags, socket with IPPROTO_MPTCP, ioctl TIOCSTI,
// personality other than the harmless values).
//
// It does not decide anything about paths or programs: that is Landlock's
// job. It is not a supervisor either (no SECCOMP_RET_USER_NOTIF here).
package seccompbpf

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/net/bpf"
)

// Return values of a seccomp filter (from linux/seccomp.h).
const (
	retKillProcess uint32 = 0x80000000
	retErrno       uint32 = 0x00050000
	retAllow       uint32 = 0x7fff0000
)

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// argLow is the offset of the low 32 bits of argument i (little-endian).
func argLow(i int) uint32 { return uint32(offArgs + 8*i) }

// ErrUnsupportedArch is returned by Build for an architecture without a
// syscall table here.
var ErrUnsupportedArch = errors.New("seccompbpf: unsupported architecture")

// Options select the optional parts of the filter.
type Options struct {
	// DenyInet denies socket(AF_INET|AF_INET6, ...) of any type other
	// than SOCK_STREAM, plus AF_PACKET. Used when the network must be off
	// and there is no network namespace (Landlock only covers TCP).
	DenyInetDatagram bool
	// RestrictFamilies refuses socket() for every address family other
	// than AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK with NETLINK_ROUTE
	// (EAFNOSUPPORT), and allows AF_UNIX sockets and socketpair only of
	// type SOCK_STREAM and SOCK_SEQPACKET (EACCES otherwise: a datagram
	// socket, SOCK_RAW included, can sendto any path, which no connect
	// check sees).
	RestrictFamilies bool
}

// Rule is one entry of the deny-list, for documentation and reports.
type Rule struct {
	Name  string        // system call name
	Errno syscall.Errno // errno returned (0 = see Note)
	Note  string        // argument condition, if any
}

// Program is an assembled filter.
type Program struct {
	Insns []bpf.RawInstruction
	Rules []Rule
}

// clone flags that create namespaces.
const nsFlags = 0x00020000 | // CLONE_NEWNS
	0x02000000 | // CLONE_NEWCGROUP
	0x04000000 | // CLONE_NEWUTS
	0x08000000 | // CLONE_NEWIPC
	0x10000000 | // CLONE_NEWUSER
	0x20000000 | // CLONE_NEWPID
	0x40000000 // CLONE_NEWNET

const cloneNewTime = 0x00000080 // only meaningful for unshare

const (
	ipprotoMPTCP  = 262
	afInet        = 2
	afInet6       = 10
	afPacket      = 17
	afUnix        = 1
	afNetlink     = 16
	sockStream    = 1
	sockSeqpacket = 5
	sockTypeMask  = 0xf // SOCK_TYPE_MASK in linux/net.h
	tiocsti       = 0x5412
	tioclinux     = 0x541C
)

// builder assembles a linear filter: every block starts with the syscall
// number in the accumulator and leaves it there when it falls through.
type builder struct {
	insns []bpf.Instruction
	rules []Rule
}

func (b *builder) emit(in ...bpf.Instruction) { b.insns = append(b.insns, in...) }

// deny returns errno for syscall nr unconditionally.
func (b *builder) deny(name string, nr uint32, errno syscall.Errno) {
	b.emit(
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: nr, SkipTrue: 1},
		bpf.RetConstant{Val: retErrno | uint32(errno)},
	)
	b.rules = append(b.rules, Rule{Name: name, Errno: errno})
}

// block emits a conditional block for syscall nr; body must end by
// reloading the syscall number (reload is appended here).
func (b *builder) block(name, note string, nr uint32, errno syscall.Errno, body []bpf.Instruction) {
	body = append(body, bpf.LoadAbsolute{Off: offNr, Size: 4})
	b.emit(bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: nr, SkipTrue: uint8(len(body))})
	b.emit(body...)
	b.rules = append(b.rules, Rule{Name: name, Errno: errno, Note: note})
}

func ret(errno syscall.Errno) bpf.Instruction {
	return bpf.RetConstant{Val: retErrno | uint32(errno)}
}

// prologue kills a process calling through a foreign ABI and loads the
// syscall number: the start of every filter built here.
func prologue(arch uint32) []bpf.Instruction {
	return []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: arch, SkipTrue: 1},
		bpf.RetConstant{Val: retKillProcess},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
}

// Build assembles the filter for the running architecture.
func Build(o Options) (*Program, error) {
	t := table()
	if t.arch == 0 {
		return nil, ErrUnsupportedArch
	}
	// Room for the whole filter (about 180 instructions): the helper
	// builds it once, early in a fresh process, where every grown slice
	// is new memory to fault in.
	b := builder{insns: make([]bpf.Instruction, 0, 256), rules: make([]Rule, 0, 64)}
	b.emit(prologue(t.arch)...)
	if t.x32 {
		b.emit(
			bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: 0x40000000, SkipFalse: 1},
			ret(syscall.ENOSYS),
		)
	}
	for _, d := range t.deny {
		b.deny(d.name, d.nr, d.errno)
	}
	// clone3 cannot be inspected (flags live in memory): ENOSYS makes
	// libc fall back to clone, whose flags we can see.
	b.deny("clone3", t.clone3, syscall.ENOSYS)
	b.block("clone", "namespace flags", t.clone, syscall.EPERM, []bpf.Instruction{
		bpf.LoadAbsolute{Off: argLow(0), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: nsFlags, SkipFalse: 1},
		ret(syscall.EPERM),
	})
	b.block("unshare", "namespace flags", t.unshare, syscall.EPERM, []bpf.Instruction{
		bpf.LoadAbsolute{Off: argLow(0), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: nsFlags | cloneNewTime, SkipFalse: 1},
		ret(syscall.EPERM),
	})
	b.block("ioctl", "TIOCSTI, TIOCLINUX", t.ioctl, syscall.EPERM, []bpf.Instruction{
		bpf.LoadAbsolute{Off: argLow(1), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: tiocsti, SkipTrue: 1},
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: tioclinux, SkipTrue: 1},
		ret(syscall.EPERM),
	})
	// personality: allow only the values Docker's default profile allows
	// (PER_LINUX, PER_LINUX32, UNAME26 variants, query).
	b.block("personality", "other than 0, 0x8, 0x20000, 0x20008, 0xffffffff", t.personality, syscall.EPERM, []bpf.Instruction{
		bpf.LoadAbsolute{Off: argLow(0), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipTrue: 5},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x8, SkipTrue: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x20000, SkipTrue: 3},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0x20008, SkipTrue: 2},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0xffffffff, SkipTrue: 1},
		ret(syscall.EPERM),
	})
	// socket: MPTCP bypasses Landlock's TCP rules (landlock-lsm/linux#54).
	b.block("socket", socketNote(o), t.socket, syscall.EPROTONOSUPPORT, socketBody(o))
	if o.RestrictFamilies {
		pair := []item{
			{in: bpf.LoadAbsolute{Off: argLow(0), Size: 4}},
			{in: bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: afUnix}, t: "deny"},
		}
		pair = append(pair, unixType()...)
		pair = append(pair,
			item{label: "deny"},
			item{in: ret(syscall.EAFNOSUPPORT)},
		)
		b.block("socketpair", "other than AF_UNIX stream/seqpacket", t.socketpair, syscall.EAFNOSUPPORT, resolve(pair))
	}
	b.emit(bpf.RetConstant{Val: retAllow})

	raw, err := bpf.Assemble(b.insns)
	if err != nil {
		return nil, fmt.Errorf("seccompbpf: assemble: %w", err)
	}
	if len(raw) > 4096 {
		return nil, fmt.Errorf("seccompbpf: filter too long (%d instructions)", len(raw))
	}
	return &Program{Insns: raw, Rules: b.rules}, nil
}

type denyEntry struct {
	name  string
	nr    uint32
	errno syscall.Errno
}

type sysTable struct {
	arch                                                           uint32
	x32                                                            bool
	clone, clone3, unshare, ioctl, personality, socket, socketpair uint32
	connect                                                        uint32
	deny                                                           []denyEntry
}
