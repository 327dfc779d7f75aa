package grammar_test

import (
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/effects"
	"github.com/shellguard/shellguard/internal/grammar"
	"github.com/shellguard/shellguard/internal/world"
)

// The examples of the grammar lines live beside them, one file per
// grammar file: grammars/examples/FAMILY.txt. Each line is a command a
// person would type, then " => ", then every effect the command must
// yield, comma separated, in the notation of render ("nothing" for
// none). The example covers the grammar line its first command is read
// with (program and subcommand path); grammars/examples/missing.txt lists
// the lines no example covers yet, and only shrinks.
const (
	exampleDir   = "grammars/examples"
	missingFile  = exampleDir + "/missing.txt"
	exWorkspace  = "/workspace"
	exHome       = "/home/user"
	exampleArrow = " => "
)

// missingBudget is the number of grammar lines allowed to have no
// example. It may only go down: a new grammar line comes with its
// examples.
const missingBudget = 0

var updateMissing = flag.Bool("update-missing", false, "drop the lines that now have examples from grammars/examples/missing.txt")

// example is one line of an example file.
type example struct {
	file string
	n    int
	src  string
	want []string
}

func readExamples(t *testing.T) []example {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(exampleDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	for _, f := range files {
		if f == filepath.FromSlash(missingFile) {
			continue
		}
		family := strings.TrimSuffix(filepath.Base(f), ".txt")
		if _, err := os.Stat(filepath.Join("grammars", family+".txt")); err != nil {
			t.Errorf("%s: no grammar file grammars/%s.txt", f, family)
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' {
				continue
			}
			k := strings.LastIndex(line, exampleArrow)
			if k < 0 {
				t.Errorf("%s:%d: no %q between the command and its effects", f, i+1, strings.TrimSpace(exampleArrow))
				continue
			}
			ex := example{file: f, n: i + 1, src: strings.TrimSpace(line[:k])}
			for _, w := range strings.Split(line[k+len(exampleArrow):], ",") {
				if w = strings.Join(strings.Fields(w), " "); w != "" && w != "nothing" {
					ex.want = append(ex.want, w)
				}
			}
			out = append(out, ex)
		}
	}
	return out
}

// render writes an effect in the notation of the example files:
//
//	read PATH, write PATH, delete PATH, chmod PATH MODE, chown PATH OWNER,
//	mention PATH   a path effect; "delete!" (chmod!, chown!) is recursive;
//	               PATH is relative to the workspace ("." is the workspace
//	               itself), ~/… in the home directory, absolute elsewhere,
//	               "?" when it cannot be known; then "derived" for the
//	               files found under PATH at run time, "meta" for a read
//	               of names, sizes or digests only, "secret" for a read
//	               that decrypts or reveals
//	exec SOURCE    code that is run: literal, computed, network, or the
//	               PATH of the file that is run
//	net HOST       a connection ("?" when no host is named); "sends" when local data goes with it,
//	               followed by the PATH of the file sent when known
//	env NAME, signal TARGET, system KIND (power, disk, service, privilege,
//	destroy, change, config, install …), unknown PROGRAM (a program or
//	subcommand with no grammar; unknown PATH or URL for what it is given)
func render(e effects.Effect) string {
	k := e.Kind.String()
	switch e.Kind {
	case effects.Read, effects.Write, effects.Delete, effects.Chmod, effects.Chown, effects.Mention:
		if e.Recursive {
			k += "!"
		}
		s := k + " " + showPath(e.Path)
		if e.Path.Origin == effects.OriginDerived {
			s += " derived"
		}
		if (e.Kind == effects.Chmod || e.Kind == effects.Chown) && e.Mode != "" {
			s += " " + e.Mode
		}
		if e.Meta {
			s += " meta"
		}
		if e.Secret {
			s += " secret"
		}
		return s
	case effects.Exec:
		if e.Code == effects.CodeFile && e.Path.Origin != 0 {
			return k + " " + showPath(e.Path)
		}
		return k + " " + e.Code.String()
	case effects.Net:
		h := world.HostOf(e.Dest)
		if h == "" {
			h = "?" // no host the command names
		}
		s := k + " " + h
		if e.Sends {
			s += " sends"
			if e.Path.Origin != 0 {
				s += " " + showPath(e.Path)
			}
		}
		return s
	case effects.Env:
		return k + " " + e.Name
	case effects.Signal:
		return k + " " + e.Target
	case effects.System:
		return k + " " + e.System
	case effects.Unknown:
		switch {
		case e.Path.Origin != 0:
			return k + " " + showPath(e.Path)
		case e.Dest != "":
			return k + " " + e.Dest
		}
		return k + " " + e.Program
	}
	return k
}

func showPath(p effects.Path) string {
	if !p.Known() {
		return "?"
	}
	switch a := p.Abs; {
	case a == exWorkspace:
		return "."
	case strings.HasPrefix(a, exWorkspace+"/"):
		return a[len(exWorkspace)+1:]
	case a == exHome:
		return "~"
	case strings.HasPrefix(a, exHome+"/"):
		return "~/" + a[len(exHome)+1:]
	}
	return path.Clean(p.Abs)
}

// renderAll returns the effects of src in the notation, sorted, each once.
func renderAll(src string) []string {
	res := analyze.Analyze(src, analyze.Options{Workspace: exWorkspace, Home: exHome})
	var out []string
	for _, e := range effects.Extract(res, effects.Options{Workspace: exWorkspace, Home: exHome}) {
		if s := render(e); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// lineOf returns the grammar line (program and subcommand path) the first
// command of src is read with, or "" when it has no grammar.
func lineOf(src string) (name, family string) {
	res := analyze.Analyze(src, analyze.Options{Workspace: exWorkspace, Home: exHome})
	if len(res.Commands) == 0 || res.Commands[0] == nil {
		return "", ""
	}
	c := res.Commands[0]
	g := grammar.Lookup(c.Name())
	if g == nil || len(c.Args) == 0 {
		return "", ""
	}
	p := grammar.Parse(g, c.Args[1:])
	return p.Grammar.Name, p.Grammar.Family
}

// grammarLines returns the name of every grammar line: each program and
// each subcommand path. +opaque and +prefix lines say nothing about a
// command's words, so effects have nothing to show for them: policy's
// tests cover their checks (TestGrammarChecks).
func grammarLines() []string {
	var out []string
	var walk func(g *grammar.Grammar)
	walk = func(g *grammar.Grammar) {
		out = append(out, g.Name)
		for _, s := range g.Subs {
			walk(s)
		}
	}
	for name, g := range grammar.Grammars() {
		if g.Name == name && !g.Opaque && !g.Prefix { // not an alias
			walk(g)
		}
	}
	sort.Strings(out)
	return out
}

// TestGrammarExamples runs every example of grammars/examples through
// analyze and effects.Extract and compares what it yields with what the
// example says, effect for effect: a missing effect and an extra one
// both fail.
func TestGrammarExamples(t *testing.T) {
	exs := readExamples(t)
	if len(exs) == 0 {
		t.Fatal("no examples found in " + exampleDir)
	}
	for _, ex := range exs {
		line, family := lineOf(ex.src)
		if line == "" {
			t.Errorf("%s:%d: %s: its first command has no grammar line", ex.file, ex.n, ex.src)
			continue
		}
		if want := strings.TrimSuffix(filepath.Base(ex.file), ".txt"); family != want {
			t.Errorf("%s:%d: %s: is read with %q of grammars/%s.txt: it belongs in %s/%s.txt", ex.file, ex.n, ex.src, line, family, exampleDir, family)
		}
		if msg := compare(ex.src, ex.want); msg != "" {
			t.Errorf("%s:%d: %s (%s)\n%s", ex.file, ex.n, ex.src, line, msg)
		}
	}
}

// compare returns "" when src yields exactly the effects want names.
func compare(src string, want []string) string {
	got := renderAll(src)
	var missing, extra []string
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	show := strings.Join(got, ", ")
	if show == "" {
		show = "nothing"
	}
	return fmt.Sprintf("\tmissing: %s\n\textra:   %s\n\tit yields: => %s", strings.Join(missing, ", "), strings.Join(extra, ", "), show)
}

// TestGrammarExamplesCoverage: every grammar line has an example, except
// those grammars/examples/missing.txt still lists; that list names
// exactly the lines without one (a line that gets an example leaves it)
// and holds at most missingBudget lines, so it can only shrink.
func TestGrammarExamplesCoverage(t *testing.T) {
	covered := map[string]bool{}
	for _, ex := range readExamples(t) {
		if line, _ := lineOf(ex.src); line != "" {
			covered[line] = true
		}
	}
	var without []string
	for _, l := range grammarLines() {
		if !covered[l] {
			without = append(without, l)
		}
	}
	b, err := os.ReadFile(missingFile)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	var order []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && l[0] != '#' {
			listed[l] = true
			order = append(order, l)
		}
	}
	if *updateMissing {
		var keep []string
		for _, l := range order {
			if slices.Contains(without, l) {
				keep = append(keep, l)
			}
		}
		head := "# Grammar lines (program and subcommand path) that no example in this\n" +
			"# directory covers yet. The list only shrinks: TestGrammarExamplesCoverage\n" +
			"# fails for a line without an example that is not listed here, and for a\n" +
			"# listed line that has one (go test ./internal/grammar -run Coverage\n" +
			"# -update-missing drops those).\n"
		if err := os.WriteFile(missingFile, []byte(head+strings.Join(keep, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		listed = map[string]bool{}
		for _, l := range keep {
			listed[l] = true
		}
	}
	for _, l := range without {
		if !listed[l] {
			t.Errorf("grammar line %q has no example: add one to %s/<family>.txt", l, exampleDir)
		}
	}
	for l := range listed {
		if !slices.Contains(without, l) {
			t.Errorf("%s lists %q, which has an example or is no grammar line: remove it (-update-missing)", missingFile, l)
		}
	}
	if len(without) > missingBudget {
		t.Errorf("%d grammar lines have no example, more than the budget of %d: a new line comes with its examples", len(without), missingBudget)
	} else if len(without) < missingBudget {
		t.Errorf("%d grammar lines have no example: lower missingBudget from %d to %d", len(without), missingBudget, len(without))
	}
	t.Logf("%d of %d grammar lines have examples", len(grammarLines())-len(without), len(grammarLines()))
}
