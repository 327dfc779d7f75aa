package policy

import (
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/internal/progs"
)

// Assignments and environment hijacks: LD_PRELOAD, BASH_ENV, PATH, variables that hold commands.

var hijackDeny = map[string]string{
	"LD_PRELOAD": "preloads a library into every program", "LD_AUDIT": "loads an audit library into every program",
	"BASH_ENV": "makes every bash run a file first", "ENV": "makes every sh run a file first",
	"PROMPT_COMMAND": "runs code before each prompt", "IFS": "changes how words are split (obfuscation)",
	"SHELLOPTS": "changes shell options of child shells", "BASHOPTS": "changes shell options of child shells",
	"PS4": "runs code through trace prompts", "GLOBIGNORE": "changes glob results",
}

// startupVars make an interpreter or git load code from elsewhere;
// variables that hold a command, a program or options of one are the
// grammars' (env=, envopts=) and judged by what they hold (effects.go).
var startupVars = map[string]bool{"PYTHONINSPECT": true, "PERL5DB": true, "GIT_CONFIG_PARAMETERS": true,
	"GIT_EXEC_PATH": true, "GIT_TEMPLATE_DIR": true}

var pathVars = map[string]bool{"GIT_DIR": true, "GIT_CONFIG": true, "GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true,
	"GIT_WORK_TREE": false, "PYTHONPATH": true, "PERL5LIB": true, "RUBYLIB": true, "NODE_PATH": true, "CLASSPATH": true,
	"PYTHONHOME": true, "GEM_PATH": true, "LUA_PATH": true}

var trustedBinDirs = []string{"/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/sbin", "/usr/local/go/bin",
	"/opt/homebrew/bin", "/usr/lib/go/bin", "/snap/bin", "/usr/games"}

func (e *evaluator) assigns(i int, c *analyze.Command) {
	for _, a := range c.Assigns {
		e.assign(i, c, a)
	}
}

func (e *evaluator) assign(i int, c *analyze.Command, a analyze.Assign) {
	n := a.Name
	sp := a.Span
	val := a.Value.Value
	switch {
	case strings.HasPrefix(n, "BASH_FUNC_"):
		e.emit(sg3402, i, sp, "defines an exported function through "+n)
	case n == "LD_PRELOAD" || n == "LD_AUDIT" || strings.HasPrefix(n, "DYLD_INSERT"):
		e.emit(sg3401, i, sp, "setting "+n+" "+orDefault(hijackDeny[n], "injects a library into every program"))
	case n == "IFS":
		// IFS= read, IFS=$'\n' are everyday idioms; a non-blank
		// separator set for the whole shell hides word boundaries.
		if strings.Trim(val, " \t\n") == "" || len(c.Args) > 0 && (c.Name() == "read" || c.Name() == "mapfile" || c.Name() == "readarray") {
			return
		}
		e.emit(sg2405ask, i, sp, "assigning IFS="+quote(val)+" changes how words are split")
	case strings.HasPrefix(n, "GIT_CONFIG_KEY_") && (progs.GitExecKey(val) || strings.EqualFold(val, "core.hooksPath")):
		e.emit(sg3405, i, sp, n+" sets the git option "+val+" that runs a command")
	case hijackDeny[n] != "":
		e.emit(sg3402, i, sp, "setting "+n+" "+hijackDeny[n])
	case n == "PATH":
		first := strings.Split(val, ":")[0]
		if first == "" || first == "." {
			e.emit(sg3403ask, i, sp, "PATH starts with the current directory")
			return
		}
		if strings.HasPrefix(first, "$") {
			return
		}
		p := e.abs(first, c.Cwd)
		if p == "" {
			return
		}
		if e.inWorkspace(p) {
			return
		}
		for _, d := range trustedBinDirs {
			if p == d {
				return
			}
		}
		if within(p, e.home) && (strings.HasSuffix(p, "/bin") || strings.HasSuffix(p, "/.bin")) && !strings.Contains(p, "/tmp") {
			return
		}
		e.emit(sg3403deny, i, sp, "PATH puts "+quote(first)+" first: programs can be replaced from a directory outside the workspace")
	case pathVars[n]:
		for _, part := range strings.Split(val, ":") {
			if part == "" || strings.HasPrefix(part, "$") {
				continue
			}
			p := e.abs(part, c.Cwd)
			if p != "" && !e.inWorkspace(p) && !strings.HasPrefix(p, "/usr/") && p != "/dev/null" && !within(p, e.home) {
				e.emit(sg3406, i, sp, n+" points at "+quote(part)+" outside the workspace: code or configuration can be replaced")
				return
			}
		}
	case n == "LD_LIBRARY_PATH" || strings.HasPrefix(n, "DYLD_"):
		// libraries the project builds are the project's code; any other
		// directory (temporary, home, computed) replaces libraries
		for _, part := range strings.Split(val, ":") {
			if part == "" || part == "$"+n || part == "${"+n+"}" {
				continue
			}
			for _, pwd := range []string{"$PWD", "${PWD}"} {
				if rest, ok := strings.CutPrefix(part, pwd); ok && c.Cwd != "" && (rest == "" || rest[0] == '/') {
					part = c.Cwd + rest
				}
			}
			p := ""
			if !strings.ContainsAny(part, "$`") {
				p = e.abs(part, c.Cwd)
			}
			if p == "" || !e.inWorkspace(p) || e.wsSystem {
				e.emit(sg3404, i, sp, "setting "+n+" makes programs load libraries from "+quote(part)+", outside the workspace")
				return
			}
		}
	case startupVars[n]:
		e.emit(sg3406, i, sp, "setting "+n+" makes an interpreter load extra code")
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (k *cmdCheck) envCmd() {
	for _, a := range k.args {
		if a.Value == "-S" || strings.HasPrefix(a.Value, "-S") || strings.HasPrefix(a.Value, "--split-string") {
			k.emitAt(sg2512, a.Span, "env -S splits a string into a command line")
			return
		}
	}
}

// exportF flags export -f and declare -fx: a function exported to every
// child shell. declare -f NAME only prints the function.
func (k *cmdCheck) exportF() {
	fn, export, names := false, k.name == "export", len(k.c.Assigns) > 0
	for _, a := range k.args {
		v := a.Value
		switch {
		case len(v) > 1 && v[0] == '-' && v[1] != '-':
			fn = fn || strings.ContainsRune(v, 'f')
			export = export && !strings.ContainsRune(v, 'n') || strings.ContainsRune(v, 'x')
		case !strings.HasPrefix(v, "-"):
			names = true
		}
	}
	if fn && export && names {
		k.emit(sg3501, "exports a function to child shells (can shadow commands)")
	}
}
