package analyze

import (
	"github.com/shellguard/shellguard/internal/lazyre"
	"strings"
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
	remote        bool
	newShell      bool // runs in a new shell (sh -c): fresh positional params
	sameShell     bool // runs in the current shell (eval, source of text)
	positional    []string
	positionalSet bool
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

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true,
	"ash": true, "mksh": true, "yash": true, "busybox sh": true, "rbash": true, "fish": true, "tcsh": true, "csh": true}

// IsShell reports whether name is a shell that runs code.
func IsShell(name string) bool { return shells[name] }

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
	name := cmd.Name()
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
		for i, a := range args {
			if (a.Value == "-c" || a.Value == "--command") && i+1 < len(args) {
				u.addCode(name+" -c", args[i+1])
			} else if strings.HasPrefix(a.Value, "--command=") {
				a2 := a
				a2.Value = strings.TrimPrefix(a.Value, "--command=")
				u.addCode(name+" -c", a2)
			}
		}
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
		for i, a := range args {
			if (a.Value == "-P" || a.Value == "--pager") && i+1 < len(args) {
				u.addCode("man -P", args[i+1])
			} else if strings.HasPrefix(a.Value, "--pager=") {
				a2 := a
				a2.Value = strings.TrimPrefix(a.Value, "--pager=")
				u.addCode("man -P", a2)
			}
		}
	case "zip":
		for i, a := range args {
			if (a.Value == "-TT" || a.Value == "--unzip-command") && i+1 < len(args) {
				u.addCode("zip -TT", args[i+1])
			}
		}
	case "scp":
		for i, a := range args {
			if a.Value == "-S" && i+1 < len(args) {
				u.addCode("scp -S", args[i+1])
			}
		}
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
	case "watch":
		rest := skipOpts(args, optSpec{withValue: "nq", longValue: []string{"interval", "differences"}})
		if hasFlag(args[:len(args)-len(rest)], "-x", "--exec") {
			u.addInner("watch", rest)
		} else if len(rest) > 0 {
			u.addCode("watch", joinArgs(rest))
		}
	case "xargs":
		rest := skipOpts(args, optSpec{withValue: "IiLlnPsdEae", longValue: []string{"max-args", "max-procs", "delimiter", "replace", "arg-file", "eof", "max-chars", "max-lines", "process-slot-var"}})
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
					u.code = append(u.code, codeArg{wrapper: name + " <<", text: r.Target.Value, span: r.Span, dynamic: r.Target.Dynamic, sameShell: true})
				}
			}
		}
	case "eval":
		if len(args) > 0 {
			cd := joinArgs(args)
			u.code = append(u.code, codeArg{wrapper: "eval", text: cd.Value, span: cd.Span, dynamic: cd.Dynamic, sameShell: true})
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
		for i, a := range args {
			if a.Value == "-c" && i+1 < len(args) {
				u.addCode("emulate -c", args[i+1])
			}
		}
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
		for i, a := range args {
			if (a.Value == "-e" || a.Value == "--rsh") && i+1 < len(args) {
				u.addCode("rsync -e", args[i+1])
			} else if strings.HasPrefix(a.Value, "--rsh=") {
				a2 := a
				a2.Value = strings.TrimPrefix(a.Value, "--rsh=")
				u.addCode("rsync -e", a2)
			}
		}
	case "script":
		for i, a := range args {
			if (a.Value == "-c" || a.Value == "--command") && i+1 < len(args) {
				u.addCode("script -c", args[i+1])
			}
		}
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
		if shells[name] {
			unwrapShell(name, cmd, args, u)
		} else if isInterpreter(name) {
			cd, ok := InterpreterCode(name, args)
			if !ok {
				cd, ok = StdinCode(cmd)
			}
			if ok {
				for _, s := range ShellStrings(cd.Value) {
					u.code = append(u.code, codeArg{wrapper: name + " system", text: s, span: cd.Span})
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
	}
	a.Value = sb.String()
	a.Span = argsSpan(args, Span{})
	return a
}

func unwrapEnv(args []Arg, u *unwrapped) {
	var assigns []Assign
	cwd := ""
	defer func() {
		for i := range u.inner {
			u.inner[i].cwd = cwd
		}
	}()
	for len(args) > 0 {
		a := args[0]
		v := a.Value
		switch {
		case a.Dynamic:
			u.inner = append(u.inner, innerCmd{wrapper: "env", args: args, assigns: assigns})
			return
		case v == "--":
			args = args[1:]
			if len(args) > 0 {
				u.inner = append(u.inner, innerCmd{wrapper: "env", args: args, assigns: assigns})
			}
			return
		case v == "-S" || v == "--split-string":
			if len(args) > 1 {
				u.addCode("env -S", args[1])
			}
			return
		case strings.HasPrefix(v, "-S"):
			a2 := a
			a2.Value = v[2:]
			u.addCode("env -S", a2)
			return
		case strings.HasPrefix(v, "--split-string="):
			a2 := a
			a2.Value = strings.TrimPrefix(v, "--split-string=")
			u.addCode("env -S", a2)
			return
		case v == "-C" || v == "--chdir":
			args = args[1:]
			if len(args) > 0 {
				cwd = args[0].Value
				if args[0].Dynamic {
					cwd = "\x00"
				}
				args = args[1:]
			}
			continue
		case v == "-u" || v == "--unset":
			args = args[1:]
			if len(args) > 0 {
				args = args[1:]
			}
			continue
		case strings.HasPrefix(v, "-"):
			args = args[1:]
			continue
		case strings.HasPrefix(v, "BASH_FUNC_") && strings.Contains(v, "="):
			i := strings.IndexByte(v, '=')
			val := a
			val.Value = v[i+1:]
			assigns = append(assigns, Assign{Name: v[:i], Value: val, Span: a.Span})
			if body := strings.TrimSpace(v[i+1:]); strings.HasPrefix(body, "()") {
				fn := strings.TrimSuffix(strings.TrimPrefix(v[:i], "BASH_FUNC_"), "%%")
				fn = strings.TrimSuffix(fn, "()")
				code := a
				code.Value = "f_" + fn + " " + body + "\nf_" + fn
				u.addCode("env BASH_FUNC", code)
			}
			args = args[1:]
			continue
		case strings.Contains(v, "=") && isName(v[:strings.IndexByte(v, '=')]):
			i := strings.IndexByte(v, '=')
			val := a
			val.Value = v[i+1:]
			assigns = append(assigns, Assign{Name: v[:i], Value: val, Span: a.Span})
			args = args[1:]
			continue
		}
		u.inner = append(u.inner, innerCmd{wrapper: "env", args: args, assigns: assigns})
		return
	}
	// env with only assignments and no command prints the environment;
	// keep the assignments visible as a command of their own.
	if len(assigns) > 0 {
		u.inner = append(u.inner, innerCmd{wrapper: "env", args: []Arg{{Value: "env", Span: assigns[0].Span}}, assigns: assigns})
	}
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

func unwrapSudo(name string, args []Arg, u *unwrapped) {
	shellMode := false
	for len(args) > 0 {
		a := args[0]
		v := a.Value
		if a.Dynamic || v == "" || v[0] != '-' {
			break
		}
		args = args[1:]
		if v == "--" {
			break
		}
		if strings.HasPrefix(v, "--") {
			switch v {
			case "--login", "--shell":
				shellMode = true
			case "--user", "--group", "--chdir", "--prompt", "--role", "--type", "--host", "--close-from", "--other-user", "--command-timeout":
				if len(args) > 0 {
					args = args[1:]
				}
			}
			continue
		}
		for i := 1; i < len(v); i++ {
			ch := v[i]
			if ch == 'i' || ch == 's' {
				shellMode = true
			}
			if strings.IndexByte("ugpCDhrtTUc", ch) >= 0 {
				if i == len(v)-1 && len(args) > 0 {
					args = args[1:]
				}
				break
			}
		}
	}
	if len(args) == 0 {
		return
	}
	if shellMode {
		u.addCode(name+" -s", joinArgs(args))
		return
	}
	u.addInner(name, args)
}

func unwrapShell(name string, cmd *Command, args []Arg, u *unwrapped) {
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		if args[i].Dynamic {
			return
		}
		if v == "--" || v == "-" {
			return
		}
		if len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			return // a script file
		}
		if strings.HasPrefix(v, "--") {
			if v == "--rcfile" || v == "--init-file" {
				i++
			}
			continue
		}
		if v[0] == '-' && strings.ContainsRune(v[1:], 'c') {
			if i+1 < len(args) {
				cd := args[i+1]
				// sh -c CODE [$0 [$1 …]]: the positional parameters are
				// known unless arguments are appended at run time (xargs)
				// or are themselves dynamic.
				var pos []string
				set := !cmd.ExtraArgs
				for _, p := range args[i+2:] {
					pos = append(pos, p.Value)
					set = set && !p.Dynamic
				}
				if len(pos) == 0 {
					pos = []string{name} // $0 defaults to the shell's name
				}
				u.code = append(u.code, codeArg{wrapper: name + " -c", text: cd.Value, span: cd.Span,
					dynamic: cd.Dynamic, newShell: true, positional: pos, positionalSet: set})
			}
			return
		}
		if strings.ContainsAny(v[1:], "oO") {
			i++
		}
	}
	// no -c and no script: the shell reads code from stdin; heredocs and
	// here-strings are code then.
	for _, r := range cmd.Redirects {
		if r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<" {
			u.code = append(u.code, codeArg{wrapper: name + " <<", text: r.Target.Value, span: r.Span,
				dynamic: r.Target.Dynamic, newShell: true, positionalSet: true})
		}
	}
}

func unwrapFind(cmd *Command, args []Arg, u *unwrapped) {
	var roots []string
	i := 0
	for i < len(args) && (args[i].Value == "-H" || args[i].Value == "-L" || args[i].Value == "-P" || strings.HasPrefix(args[i].Value, "-O") || args[i].Value == "-D") {
		if args[i].Value == "-D" {
			i++
		}
		i++
	}
	for ; i < len(args); i++ {
		v := args[i].Value
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == "\\(" {
			break
		}
		roots = append(roots, v)
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	for ; i < len(args); i++ {
		v := args[i].Value
		if v != "-exec" && v != "-execdir" && v != "-ok" && v != "-okdir" {
			continue
		}
		j := i + 1
		for j < len(args) && args[j].Value != ";" && args[j].Value != "+" {
			j++
		}
		inner := args[i+1 : j]
		plus := j < len(args) && args[j].Value == "+"
		for _, root := range roots {
			sub := make([]Arg, len(inner))
			for k, a := range inner {
				sub[k] = a
				if strings.Contains(a.Value, "{}") {
					rep := strings.TrimSuffix(root, "/") + "/{}"
					sub[k].Value = strings.ReplaceAll(a.Value, "{}", rep)
				}
			}
			if len(sub) > 0 {
				u.inner = append(u.inner, innerCmd{wrapper: "find " + v, args: sub, extraArgs: plus})
			}
		}
		i = j
	}
}

func unwrapSSH(args []Arg, u *unwrapped) {
	i := 0
	for i < len(args) {
		v := args[i].Value
		if len(v) < 2 || v[0] != '-' {
			break
		}
		if v == "--" {
			i++
			break
		}
		if v == "-o" && i+1 < len(args) {
			sshOption(args[i+1], u)
			i += 2
			continue
		}
		if strings.HasPrefix(v, "-o") {
			a := args[i]
			a.Value = v[2:]
			sshOption(a, u)
			i++
			continue
		}
		last := v[len(v)-1]
		i++
		if strings.IndexByte("bcDEeFIiJLlmOopQRSWw", last) >= 0 && len(v) == 2 {
			i++
		}
	}
	if i >= len(args) {
		return
	}
	rest := args[i+1:]
	if len(rest) > 0 {
		cd := joinArgs(rest)
		u.code = append(u.code, codeArg{wrapper: "ssh", text: cd.Value, span: cd.Span, dynamic: cd.Dynamic, remote: true, newShell: true})
	}
}

func sshOption(a Arg, u *unwrapped) {
	v := a.Value
	key, val, ok := strings.Cut(v, "=")
	if !ok {
		key, val, ok = strings.Cut(v, " ")
	}
	if !ok {
		return
	}
	switch strings.ToLower(strings.TrimSpace(key)) {
	case "proxycommand", "localcommand", "knownhostscommand", "remotecommand":
		a2 := a
		a2.Value = strings.TrimSpace(val)
		u.addCode("ssh -o "+strings.ToLower(key), a2)
	}
}

func unwrapDocker(name string, args []Arg, u *unwrapped) {
	if len(args) == 0 {
		return
	}
	sub := args[0].Value
	if sub == "container" && len(args) > 1 {
		args = args[1:]
		sub = args[0].Value
	}
	if sub != "exec" && sub != "run" {
		return
	}
	valued := map[string]bool{"-e": true, "--env": true, "-u": true, "--user": true, "-w": true, "--workdir": true,
		"-v": true, "--volume": true, "-p": true, "--publish": true, "--name": true, "--network": true, "--net": true,
		"--entrypoint": true, "--mount": true, "-l": true, "--label": true, "--platform": true, "--env-file": true,
		"--add-host": true, "--cpus": true, "-m": true, "--memory": true, "--hostname": true, "-h": true,
		"--cap-add": true, "--cap-drop": true, "--device": true, "--pid": true, "--ipc": true, "--security-opt": true,
		"--restart": true, "--tmpfs": true, "--ulimit": true, "--dns": true, "--detach-keys": true, "--gpus": true,
		"--shm-size": true, "--log-driver": true, "--log-opt": true, "--pull": true, "--runtime": true, "--userns": true}
	i := 1
	for i < len(args) {
		v := args[i].Value
		if len(v) < 2 || v[0] != '-' {
			break
		}
		i++
		if valued[v] {
			i++
		}
	}
	if i+1 < len(args) {
		u.inner = append(u.inner, innerCmd{wrapper: name + " " + sub, args: args[i+1:], remote: true})
	}
}

// gitExecKeys are configuration keys whose value git runs as a command.
var gitExecKeys = map[string]bool{"core.pager": true, "core.sshcommand": true, "core.editor": true,
	"core.fsmonitor": true, "core.askpass": true, "diff.external": true, "sequence.editor": true,
	"credential.helper": true, "gpg.program": true, "pager.log": true, "pager.diff": true, "pager.show": true,
	"core.hookspath": false, "uploadpack.packobjectshook": true, "merge.tool": false}

// GitExecKey reports whether a git config key holds a command.
func GitExecKey(key string) bool {
	k := strings.ToLower(key)
	if gitExecKeys[k] {
		return true
	}
	return strings.HasPrefix(k, "pager.") || (strings.HasPrefix(k, "alias.")) ||
		(strings.HasPrefix(k, "filter.") && (strings.HasSuffix(k, ".clean") || strings.HasSuffix(k, ".smudge") || strings.HasSuffix(k, ".process"))) ||
		(strings.HasPrefix(k, "diff.") && (strings.HasSuffix(k, ".textconv") || strings.HasSuffix(k, ".command"))) ||
		(strings.HasPrefix(k, "mergetool.") && strings.HasSuffix(k, ".cmd")) ||
		(strings.HasPrefix(k, "difftool.") && strings.HasSuffix(k, ".cmd"))
}

func unwrapGit(args []Arg, u *unwrapped) {
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		var kv Arg
		switch {
		case v == "-c" && i+1 < len(args):
			kv = args[i+1]
			i++
		case strings.HasPrefix(v, "-c") && len(v) > 2:
			kv = args[i]
			kv.Value = v[2:]
		case strings.HasPrefix(v, "--config-env"):
			continue
		case v == "-C" || v == "--git-dir" || v == "--work-tree" || v == "--namespace":
			i++
			continue
		case len(v) > 0 && v[0] != '-':
			gitSubcommand(v, args[i+1:], u)
			return
		default:
			continue
		}
		key, val, ok := strings.Cut(kv.Value, "=")
		if !ok || !GitExecKey(key) {
			continue
		}
		a := kv
		a.Value = val
		if strings.HasPrefix(strings.ToLower(key), "alias.") {
			if !strings.HasPrefix(val, "!") {
				continue
			}
			a.Value = val[1:]
		}
		u.addCode("git -c "+strings.ToLower(key), a)
	}
}

// gitSubcommand follows the options of git subcommands that run commands.
func gitSubcommand(sub string, args []Arg, u *unwrapped) {
	valueOf := func(i int, a Arg, long string) (Arg, bool) {
		if a.Value == long && i+1 < len(args) {
			return args[i+1], true
		}
		if strings.HasPrefix(a.Value, long+"=") {
			a.Value = strings.TrimPrefix(a.Value, long+"=")
			return a, true
		}
		return Arg{}, false
	}
	for i, a := range args {
		var code Arg
		ok := false
		switch sub {
		case "rebase":
			if code, ok = valueOf(i, a, "--exec"); !ok {
				code, ok = valueOf(i, a, "-x")
			}
		case "difftool", "mergetool":
			if code, ok = valueOf(i, a, "--extcmd"); !ok {
				code, ok = valueOf(i, a, "-x")
			}
		case "grep":
			if code, ok = valueOf(i, a, "--open-files-in-pager"); !ok && strings.HasPrefix(a.Value, "-O") && len(a.Value) > 2 {
				code, ok = a, true
				code.Value = a.Value[2:]
			}
		case "fetch", "pull", "clone", "ls-remote", "archive", "push":
			for _, o := range []string{"--upload-pack", "--receive-pack", "--exec", "-u"} {
				if code, ok = valueOf(i, a, o); ok {
					break
				}
			}
		case "submodule":
			if a.Value == "foreach" {
				rest := args[i+1:]
				for len(rest) > 0 && strings.HasPrefix(rest[0].Value, "-") {
					rest = rest[1:]
				}
				if len(rest) > 0 {
					u.addCode("git submodule foreach", joinArgs(rest))
				}
				return
			}
		case "bisect":
			if a.Value == "run" {
				u.addInner("git bisect run", args[i+1:])
				return
			}
		}
		if ok {
			u.addCode("git "+sub, code)
		}
	}
}

// ---- interpreters, awk, sed ----

var interpreters = map[string]string{
	"python": "-c", "python2": "-c", "python3": "-c", "pypy": "-c", "pypy3": "-c",
	"perl": "-e", "ruby": "-e", "node": "-e", "nodejs": "-e", "deno": "eval", "bun": "-e",
	"php": "-r", "lua": "-e", "Rscript": "-e", "osascript": "-e", "tclsh": "", "pwsh": "-c", "powershell": "-c",
}

func isInterpreter(name string) bool {
	if _, ok := interpreters[name]; ok {
		return true
	}
	return strings.HasPrefix(name, "python3.") || strings.HasPrefix(name, "python2.")
}

// IsInterpreter reports whether name is a scripting language interpreter.
func IsInterpreter(name string) bool { return isInterpreter(name) }

// StdinCode returns the program text an interpreter reads from a
// here-document or here-string when it has no script argument.
func StdinCode(cmd *Command) (Arg, bool) {
	for _, a := range cmd.Args[1:] {
		if !strings.HasPrefix(a.Value, "-") || a.Value == "-m" || a.Value == "-c" || a.Value == "-e" {
			if a.Value != "-" {
				return Arg{}, false
			}
		}
	}
	for _, r := range cmd.Redirects {
		if r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<" {
			a := r.Target
			a.Span = r.Span
			return a, true
		}
	}
	return Arg{}, false
}

// InterpreterCode returns the inline program of an interpreter command
// (python -c, perl -e, node -e, …).
func InterpreterCode(name string, args []Arg) (Arg, bool) {
	flag := interpreters[name]
	if strings.HasPrefix(name, "python") {
		flag = "-c"
	}
	for i, a := range args {
		v := a.Value
		if a.Dynamic && i == 0 {
			return Arg{}, false
		}
		if v == "--" || (len(v) > 0 && v[0] != '-') {
			if name == "deno" && v == "eval" && i+1 < len(args) {
				return args[i+1], true
			}
			return Arg{}, false
		}
		if v == flag || v == "--eval" || v == "-E" && name == "perl" || (name == "node" && (v == "-p" || v == "--print")) {
			if i+1 < len(args) {
				return args[i+1], true
			}
			return Arg{}, false
		}
		// grouped perl/ruby flags like -ne, -pe, -pie
		if (name == "perl" || name == "ruby") && len(v) > 1 && v[0] == '-' && strings.HasSuffix(v, "e") && !strings.HasPrefix(v, "--") {
			if i+1 < len(args) {
				return args[i+1], true
			}
		}
		if strings.HasPrefix(name, "python") && strings.HasPrefix(v, "-c") && len(v) > 2 {
			a2 := a
			a2.Value = v[2:]
			return a2, true
		}
		if strings.HasPrefix(name, "python") && v == "-m" {
			return Arg{}, false
		}
	}
	return Arg{}, false
}

var (
	reShellCall = lazyre.New(`(?:\bos\.system|\bos\.popen|\bsubprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|\bsystem|\bexec(?:Sync)?|\bspawnSync|\bspawn|\bpopen|\bshell_exec|\bpassthru|\bproc_open|%x|\bIO\.popen|\bOpen3\.\w+|\bos\.execute|\bio\.popen|do shell script)\s*\(?\s*(?:\[\s*)?(?:r|b|f)?("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')`)
	reBacktick  = lazyre.New("`([^`]+)`")
)

// ShellStrings extracts string literals passed to shell-running calls in
// interpreter code (os.system("…"), system('…'), execSync(`…`), …).
func ShellStrings(code string) []string {
	var out []string
	for _, m := range reShellCall.FindAllStringSubmatch(code, 8) {
		s := m[1]
		s = s[1 : len(s)-1]
		s = strings.NewReplacer(`\"`, `"`, `\'`, `'`, `\\`, `\`, `\n`, "\n").Replace(s)
		out = append(out, s)
	}
	return out
}

var reShellCallDyn = lazyre.New(`(?:\bos\.system|\bos\.popen|\bsubprocess\.\w+|\bsystem|\bexec(?:Sync)?|\bspawnSync|\bpopen|\bshell_exec|\bpassthru|\bos\.execute)\s*\(\s*(?:r|b|f)?("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*([^\s,)\]])`)

// ShellStringsDynamic reports shell-running calls whose command is built
// at run time ("rm -rf " + path).
func ShellStringsDynamic(code string) bool {
	return reShellCallDyn.MatchString(code)
}

// ShellBackticks extracts `…` commands (perl, ruby).
func ShellBackticks(code string) []string {
	var out []string
	for _, m := range reBacktick.FindAllStringSubmatch(code, 8) {
		out = append(out, m[1])
	}
	return out
}

// AwkProgram returns the program text argument of an awk command.
func AwkProgram(args []Arg) *Arg { return awkProgram(args) }

func awkProgram(args []Arg) *Arg {
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		if v == "-f" || v == "--file" {
			return nil
		}
		if v == "-F" || v == "-v" || v == "--assign" || v == "--field-separator" {
			i++
			continue
		}
		if strings.HasPrefix(v, "-") && len(v) > 1 {
			continue
		}
		return &args[i]
	}
	return nil
}

var reAwkSystem = lazyre.New(`system\s*\(\s*"((?:[^"\\]|\\.)*)"|\|\s*"((?:[^"\\]|\\.)*)"|"((?:[^"\\]|\\.)*)"\s*\|\s*getline`)

func awkShellStrings(prog string) []string {
	var out []string
	for _, m := range reAwkSystem.FindAllStringSubmatch(prog, 8) {
		for _, g := range m[1:] {
			if g != "" {
				out = append(out, strings.ReplaceAll(g, `\"`, `"`))
			}
		}
	}
	return out
}

// AwkRuns reports whether an awk program runs commands or writes files.
var (
	reAwkPipe  = lazyre.New(`(print|printf)[^;}|]*\|\s*("|[a-zA-Z_])`)
	reAwkWrite = lazyre.New(`print[f]?[^;}]*>\s*"`)
)

func AwkRuns(prog string) (runs, writes bool) {
	runs = strings.Contains(prog, "system") || strings.Contains(prog, "getline") && strings.Contains(prog, "|") ||
		reAwkPipe.MatchString(prog)
	writes = reAwkWrite.MatchString(prog)
	return
}

type sedExec struct {
	text    string
	span    Span
	dynamic bool
}

// SedScripts returns the sed scripts of a sed command.
func SedScripts(args []Arg) []Arg {
	var scripts []Arg
	explicit := false
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "-e" || v == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
			explicit = true
		case strings.HasPrefix(v, "--expression="):
			a := args[i]
			a.Value = strings.TrimPrefix(v, "--expression=")
			scripts = append(scripts, a)
			explicit = true
		case v == "-f" || v == "--file":
			i++
			explicit = true
		}
	}
	if explicit {
		return scripts
	}
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		if v == "-l" || v == "--line-length" {
			i++
			continue
		}
		if strings.HasPrefix(v, "-") && len(v) > 1 {
			continue
		}
		return []Arg{args[i]}
	}
	return nil
}

// SedCommand is one command of a sed script.
type SedCommand struct {
	Cmd   byte   // 'e', 's', 'w', 'W', 'r', …
	Arg   string // the rest: command for e, file for w
	Flags string // s flags
	WFile string // s///w file
}

// ParseSed splits a sed script into commands, well enough to find the
// ones that execute (e, s///e) or write (w, W, s///w).
func ParseSed(script string) []SedCommand {
	var out []SedCommand
	s := script
	for len(s) > 0 {
		s = strings.TrimLeft(s, " \t\n;")
		if s == "" {
			break
		}
		// address
		s = skipSedAddr(s)
		s = strings.TrimLeft(s, " \t")
		if strings.HasPrefix(s, ",") {
			s = skipSedAddr(strings.TrimLeft(s[1:], " "))
		}
		s = strings.TrimLeft(s, " \t!")
		if s == "" {
			break
		}
		c := s[0]
		s = s[1:]
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
			continue
		case 'e', 'w', 'W', 'r', 'R', 'a', 'i', 'c', 'b', 't', 'T', ':', 'q', 'Q', 'L', 'v':
			end := strings.IndexByte(s, '\n')
			if c == 'b' || c == 't' || c == 'T' || c == 'q' || c == 'Q' || c == 'v' || c == ':' || c == 'l' {
				if e2 := strings.IndexByte(s, ';'); e2 >= 0 && (end < 0 || e2 < end) {
					end = e2
				}
			}
			var arg string
			if end < 0 {
				arg, s = s, ""
			} else {
				arg, s = s[:end], s[end:]
			}
			out = append(out, SedCommand{Cmd: c, Arg: strings.TrimSpace(arg)})
		case 's', 'y':
			if s == "" {
				return out
			}
			d := s[0]
			s = s[1:]
			parts := 0
			for parts < 2 && len(s) > 0 {
				if s[0] == '\\' && len(s) > 1 {
					s = s[2:]
					continue
				}
				if s[0] == d {
					parts++
				}
				s = s[1:]
			}
			fl := s
			end := strings.IndexAny(fl, ";\n}")
			if end >= 0 {
				fl, s = fl[:end], fl[end:]
			} else {
				s = ""
			}
			sc := SedCommand{Cmd: c, Flags: fl}
			if k := strings.IndexByte(fl, 'w'); k >= 0 && c == 's' {
				sc.WFile = strings.TrimSpace(fl[k+1:])
				sc.Flags = fl[:k+1]
			}
			out = append(out, sc)
		default:
			// unknown: skip to the next separator
			end := strings.IndexAny(s, ";\n")
			if end < 0 {
				return out
			}
			s = s[end:]
		}
	}
	return out
}

func skipSedAddr(s string) string {
	if s == "" {
		return s
	}
	switch {
	case s[0] >= '0' && s[0] <= '9':
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
			i++
		}
		return s[i:]
	case s[0] == '$':
		return s[1:]
	case s[0] == '+' || s[0] == '~':
		i := 1
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return s[i:]
	case s[0] == '/' || s[0] == '\\':
		d := byte('/')
		i := 1
		if s[0] == '\\' && len(s) > 1 {
			d = s[1]
			i = 2
		}
		for i < len(s) {
			if s[i] == '\\' {
				i += 2
				continue
			}
			if s[i] == d {
				i++
				for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
				return s[i:]
			}
			i++
		}
		return ""
	}
	return s
}

func sedExecs(args []Arg) []sedExec {
	var out []sedExec
	for _, sc := range SedScripts(args) {
		for _, c := range ParseSed(sc.Value) {
			if c.Cmd == 'e' && c.Arg != "" {
				out = append(out, sedExec{text: c.Arg, span: sc.Span, dynamic: sc.Dynamic})
			}
		}
	}
	return out
}
