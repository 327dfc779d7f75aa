package policy

import (
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/internal/grammar"
)

// The per-command entry point and the helpers every family of checks uses.

// cmdCheck carries one command through the checks.
type cmdCheck struct {
	located bool // the name's directory comes from a locator substitution
	e       *evaluator
	i       int
	c       *analyze.Command
	name    string          // the program's own name (grammar.Program.Name)
	prog    grammar.Program // what the grammars say the name is
	args    []analyze.Arg   // without the command name
}

// said is the program's name as the command spells it (podman, gsed,
// mkfs.ext4), for messages: name is what the grammars resolve it to.
func (k *cmdCheck) said() string {
	if k.c.Program != "" {
		return k.c.Program
	}
	return k.name
}

// emit reports row r about the whole command; emitAt about a part of it.
func (k *cmdCheck) emit(r *Finding, msg string) { k.e.emit(r, k.i, k.c.Span, msg) }

func (k *cmdCheck) emitAt(r *Finding, sp analyze.Span, msg string) {
	k.e.emit(r, k.i, sp, msg)
}

func (k *cmdCheck) has(flags ...string) bool {
	for _, a := range k.args {
		for _, f := range flags {
			if a.Value == f {
				return true
			}
		}
	}
	return false
}

// hasShort reports a short flag letter, alone or grouped (-rf).
func (k *cmdCheck) hasShort(letter byte, long ...string) bool {
	for _, a := range k.args {
		v := a.Value
		if v == "--" {
			return false
		}
		if len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v[1:], letter) >= 0 {
			return true
		}
		for _, l := range long {
			if v == l {
				return true
			}
		}
	}
	return false
}

// operands returns the non-option arguments.
func (k *cmdCheck) operands() []analyze.Arg {
	var out []analyze.Arg
	dd := false
	for _, a := range k.args {
		if !dd && a.Value == "--" {
			dd = true
			continue
		}
		if !dd && len(a.Value) > 1 && a.Value[0] == '-' && !a.Dynamic {
			continue
		}
		out = append(out, a)
	}
	return out
}

// sub returns the subcommand and the arguments after it, past global
// options and their values (the program's grammar says which take one).
func (k *cmdCheck) sub() (string, []analyze.Arg) {
	return grammar.Subcommand(k.name, k.args)
}

// command runs every per-command check on command i of the analysis.
// It is the one place where per-command checks run, in this order:
// assignments, then the name (obfuscation), then the checks of the
// program named, then its writes. A further family of checks (one that
// judges what a command does rather than how it is spelled) is one more
// call at the end of this function, given k; it must also cope with
// k.name == "" (a program known only at run time).
func (e *evaluator) command(i int, c *analyze.Command) {
	e.assigns(i, c)
	if len(c.Args) == 0 {
		return
	}
	// $(npm bin)/eslint: the directory is computed, the program is not
	k := &cmdCheck{e: e, i: i, c: c, args: grammar.Canonical(c.Program, c.Args[1:]), located: c.Located}
	if c.Program != "" {
		// the grammars say which program the name is (an alias, a
		// variant, a prefixed builtin) and which checks judge it
		k.prog = grammar.Resolve(c.Program)
		k.name = k.prog.Name
	}
	k.obfuscation()
	k.writtenScripts()
	// a rehearsal (--dry-run, rsync -n) is judged by its effects only:
	// the program's checks are about what a real run changes
	if k.name != "" && !grammar.DryRun(c) {
		k.named()
	}
	k.checkEffects()
}

// named runs the checks of a command whose program is known.
func (k *cmdCheck) named() {
	k.credentials()
	k.secretVars()
	k.downloadExec()
	k.lookalikes()
	k.infraDelete()
	for j, name := range k.prog.Checks {
		// ro= on the program's line: with one of those words the run
		// changes nothing its own check judges (a prefix's check still
		// runs)
		if name != "" && (j > 0 || !k.checkRO()) {
			checks[name](k)
		}
	}
	if k.runsCode() {
		k.codeRunner()
	}
	k.writes()
}

// checkRO reports a word of the program line's ro= among the arguments.
func (k *cmdCheck) checkRO() bool {
	g := k.prog.Line
	if g == nil || g.CheckRO == nil {
		return false
	}
	for _, a := range k.args {
		if g.CheckRO[a.Value] {
			return true
		}
	}
	return false
}

// containsAny is a cheap filter before the slower regular expressions.
func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func (e *evaluator) substHas(idx []int, pred func(*analyze.Command) bool) bool {
	for _, j := range idx {
		if j >= 0 && j < len(e.res.Commands) && pred(e.res.Commands[j]) {
			return true
		}
	}
	return false
}

func hasArg(argv []string, s string) bool {
	for _, a := range argv {
		if a == s || strings.HasPrefix(a, s+"=") {
			return true
		}
	}
	return false
}

// upstream returns the commands that feed command i through pipelines.
// Commands in substitutions of an upstream command (cat <(curl …) | sh)
// count as upstream too.
func (e *evaluator) upstream(c *analyze.Command) []*analyze.Command {
	var out []*analyze.Command
	seen := map[*analyze.Command]bool{}
	var addSubst func(o *analyze.Command)
	addSubst = func(o *analyze.Command) {
		if seen[o] {
			return
		}
		seen[o] = true
		out = append(out, o)
		for _, a := range o.Args {
			for _, j := range a.Subst {
				if j >= 0 && j < len(e.res.Commands) {
					addSubst(e.res.Commands[j])
				}
			}
		}
		for _, r := range o.Redirects {
			for _, j := range r.Target.Subst {
				if j >= 0 && j < len(e.res.Commands) {
					addSubst(e.res.Commands[j])
				}
			}
		}
	}
	for _, p := range c.Pipes {
		for _, o := range e.res.Commands {
			for _, q := range o.Pipes {
				if q.ID == p.ID && q.Stage < p.Stage {
					addSubst(o)
					break
				}
			}
		}
	}
	return out
}

func anyOf(cs []*analyze.Command, pred func(*analyze.Command) bool) bool {
	for _, c := range cs {
		if pred(c) {
			return true
		}
	}
	return false
}

func allOptions(args []analyze.Arg) bool {
	for _, a := range args {
		if !strings.HasPrefix(a.Value, "-") {
			return false
		}
	}
	return true
}

func hasArgA(args []analyze.Arg, vals ...string) bool {
	for _, a := range args {
		for _, v := range vals {
			if a.Value == v || strings.HasPrefix(a.Value, v+"=") {
				return true
			}
		}
	}
	return false
}

// checks are the family checks, by the name a grammar line hands its
// program's commands to (check=NAME). The keys are check names, never
// program names: which program goes to which check is grammar data
// (TestChecksAreGrammarData).
var checks map[string]func(*cmdCheck)

func init() {
	checks = map[string]func(*cmdCheck){
		"rm": (*cmdCheck).rm, "rmdir": (*cmdCheck).rmdir, "rimraf": (*cmdCheck).rimraf, "shred": (*cmdCheck).shred, "dd": (*cmdCheck).dd, "disk": (*cmdCheck).disk,
		"priv": (*cmdCheck).priv, "namespace": (*cmdCheck).namespace, "compose": (*cmdCheck).compose,
		"hdparm": (*cmdCheck).hdparm, "erase": (*cmdCheck).erase, "dropdb": (*cmdCheck).dropdb, "nmcli": (*cmdCheck).nmcli, "date": (*cmdCheck).dateCmd,
		"hostname": (*cmdCheck).hostnameCmd, "ps": (*cmdCheck).psCmd, "echosecret": (*cmdCheck).echoSecret,
		"export": (*cmdCheck).exportF, "docker": (*cmdCheck).docker, "kubectl": (*cmdCheck).kubectl,
		"terraform": (*cmdCheck).terraform, "helm": (*cmdCheck).helm, "cloud": (*cmdCheck).cloud, "aws": (*cmdCheck).aws,
		"gsutil": (*cmdCheck).gsutil, "mysqladmin": (*cmdCheck).mysqladmin, "etcdctl": (*cmdCheck).etcdctl, "sql": (*cmdCheck).sql,
		"redis": (*cmdCheck).redis, "git": (*cmdCheck).git, "power": (*cmdCheck).power, "runlevel": (*cmdCheck).runlevel, "kill": (*cmdCheck).kill,
		"pkill": (*cmdCheck).pkill, "killall5": (*cmdCheck).killall5,
		"sysctl": (*cmdCheck).sysctl, "firewall": (*cmdCheck).firewall, "mount": (*cmdCheck).mount,
		"swapon": (*cmdCheck).swapon, "umount": (*cmdCheck).umount, "kmod": (*cmdCheck).kmod,
		"systemctl": (*cmdCheck).systemctl, "service": (*cmdCheck).service, "launchctl": (*cmdCheck).launchctl,
		"crontab": (*cmdCheck).crontab, "at": (*cmdCheck).at, "schedule": (*cmdCheck).schedule, "ip": (*cmdCheck).ipcmd,
		"ifconfig": (*cmdCheck).ifconfig, "settings": (*cmdCheck).settings,
		"perms": (*cmdCheck).perms, "chmod": (*cmdCheck).chmod, "chattr": (*cmdCheck).chattr, "netcat": (*cmdCheck).netcat, "socat": (*cmdCheck).socat, "curl": (*cmdCheck).curl,
		"wget": (*cmdCheck).wget, "find": (*cmdCheck).find, "sed": (*cmdCheck).sed, "awk": (*cmdCheck).awk,
		"alias": (*cmdCheck).alias, "shopt": (*cmdCheck).shopt, "enable": (*cmdCheck).enable, "hash": (*cmdCheck).hashCmd,
		"tar": (*cmdCheck).tar, "ssh": (*cmdCheck).ssh, "env": (*cmdCheck).envCmd, "vim": (*cmdCheck).vim,
		"emulate": (*cmdCheck).zshEmulate, "rg": (*cmdCheck).rgPre, "shell": (*cmdCheck).shellFlags,
		"zshmodule": (*cmdCheck).zshModule,
	}
}

// prints holds the checks of what a program prints or does through its
// service, keyed by the names grammar lines give them (prints=NAME), as
// checks is by check=NAME.
var prints map[string]func(*cmdCheck)

func init() {
	prints = map[string]func(*cmdCheck){
		"gh": (*cmdCheck).ghPrints, "keychain": (*cmdCheck).keychainPrints, "aws": (*cmdCheck).awsPrints,
		"gcloud": (*cmdCheck).gcloudPrints, "az": (*cmdCheck).azPrints, "heroku": (*cmdCheck).herokuPrints,
		"kafka": (*cmdCheck).kafkaPrints, "curl": (*cmdCheck).curlPrints, "kubectl": (*cmdCheck).kubectlPrints,
		"git": (*cmdCheck).gitPrints, "store": (*cmdCheck).storePrints, "pass": (*cmdCheck).passPrints,
		"printenv": (*cmdCheck).printenvPrints, "env": (*cmdCheck).envPrints, "export": (*cmdCheck).exportPrints,
		"set": (*cmdCheck).setPrints, "gpg": (*cmdCheck).gpgPrints,
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// lookalikes flags options written with a Unicode dash that only looks
// like "-".
func (k *cmdCheck) lookalikes() {
	for _, a := range k.args {
		for _, d := range []string{"\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212", "\ufe63", "\uff0d"} {
			if strings.HasPrefix(a.Value, d) {
				k.emitAt(sg1014, a.Span, "argument starts with a dash lookalike "+quote(a.Value))
				return
			}
		}
	}
}
