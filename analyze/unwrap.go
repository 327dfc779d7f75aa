package analyze

import (
	"strings"

	"github.com/shellguard/shellguard/internal/progs"
)

// innerCmd is a command that a wrapper runs with an argv of its own.
type innerCmd struct {
	wrapper         string
	args            []Arg
	assigns         []Assign
	remote          bool
	extraArgs       bool
	stdinFromParent bool
	cwd             string
}

// codeArg is shell code carried in a string.
type codeArg struct {
	wrapper       string
	text          string
	span          Span
	dynamic       bool
	filled        bool // the wrapper's input is written in (Arg.Filled)
	remote        bool
	newShell      bool // runs in a new shell (sh -c): fresh positional params
	sameShell     bool // runs in the current shell (eval, source of text)
	positional    []string
	positionalSet bool
	via           Via  // ViaOption unless set
	stdin         bool // the code comes on standard input (here-document, pipe)
}

type unwrapped struct {
	inner []innerCmd
	code  []codeArg
}

func (u *unwrapped) addInner(wrapper string, args []Arg) {
	if len(args) > 0 {
		u.inner = append(u.inner, innerCmd{wrapper: wrapper, args: args, stdinFromParent: true})
	}
}

func (u *unwrapped) addCode(wrapper string, a Arg) {
	u.code = append(u.code, codeArg{wrapper: wrapper, text: a.Value, span: a.Span, dynamic: a.Dynamic})
}

// codeOpts adds as code the tool runs (labelled wrapper) the value of
// each of the options names: "-X VALUE", "--long VALUE" or
// "--long=VALUE".
func (u *unwrapped) codeOpts(args []Arg, wrapper string, names ...string) {
	for i, a := range args {
		for _, n := range names {
			switch {
			case a.Value == n && i+1 < len(args):
				u.addCode(wrapper, args[i+1])
			case strings.HasPrefix(n, "--") && strings.HasPrefix(a.Value, n+"="):
				a2 := a
				a2.Value = a.Value[len(n)+1:]
				u.addCode(wrapper, a2)
			}
		}
	}
}

// optSpec describes the options of a wrapper: which take a value.
type optSpec struct {
	withValue string // single-letter options that take a value
	longValue []string
}

// skipOpts skips options of a wrapper and returns the rest. It stops at
// "--" (consumed) or the first non-option.
func skipOpts(args []Arg, spec optSpec) []Arg {
	for len(args) > 0 {
		a := args[0].Value
		if args[0].Dynamic {
			return args
		}
		if a == "--" {
			return args[1:]
		}
		if len(a) < 2 || a[0] != '-' {
			return args
		}
		if strings.HasPrefix(a, "--") {
			name := a[2:]
			if strings.Contains(name, "=") {
				args = args[1:]
				continue
			}
			takes := false
			for _, l := range spec.longValue {
				if l == name {
					takes = true
				}
			}
			args = args[1:]
			if takes && len(args) > 0 {
				args = args[1:]
			}
			continue
		}
		// short options, possibly grouped: the first one taking a value
		// consumes the rest of the group or the next argument
		args = args[1:]
		for i := 1; i < len(a); i++ {
			if strings.IndexByte(spec.withValue, a[i]) >= 0 {
				if i == len(a)-1 && len(args) > 0 {
					args = args[1:]
				}
				break
			}
		}
	}
	return args
}

// wrapperOf builds the typed wrapper of a chain link shown as text.
func wrapperOf(text string, via Via) Wrapper {
	if via == 0 {
		via = ViaOption
	}
	prog, _, _ := strings.Cut(text, " ")
	return Wrapper{Program: prog, Text: text, Via: via}
}

// hdocSpan is the span of a here-document's body or a here-string's
// word, or of the redirect when that is unknown.
func hdocSpan(r Redirect) Span {
	if t := r.Target.Span; t.End > t.Start {
		return t
	}
	return r.Span
}

func hasFlag(args []Arg, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			if a.Value == f {
				return true
			}
		}
	}
	return false
}

// unwrap returns what a command runs besides itself.
func unwrap(cmd *Command) *unwrapped {
	name := cmd.Program
	args := cmd.Args[1:]
	u := &unwrapped{}
	switch name {
	case "command":
		rest := skipOpts(args, optSpec{})
		if hasFlag(args[:len(args)-len(rest)], "-v", "-V") {
			return nil
		}
		u.addInner("command", rest)
	case "builtin", "nohup", "unbuffer", "caffeinate", "noglob", "catchsegv", "time", "nocorrect", "chronic", "fakeroot", "firejail", "proot", "sched":
		if name == "sched" && len(args) > 0 {
			args = args[1:]
		}
		u.addInner(name, skipOpts(args, optSpec{withValue: "fo"}))
	case "exec":
		u.addInner("exec", skipOpts(args, optSpec{withValue: "a"}))
	case "nice":
		u.addInner("nice", skipOpts(args, optSpec{withValue: "n", longValue: []string{"adjustment"}}))
	case "ionice":
		u.addInner("ionice", skipOpts(args, optSpec{withValue: "cnp"}))
	case "setsid":
		u.addInner("setsid", skipOpts(args, optSpec{}))
	case "stdbuf":
		u.addInner("stdbuf", skipOpts(args, optSpec{withValue: "ioe", longValue: []string{"input", "output", "error"}}))
	case "timeout":
		rest := skipOpts(args, optSpec{withValue: "sk", longValue: []string{"signal", "kill-after"}})
		if len(rest) > 0 {
			u.addInner("timeout", rest[1:])
		}
	case "taskset":
		rest := skipOpts(args, optSpec{})
		if len(rest) > 0 {
			u.addInner("taskset", rest[1:])
		}
	case "chrt":
		rest := skipOpts(args, optSpec{})
		if len(rest) > 0 {
			u.addInner("chrt", rest[1:])
		}
	case "flock":
		rest := skipOpts(args, optSpec{withValue: "wEc", longValue: []string{"timeout", "conflict-exit-code", "command"}})
		for i, a := range args {
			if (a.Value == "-c" || a.Value == "--command") && i+1 < len(args) {
				u.addCode("flock -c", args[i+1])
				return u
			}
		}
		if len(rest) > 0 {
			u.addInner("flock", rest[1:])
		}
	case "env":
		unwrapEnv(args, u)
	case "sudo", "doas", "run0":
		unwrapSudo(name, args, u)
	case "su", "runuser", "sg":
		u.codeOpts(args, name+" -c", "-c", "--command")
		if name == "runuser" {
			if rest := skipOpts(args, optSpec{withValue: "ugc"}); len(rest) > 0 && hasFlag(args, "-u") {
				u.addInner(name, rest)
			}
		}
	case "systemd-run":
		u.addInner(name, skipOpts(args, optSpec{withValue: "pMEuGp", longValue: []string{"unit", "property", "setenv", "uid", "gid", "description", "slice", "working-directory"}}))
	case "npx", "bunx", "pnpx":
		u.addInner(name, skipOpts(args, optSpec{withValue: "p", longValue: []string{"package", "call", "node-options"}}))
	case "man":
		u.codeOpts(args, "man -P", "-P", "--pager")
	case "zip":
		u.codeOpts(args, "zip -TT", "-TT", "--unzip-command")
	case "scp":
		u.codeOpts(args, "scp -S", "-S")
	case "pkexec":
		u.addInner("pkexec", skipOpts(args, optSpec{longValue: []string{"user"}}))
	case "chroot":
		rest := skipOpts(args, optSpec{longValue: []string{"userspec", "groups"}})
		if len(rest) > 1 {
			u.addInner("chroot", rest[1:])
		}
	case "nsenter", "unshare":
		u.addInner(name, skipOpts(args, optSpec{withValue: "tS", longValue: []string{"target"}}))
	case "strace", "ltrace":
		u.addInner(name, skipOpts(args, optSpec{withValue: "eopsuIESPXa"}))
	case "lldb":
		// lldb -- PROG ARG…: the program the debugger starts
		u.debuggee(name, args, "--")
	case "watch":
		rest := skipOpts(args, optSpec{withValue: "nq", longValue: []string{"interval", "differences"}})
		if hasFlag(args[:len(args)-len(rest)], "-x", "--exec") {
			u.addInner("watch", rest)
		} else if len(rest) > 0 {
			u.addCode("watch", joinArgs(rest))
		}
	case "xargs":
		rest := skipOpts(args, optSpec{withValue: "IiLlnPsdEae", longValue: []string{"max-args", "max-procs", "delimiter", "replace", "arg-file", "eof", "max-chars", "max-lines", "process-slot-var"}})
		if r := xargsReplace(args[:len(args)-len(rest)]); r != "" {
			if r != "{}" {
				rest = replaceIn(rest, r, "{}")
			}
			rest = fill(rest, "{}")
			if len(rest) > 0 && rest[0].Filled {
				rest[0].Dynamic = true // the input names the program
			}
		}
		if len(rest) == 0 {
			rest = []Arg{{Value: "echo", Span: cmd.Span}}
		}
		u.inner = append(u.inner, innerCmd{wrapper: "xargs", args: rest, extraArgs: true})
	case "parallel":
		rest := skipOpts(args, optSpec{withValue: "jSI", longValue: []string{"jobs"}})
		var c, inputs []Arg
		in := false
		for _, a := range rest {
			if a.Value == ":::" || a.Value == "::::" || a.Value == ":::+" {
				in = true
				continue
			}
			if in {
				inputs = append(inputs, a)
			} else {
				c = append(c, a)
			}
		}
		if len(c) > 0 {
			if len(inputs) == 0 {
				u.addCode("parallel", joinArgs(c))
			}
			for i, in := range inputs {
				if i >= 16 {
					break
				}
				u.addCode("parallel", joinArgs(append(append([]Arg(nil), c...), in)))
			}
		}
	case "find":
		unwrapFind(cmd, args, u)
	case "source", ".":
		if len(args) > 0 && (args[0].Value == "/dev/stdin" || args[0].Value == "-") {
			for _, r := range cmd.Redirects {
				if r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<" {
					u.code = append(u.code, codeArg{wrapper: name + " <<", text: r.Target.Value, span: hdocSpan(r), dynamic: r.Target.Dynamic, sameShell: true, via: ViaShell, stdin: true})
				}
			}
		}
	case "eval":
		if len(args) > 0 {
			cd := joinArgs(args)
			u.code = append(u.code, codeArg{wrapper: "eval", text: cd.Value, span: cd.Span, dynamic: cd.Dynamic, sameShell: true, via: ViaShell})
		}
	case "trap":
		rest := skipOpts(args, optSpec{})
		if len(rest) >= 2 && !hasFlag(args, "-p", "-l") {
			u.addCode("trap", rest[0])
		}
	case "alias":
		for _, a := range args {
			if i := strings.IndexByte(a.Value, '='); i > 0 {
				a2 := a
				a2.Value = a.Value[i+1:]
				u.addCode("alias", a2)
			}
		}
	case "emulate":
		u.codeOpts(args, "emulate -c", "-c")
	case "ssh":
		unwrapSSH(args, u)
	case "docker", "podman", "nerdctl":
		unwrapDocker(name, args, u)
	case "kubectl", "oc":
		if len(args) > 0 && args[0].Value == "exec" {
			for i, a := range args {
				if a.Value == "--" {
					u.inner = append(u.inner, innerCmd{wrapper: name + " exec", args: args[i+1:], remote: true})
					break
				}
			}
		}
	case "git":
		unwrapGit(args, u)
	case "tar", "gtar", "bsdtar":
		for i, a := range args {
			v := a.Value
			switch {
			case strings.HasPrefix(v, "--checkpoint-action=exec="):
				a2 := a
				a2.Value = strings.TrimPrefix(v, "--checkpoint-action=exec=")
				u.addCode("tar --checkpoint-action", a2)
			case strings.HasPrefix(v, "--to-command="), strings.HasPrefix(v, "--use-compress-program="), strings.HasPrefix(v, "--info-script="), strings.HasPrefix(v, "--new-volume-script="):
				a2 := a
				a2.Value = v[strings.IndexByte(v, '=')+1:]
				u.addCode("tar "+v[:strings.IndexByte(v, '=')], a2)
			case (v == "-I" || v == "--to-command" || v == "--use-compress-program" || v == "-F") && i+1 < len(args):
				u.addCode("tar "+v, args[i+1])
			}
		}
	case "rsync":
		u.codeOpts(args, "rsync -e", "-e", "--rsh")
	case "script":
		u.codeOpts(args, "script -c", "-c", "--command")
	case "rg":
		for i, a := range args {
			if a.Value == "--pre" && i+1 < len(args) {
				u.inner = append(u.inner, innerCmd{wrapper: "rg --pre", args: args[i+1 : i+2], extraArgs: true})
			} else if strings.HasPrefix(a.Value, "--pre=") {
				a2 := a
				a2.Value = strings.TrimPrefix(a.Value, "--pre=")
				u.inner = append(u.inner, innerCmd{wrapper: "rg --pre", args: []Arg{a2}, extraArgs: true})
			}
		}
	case "fd", "fdfind":
		for i, a := range args {
			if a.Value == "-x" || a.Value == "--exec" || a.Value == "-X" || a.Value == "--exec-batch" {
				rest := args[i+1:]
				for j, b := range rest {
					if b.Value == ";" {
						rest = rest[:j]
						break
					}
				}
				// {}, {/}, {//}, {.}, {/.}: the path found, or a part of it
				rest = fill(rest, "{}", "{/}", "{//}", "{.}", "{/.}")
				u.inner = append(u.inner, innerCmd{wrapper: "fd " + a.Value, args: rest, extraArgs: true})
				break
			}
		}
	case "entr":
		u.inner = append(u.inner, innerCmd{wrapper: "entr", args: skipOpts(args, optSpec{}), extraArgs: true})
	case "tmux":
		for i, a := range args {
			if a.Value == "new-session" || a.Value == "new" || a.Value == "new-window" || a.Value == "neww" || a.Value == "split-window" || a.Value == "splitw" || a.Value == "respawn-pane" {
				rest := skipOpts(args[i+1:], optSpec{withValue: "scnte", longValue: nil})
				if len(rest) > 0 {
					u.addCode("tmux "+a.Value, joinArgs(rest))
				}
				break
			}
			if a.Value == "send-keys" || a.Value == "send" {
				u.code = append(u.code, codeArg{wrapper: "tmux send-keys", span: a.Span, dynamic: true})
				break
			}
		}
	case "screen":
		rest := skipOpts(args, optSpec{withValue: "SscpTLhX"})
		u.addInner("screen", rest)
	case "gdb":
		// gdb --args PROG ARG…: the program the debugger starts
		u.debuggee(name, args, "--args")
		for i, a := range args {
			if (a.Value == "-ex" || a.Value == "--eval-command") && i+1 < len(args) {
				ex := strings.TrimSpace(args[i+1].Value)
				if strings.HasPrefix(ex, "shell ") || strings.HasPrefix(ex, "!") {
					c := args[i+1]
					c.Value = strings.TrimPrefix(strings.TrimPrefix(ex, "shell "), "!")
					u.addCode("gdb shell", c)
				}
			}
		}
	case "busybox", "toybox":
		u.addInner(name, args)
	case "vim", "vi", "nvim", "ex", "view", "vimdiff":
		for i, a := range args {
			var ex string
			switch {
			case (a.Value == "-c" || a.Value == "--cmd") && i+1 < len(args):
				ex = args[i+1].Value
			case strings.HasPrefix(a.Value, "+"):
				ex = a.Value[1:]
			default:
				continue
			}
			ex = strings.TrimLeft(ex, ": ")
			if strings.HasPrefix(ex, "!") {
				u.code = append(u.code, codeArg{wrapper: name + " :!", text: ex[1:], span: a.Span})
			} else if strings.HasPrefix(ex, "call system(") || strings.HasPrefix(ex, "terminal") {
				u.code = append(u.code, codeArg{wrapper: name + " :system", text: "", span: a.Span, dynamic: true})
			}
		}
	case "awk", "gawk", "mawk", "nawk", "busybox awk":
		if prog := awkProgram(args); prog != nil {
			for _, s := range awkShellStrings(prog.Value) {
				u.code = append(u.code, codeArg{wrapper: "awk system", text: s, span: prog.Span})
			}
		}
	case "sed", "gsed":
		for _, s := range sedExecs(args) {
			u.code = append(u.code, codeArg{wrapper: "sed e", text: s.text, span: s.span, dynamic: s.dynamic})
		}
	default:
		switch {
		case cmd.Shell():
			unwrapShell(name, cmd, args, u)
			for _, cd := range cmd.Code {
				if cd.Piped {
					u.code = append(u.code, codeArg{wrapper: name + " <|", text: cd.Text, span: cd.Span, newShell: true, positionalSet: true, via: ViaShell, stdin: true})
				}
			}
		case progs.IsInterpreter(name):
			for _, cd := range cmd.Code {
				text := codeOnly(cd.Lang, cd.Text)
				for _, s := range shellStrings(text) {
					u.code = append(u.code, codeArg{wrapper: name + " system", text: s, span: cd.Span})
				}
				for _, s := range shellBackticks(cd.Lang, text) {
					u.code = append(u.code, codeArg{wrapper: name + " `…`", text: s, span: cd.Span})
				}
			}
		}
	}
	if len(u.inner) == 0 && len(u.code) == 0 {
		return nil
	}
	return u
}

func joinArgs(args []Arg) Arg {
	var sb strings.Builder
	a := Arg{}
	for i, x := range args {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(x.Value)
		a.Dynamic = a.Dynamic || x.Dynamic
		a.Filled = a.Filled || x.Filled
	}
	a.Value = sb.String()
	a.Span = argsSpan(args, Span{})
	return a
}

// xargsReplace returns the replace string of xargs options (-I R, -IR,
// --replace=R, -i and --replace alone: {}); "" when there is none.
func xargsReplace(opts []Arg) string {
	r := ""
	for i := 0; i < len(opts); i++ {
		v := opts[i].Value
		switch {
		case v == "-I" && i+1 < len(opts):
			r = opts[i+1].Value
			i++
		case strings.HasPrefix(v, "-I") && !strings.HasPrefix(v, "--"):
			r = v[2:]
		case v == "-i" || v == "--replace":
			r = "{}"
		case strings.HasPrefix(v, "-i") && !strings.HasPrefix(v, "--"):
			r = v[2:]
		case strings.HasPrefix(v, "--replace="):
			r = strings.TrimPrefix(v, "--replace=")
		}
	}
	return r
}

// debuggee adds the program a debugger runs: the words after the
// separator (gdb --args, lldb --).
func (u *unwrapped) debuggee(name string, args []Arg, sep string) {
	for i, a := range args {
		if a.Value == sep {
			if rest := args[i+1:]; len(rest) > 0 {
				u.addInner(name, rest)
			}
			return
		}
	}
}

// fill returns args with Filled set on those whose value holds the
// placeholder a wrapper writes its input into.
func fill(args []Arg, placeholders ...string) []Arg {
	out := make([]Arg, len(args))
	for i, a := range args {
		for _, p := range placeholders {
			a.Filled = a.Filled || strings.Contains(a.Value, p)
		}
		out[i] = a
	}
	return out
}

// replaceIn returns args with every from in their values spelled to: the
// replace string of xargs -I is the one spelling {} of the analysis.
func replaceIn(args []Arg, from, to string) []Arg {
	out := make([]Arg, len(args))
	for i, a := range args {
		a.Value = strings.ReplaceAll(a.Value, from, to)
		out[i] = a
	}
	return out
}
