package policy

import (
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/effects"
	"github.com/shellguard/shellguard/internal/grammar"
	"github.com/shellguard/shellguard/internal/world"
)

// Network tools: uploads, raw sockets, remote shells.

// isNetwork reports a command that moves bytes to or from another host:
// a program whose grammar line is +netclient, or any program given a
// /dev/tcp or /dev/udp path.
func isNetwork(c *analyze.Command) bool {
	p := grammar.Resolve(c.Name())
	if p.Line != nil && p.Line.NetClient {
		return true
	}
	n := p.Name
	for _, a := range c.Argv {
		if strings.HasPrefix(a, "/dev/tcp/") || strings.HasPrefix(a, "/dev/udp/") {
			return true
		}
	}
	for _, r := range c.Redirects {
		if strings.HasPrefix(r.Target.Value, "/dev/tcp/") || strings.HasPrefix(r.Target.Value, "/dev/udp/") {
			return true
		}
	}
	if n == "openssl" && len(c.Argv) > 1 && (c.Argv[1] == "s_client" || c.Argv[1] == "s_server") {
		return true
	}
	if n == "git" && len(c.Argv) > 1 && (c.Argv[1] == "archive" && hasArg(c.Argv, "--remote")) {
		return true
	}
	return false
}

func localURL(s string) bool {
	return strings.Contains(s, "://localhost") || strings.Contains(s, "://127.") || strings.Contains(s, "://[::1]") ||
		strings.Contains(s, "://0.0.0.0") || strings.HasPrefix(s, "localhost:") || strings.HasPrefix(s, "127.0.0.1")
}

func (k *cmdCheck) remoteTarget() bool {
	remote := false
	for _, a := range k.args {
		v := a.Value
		if strings.Contains(v, "://") || strings.Contains(v, ".") && !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "@") && !strings.HasPrefix(v, ".") && !strings.HasPrefix(v, "/") {
			if localURL(v) {
				return false
			}
			remote = true
		}
	}
	return remote
}

func (k *cmdCheck) netcat() {
	for i, a := range k.args {
		v := a.Value
		if v == "-e" || v == "-c" || v == "--exec" || v == "--sh-exec" || v == "--lua-exec" || strings.HasPrefix(v, "-e") && len(v) > 2 && !strings.HasPrefix(v, "--") {
			k.emitAt(sg2705deny, a.Span, "netcat executes a program for the connection: remote shell")
			return
		}
		_ = i
	}
	if k.hasShort('l', "--listen") {
		k.emit(sg2706, "opens a listening network socket")
		return
	}
	ops := k.operands()
	if k.hasShort('z') || len(ops) > 0 && (ops[0].Value == "localhost" || strings.HasPrefix(ops[0].Value, "127.") || ops[0].Value == "::1") {
		return // port check or local service
	}
	if len(ops) > 0 {
		k.emit(sg2706, "opens a raw network connection")
	}
}

// socat judges a relay by the effects of its addresses: a program (EXEC,
// SYSTEM, SHELL) on one side and a connection or a listener on the other
// is a remote shell; a program alone is judged as any command option that
// runs one.
func (k *cmdCheck) socat() {
	var prog *effects.Effect
	network := false
	for j, ef := range k.e.effs[k.i] {
		switch ef.Kind {
		case effects.Exec:
			prog = &k.e.effs[k.i][j]
		case effects.Net:
			network = true
		}
	}
	if prog != nil && network {
		k.emitAt(sg2705deny, prog.Span, "socat connects a program to the network: remote shell")
		return
	}
	if k.onlyThisMachine() {
		return // a local relay (a port forward to localhost): its addresses say so
	}
	k.emit(sg2706, "socat opens raw network connections")
}

// onlyThisMachine reports a command whose every connection and listener
// is on this machine's loopback (a listener on all interfaces is not),
// known from its effects, and that has at least one.
func (k *cmdCheck) onlyThisMachine() bool {
	n := 0
	for _, ef := range k.e.effs[k.i] {
		if ef.Kind != effects.Net {
			continue
		}
		h := world.HostOf(ef.Dest)
		if ef.Dynamic || ef.Dest == "" || !world.Loopback(h) || h == "0.0.0.0" || h == "::" {
			return false
		}
		n++
	}
	return n > 0
}

// curl: what it sends, to where, is effects'; options read from a file
// can send anything.
func (k *cmdCheck) curl() {
	for i, a := range k.args {
		if v := a.Value; (v == "-K" || v == "--config") && i+1 < len(k.args) {
			k.emitAt(sg2702, a.Span, "curl reads options from a file")
		}
	}
	k.outputFlag("-o", "--output")
}

func (k *cmdCheck) outputFlag(short, long string) {
	for i, a := range k.args {
		v := a.Value
		if (v == short || v == long) && i+1 < len(k.args) {
			n := k.args[i+1]
			if n.Value != "-" {
				k.e.writeTarget(k.i, n.Span, n.Value, n.Dynamic, k.c.Cwd, k.said()+" writes")
			}
		} else if strings.HasPrefix(v, long+"=") {
			k.e.writeTarget(k.i, a.Span, strings.TrimPrefix(v, long+"="), a.Dynamic, k.c.Cwd, k.said()+" writes")
		}
	}
}

func (k *cmdCheck) wget() {
	for _, a := range k.args {
		if strings.HasPrefix(a.Value, "-O") && len(a.Value) > 2 {
			k.e.writeTarget(k.i, a.Span, a.Value[2:], a.Dynamic, k.c.Cwd, "wget writes")
		}
	}
	k.outputFlag("-O", "--output-document")
}

func (k *cmdCheck) ssh() {
	for _, a := range k.args {
		if a.Value == "-R" || a.Value == "-D" || strings.HasPrefix(a.Value, "-R") && len(a.Value) > 2 {
			k.emitAt(sg2706, a.Span, "ssh opens a tunnel ("+a.Value+")")
			break
		}
	}
	for i, a := range k.args {
		v := a.Value
		var opt string
		if v == "-o" && i+1 < len(k.args) {
			opt = k.args[i+1].Value
		} else if strings.HasPrefix(v, "-o") {
			opt = v[2:]
		} else {
			continue
		}
		fields := strings.FieldsFunc(opt, func(r rune) bool { return r == '=' || r == ' ' })
		if len(fields) == 0 {
			continue
		}
		key := strings.ToLower(strings.TrimSpace(fields[0]))
		switch key {
		case "proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand":
			k.emitAt(sg2510, a.Span, "ssh option "+key+" runs a local command")
		}
	}
}
