package seccompbpf

import (
	"syscall"

	"golang.org/x/net/bpf"
)

// item is an instruction of a block with symbolic jump targets: a jump's
// true branch goes to t, its false branch to f ("" = next instruction); a
// label item marks a position. "end" is the position after the block.
type item struct {
	in    bpf.Instruction
	t, f  string
	label string
}

// resolve turns items into instructions, computing the skips of jumps.
// Labels must lie after the jumps that name them (BPF only jumps forward).
func resolve(items []item) []bpf.Instruction {
	pos := map[string]int{}
	n := 0
	for _, it := range items {
		if it.label != "" {
			pos[it.label] = n
			continue
		}
		n++
	}
	pos["end"] = n
	out := make([]bpf.Instruction, 0, n)
	for _, it := range items {
		if it.label != "" {
			continue
		}
		here := len(out)
		skip := func(l string) uint8 {
			if l == "" {
				return 0
			}
			return uint8(pos[l] - here - 1)
		}
		if j, ok := it.in.(bpf.Jump); ok {
			j.Skip = uint32(skip(it.t))
			it.in = j
		}
		if j, ok := it.in.(bpf.JumpIf); ok {
			if it.t != "" {
				j.SkipTrue = skip(it.t)
			}
			if it.f != "" {
				j.SkipFalse = skip(it.f)
			}
			it.in = j
		}
		out = append(out, it.in)
	}
	return out
}

func socketNote(o Options) string {
	note := "protocol IPPROTO_MPTCP"
	if o.RestrictFamilies {
		note += "; families other than AF_UNIX, AF_INET, AF_INET6, AF_NETLINK/NETLINK_ROUTE; AF_UNIX other than SOCK_STREAM, SOCK_SEQPACKET"
	} else if o.DenyInetDatagram {
		note += "; AF_PACKET"
	}
	if o.DenyInetDatagram {
		note += "; AF_INET/AF_INET6 other than SOCK_STREAM"
	}
	return note
}

// unixType lets an AF_UNIX socket or pair of type SOCK_STREAM or
// SOCK_SEQPACKET through (to "end") and refuses every other type with
// EACCES: SOCK_DGRAM (an unconnected datagram socket can sendto any path,
// which no connect check sees), SOCK_RAW (unix_create makes it a datagram
// socket), and any type the kernel may learn later. The type is compared
// after the kernel's own mask (SOCK_TYPE_MASK, 0xf), which drops
// SOCK_NONBLOCK and SOCK_CLOEXEC; the kernel refuses other flag bits.
func unixType() []item {
	return []item{
		{in: bpf.LoadAbsolute{Off: argLow(1), Size: 4}},
		{in: bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: sockTypeMask}},
		{in: bpf.JumpIf{Cond: bpf.JumpEqual, Val: sockStream}, t: "end"},
		{in: bpf.JumpIf{Cond: bpf.JumpEqual, Val: sockSeqpacket}, t: "end"},
		{in: ret(syscall.EACCES)},
	}
}

// socketBody is the argument check of socket(domain, type, protocol).
func socketBody(o Options) []bpf.Instruction {
	its := []item{
		{in: bpf.LoadAbsolute{Off: argLow(2), Size: 4}},
		{in: bpf.JumpIf{Cond: bpf.JumpEqual, Val: ipprotoMPTCP}, t: "mptcp"},
		{in: bpf.LoadAbsolute{Off: argLow(0), Size: 4}},
	}
	inet := "end"
	if o.DenyInetDatagram {
		inet = "inet"
	}
	if o.RestrictFamilies {
		its = append(its,
			item{in: bpf.JumpIf{Cond: bpf.JumpEqual, Val: afInet}, t: inet},
			item{in: bpf.JumpIf{Cond: bpf.JumpEqual, Val: afInet6}, t: inet},
			item{in: bpf.JumpIf{Cond: bpf.JumpEqual, Val: afUnix}, t: "unix"},
			item{in: bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: afNetlink}, t: "nofamily"},
			// NETLINK_ROUTE (0) only: the others (audit, uevents, netfilter,
			// sock_diag, ...) reach kernel state the command has no need of.
			item{in: bpf.LoadAbsolute{Off: argLow(2), Size: 4}},
			item{in: bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0}, t: "end"},
			item{label: "nofamily"},
			item{in: ret(syscall.EAFNOSUPPORT)},
			item{label: "unix"},
		)
		its = append(its, unixType()...)
	} else if o.DenyInetDatagram {
		its = append(its,
			item{in: bpf.JumpIf{Cond: bpf.JumpEqual, Val: afInet}, t: "inet"},
			item{in: bpf.JumpIf{Cond: bpf.JumpEqual, Val: afInet6}, t: "inet"},
			item{in: bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: afPacket}, t: "end"},
			item{in: ret(syscall.EACCES)},
		)
	} else {
		its = append(its, item{in: bpf.Jump{}, t: "end"})
	}
	if o.DenyInetDatagram {
		its = append(its,
			item{label: "inet"},
			item{in: bpf.LoadAbsolute{Off: argLow(1), Size: 4}},
			item{in: bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: sockTypeMask}},
			item{in: bpf.JumpIf{Cond: bpf.JumpEqual, Val: sockStream}, t: "end"},
			item{in: ret(syscall.EACCES)},
		)
	}
	its = append(its,
		item{in: bpf.Jump{}, t: "end"},
		item{label: "mptcp"},
		item{in: ret(syscall.EPROTONOSUPPORT)},
	)
	return resolve(its)
}
