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
	name    string
	args    []analyze.Arg // without the command name
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

var nameAliases = map[string]string{"zf_rm": "rm", "zf_mv": "mv", "zf_ln": "ln", "zf_chmod": "chmod", "zf_chown": "chown",
	"zf_mkdir": "mkdir", "zf_rmdir": "rmdir", "gsed": "sed", "gawk": "awk", "mawk": "awk", "nawk": "awk", "gtar": "tar",
	"bsdtar": "tar", "ncat": "nc", "netcat": "nc", "nodejs": "node", "podman": "docker", "nerdctl": "docker", "oc": "kubectl",
	"tofu": "terraform", "mariadb": "mysql", "mongosh": "mongo", "grm": "rm", "gshred": "shred", "rimraf": "rm",
	"docker-compose": "docker", "sudoedit": "sudo", "machinectl": "sudo", "gpasswd": "usermod", "sqlite": "sqlite3", "pgcli": "psql", "mycli": "mysql"}

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
	k := &cmdCheck{e: e, i: i, c: c, name: c.Program, args: grammar.Canonical(c.Program, c.Args[1:]), located: c.Located}
	if n, ok := nameAliases[k.name]; ok {
		k.name = n
	}
	if strings.HasPrefix(k.name, "python3.") || strings.HasPrefix(k.name, "python2.") {
		k.name = "python3"
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
	k.secretsCLI()
	if f, ok := checks[k.name]; ok {
		f(k)
	}
	if strings.HasPrefix(k.name, "mkfs") || strings.HasPrefix(k.name, "mke2fs") || strings.HasPrefix(k.name, "mkswap") {
		k.disk()
	}
	if strings.HasPrefix(k.name, "zf_") || zshBuiltins[k.name] {
		k.emit(sg3301, "zsh module builtin "+quote(k.name)+" bypasses normal command checks")
	}
	if k.runsCode() {
		k.codeRunner()
	}
	k.writes()
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

var checks map[string]func(*cmdCheck)

func init() {
	checks = map[string]func(*cmdCheck){
		"rm": (*cmdCheck).rm, "rmdir": (*cmdCheck).rm, "unlink": (*cmdCheck).rm, "srm": (*cmdCheck).rm,
		"shred":  (*cmdCheck).shred,
		"dd":     (*cmdCheck).dd,
		"wipefs": (*cmdCheck).disk, "fdisk": (*cmdCheck).disk, "sfdisk": (*cmdCheck).disk, "gdisk": (*cmdCheck).disk,
		"sgdisk": (*cmdCheck).disk, "cfdisk": (*cmdCheck).disk, "parted": (*cmdCheck).disk, "blkdiscard": (*cmdCheck).disk,
		"mdadm": (*cmdCheck).disk, "dmsetup": (*cmdCheck).disk, "losetup": (*cmdCheck).disk, "cryptsetup": (*cmdCheck).disk, "pvcreate": (*cmdCheck).disk, "vgremove": (*cmdCheck).disk,
		"lvremove": (*cmdCheck).disk, "zpool": (*cmdCheck).disk, "badblocks": (*cmdCheck).disk, "hdparm": (*cmdCheck).disk,
		"sudo": (*cmdCheck).priv, "su": (*cmdCheck).priv, "doas": (*cmdCheck).priv, "pkexec": (*cmdCheck).priv,
		"run0": (*cmdCheck).priv, "runuser": (*cmdCheck).priv, "sg": (*cmdCheck).priv, "newgrp": (*cmdCheck).priv,
		"setpriv": (*cmdCheck).priv, "chroot": (*cmdCheck).priv, "visudo": (*cmdCheck).priv, "passwd": (*cmdCheck).priv,
		"useradd": (*cmdCheck).priv, "userdel": (*cmdCheck).priv, "usermod": (*cmdCheck).priv, "adduser": (*cmdCheck).priv,
		"deluser": (*cmdCheck).priv, "groupadd": (*cmdCheck).priv, "chpasswd": (*cmdCheck).priv, "setcap": (*cmdCheck).priv,
		"nsenter": (*cmdCheck).priv,
		"dropdb":  (*cmdCheck).dropdb, "dropuser": (*cmdCheck).dropdb, "mysqladmin": (*cmdCheck).dropdb, "etcdctl": (*cmdCheck).dropdb,
		"nmcli": (*cmdCheck).nmcli, "date": (*cmdCheck).dateCmd, "hostname": (*cmdCheck).hostnameCmd, "ps": (*cmdCheck).psCmd,
		"echo": (*cmdCheck).echoSecret, "printf": (*cmdCheck).echoSecret, "export": (*cmdCheck).exportF, "declare": (*cmdCheck).exportF,
		"docker": (*cmdCheck).docker, "kubectl": (*cmdCheck).kubectl, "terraform": (*cmdCheck).terraform,
		"helm": (*cmdCheck).helm, "aws": (*cmdCheck).cloud, "gcloud": (*cmdCheck).cloud, "az": (*cmdCheck).cloud, "gsutil": (*cmdCheck).cloud,
		"psql": (*cmdCheck).sql, "mysql": (*cmdCheck).sql, "sqlite3": (*cmdCheck).sql, "cockroach": (*cmdCheck).sql,
		"clickhouse-client": (*cmdCheck).sql, "mongo": (*cmdCheck).sql, "redis-cli": (*cmdCheck).redis,
		"git":      (*cmdCheck).git,
		"shutdown": (*cmdCheck).power, "reboot": (*cmdCheck).power, "halt": (*cmdCheck).power, "poweroff": (*cmdCheck).power,
		"init": (*cmdCheck).power, "telinit": (*cmdCheck).power,
		"kill": (*cmdCheck).kill, "pkill": (*cmdCheck).kill, "killall": (*cmdCheck).kill, "killall5": (*cmdCheck).kill,
		"sysctl": (*cmdCheck).sysctl, "iptables": (*cmdCheck).firewall, "ip6tables": (*cmdCheck).firewall,
		"nft": (*cmdCheck).firewall, "ufw": (*cmdCheck).firewall, "firewall-cmd": (*cmdCheck).firewall, "pfctl": (*cmdCheck).firewall,
		"mount": (*cmdCheck).mount, "umount": (*cmdCheck).mount, "swapoff": (*cmdCheck).mount, "swapon": (*cmdCheck).mount,
		"modprobe": (*cmdCheck).kmod, "insmod": (*cmdCheck).kmod, "rmmod": (*cmdCheck).kmod, "kexec": (*cmdCheck).kmod,
		"systemctl": (*cmdCheck).systemctl, "service": (*cmdCheck).systemctl, "launchctl": (*cmdCheck).systemctl,
		"crontab": (*cmdCheck).crontab, "at": (*cmdCheck).at, "batch": (*cmdCheck).at,
		"ip": (*cmdCheck).ipcmd, "ifconfig": (*cmdCheck).ipcmd, "hostnamectl": (*cmdCheck).ipcmd, "timedatectl": (*cmdCheck).ipcmd,
		"chmod": (*cmdCheck).perms, "chown": (*cmdCheck).perms, "chgrp": (*cmdCheck).perms, "chattr": (*cmdCheck).perms,
		"nc": (*cmdCheck).netcat, "socat": (*cmdCheck).socat, "telnet": (*cmdCheck).netcat,
		"curl": (*cmdCheck).curl, "wget": (*cmdCheck).wget, "scp": (*cmdCheck).scp, "rsync": (*cmdCheck).scp, "sftp": (*cmdCheck).scp,
		"find": (*cmdCheck).find, "sed": (*cmdCheck).sed, "awk": (*cmdCheck).awk,
		"alias": (*cmdCheck).alias, "shopt": (*cmdCheck).shopt, "enable": (*cmdCheck).enable, "hash": (*cmdCheck).hashCmd,
		"tar": (*cmdCheck).tar, "ssh": (*cmdCheck).ssh, "env": (*cmdCheck).envCmd,
		"vim": (*cmdCheck).vim, "vi": (*cmdCheck).vim, "nvim": (*cmdCheck).vim, "ex": (*cmdCheck).vim,
		"emulate": (*cmdCheck).zshEmulate, "rg": (*cmdCheck).rgPre,
		"bash": (*cmdCheck).shellFlags, "sh": (*cmdCheck).shellFlags, "zsh": (*cmdCheck).shellFlags, "dash": (*cmdCheck).shellFlags,
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
