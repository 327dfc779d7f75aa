// Package progs holds the little program knowledge that more than one
// stage needs: which programs are shells or interpreters and in which
// language they run code, and which git configuration keys hold a
// command. It is internal so that the stages share one table instead of
// exporting helpers to each other.
package progs

import "strings"

// Language names, as used by analyze.Code.Lang.
const (
	Shell  = "sh"
	Python = "python"
	Perl   = "perl"
	Ruby   = "ruby"
	JS     = "js"
	PHP    = "php"
	Lua    = "lua"
	R      = "r"
	Apple  = "applescript"
	Tcl    = "tcl"
	PS     = "powershell"
	Awk    = "awk"
	Sed    = "sed"
)

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true,
	"ash": true, "mksh": true, "yash": true, "busybox sh": true, "rbash": true, "fish": true, "tcsh": true, "csh": true}

// interpreters maps an interpreter to its language and its inline-code flag.
var interpreters = map[string][2]string{
	"python": {Python, "-c"}, "python2": {Python, "-c"}, "python3": {Python, "-c"}, "pypy": {Python, "-c"}, "pypy3": {Python, "-c"},
	"perl": {Perl, "-e"}, "ruby": {Ruby, "-e"}, "node": {JS, "-e"}, "nodejs": {JS, "-e"}, "deno": {JS, "eval"}, "bun": {JS, "-e"},
	"php": {PHP, "-r"}, "lua": {Lua, "-e"}, "Rscript": {R, "-e"}, "osascript": {Apple, "-e"}, "tclsh": {Tcl, ""},
	"pwsh": {PS, "-c"}, "powershell": {PS, "-c"},
}

// IsShell reports whether the program name is a shell.
func IsShell(name string) bool { return shells[name] }

// Lang returns the language a program runs code in: Shell for shells,
// the interpreter's language for interpreters, Awk and Sed for those
// tools, "" for anything else.
func Lang(name string) string {
	if shells[name] {
		return Shell
	}
	if l, ok := interpreters[name]; ok {
		return l[0]
	}
	if strings.HasPrefix(name, "python3.") || strings.HasPrefix(name, "python2.") {
		return Python
	}
	switch name {
	case "awk", "gawk", "mawk", "nawk", "busybox awk":
		return Awk
	case "sed", "gsed":
		return Sed
	}
	return ""
}

// IsInterpreter reports whether name is a scripting language interpreter
// (not a shell, awk or sed).
func IsInterpreter(name string) bool {
	l := Lang(name)
	return l != "" && l != Shell && l != Awk && l != Sed
}

// CodeFlag returns the option an interpreter takes inline code with.
func CodeFlag(name string) string {
	if strings.HasPrefix(name, "python") {
		return "-c"
	}
	return interpreters[name][1]
}

// gitExecKeys are configuration keys whose value git runs as a command.
var gitExecKeys = map[string]bool{"core.pager": true, "core.sshcommand": true, "core.editor": true,
	"core.fsmonitor": true, "core.askpass": true, "diff.external": true, "sequence.editor": true,
	"credential.helper": true, "gpg.program": true, "pager.log": true, "pager.diff": true, "pager.show": true,
	"core.hookspath": false, "uploadpack.packobjectshook": true, "merge.tool": false}

// GitExecKey reports whether a git configuration key holds a command.
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
