package policy

import (
	"strconv"
	"strings"
)

// System control: power, processes, kernel, firewall, mounts, services and scheduled jobs.

// power: its help options are the line's ro= (shutdown -h halts).
func (k *cmdCheck) power() {
	k.emit(sg2901, quote(k.said())+" shuts down or restarts the machine")
}

// runlevel: init and telinit change the power state only with the
// runlevel of a halt, a reboot or single-user mode.
func (k *cmdCheck) runlevel() {
	ops := k.operands()
	if len(ops) == 0 || !(ops[0].Value == "0" || ops[0].Value == "6" || ops[0].Value == "1" || ops[0].Value == "s" || ops[0].Value == "S") {
		return
	}
	k.power()
}

func (k *cmdCheck) killall5() {
	k.emit(sg2902, "killall5 kills every process")
}

// pkill: killing by name (pkill, killall).
func (k *cmdCheck) pkill() {
	for _, a := range k.operands() {
		n := strings.ToLower(a.Value)
		if len(n) < 3 && !k.has("-x") || systemProcs[n] || a.Value == "." || a.Value == ".*" {
			k.emitAt(sg2905, a.Span, quote(k.said())+" "+quote(a.Value)+" may kill system or unrelated processes")
		}
	}
	if k.has("-u", "--user") || k.has("-1") {
		k.emit(sg2905, quote(k.said())+" kills processes of a whole user")
	}
}

func (k *cmdCheck) kill() {
	// skip signal options
	args := k.args
	for len(args) > 0 {
		v := args[0].Value
		if v == "-s" || v == "-n" {
			args = args[min(2, len(args)):]
			continue
		}
		if v == "-l" || v == "-L" {
			return
		}
		if v == "--" {
			args = args[1:]
			break
		}
		if strings.HasPrefix(v, "-") && len(v) > 1 {
			if _, err := strconv.Atoi(v[1:]); err == nil && len(args) > 1 || !isDigits(v[1:]) {
				args = args[1:]
				continue
			}
		}
		break
	}
	for _, a := range args {
		if a.Value == "1" || a.Value == "-1" {
			k.emitAt(sg2902, a.Span, "kill "+a.Value+" signals init or every process")
		}
	}
}

var systemProcs = map[string]bool{"init": true, "systemd": true, "sshd": true, "dockerd": true, "containerd": true,
	"kubelet": true, "bash": true, "sh": true, "zsh": true, "login": true, "xorg": true, "gnome-shell": true, "dbus-daemon": true,
	"journald": true, "systemd-journald": true, "cron": true, "crond": true, "networkmanager": true, "shellguard": true}

func (k *cmdCheck) sysctl() {
	for _, a := range k.args {
		if a.Value == "-w" || a.Value == "--write" || a.Value == "-p" || a.Value == "--load" || a.Value == "--system" || !strings.HasPrefix(a.Value, "-") && strings.Contains(a.Value, "=") {
			k.emit(sg2903deny, "sysctl changes kernel settings")
			return
		}
	}
}

func (k *cmdCheck) firewall() {
	for _, a := range k.args {
		switch a.Value {
		case "-L", "--list", "-S", "--list-rules", "-nL", "-vnL", "-nvL", "status", "list", "--list-all", "-h", "--help", "--version":
			return
		}
	}
	k.emit(sg2903deny, quote(k.said())+" changes the firewall")
}

// mount: with no operand it lists the mounts.
func (k *cmdCheck) mount() {
	if len(k.operands()) == 0 {
		return
	}
	k.umount()
}

// swapon: with no argument it shows the swap areas.
func (k *cmdCheck) swapon() {
	if len(k.args) == 0 {
		return
	}
	k.umount()
}

func (k *cmdCheck) umount() {
	k.emit(sg2903deny, quote(k.said())+" changes mounted file systems or swap")
}

func (k *cmdCheck) kmod() {
	k.emit(sg2903deny, quote(k.said())+" changes the running kernel")
}

func (k *cmdCheck) systemctl() {
	sub := ""
	for _, a := range k.args {
		if !strings.HasPrefix(a.Value, "-") {
			sub = a.Value
			break
		}
	}
	k.unitVerb(sub)
}

// service NAME VERB: the verb follows the service's name.
func (k *cmdCheck) service() {
	if ops := k.operands(); len(ops) >= 2 {
		k.unitVerb(ops[1].Value)
	}
}

func (k *cmdCheck) launchctl() {
	sub := ""
	for _, a := range k.args {
		if !strings.HasPrefix(a.Value, "-") {
			sub = a.Value
			break
		}
	}
	switch sub {
	case "load", "bootstrap", "submit", "enable":
		k.emit(sg2804, "launchctl "+sub+" installs a service that keeps running")
	case "unload", "bootout", "remove", "stop", "kill", "disable", "reboot":
		k.emit(sg2904deny, "launchctl "+sub+" changes system services")
	}
}

// unitVerb judges what a service manager's verb does to services.
func (k *cmdCheck) unitVerb(sub string) {
	user := k.has("--user")
	switch sub {
	case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep", "soft-reboot", "rescue", "emergency":
		k.emit(sg2901, "systemctl "+sub+" stops or restarts the machine")
	case "enable", "link", "preset", "add-wants", "add-requires", "set-default", "edit", "import-environment", "set-environment":
		k.emit(sg2804, "systemctl "+sub+" makes a service start automatically")
	case "start", "restart", "reload", "try-restart", "reload-or-restart":
		if user {
			k.emit(sg2904ask, "systemctl "+sub+" starts a user service")
		} else {
			k.emit(sg2904deny, "systemctl "+sub+" changes system services")
		}
	case "stop", "disable", "mask", "kill", "isolate", "daemon-reload", "daemon-reexec", "revert", "reset-failed", "unmask", "freeze":
		k.emit(sg2904deny, "systemctl "+sub+" changes system services")
	}
}

func (k *cmdCheck) crontab() {
	for _, a := range k.args {
		switch a.Value {
		case "-l", "-h", "--help", "-V":
			return
		case "-r", "-ir", "-ri":
			k.emit(sg2803deny, "crontab -r deletes the user's scheduled jobs")
			return
		case "-e":
			k.emit(sg2803deny, "crontab -e edits scheduled jobs")
			return
		}
	}
	k.emit(sg2803deny, "installs a new crontab (scheduled code keeps running)")
}

// at: with no argument it prints nothing and schedules nothing.
func (k *cmdCheck) at() {
	if len(k.args) == 0 {
		return
	}
	k.schedule()
}

func (k *cmdCheck) schedule() {
	k.emit(sg2803ask, quote(k.said())+" schedules code to run later")
}

func (k *cmdCheck) ipcmd() {
	for _, a := range k.args {
		switch a.Value {
		case "add", "del", "delete", "set", "flush", "change", "replace", "append":
			k.emit(sg2903deny, "ip "+a.Value+" changes the network configuration")
			return
		}
	}
}

func (k *cmdCheck) ifconfig() {
	for _, a := range k.args {
		if a.Value == "down" || a.Value == "up" || strings.Contains(a.Value, ".") && len(k.args) > 1 {
			k.emit(sg2903deny, "ifconfig changes the network configuration")
			return
		}
	}
}

// settings: the set-* verbs of the *ctl tools change system settings.
func (k *cmdCheck) settings() {
	for _, a := range k.args {
		if strings.HasPrefix(a.Value, "set-") {
			k.emit(sg2903ask, k.said()+" "+a.Value+" changes system settings")
			return
		}
	}
}

func (k *cmdCheck) nmcli() {
	for _, a := range k.args {
		switch a.Value {
		case "off", "down", "delete", "disconnect", "modify", "add":
			k.emit(sg2903deny, "nmcli changes the network configuration")
			return
		}
	}
}

func (k *cmdCheck) dateCmd() {
	if k.has("-s") || hasArgA(k.args, "--set") {
		k.emit(sg2903ask, "date -s changes the system clock")
	}
}

func (k *cmdCheck) hostnameCmd() {
	if ops := k.operands(); len(ops) > 0 {
		k.emit(sg2903ask, "hostname changes the machine's name")
	}
}

// psCmd flags ps with the BSD option e, which prints the environment of
// every process. Option values (-o user,args, -p 1, U root) are not
// option letters: the e of "user" is not e.
func (k *cmdCheck) psCmd() {
	const dashValued = "CGgOopqstUu" // -o FORMAT, -p PIDS, …
	const bsdValued = "OopqtUk"      // o FORMAT, p PIDS, U USER, …
	skip := false
	for _, a := range k.args {
		v := a.Value
		if skip {
			skip = false
			continue
		}
		switch {
		case v == "-E":
			k.emit(sg2604, "ps with 'E' prints the environment of processes (may hold secrets)")
			return
		case strings.HasPrefix(v, "--"):
			if !strings.Contains(v, "=") && psLongValued[v] {
				skip = true
			}
		case strings.HasPrefix(v, "-"):
			for j := 1; j < len(v); j++ {
				if strings.IndexByte(dashValued, v[j]) >= 0 {
					skip = j == len(v)-1
					break
				}
			}
		default:
			for j := 0; j < len(v); j++ {
				if v[j] == 'e' {
					k.emit(sg2604, "ps with 'e' prints the environment of processes (may hold secrets)")
					return
				}
				if strings.IndexByte(bsdValued, v[j]) >= 0 {
					skip = j == len(v)-1
					break
				}
			}
		}
	}
}

var psLongValued = map[string]bool{"--format": true, "--sort": true, "--pid": true, "--ppid": true, "--user": true,
	"--User": true, "--group": true, "--Group": true, "--tty": true, "--sid": true, "--cols": true, "--columns": true,
	"--rows": true, "--lines": true, "--width": true, "--quick-pid": true}
