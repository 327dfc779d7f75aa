package policy

import (
	"path"
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/internal/progs"
)

// Git: history rewrites, destructive verbs and options that run commands.

// plainTool reports a value that names a well-known pager or editor
// with plain options and no shell syntax.
func plainTool(v string) bool {
	if strings.ContainsAny(v, ";|&$`()<>'\"\\!") {
		return false
	}
	f := strings.Fields(v)
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "less", "more", "cat", "delta", "diff-so-fancy", "bat", "vim", "vi", "nvim", "nano", "emacs", "code", "subl", "true", "most":
		for _, o := range f[1:] {
			if !strings.HasPrefix(o, "-") {
				return false
			}
		}
		return true
	}
	return false
}

func (k *cmdCheck) git() {
	// global options
	args := k.args
	for len(args) > 0 {
		v := args[0].Value
		if v == "-c" && len(args) > 1 {
			k.gitConfigPair(args[1])
			args = args[2:]
			continue
		}
		if v == "-C" || v == "--git-dir" || v == "--work-tree" || v == "--namespace" {
			if len(args) > 1 {
				args = args[2:]
				continue
			}
		}
		if strings.HasPrefix(v, "--exec-path=") {
			k.emitAt(sg2507ask, args[0].Span, "git --exec-path replaces git's helper programs")
		}
		if strings.HasPrefix(v, "-") {
			args = args[1:]
			continue
		}
		break
	}
	if len(args) == 0 {
		return
	}
	sub := args[0].Value
	rest := args[1:]
	flags := func(short byte, long ...string) bool {
		for _, a := range rest {
			v := a.Value
			if v == "--" {
				return false
			}
			if short != 0 && len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v[1:], short) >= 0 {
				return true
			}
			for _, l := range long {
				if v == l || strings.HasPrefix(v, l+"=") {
					return true
				}
			}
		}
		return false
	}
	for i, a := range rest {
		v := a.Value
		// a repository address of the ext:: transport is a command git runs
		if strings.HasPrefix(v, "ext::") || strings.Contains(v, "=ext::") {
			k.emitAt(sg2507ask, a.Span, "git "+sub+" "+quote(v)+": the ext:: transport runs a command")
		}
		// clone -c/--config: settings of the new repository, used by the
		// clone's own checkout already
		if sub == "clone" {
			switch {
			case (v == "-c" || v == "--config") && i+1 < len(rest):
				k.gitConfigPair(rest[i+1])
			case strings.HasPrefix(v, "--config="):
				pair := a
				pair.Value = strings.TrimPrefix(v, "--config=")
				k.gitConfigPair(pair)
			}
		}
		if strings.HasPrefix(v, "--upload-pack") || strings.HasPrefix(v, "--receive-pack") || (sub == "clone" || sub == "ls-remote") && v == "-u" ||
			sub == "grep" && (strings.HasPrefix(v, "-O") || strings.HasPrefix(v, "--open-files-in-pager")) {
			k.emitAt(sg2507ask, a.Span, "git "+sub+" "+v+" runs a command of its own")
		}
	}
	switch sub {
	case "push":
		switch {
		case flags('f', "--force", "--mirror"):
			k.emit(sg3101deny, "git push --force rewrites remote history")
		case flags(0, "--force-with-lease", "--force-if-includes"):
			k.emit(sg3101ask, "git push --force-with-lease rewrites remote history")
		case flags('d', "--delete", "--prune"):
			k.emit(sg3106, "git push deletes remote branches")
		}
		for _, a := range rest {
			if strings.HasPrefix(a.Value, "+") && len(a.Value) > 1 {
				k.emit(sg3101deny, "forced refspec "+quote(a.Value)+" rewrites remote history")
			}
			if strings.HasPrefix(a.Value, ":") && len(a.Value) > 1 {
				k.emit(sg3106, "refspec "+quote(a.Value)+" deletes a remote branch")
			}
		}
	case "reset":
		if flags(0, "--hard", "--merge") {
			k.emit(sg3102, "git reset --hard discards uncommitted work")
		}
	case "clean":
		if flags('f', "--force") && !flags('n', "--dry-run") {
			k.emit(sg3103, "git clean -f deletes untracked files")
		}
	case "branch":
		if flags('D') || flags('d', "--delete") && flags('f', "--force") {
			k.emit(sg3104, "git branch -D deletes a branch with unmerged work")
		}
	case "switch":
		if flags('f', "--force", "--discard-changes") {
			k.emit(sg3107, "git switch --force discards every uncommitted change")
		}
	case "rm":
		if flags('r') && !flags(0, "--cached") {
			for _, a := range rest {
				if a.Value == "." || a.Value == "*" || a.Value == ":/" {
					k.emit(sg3107, "git rm -r "+a.Value+" removes every tracked file")
				}
			}
		}
	case "clone":
		var ro []analyze.Arg
		for _, a := range rest {
			if !strings.HasPrefix(a.Value, "-") {
				ro = append(ro, a)
			}
		}
		if len(ro) >= 1 {
			dir := strings.TrimSuffix(path.Base(ro[0].Value), ".git")
			if len(ro) >= 2 {
				dir = ro[1].Value
			}
			if p := k.e.abs(dir, k.c.Cwd); p != "" {
				k.e.downloadedDirs = append(k.e.downloadedDirs, p)
			}
		}
	case "filter-branch", "filter-repo":
		k.emit(sg3105, "git "+sub+" rewrites the whole history")
	case "checkout", "restore":
		if sub == "restore" && flags('S', "--staged") && !flags('W', "--worktree") {
			return
		}
		discard := flags('f', "--force")
		dd := false
		for _, a := range rest {
			if a.Value == "--" {
				dd = true
				continue
			}
			if (dd || sub == "restore") && (a.Value == "." || a.Value == "*" || a.Value == ":/" || a.Value == "./") {
				discard = true
			}
			if !dd && sub == "checkout" && a.Value == "." {
				discard = true
			}
		}
		if discard {
			k.emit(sg3107, "git "+sub+" discards every uncommitted change")
		}
	case "stash":
		if len(rest) > 0 && (rest[0].Value == "drop" || rest[0].Value == "clear") {
			k.emit(sg3108, "git stash "+rest[0].Value+" deletes stashed work")
		}
	case "reflog":
		if len(rest) > 0 && (rest[0].Value == "expire" || rest[0].Value == "delete") {
			k.emit(sg3108, "git reflog "+rest[0].Value+" removes recovery points")
		}
	case "gc", "prune":
		if flags(0, "--prune") && hasArgA(rest, "--prune=now") || sub == "prune" {
			k.emit(sg3108, "git "+sub+" removes unreachable commits")
		}
	case "update-ref":
		if flags('d') {
			k.emit(sg3108, "git update-ref -d deletes a ref")
		}
	case "config":
		global := flags(0, "--global", "--system")
		read := flags('l', "--get", "--get-all", "--list", "--get-regexp", "--show-origin")
		var ops []analyze.Arg
		for _, a := range rest {
			if !strings.HasPrefix(a.Value, "-") {
				ops = append(ops, a)
			}
		}
		if len(ops) >= 2 && !read {
			key := strings.ToLower(ops[0].Value)
			switch {
			case key == "core.hookspath":
				if p := k.e.abs(ops[1].Value, k.c.Cwd); p == "" || !k.e.inWorkspace(p) {
					k.emit(sg2805deny, "git config core.hooksPath makes git run hooks from another directory")
				}
			case !global && strings.HasPrefix(key, "alias.") && !strings.HasPrefix(strings.TrimSpace(ops[1].Value), "!"):
				// an alias without ! runs git itself: judged as that git command
				k.nestedLine("sets "+key+" to", "git "+ops[1].Value, ops[1].Span)
			case progs.GitExecKey(key) && plainTool(ops[1].Value):
				// core.pager less, core.editor vim: a known tool, no shell
			case progs.GitExecKey(key):
				if global {
					k.emit(sg2507deny, "git config "+key+" sets a command git will run")
				} else {
					k.emit(sg2507ask, "git config "+key+" sets a command git will run")
				}
			case global && (strings.HasPrefix(key, "url.") || strings.HasPrefix(key, "include") || strings.HasPrefix(key, "http.") ||
				strings.HasPrefix(key, "credential") || strings.HasPrefix(key, "core.") && key != "core.autocrlf" && key != "core.editor" && key != "core.excludesfile" ||
				strings.HasPrefix(key, "protocol.")):
				k.emit(sg2806, "changes how git fetches or loads configuration for every repository ("+key+")")
			}
		}
	}
}

func (k *cmdCheck) gitConfigPair(a analyze.Arg) {
	key, val, _ := strings.Cut(a.Value, "=")
	key = strings.ToLower(key)
	switch {
	case key == "core.hookspath":
		k.emitAt(sg2805deny, a.Span, "git -c core.hooksPath runs hooks from another directory")
	case strings.HasPrefix(key, "alias.") && !strings.HasPrefix(strings.TrimSpace(val), "!"):
		k.nestedLine("sets "+key+" to", "git "+val, a.Span)
	case progs.GitExecKey(key) && plainTool(val):
	case progs.GitExecKey(key):
		k.emitAt(sg2507ask, a.Span, "git -c "+key+" sets a command git will run")
	}
}
