package analyze

import (
	"strings"

	"github.com/shellguard/shellguard/internal/progs"
)

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
		case a.Dynamic && !literalAssign(v):
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

// literalAssign reports a word that is NAME=… with the name written
// out (env -i PATH=$PATH): an assignment whatever the value expands to.
func literalAssign(v string) bool {
	i := strings.IndexByte(v, '=')
	return i > 0 && isName(v[:i])
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
					dynamic: cd.Dynamic || cd.Filled, filled: cd.Filled, newShell: true, positional: pos, positionalSet: set, via: ViaShell})
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
			u.code = append(u.code, codeArg{wrapper: name + " <<", text: r.Target.Value, span: hdocSpan(r),
				dynamic: r.Target.Dynamic, newShell: true, positionalSet: true, via: ViaShell, stdin: true})
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
					sub[k].Filled = true
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
		if !ok || !progs.GitExecKey(key) {
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
			opts := []string{"--upload-pack", "--receive-pack", "--exec"}
			if sub == "clone" || sub == "ls-remote" {
				// -u is --upload-pack there only: push -u is
				// --set-upstream, fetch -u --update-head-ok
				opts = append(opts, "-u")
			}
			for _, o := range opts {
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
