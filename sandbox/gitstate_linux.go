//go:build linux

package sandbox

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// What git turns into programs from its rebase and sequencer state. A
// command may stop a rebase inside the sandbox (a conflict, an `edit`
// line) and leave that state for the user's next `git rebase --continue`,
// which runs outside the sandbox: a todo list's `exec` lines are shell
// commands, and a merge strategy that is not built in names a program
// (`git-merge-NAME`, looked up relative to the directory git runs in
// when it holds a slash). So the state a run hands back may name only
// the programs it named before the run: any other is set aside as
// NAME.shellguard-refused, beside the file, for the user to read.
var gitStatePrograms = []struct {
	file     string                  // relative to .git
	programs func(b []byte) []string // what running the state would start
}{
	{"rebase-merge/git-rebase-todo", todoExecs},
	{"sequencer/todo", todoExecs},
	{"rebase-merge/strategy", func(b []byte) []string { return strategyProgram(string(b)) }},
	{"rebase-apply/strategy", func(b []byte) []string { return strategyProgram(string(b)) }},
	{"sequencer/opts", optsStrategy},
}

// builtinStrategies run inside git; any other strategy is a program.
var builtinStrategies = map[string]bool{"ort": true, "recursive": true, "resolve": true, "octopus": true, "ours": true, "subtree": true}

// todoExecs returns the commands of a todo list's exec lines ("exec CMD"
// or "x CMD"; comments and other commands aside).
func todoExecs(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(strings.TrimSuffix(l, "\r"))
		word, rest, _ := strings.Cut(l, " ")
		if tab, r2, ok := strings.Cut(word, "\t"); ok {
			word, rest = tab, r2+" "+rest
		}
		if word == "exec" || word == "x" {
			out = append(out, strings.TrimSpace(rest))
		}
	}
	return out
}

func strategyProgram(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" || builtinStrategies[s] {
		return nil
	}
	return []string{s}
}

// optsStrategy reads the strategy of sequencer/opts (git config syntax:
// "[options]" then "strategy = NAME"); any other key is not a program.
func optsStrategy(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "strategy") {
			out = append(out, strategyProgram(strings.Trim(strings.TrimSpace(v), `"`))...)
		}
	}
	return out
}

// gitStateProgramsAt returns, for each file of gitStatePrograms under the
// state directory dir of the .git opened as dfd, the programs it names
// (nil for a file that is absent). A file that is there but cannot be
// read as a regular file (a symlink, a FIFO, too large) names "?": an
// unknown program.
func gitStateProgramsAt(dfd int, dir string) map[string][]string {
	out := map[string][]string{}
	for _, p := range gitStatePrograms {
		if path.Dir(p.file) != dir {
			continue
		}
		var s unix.Stat_t
		if unix.Fstatat(dfd, p.file, &s, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		b, err := readRegularAt(dfd, p.file)
		if err != nil {
			out[p.file] = []string{"?"}
			continue
		}
		out[p.file] = p.programs(bytes.ToValidUTF8(b, nil))
	}
	return out
}

// vetGitState sets aside every file of the state directory dir (in the
// view vfd, about to go back into the real .git) that names a program
// the same file did not name before the run (before, from
// gitStateProgramsAt on the real .git; nil for a directory the run
// created). It returns the warnings.
func vetGitState(vfd int, dir string, before map[string][]string) (warns []string) {
	for file, progs := range gitStateProgramsAt(vfd, dir) {
		var added []string
		for _, p := range progs {
			// What cannot be read is never the same as before.
			if p == "?" || !slices.Contains(before[file], p) {
				added = append(added, p)
			}
		}
		if len(added) == 0 {
			continue
		}
		aside := file + refusedSuffix
		removeNameAt(vfd, aside)
		what := fmt.Sprintf("names %d program(s) it did not name before the run: %q", len(added), added)
		if added[0] == "?" {
			what = "is a " + kindAt(vfd, file) + ", not a regular file"
		}
		if err := unix.Renameat(vfd, file, vfd, aside); err != nil {
			removeNameAt(vfd, file)
			warns = append(warns, fmt.Sprintf("refused: .git/%s %s; git would run them outside the sandbox at the next `git rebase --continue` (or cherry-pick/revert); it was removed", file, what))
			continue
		}
		warns = append(warns, fmt.Sprintf("refused: .git/%s %s; git would run them outside the sandbox at the next `git rebase --continue` (or cherry-pick/revert); it was set aside as .git/%s: read it, then rename it back to continue, or `git rebase --abort`", file, what, aside))
	}
	slices.Sort(warns)
	return warns
}
