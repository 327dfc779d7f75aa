package policy

import (
	"strconv"
	"strings"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/internal/grammar"
)

// Classification values of a whole command. They never change a decision.
const (
	ClassSearch      = "search"
	ClassRead        = "read"
	ClassList        = "list"
	ClassNeutral     = "neutral"
	ClassSilent      = "silent"
	ClassWrite       = "write"
	ClassNetwork     = "network"
	ClassDestructive = "destructive"
)

var classRank = map[string]int{ClassSilent: 0, ClassSearch: 1, ClassList: 1, ClassRead: 2, ClassNeutral: 3,
	ClassWrite: 4, ClassNetwork: 5, ClassDestructive: 6}

// exitOne says what exit code 1 means, by a line's exit1=.
var exitOne = map[string]string{"nomatch": "no matches", "differ": "the inputs differ", "false": "the condition is false"}

// commandClass reports what a command is: by its subcommand for a few
// programs, otherwise as its program's grammar line says (class=), which
// its aliases share.
func commandClass(c *analyze.Command) string {
	p := grammar.Resolve(c.Name())
	n := p.Name
	sub := ""
	if len(c.Argv) > 1 {
		sub = c.Argv[1]
	}
	switch n {
	case "git":
		switch sub {
		case "status", "log", "diff", "show", "blame", "branch", "rev-parse", "describe", "ls-files", "remote", "tag":
			return ClassRead
		case "grep":
			return ClassSearch
		case "push", "pull", "fetch", "clone":
			return ClassNetwork
		case "reset", "clean":
			return ClassDestructive
		case "":
			return ClassNeutral
		}
		return ClassWrite
	case "sed":
		for _, a := range c.Argv[1:] {
			if strings.HasPrefix(a, "-i") || a == "--in-place" {
				return ClassWrite
			}
		}
	case "npm", "pip", "pip3", "yarn", "pnpm", "cargo", "go":
		if sub == "install" || sub == "ci" || sub == "get" || sub == "add" || sub == "i" {
			return ClassNetwork
		}
	}
	if p.Line != nil && p.Line.Class != "" {
		return p.Line.Class
	}
	return ClassNeutral
}

func classify(r *analyze.Result) string {
	best := ""
	all := map[string]bool{}
	for _, c := range r.Commands {
		if c.FuncDef != "" || len(c.Argv) == 0 {
			continue
		}
		cl := commandClass(c)
		for _, rd := range c.Redirects {
			if rd.Write && rd.Target.Value != "/dev/null" && cl != ClassDestructive && cl != ClassNetwork {
				cl = ClassWrite
			}
		}
		all[cl] = true
		if best == "" || classRank[cl] > classRank[best] {
			best = cl
		}
	}
	if best == "" {
		return ClassSilent
	}
	if len(all) == 1 {
		return best
	}
	// a mix of search/read/list/silent is a read
	if classRank[best] <= classRank[ClassRead] {
		if all[ClassSearch] && !all[ClassRead] && !all[ClassList] {
			return ClassSearch
		}
		return ClassRead
	}
	return best
}

// warnings returns informational notes (destructive commands, sleep
// polling) and what exit code 1 means for some commands. They never
// change the decision.
func warnings(r *analyze.Result) (out, exitNotes []string) {
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	note := func(s string) {
		if !seen[s] {
			seen[s] = true
			exitNotes = append(exitNotes, s)
		}
	}
	var loopSleep, loopCheck bool // polling: a loop that sleeps and checks
	for _, c := range r.Commands {
		if c.FuncDef != "" || len(c.Argv) == 0 {
			continue
		}
		n := c.Name()
		g := grammar.Resolve(n).Line
		if g != nil {
			// warns= of the program's line, or of the subcommand its
			// first word names
			w := g
			if len(c.Argv) > 1 && g.Subs[c.Argv[1]] != nil {
				w = g.Subs[c.Argv[1]]
			}
			switch w.Warns {
			case "undo":
				for _, a := range c.Argv[1:] {
					if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR") || a == "--recursive" {
						add(w.Name + " -r deletes files permanently; there is no undo")
						break
					}
				}
			case "discard":
				add(w.Name + " can discard commits or changes")
			case "untracked":
				add(w.Name + " deletes untracked files")
			case "publish":
				add(w.Name + " publishes commits to a remote")
			}
			if m := exitOne[g.Exit1]; m != "" {
				note(n + ": exit code 1 means " + m + ", not an error")
			}
		}
		if !c.InLoop {
			continue
		}
		if g == nil || !g.Waits {
			loopCheck = true
		} else if len(c.Argv) > 1 {
			v := strings.TrimRight(c.Argv[1], "s")
			if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 1 {
				loopSleep = true
			}
		}
	}
	if loopSleep && loopCheck {
		add("a loop that sleeps and checks looks like polling; run the long task in the background and check its status instead")
	}
	return out, exitNotes
}

// knownCommands are names that a function or alias should not shadow.
var knownCommandList = strings.Fields(`ls cd cat rm mv cp git grep rg find sed awk echo printf test make go npm npx node
python python3 pip pip3 curl wget ssh scp sudo su bash sh zsh env sort head tail less more chmod chown mkdir rmdir touch
kill ps docker kubectl terraform cargo rustc gcc cc ld tar gzip unzip zip which type command builtin exec eval source
read set export unset alias true false pwd date diff patch tee xargs yarn pnpm pytest jq yq vim vi nano code open
ln du df mount umount systemctl service crontab id whoami uname hostname ping dig nc git-lfs gh helm aws gcloud az`)

var knownCommands = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range knownCommandList {
		m[n] = true
	}
	return m
}()

func knownCommand(n string) bool { return knownCommands[n] }
