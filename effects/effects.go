// Package effects turns the facts of package analyze into typed effects:
// what each command reads, writes, deletes, runs, sends and changes, at
// any depth, with the provenance of every path.
//
// The package is pure, like analyze: it never touches the file system, the
// environment or other processes, and it never decides anything. Deciding
// is the job of the policy package. Programs are described by grammars
// held as data (internal/grammar, grammars/*.txt, one file per family):
// which options take a value, the subcommand path, and which operands and
// options are read paths, write paths, delete targets, code, URLs and
// hosts. A program that is not in the grammars is reported as Unknown
// together with what its arguments name, so that it can be judged by what
// it touches. A path that cannot be known statically has the origin
// OriginUnknown: it is never "".
//
// effects imports analyze and nothing else of the module but the grammars
// (internal/grammar) and the shared tables of internal/world (what a path
// or a host is).
package effects

import (
	"strings"

	"github.com/shellguard/shellguard/analyze"
)

// Kind is the kind of an effect.
type Kind uint8

const (
	Read    Kind = iota + 1 // reads a file or directory
	Write                   // creates or modifies a file
	Delete                  // removes a file or directory
	Chmod                   // changes permission bits
	Chown                   // changes the owner
	Exec                    // runs code (see Code)
	Net                     // talks to a host (see Dest, Sends)
	Env                     // sets an environment variable for programs
	Signal                  // sends a signal to processes
	System                  // changes the system or remote resources (see System)
	Unknown                 // a program or subcommand with no grammar
	// Mention is a path a known program is given where its grammar
	// gives no role: judged, like an unknown program's argument, by
	// what it names (a device, a credential, a startup file).
	Mention
)

var kindNames = [...]string{"", "read", "write", "delete", "chmod", "chown", "exec", "net", "env", "signal", "system", "unknown", "mention"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && k > 0 {
		return kindNames[k]
	}
	return "effect"
}

// Origin is where a path comes from.
type Origin uint8

const (
	// OriginLiteral: the path is written in the command (after expansion
	// of what can be known statically).
	OriginLiteral Origin = iota + 1
	// OriginDerived: the paths are produced at run time under a known
	// root: a find root through "| xargs" or -exec, a glob, the output
	// of "git ls-files". Path.Abs is that root.
	OriginDerived
	// OriginUnknown: the path cannot be known statically (unknown
	// directory, variable, substitution of unknown output).
	OriginUnknown
)

func (o Origin) String() string {
	switch o {
	case OriginLiteral:
		return "literal"
	case OriginDerived:
		return "derived"
	case OriginUnknown:
		return "unknown"
	}
	return "none"
}

// Path is a path named by a command.
type Path struct {
	// Abs is the absolute, clean path (for OriginDerived, the root the
	// paths are found under). It is "" only when Origin is OriginUnknown.
	Abs string
	// Raw is the word as written (after static expansion).
	Raw    string
	Origin Origin
	// Via names the producer of a derived path ("find /", "glob",
	// "git ls-files").
	Via string
	// Pattern is the name pattern the producer of a derived path
	// selects ("id_rsa" of locate id_rsa, "*.key" of find -name).
	Pattern string
}

// Known reports whether the path is known (literal or derived).
func (p Path) Known() bool { return p.Origin != OriginUnknown && p.Abs != "" }

func (p Path) String() string {
	switch p.Origin {
	case OriginUnknown:
		if p.Raw != "" {
			return p.Raw + " (unknown path)"
		}
		return "(unknown path)"
	case OriginDerived:
		if p.Via != "" {
			return "files found by " + p.Via
		}
		return "files under " + p.Abs
	}
	return p.Abs
}

// CodeSource is where code that is run comes from.
type CodeSource uint8

const (
	CodeLiteral  CodeSource = iota + 1 // written in the command
	CodeFile                           // a file (script, program)
	CodeNetwork                        // downloaded
	CodeComputed                       // built at run time or read from a pipe
)

func (c CodeSource) String() string {
	switch c {
	case CodeLiteral:
		return "literal"
	case CodeFile:
		return "file"
	case CodeNetwork:
		return "network"
	case CodeComputed:
		return "computed"
	}
	return "none"
}

// System kinds.
const (
	SysPower     = "power"     // shutdown, reboot
	SysDisk      = "disk"      // format, partition, raw device writes
	SysMount     = "mount"     // mount, swap
	SysKernel    = "kernel"    // sysctl, modules
	SysFirewall  = "firewall"  // packet filters
	SysNetwork   = "network"   // interfaces, routes
	SysService   = "service"   // service state
	SysSchedule  = "schedule"  // cron, at, timers
	SysPrivilege = "privilege" // sudo, su, user and group management
	SysDestroy   = "destroy"   // deletes remote or infrastructure resources
	SysChange    = "change"    // changes remote or infrastructure resources
	SysConfig    = "config"    // changes tool or registry configuration
	SysInstall   = "install"   // installs packages
)

// Effect is one thing a command does.
type Effect struct {
	Kind Kind
	// Cmd is the index of the command in analyze.Result.Commands (-1 for
	// a redirect of a compound statement).
	Cmd  int
	Span analyze.Span
	// Program is the command name (and subcommand path, space separated)
	// the effect comes from.
	Program string
	// Path is the file of Read, Write, Delete, Chmod, Chown and of
	// Exec with Code == CodeFile; for Net, the file sent (when Sends).
	Path      Path
	Recursive bool
	// Mode is the mode of Chmod, the owner of Chown, or the mode a Write
	// creates its file with (install -m, mkdir -m).
	Mode string
	// Code is the source of the code of Exec; Text is the code or the
	// option that carries it.
	Code CodeSource
	Text string
	// Dest is the URL or host of Net.
	Dest string
	// Remote names the destination of a Net that names no host: the
	// one the program's configuration gives (a git remote such as
	// "origin", "the configured remote", "the default registry").
	Remote string
	// Sends is set when Net sends local data; SendsWhat describes it
	// ("file", "stdin", "env").
	Sends     bool
	SendsWhat string
	// Name and Value of Env.
	Name, Value string
	// Target of Signal.
	Target string
	// System is the kind of System (Sys* constants).
	System string
	// Via names the upstream end of a pipe the effect depends on
	// ("find / -name x | xargs rm"): the two ends of the data flow.
	Via string
	// Dynamic is set when an argument the effect depends on is computed.
	Dynamic bool
	// Option names the option of an Exec that runs its value as a
	// command (sort --compress-program, git rebase -x).
	Option string
	// Secret is set on a Read by a tool that decrypts or reveals what it
	// reads (sops -d, age -d).
	Secret bool
	// Meta is set on a Read that only looks at names, sizes or digests
	// (ls, find roots, du, wc, sha256sum): the content is not read.
	Meta bool
}

// Describe renders the effect for a reason message.
func (e Effect) Describe() string {
	var b strings.Builder
	if e.Via != "" {
		b.WriteString(e.Via)
		b.WriteString(": ")
	}
	switch e.Kind {
	case Read:
		b.WriteString("reads " + e.Path.String())
	case Write:
		b.WriteString("writes " + e.Path.String())
		if e.Mode != "" {
			b.WriteString(" with mode " + e.Mode)
		}
	case Delete:
		if e.Path.Origin == OriginDerived {
			b.WriteString("deletes files found under " + e.Path.Abs)
		} else {
			if e.Recursive {
				b.WriteString("recursively ")
			}
			b.WriteString("deletes " + e.Path.String())
		}
	case Chmod:
		b.WriteString("changes the mode of " + e.Path.String() + " to " + e.Mode)
	case Chown:
		b.WriteString("changes the owner of " + e.Path.String() + " to " + e.Mode)
	case Exec:
		switch e.Code {
		case CodeNetwork:
			b.WriteString("runs code downloaded from the network")
		case CodeComputed:
			b.WriteString("runs code built at run time")
		case CodeFile:
			b.WriteString("runs " + e.Path.String())
		default:
			b.WriteString("runs code given in " + e.Text)
		}
	case Net:
		dest := e.Dest
		if e.Dest == "" && e.Remote != "" {
			dest = e.Remote
		}
		switch {
		case e.Text == "listen":
			b.WriteString("listens on " + dest)
		case e.Text == "serve" && e.Sends:
			b.WriteString("serves " + e.SendsWhat + " on " + dest)
		default:
			b.WriteString("connects to " + dest)
			if e.Sends {
				b.WriteString(" and sends " + e.SendsWhat)
			}
		}
	case Env:
		b.WriteString("sets " + e.Name)
	case Signal:
		b.WriteString("signals " + e.Target)
	case System:
		b.WriteString("system change (" + e.System + ")")
	case Unknown:
		b.WriteString("unknown program " + e.Program)
	case Mention:
		b.WriteString("is given " + e.Path.String())
	}
	return b.String()
}
