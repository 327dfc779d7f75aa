package policy

import "strings"

// Redefinition: aliases, builtins, hash and zsh modules that change what a name runs.

// zshModule: the builtins of zsh's modules (zmodload, ztcp, zf_rm …)
// open sockets, files and programs past the checks of the commands
// they stand for.
func (k *cmdCheck) zshModule() {
	k.emit(sg3301, "zsh module builtin "+quote(k.c.Program)+" bypasses normal command checks")
}

func (k *cmdCheck) alias() {
	for _, a := range k.args {
		if name, _, ok := strings.Cut(a.Value, "="); ok && (knownCommand(name) || builtinName(name)) {
			k.emitAt(sg3502, a.Span, "alias redefines the command "+quote(name))
			return
		}
	}
}

func builtinName(n string) bool {
	switch n {
	case "cd", "echo", "printf", "source", ".", "eval", "exec", "command", "builtin", "export", "alias", "unalias", "set",
		"unset", "trap", "read", "test", "[", "type", "hash", "kill", "exit", "return", "shift", "wait":
		return true
	}
	return false
}

func (k *cmdCheck) shopt() {
	if k.has("expand_aliases") && k.has("-s") {
		k.emit(sg3503ask, "enables alias expansion")
	}
}

func (k *cmdCheck) enable() {
	if k.has("-f") {
		k.emit(sg3503deny, "loads a builtin from a shared object")
	} else if k.has("-n") {
		k.emit(sg3503ask, "disables a shell builtin")
	}
}

func (k *cmdCheck) hashCmd() {
	if k.has("-p") {
		k.emit(sg3503ask, "hash -p maps a command name to another program")
	}
}

func (k *cmdCheck) zshEmulate() {
	if k.has("-c") {
		k.emit(sg3301, "zsh emulate -c evaluates code")
	}
}
