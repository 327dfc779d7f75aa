package policy

import (
	"path"
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/effects"
	"github.com/shellguard/shellguard/internal/grammar"
)

// File system: deletes, writes and redirects, confined to the workspace and the allowed roots.

// remoteScratch reports a path in the scratch directories of a host or
// container (/tmp, /var/tmp, /dev/shm): deleting there is routine.
func remoteScratch(v string) bool {
	v = path.Clean(v)
	for _, d := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		if strings.HasPrefix(v, d+"/") {
			return true
		}
	}
	return false
}

// rmTarget classifies one deletion target.
func (k *cmdCheck) rmTarget(a analyze.Arg, recursive bool, verb string) {
	e := k.e
	if k.c.Remote {
		v := strings.TrimSuffix(a.Value, "/")
		switch {
		case recursive && (v == "" || v == "/*" || v == "~" || v == "$HOME" || v == e.home || v == e.home+"/*" || e.criticalDir(v)):
			k.emitAt(sg2001, a.Span, verb+" of "+quote(v)+" wipes the system")
		case recursive && path.IsAbs(v) && !remoteScratch(v):
			// no workspace there: a tree named from the root is the
			// host's or container's data
			k.emitAt(sg2004ask, a.Span, "recursive "+verb+" of "+quote(v)+" on another host or in a container")
		}
		return
	}
	if a.Dynamic && !strings.HasPrefix(a.Value, "/") {
		if recursive {
			k.emitAt(sg2005, a.Span, "recursive "+verb+" of a path known only at run time ("+quote(a.Value)+")")
		}
		return
	}
	v := a.Value
	glob := a.Glob
	dir := v
	direct := false
	if glob {
		dir, direct = globBase(v)
		// "*.log" or "build-*" name what they delete; "*", ".*", "*.*"
		// delete everything in the directory.
		direct = direct && unscopedGlob(path.Base(v))
	}
	p := e.abs(dir, k.c.Cwd)
	if p == "" {
		if recursive {
			k.emitAt(sg2005, a.Span, "recursive "+verb+" in a directory known only at run time")
		}
		return
	}
	if strings.HasSuffix(v, "{}") && (strings.HasSuffix(p, "/{}")) {
		p = path.Dir(p)
		glob, direct = true, false
		if e.inWorkspace(p) {
			return
		}
	}
	// The floor first: "/", the system directories and the home
	// directory are protected whatever the workspace is.
	switch {
	case p == "/" && !recursive && !glob:
		k.emitAt(sg2007deny, a.Span, verb+" in the system directory "+quote(p))
		return
	case p == "/" || e.criticalDir(p) && recursive:
		k.emitAt(sg2001, a.Span, "recursive "+verb+" of the system directory "+quote(p))
		return
	case p == e.home && (recursive || glob && direct):
		k.emitAt(sg2002floor, a.Span, "recursive "+verb+" of the home directory "+quote(v))
		return
	}
	// The user's own configuration and document folders stay protected
	// even when the workspace is the home directory itself.
	if path.Dir(p) == e.home && homeCritical[path.Base(p)] && (recursive || !strings.HasPrefix(path.Base(p), ".") || rcFile(path.Base(p))) {
		k.emitAt(sg2002deny, a.Span, verb+" of "+quote(v)+", the user's own "+path.Base(p)+" in home")
		return
	}
	if e.inWorkspace(p) && p != e.ws {
		return // inside the workspace, even when the workspace is the home directory
	}
	switch {
	case p == e.home:
		if glob {
			k.emitAt(sg2004ask, a.Span, verb+" of "+quote(v)+" in the home directory")
		}
	case path.Dir(p) == e.home && strings.HasPrefix(path.Base(p), ".") && recursive:
		k.emitAt(sg2002deny, a.Span, "recursive "+verb+" of the configuration directory "+quote(v)+" in home")
	case within(p, e.home) && !e.rules.Unrestricted:
		if recursive {
			k.emitAt(sg2004ask, a.Span, "recursive "+verb+" of "+quote(v)+" in the home directory, outside the workspace")
		} else {
			k.emitAt(sg2008, a.Span, verb+" of "+quote(v)+" outside the workspace")
		}
	case within(e.ws, p) && p != e.ws:
		// an ancestor of the workspace
		k.emitAt(sg2004deny, a.Span, verb+" of "+quote(v)+", a parent of the workspace")
	case p == e.ws:
		if recursive && (!glob || direct) {
			k.emitAt(sg2003deny, a.Span, "recursive "+verb+" of the whole workspace ("+quote(v)+")")
		} else if glob && direct {
			k.emitAt(sg2003ask, a.Span, verb+" of every file at the workspace root ("+quote(v)+")")
		}
	case e.inWorkspace(p):
		// fine
	case e.inRoots(p):
		for _, r := range e.roots {
			if p == r && recursive {
				k.emitAt(sg2004ask, a.Span, "recursive "+verb+" of the whole directory "+quote(p))
			}
		}
	case e.systemPath(p):
		k.emitAt(sg2007deny, a.Span, verb+" of "+quote(p)+" outside the workspace (system location)")
	default:
		if e.rules.Unrestricted {
			return
		}
		if recursive {
			k.emitAt(sg2004deny, a.Span, "recursive "+verb+" of "+quote(v)+" outside the workspace")
		} else {
			k.emitAt(sg2008, a.Span, verb+" of "+quote(v)+" outside the workspace")
		}
	}
}

func (k *cmdCheck) rm() {
	k.remove(k.hasShort('r', "--recursive") || k.hasShort('R'))
}

// rmdir -p removes the parents as well.
func (k *cmdCheck) rmdir() {
	k.remove(k.hasShort('r', "--recursive") || k.hasShort('R') || k.has("-p", "--parents"))
}

// rimraf removes whole trees unasked.
func (k *cmdCheck) rimraf() { k.remove(true) }

func (k *cmdCheck) remove(recursive bool) {
	ops := k.operands()
	fromFind := len(k.c.Wrappers) > 0 && k.c.Wrappers[len(k.c.Wrappers)-1].Program == "find"
	if k.c.ExtraArgs && recursive && !fromFind && !k.inputUnderWorkspace() {
		k.emit(sg2005, "recursive delete of paths read from input")
	}
	for _, a := range ops {
		k.rmTarget(a, recursive, "delete")
	}
	if k.e.rules.Readonly {
		k.emit(sg2010, "deletes files in read-only mode")
	}
}

// inputUnderWorkspace reports deletes of paths read from input whose
// producer lists them under a directory inside the workspace, below its
// root (ls -d build/*/ | xargs rm -rf): the effects say where they are.
func (k *cmdCheck) inputUnderWorkspace() bool {
	found := false
	for _, ef := range k.e.effs[k.i] {
		if ef.Kind != effects.Delete {
			continue
		}
		if ef.Path.Origin != effects.OriginDerived || !ef.Path.Known() {
			return false
		}
		p := k.e.resolve(ef.Path.Abs)
		if !k.e.inWorkspace(p) || k.e.wsSystem || p == k.e.ws && !scopedPattern(ef.Path.Pattern) {
			return false
		}
		found = true
	}
	return found
}

func (k *cmdCheck) shred() {
	for _, a := range k.operands() {
		p := k.e.abs(a.Value, k.c.Cwd)
		if p == "" {
			continue
		}
		if blockDevice(p) {
			k.emitAt(sg2102, a.Span, "overwrites the block device "+quote(p))
		} else if !k.e.inWorkspace(p) && !safeDevice(p) {
			k.emitAt(sg2006, a.Span, "irreversibly overwrites "+quote(a.Value)+" outside the workspace")
		}
	}
}

func unscopedGlob(base string) bool {
	// bracket expressions ([a-z], [!.]) match many names: drop them
	for {
		i := strings.IndexByte(base, '[')
		if i < 0 {
			break
		}
		j := strings.IndexByte(base[i:], ']')
		if j < 0 {
			break
		}
		base = base[:i] + "?" + base[i+j+1:]
	}
	for _, r := range base {
		switch r {
		case '*', '?', '.', '[', ']', '!', '^', '{', '}', ',':
		default:
			return false
		}
	}
	return true
}

func (k *cmdCheck) perms() {
	if ops := k.operands(); len(ops) > 0 {
		k.permTargets(ops[1:])
	}
}

// chattr: an attribute operand +i, -a is taken for an option, so the
// first operand is already a file.
func (k *cmdCheck) chattr() {
	ops := k.operands()
	if len(ops) == 0 {
		return
	}
	if strings.HasPrefix(ops[0].Value, "+") || strings.HasPrefix(ops[0].Value, "-") {
		k.permTargets(ops)
	} else {
		k.permTargets(ops[1:])
	}
}

func (k *cmdCheck) chmod() {
	k.execDownloaded()
	ops := k.operands()
	if len(ops) == 0 {
		return
	}
	mode := ops[0]
	if m := mode.Value; strings.ContainsAny(m, "s") && !strings.ContainsAny(m, "/") || len(m) == 4 && isDigits(m) && (m[0] == '4' || m[0] == '2' || m[0] == '6') {
		k.emitAt(sg3602, mode.Span, "chmod sets the setuid or setgid bit")
	}
	k.permTargets(ops[1:])
}

func (k *cmdCheck) permTargets(targets []analyze.Arg) {
	recursive := k.hasShort('R', "--recursive")
	for _, t := range targets {
		if t.Dynamic {
			continue
		}
		p := k.e.abs(t.Value, k.c.Cwd)
		if p == "" {
			continue
		}
		if recursive && (p == "/" || k.e.criticalDir(p) || p == k.e.home || within(k.e.ws, p) && p != k.e.ws) {
			k.emitAt(sg3601, t.Span, "recursive "+k.said()+" of "+quote(t.Value)+" changes permissions of the whole system or home")
			continue
		}
		k.e.writeTarget(k.i, t.Span, t.Value, t.Dynamic, k.c.Cwd, k.said()+" changes")
	}
}

func (k *cmdCheck) find() {
	k.keySearch()
	var roots []analyze.Arg
	i := 0
	for i < len(k.args) && (k.args[i].Value == "-H" || k.args[i].Value == "-L" || k.args[i].Value == "-P") {
		i++
	}
	for ; i < len(k.args); i++ {
		v := k.args[i].Value
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" {
			break
		}
		roots = append(roots, k.args[i])
	}
	if len(roots) == 0 {
		roots = []analyze.Arg{{Value: ".", Span: k.c.Span}}
	}
	filtered := false
	for j := i; j < len(k.args); j++ {
		v := k.args[j].Value
		switch v {
		case "-exec", "-execdir", "-ok", "-okdir":
			if j+1 < len(k.args) && !filtered {
				// a program judged by the rm or shred check (rm, unlink,
				// shred and their other names) deletes what find finds
				if c := grammar.Resolve(path.Base(k.args[j+1].Value)).Checks[0]; c == "rm" || c == "shred" {
					for _, r := range roots {
						k.rmTarget(r, true, "find -exec rm")
					}
				}
			}
		case "-name", "-iname", "-path", "-ipath", "-regex", "-iregex", "-newer", "-mtime", "-mmin", "-size", "-user", "-wholename", "-empty", "-type", "-perm", "-atime", "-ctime", "-cmin", "-amin", "-links", "-inum", "-samefile", "-lname":
			if v != "-type" {
				filtered = true
			}
		case "-delete":
			for _, r := range roots {
				if filtered {
					p := k.e.abs(r.Value, k.c.Cwd)
					if p != "" && k.e.inWorkspace(p) {
						continue
					}
				}
				k.rmTarget(r, true, "find -delete")
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if j+1 < len(k.args) {
				n := k.args[j+1]
				k.e.writeTarget(k.i, n.Span, n.Value, n.Dynamic, k.c.Cwd, "find "+v+" writes")
			}
		}
	}
}

// writes checks file arguments that a command modifies.
func (k *cmdCheck) writes() {
	if k.c.Remote {
		return
	}
	var targets []analyze.Arg
	verb := k.said() + " writes"
	if g := k.prog.Line; g != nil && g.Targets != "" {
		targets = writeTargets[g.Targets](k, k.operands())
		if g.Targets == "moved" {
			verb = k.said() + " moves"
		}
	}
	for _, t := range targets {
		k.e.writeTarget(k.i, t.Span, t.Value, t.Dynamic, k.c.Cwd, verb)
	}
	if k.e.rules.Readonly && k.prog.Line != nil && k.prog.Line.Writes {
		k.emit(sg2010, quote(k.said())+" modifies files in read-only mode")
	}
}

// writeTargets read the paths a command writes from its operands (ops)
// and options, as its line's targets= says.
var writeTargets = map[string]func(k *cmdCheck, ops []analyze.Arg) []analyze.Arg{
	// every operand
	"all": func(k *cmdCheck, ops []analyze.Arg) []analyze.Arg { return ops },
	// the last operand, made from the others
	"last": func(k *cmdCheck, ops []analyze.Arg) []analyze.Arg {
		if len(ops) > 0 {
			return ops[len(ops)-1:]
		}
		return nil
	},
	// the last of two or more operands, made from the others, and the
	// values of the write= options (cp -t DIR)
	"dest": func(k *cmdCheck, ops []analyze.Arg) []analyze.Arg {
		var out []analyze.Arg
		if len(ops) > 1 {
			out = ops[len(ops)-1:]
		}
		for i, a := range k.args {
			if k.prog.Line.Opts[a.Value] == grammar.RoleWrite && i+1 < len(k.args) {
				out = append(out, k.args[i+1])
			}
		}
		return out
	},
	// every operand of two or more: the sources go, the last gets them
	"moved": func(k *cmdCheck, ops []analyze.Arg) []analyze.Arg {
		if len(ops) > 1 {
			return ops
		}
		return nil
	},
	// the operands beside the code, when the code edits in place (perl -i)
	"inplace": func(k *cmdCheck, ops []analyze.Arg) []analyze.Arg {
		var out []analyze.Arg
		for _, cd := range k.c.Code {
			if cd.InPlace {
				for _, a := range ops {
					if a.Span != cd.Span {
						out = append(out, a)
					}
				}
			}
		}
		return out
	},
	// the directory of a clone subcommand (git clone URL DIR)
	"clone": func(k *cmdCheck, ops []analyze.Arg) []analyze.Arg {
		sub, rest := k.sub()
		if sub != "clone" {
			return nil
		}
		var ro []analyze.Arg
		for _, a := range rest {
			if !strings.HasPrefix(a.Value, "-") {
				ro = append(ro, a)
			}
		}
		if len(ro) == 2 {
			return ro[1:]
		}
		return nil
	},
}

// copies reports a command whose last operand gets what the others hold
// (mv, cp, ln, install: targets=last, dest or moved).
func (k *cmdCheck) copies() bool {
	if g := k.prog.Line; g != nil {
		return g.Targets == "last" || g.Targets == "dest" || g.Targets == "moved"
	}
	return false
}

// redirect checks an output redirection. Its findings belong to no
// subcommand: an allow rule for "echo *" does not allow echo > /etc/passwd.
func (e *evaluator) redirect(r analyze.Redirect) {
	if !r.Write {
		return
	}
	if r.Cmd >= 0 && r.Cmd < len(e.res.Commands) && e.res.Commands[r.Cmd].Remote {
		return
	}
	v := r.Target.Value
	if strings.HasPrefix(v, "/dev/tcp/") || strings.HasPrefix(v, "/dev/udp/") {
		e.emit(sg2703, -1, r.Span, "redirects to a network socket ("+quote(v)+")")
		return
	}
	e.writeTarget(-1, r.Span, v, r.Target.Dynamic, r.Cwd, "redirect writes")
	if e.rules.Readonly {
		p := e.abs(v, r.Cwd)
		if !safeDevice(p) {
			e.emit(sg2010, -1, r.Span, "writes a file in read-only mode")
		}
	}
}

// writeTarget classifies a path that a command creates or modifies.
func (e *evaluator) writeTarget(cmd int, sp analyze.Span, v string, dynamic bool, cwd, verb string) {
	if strings.HasPrefix(v, "/dev/tcp/") || strings.HasPrefix(v, "/dev/udp/") {
		e.emit(sg2703, cmd, sp, verb+" to a network socket")
		return
	}
	if dynamic && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "~") {
		return
	}
	p := e.abs(v, cwd)
	if p == "" {
		return
	}
	switch {
	case safeDevice(p):
		return
	case blockDevice(p):
		e.emit(sg2102, cmd, sp, verb+" the block device "+quote(p))
		return
	case within(p, "/etc/sudoers") || within(p, "/etc/sudoers.d"):
		e.emit(sg2202, cmd, sp, verb+" the sudoers configuration")
		return
	}
	if within(p, path.Join(e.home, ".local/bin")) || within(p, path.Join(e.home, "bin")) && path.Join(e.home, "bin") != e.ws {
		e.emit(sg2801ask, cmd, sp, verb+" "+quote(v)+" in a program directory on PATH: it can shadow commands")
		return
	}
	if what := e.persistenceTarget(p); what != "" {
		row := sg2801deny
		switch {
		case strings.Contains(what, "authorized_keys"):
			row = sg2802
		case strings.Contains(what, "cron"):
			row = sg2803deny
		case strings.Contains(what, "service"):
			row = sg2804
		case strings.Contains(what, "git hook"):
			row = sg2805deny
		}
		e.emit(row, cmd, sp, verb+" "+what+": code would run later")
		return
	}
	switch {
	case e.inWorkspace(p) || e.inRoots(p):
		if hook, config := gitHookOrConfig(p); hook || config {
			e.emit(sg2805ask, cmd, sp, verb+" git hooks or git config inside the workspace")
		}
		return
	case strings.HasPrefix(p, "/dev/"):
		e.emit(sg2007ask, cmd, sp, verb+" the device "+quote(p))
	case e.systemPath(p):
		e.emit(sg2007deny, cmd, sp, verb+" "+quote(p)+" in a system location")
	default:
		if e.rules.Unrestricted {
			return
		}
		e.emit(sg2008, cmd, sp, verb+" "+quote(v)+" outside the workspace")
	}
}

// homeCritical names direct children of the home directory whose loss
// hurts the user: configuration, keys, toolchains and document folders.
var homeCritical = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`.config .local .ssh .gnupg .aws .azure .kube .docker .mozilla .thunderbird
		.password-store .cargo .rustup .npm .nvm .pyenv .rbenv .gem .m2 .vim .emacs.d .oh-my-zsh .gitconfig .bashrc .zshrc
		.profile .bash_profile .zprofile .bash_history .zsh_history .netrc .git-credentials .vscode-server
		Documents Desktop Downloads Pictures Music Videos Library Applications Dropbox`) {
		m[n] = true
	}
	return m
}()

func rcFile(n string) bool {
	switch n {
	case ".bashrc", ".zshrc", ".profile", ".bash_profile", ".zprofile", ".gitconfig", ".netrc", ".git-credentials", ".bash_history", ".zsh_history":
		return true
	}
	return false
}
