package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/shellguard/shellguard/sandbox"
)

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func init() {
	register("completion", "print a shell completion script (completion bash|zsh|fish)", completionMain)
}

const completionUsage = `usage: shellguard completion bash|zsh|fish
Prints a completion script for the shell. Load it with, for example:
  bash:  source <(shellguard completion bash)      (or save it in ~/.local/share/bash-completion/completions/shellguard)
  zsh:   shellguard completion zsh > "${fpath[1]}/_shellguard"
  fish:  shellguard completion fish > ~/.config/fish/completions/shellguard.fish`

// Words that follow a subcommand (its own subcommands), and the values
// of flags that take one of a few.
var (
	subWords = map[string][]string{
		"config":     {"show", "check", "defaults"},
		"audit":      {"verify"},
		"completion": {"bash", "zsh", "fish"},
	}
	// the sandbox modes, spelled by the sandbox itself
	flagValues = map[string][]string{"sandbox": {sandbox.Auto.String(), sandbox.Required.String(), sandbox.Strict.String(), sandbox.Off.String()}}
	// flags naming a directory rather than a file
	dirFlags = map[string]bool{"workspace": true, "cwd": true}
)

func completionMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		fmt.Fprintln(stdout, completionUsage)
		return 0
	}
	if len(args) != 1 {
		return argError(stderr, "completion", "give one shell: bash, zsh or fish")
	}
	cmds := completionModel()
	switch args[0] {
	case "bash":
		writeBash(stdout, cmds)
	case "zsh":
		writeZsh(stdout, cmds)
	case "fish":
		writeFish(stdout, cmds)
	default:
		return argError(stderr, "completion", fmt.Sprintf("unknown shell %q (want bash, zsh or fish)", args[0]))
	}
	return 0
}

type complFlag struct {
	name, desc string
	value      bool // takes a value
}

type complCmd struct {
	name, desc string
	flags      []complFlag
	words      []string
}

// completionModel asks every subcommand for its --help and reads its flags
// from it, so the scripts never fall behind the flags.
func completionModel() []complCmd {
	var out []complCmd
	for _, n := range commandNames() {
		c := complCmd{name: n, desc: subcommands[n].summary, words: subWords[n]}
		helpArgs := []string{"--help"}
		if len(c.words) > 0 && n != "completion" {
			helpArgs = []string{c.words[0], "--help"} // flags live on the first sub-subcommand
		}
		if n != "completion" && n != "version" {
			var o bytes.Buffer
			subcommands[n].main(helpArgs, &o, io.Discard)
			c.flags = parseDefaults(o.String())
		}
		out = append(out, c)
	}
	return out
}

// parseDefaults reads flag.PrintDefaults output: "  -name VALUE" lines,
// each followed by its indented description.
func parseDefaults(s string) []complFlag {
	var flags []complFlag
	for _, line := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(line, "  -"):
			f := strings.Fields(strings.TrimPrefix(line, "  -"))
			if len(f) == 0 {
				continue
			}
			flags = append(flags, complFlag{name: f[0], value: len(f) > 1})
		case strings.HasPrefix(line, "    \t") && len(flags) > 0:
			if d := &flags[len(flags)-1].desc; *d == "" {
				*d = cleanDesc(strings.TrimPrefix(line, "    \t"))
			}
		}
	}
	return flags
}

// cleanDesc keeps a description short and free of characters the
// shells' completion syntaxes treat specially.
func cleanDesc(s string) string {
	if i := strings.Index(s, " ("); i > 0 {
		s = s[:i]
	}
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\'', '"', '`', '[', ']', ':', '\\', '$':
			return -1
		}
		return r
	}, s)
	if len(s) > 70 {
		s = s[:70]
	}
	return strings.TrimSpace(s)
}

func writeBash(w io.Writer, cmds []complCmd) {
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
	}
	fmt.Fprintf(w, `# bash completion for shellguard (shellguard completion bash)
_shellguard() {
    local cur prev cmd i words=""
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    if [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W "%s --help --version" -- "$cur"))
        return
    fi
    cmd="${COMP_WORDS[1]}"
    for ((i = 2; i < COMP_CWORD; i++)); do
        [[ "${COMP_WORDS[i]}" == "--" ]] && return   # the command itself: default completion
    done
    case "$prev" in
`, strings.Join(names, " "))
	for _, f := range sortedKeys(flagValues) {
		vals := flagValues[f]
		fmt.Fprintf(w, "        --%s|-%s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", f, f, strings.Join(vals, " "))
	}
	for _, f := range sortedKeys(dirFlags) {
		fmt.Fprintf(w, "        --%s|-%s) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", f, f)
	}
	fmt.Fprint(w, "    esac\n    case \"$cmd\" in\n")
	for _, c := range cmds {
		var fl []string
		for _, f := range c.flags {
			fl = append(fl, "--"+f.name)
		}
		fmt.Fprintf(w, "        %s) words=%q; [[ $COMP_CWORD -eq 2 && \"$cur\" != -* ]] && words=%q ;;\n",
			c.name, strings.Join(fl, " "), strings.Join(c.words, " "))
	}
	fmt.Fprint(w, `    esac
    if [[ -n "$words" ]]; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    fi
}
complete -o default -F _shellguard shellguard
`)
}

func writeZsh(w io.Writer, cmds []complCmd) {
	fmt.Fprint(w, "#compdef shellguard\n# zsh completion for shellguard (shellguard completion zsh)\n_shellguard() {\n    local -a cmds\n    cmds=(\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "        '%s:%s'\n", c.name, cleanDesc(c.desc))
	}
	fmt.Fprint(w, "    )\n    if (( CURRENT == 2 )); then\n        _describe 'command' cmds\n        return\n    fi\n    case $words[2] in\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "        %s)\n            _arguments -s \\\n", c.name)
		for _, f := range c.flags {
			spec := fmt.Sprintf("--%s[%s]", f.name, f.desc)
			if f.value {
				switch {
				case flagValues[f.name] != nil:
					spec += fmt.Sprintf(":%s:(%s)", f.name, strings.Join(flagValues[f.name], " "))
				case dirFlags[f.name]:
					spec += ":" + f.name + ":_files -/"
				default:
					spec += ":" + f.name + ":_files"
				}
			}
			fmt.Fprintf(w, "                '%s' \\\n", spec)
		}
		if len(c.words) > 0 {
			fmt.Fprintf(w, "                '1:%s:(%s)' \\\n", c.name, strings.Join(c.words, " "))
		}
		fmt.Fprint(w, "                '*:: :_files'\n            ;;\n")
	}
	fmt.Fprint(w, "    esac\n}\nif [[ $funcstack[1] == _shellguard ]]; then _shellguard \"$@\"; else compdef _shellguard shellguard; fi\n")
}

func writeFish(w io.Writer, cmds []complCmd) {
	fmt.Fprintln(w, "# fish completion for shellguard (shellguard completion fish)")
	fmt.Fprintln(w, "complete -c shellguard -f")
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c shellguard -n '__fish_use_subcommand' -a %s -d '%s'\n", c.name, cleanDesc(c.desc))
	}
	for _, c := range cmds {
		cond := fmt.Sprintf("__fish_seen_subcommand_from %s", c.name)
		for _, f := range c.flags {
			line := fmt.Sprintf("complete -c shellguard -n '%s' -l %s -d '%s'", cond, f.name, f.desc)
			if f.value {
				switch {
				case flagValues[f.name] != nil:
					line += fmt.Sprintf(" -x -a '%s'", strings.Join(flagValues[f.name], " "))
				case dirFlags[f.name]:
					line += " -x -a '(__fish_complete_directories)'"
				default:
					line += " -r -F"
				}
			}
			fmt.Fprintln(w, line)
		}
		if len(c.words) > 0 {
			fmt.Fprintf(w, "complete -c shellguard -n '%s; and not __fish_seen_subcommand_from %s' -a '%s'\n",
				cond, strings.Join(c.words, " "), strings.Join(c.words, " "))
		}
	}
}
