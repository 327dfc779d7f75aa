//go:build linux

package sandbox

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// deputyTrap is what the deputy test plants at a path a finisher
// touches. script plants it from inside the sandbox (P is the path,
// {file}/{dir} the canaries outside) and prints PLANTED when it could;
// pre, when set, plants it from the test before the run.
type deputyTrap struct {
	name   string
	script func(p string, dir bool) string
	pre    func(t *testing.T, f *postFixture, p string)
}

var deputyTraps = []deputyTrap{
	{name: "symlink-to-canary", script: func(p string, dir bool) string {
		if dir {
			return `ln -s {outside}/dir ` + p
		}
		return `ln -s {outside}/gitconfig ` + p
	}},
	{name: "symlink-loop", script: func(p string, dir bool) string {
		return `ln -s "$(basename ` + p + `)" ` + p
	}},
	{name: "fifo", script: func(p string, dir bool) string { return `mkfifo ` + p }},
	{name: "device", pre: func(t *testing.T, f *postFixture, p string) {
		full := filepath.Join(f.ws, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.RemoveAll(full)
		// /dev/ptmx: opening it makes a terminal, reading it blocks.
		if err := unix.Mknod(full, unix.S_IFCHR|0o666, int(unix.Mkdev(5, 2))); err != nil {
			skipOrFail(t, "mknod: %v", err)
		}
		time.Sleep(30 * time.Millisecond) // older than the run
	}, script: func(p string, dir bool) string {
		// Made "changed during the run" (its ctime moves).
		return `test -c ` + p + ` && chmod 600 ` + p
	}},
	{name: "dir-for-file", script: func(p string, dir bool) string {
		if dir {
			return `printf x > ` + p
		}
		return `mkdir -p ` + p + `/x && printf x > ` + p + `/x/keep`
	}},
	{name: "gitfile", script: func(p string, dir bool) string {
		return `printf 'gitdir: {outside}/repo\n' > ` + p
	}},
}

// deputyPaths expands a finisher's path patterns: "**/" is the
// workspace itself and a subdirectory.
func deputyPaths(pat string) []string {
	if rest, ok := strings.CutPrefix(pat, "**/"); ok {
		return []string{rest, "sub/" + rest}
	}
	return []string{pat}
}

// deputyWarnDue says whether a trap at p must be reported: a link, a
// FIFO, a device or a directory always; a regular file where the
// finisher applies the command's work as such (the overlay, git's
// state files) is ordinary content.
func deputyWarnDue(fin finisher, trap, p string, dir bool) bool {
	base := filepath.Base(strings.TrimSuffix(p, "/"))
	switch trap {
	case "gitfile":
		return !fin.ordinary && !gitStateFiles[base]
	case "dir-for-file":
		// A .git directory is git's layout, and a file where the
		// overlay had a directory is the command's work.
		return !fin.ordinary && base != ".git" && !dir
	case "symlink-to-canary", "symlink-loop":
		return !fin.ordinary
	}
	return true
}

// TestDeputy is the deputy test: for every path every finisher touches,
// each trap in turn, in auto and strict: the run returns, nothing
// outside changes or is read, no process is left, and the trap is
// reported.
func TestDeputy(t *testing.T) {
	modes := postModes
	if testing.Short() {
		modes = []Mode{Strict}
	}
	// The sandbox is in force, with the layers the finishers meet.
	active := map[Mode]Applied{}
	for _, mode := range modes {
		g := gitFixture(t)
		a := g.assertActive(t, Spec{Mode: mode})
		need(t, a, LayerGit)
		if mode == Strict {
			need(t, a, LayerOverlay)
		}
		active[mode] = a
	}
	planted := map[string]int{}
	before := map[string]int64{}
	for _, fin := range finishers {
		before[fin.name] = finisherRunCount(fin.name)
	}
	for _, fin := range finishers {
		for _, pat := range fin.paths {
			dir := strings.HasSuffix(pat, "/")
			for _, p := range deputyPaths(strings.TrimSuffix(pat, "/")) {
				for _, trap := range deputyTraps {
					for _, mode := range modes {
						name := fin.name + "/" + strings.ReplaceAll(p, "/", "|") + "/" + trap.name + "/" + mode.String()
						t.Run(name, func(t *testing.T) {
							if deputyCase(t, fin, p, dir, trap, mode) {
								planted[fin.name]++
							}
						})
					}
				}
			}
		}
	}
	if t.Failed() {
		return
	}
	for _, fin := range finishers {
		if len(fin.paths) == 0 {
			t.Errorf("finisher %s lists no path: the deputy test cannot exercise it", fin.name)
		}
		if planted[fin.name] == 0 {
			t.Errorf("finisher %s: no trap could be planted at its paths", fin.name)
		}
		if finisherRunCount(fin.name) == before[fin.name] {
			t.Errorf("finisher %s never ran in the deputy test", fin.name)
		}
	}
}

func finisherRunCount(name string) int64 {
	finisherRunsMu.Lock()
	defer finisherRunsMu.Unlock()
	if v, ok := finisherRuns.Load(name); ok {
		return *v.(*int64)
	}
	return 0
}

// deputyCase runs one trap; it says whether the trap was planted.
func deputyCase(t *testing.T, fin finisher, p string, dir bool, trap deputyTrap, mode Mode) bool {
	f := newPostFixture(t)
	if strings.HasPrefix(fin.name, "git-view") {
		g := gitFixture(t)
		os.RemoveAll(f.ws)
		if err := os.Rename(g.ws, f.ws); err != nil {
			t.Fatal(err)
		}
	}
	if trap.pre != nil {
		trap.pre(t, f, p)
	}
	f.before = nil
	plant := trap.script(p, dir)
	if trap.pre == nil {
		plant = `rm -rf ` + p + ` 2>/dev/null; mkdir -p "$(dirname ` + p + `)" && ` + plant
	}
	r := f.postRun(t, mode, f.sub(`( `+plant+` ) 2>/dev/null && echo PLANTED; true`))
	if r.err != nil {
		// Strict refused to run at all (a device where .git is): nothing
		// ran, nothing to finish.
		return false
	}
	if !strings.Contains(r.out, "PLANTED") {
		// The sandbox itself kept the command from planting it (a
		// read-only part of the .git view, an overlay that cannot copy
		// a device up): nothing for a finisher to meet.
		return false
	}
	if deputyWarnDue(fin, trap.name, p, dir) && (fin.name != "overlay-apply" || mode == Strict) {
		var ws []string
		if r.applied.Post != nil {
			ws = r.applied.Post.Warnings
		}
		if !warnedAbout(ws, p) {
			t.Errorf("no warning names %s: %q\n%s", p, ws, r.out)
		}
	}
	return true
}

// warnedAbout says whether a warning names p (as a path, not as a part
// of a longer name).
func warnedAbout(warns []string, p string) bool {
	for _, w := range warns {
		for i := strings.Index(w, p); i >= 0; {
			end := i + len(p)
			startOK := i == 0 || strings.ContainsRune(" (:", rune(w[i-1]))
			endOK := end == len(w) || strings.ContainsRune(" /:),", rune(w[end]))
			if startOK && endOK {
				return true
			}
			j := strings.Index(w[i+1:], p)
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return false
}

// TestFinishersListed: post-run code runs only through the finisher
// table. A finish method called anywhere but finish_linux.go (a step
// added outside the table, which the deputy test would not exercise)
// fails this test.
func TestFinishersListed(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources: %v", err)
	}
	calls := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := c.Fun.(*ast.SelectorExpr)
			if !ok || !strings.HasPrefix(strings.ToLower(sel.Sel.Name), "finish") {
				return true
			}
			calls++
			if name != "finish_linux.go" {
				t.Errorf("%s: %s is called outside the finisher table (finish_linux.go)", fset.Position(c.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
	if calls < len(finishers) {
		t.Errorf("%d finish calls found for %d finishers: the table does not call them", calls, len(finishers))
	}
}
