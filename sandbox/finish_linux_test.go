//go:build linux

package sandbox

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
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
			if os.Geteuid() != 0 && errors.Is(err, unix.EPERM) {
				// Not a missing feature: without CAP_MKNOD no one can
				// make this trap, the command included.
				t.Skipf("uid %d cannot make a device node, so neither can a command it runs", os.Geteuid())
			}
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
		// A state file, or a file of a state directory, is git's data:
		// git does not follow a "gitdir:" line there.
		return !fin.ordinary && !gitStateFiles[base] && !gitStateDirs[filepath.Base(filepath.Dir(p))]
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
// reported. Paths of one finisher that do not hold each other get the
// same trap in the same run (one run per group, not per path).
func TestDeputy(t *testing.T) {
	modes := postModes
	if testing.Short() {
		modes = []Mode{Strict}
	}
	// The sandbox is in force, with the layers the finishers meet.
	repo := gitFixture(t)
	deputyRepo = repo.ws
	for _, mode := range modes {
		g := repo
		a := g.assertActive(t, Spec{Mode: mode})
		need(t, a, LayerGit)
		if mode == Strict {
			need(t, a, LayerOverlay)
		}
	}
	planted := map[string]int{}
	before := map[string]int64{}
	for _, fin := range finishers {
		before[fin.name] = finisherRunCount(fin.name)
	}
	for _, fin := range finishers {
		for gi, group := range deputyGroups(fin.paths) {
			for _, trap := range deputyTraps {
				for _, mode := range modes {
					name := fin.name + "/" + strconv.Itoa(gi) + "/" + trap.name + "/" + mode.String()
					t.Run(name, func(t *testing.T) {
						planted[fin.name] += deputyCase(t, fin, group, trap, mode)
					})
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

// deputyRepo is a repository the git cases copy (git runs once).
var deputyRepo string

// deputyPath is one concrete path of a finisher; dir: a directory is
// expected there.
type deputyPath struct {
	p   string
	dir bool
}

// deputyGroups expands the patterns and groups the paths so that no path
// of a group lies inside another of it.
func deputyGroups(pats []string) [][]deputyPath {
	var groups [][]deputyPath
	for _, pat := range pats {
		dir := strings.HasSuffix(pat, "/")
		for _, p := range deputyPaths(strings.TrimSuffix(pat, "/")) {
			placed := false
			for i, g := range groups {
				clash := false
				for _, q := range g {
					if strings.HasPrefix(p+"/", q.p+"/") || strings.HasPrefix(q.p+"/", p+"/") {
						clash = true
					}
				}
				if !clash {
					groups[i] = append(g, deputyPath{p, dir})
					placed = true
					break
				}
			}
			if !placed {
				groups = append(groups, []deputyPath{{p, dir}})
			}
		}
	}
	return groups
}

func finisherRunCount(name string) int64 {
	finisherRuns.Lock()
	defer finisherRuns.Unlock()
	return finisherRuns.n[name]
}

// deputyCase plants one trap at every path of a group in one run; it
// returns how many were planted.
func deputyCase(t *testing.T, fin finisher, group []deputyPath, trap deputyTrap, mode Mode) int {
	f := newPostFixture(t)
	if fin.name == "git-view" {
		f.repoFrom(t, deputyRepo)
	}
	if fin.name == "overlay-review" {
		f.review = true
		f.reviewer = func(cs []Change) ([]string, error) {
			var all []string
			for _, c := range cs {
				all = append(all, c.Path)
			}
			return all, nil
		}
	}
	var script strings.Builder
	for i, dp := range group {
		if trap.pre != nil {
			trap.pre(t, f, dp.p)
		}
		plant := trap.script(dp.p, dp.dir)
		if trap.pre == nil {
			plant = `rm -rf ` + dp.p + ` 2>/dev/null; mkdir -p "$(dirname ` + dp.p + `)" && ` + plant
		}
		script.WriteString(`( ` + plant + ` ) 2>/dev/null && echo PLANTED-` + strconv.Itoa(i) + "\n")
	}
	script.WriteString("true\n")
	pastSetup()
	f.before = nil
	r := f.postRun(t, mode, f.sub(script.String()))
	if r.err != nil {
		// Strict refused to run at all (a device where .git is): nothing
		// ran, nothing to finish.
		return 0
	}
	n := 0
	for i, dp := range group {
		if !strings.Contains(r.out, "PLANTED-"+strconv.Itoa(i)+"\n") {
			// The sandbox itself kept the command from planting it (a
			// read-only part of the .git view, an overlay that cannot
			// copy a device up): nothing for a finisher to meet.
			continue
		}
		n++
		if deputyWarnDue(fin, trap.name, dp.p, dp.dir) && (fin.name != "overlay-apply" || mode == Strict) {
			var ws []string
			if r.applied.Post != nil {
				ws = r.applied.Post.Warnings
			}
			if !warnedAbout(ws, dp.p) {
				t.Errorf("no warning names %s: %q\n%s", dp.p, ws, r.out)
			}
		}
	}
	return n
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

// TestFinishDeadline: a post-run step that does not return within the
// deadline does not hold the run: Close returns, the step is named as
// unfinished and the run is reported failed closed; the steps after it
// are not run.
func TestFinishDeadline(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	var laterRan bool
	saved := finishers
	t.Cleanup(func() { finishers = saved })
	finishers = []finisher{
		{name: "test-blocking", paths: []string{"x"}, active: func(*Handle) bool { return true },
			run: func(*Handle, *finishCtx) ([]string, []string) {
				<-block
				return nil, nil
			}, release: func(*Handle) {}},
		{name: "test-later", paths: []string{"y"}, active: func(*Handle) bool { return true },
			run: func(*Handle, *finishCtx) ([]string, []string) {
				laterRan = true
				return nil, nil
			}, release: func(*Handle) {}},
	}
	h := &Handle{post: &PostRun{}, postTimeout: 200 * time.Millisecond}
	done := make(chan struct{})
	go func() {
		h.runFinishers()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("runFinishers did not return within 20 s of a 200 ms deadline")
	}
	if strings.Join(h.post.Unfinished, ",") != "test-blocking,test-later" || laterRan {
		t.Errorf("unfinished = %q (the later step ran: %v), want both named and the later one not run", h.post.Unfinished, laterRan)
	}
	if len(h.post.Warnings) != 1 || !strings.HasPrefix(h.post.Warnings[0], "failed closed:") {
		t.Errorf("warnings = %q, want one saying the run failed closed", h.post.Warnings)
	}
}

// TestFinishDeadlineEndToEnd: with no time left at all, a sandboxed run
// reports every post-run step it had as unfinished.
func TestFinishDeadlineEndToEnd(t *testing.T) {
	f := gitFixture(t)
	f.assertActive(t, Spec{})
	r := f.run(t, Spec{PostRunTimeout: time.Nanosecond}, `echo x > new.txt`, 30*time.Second)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.applied.Post == nil || len(r.applied.Post.Unfinished) == 0 {
		t.Fatalf("post-run = %+v, want unfinished steps", r.applied.Post)
	}
	for _, want := range []string{"git-view", "git-search"} {
		if !strings.Contains(strings.Join(r.applied.Post.Unfinished, " "), want) {
			t.Errorf("unfinished = %q, want %s among them", r.applied.Post.Unfinished, want)
		}
	}
	// The view was released: the next run works.
	r = f.run(t, Spec{}, `git status --porcelain >/dev/null && echo ok`, 30*time.Second)
	if !strings.Contains(r.out, "ok") {
		t.Errorf("the run after a failed-closed one: %s", r.out)
	}
}

// TestSearchLimitFailsClosed: a workspace with more directories than the
// search reads is reported unfinished, not passed.
func TestSearchLimitFailsClosed(t *testing.T) {
	old := wsScanLimit
	wsScanLimit = 3
	t.Cleanup(func() { wsScanLimit = old })
	ws := t.TempDir()
	for _, d := range []string{"a/b/c", "d/e", "f"} {
		os.MkdirAll(filepath.Join(ws, d), 0o755)
	}
	g := prepareWSGuard(ws, false)
	defer g.close()
	fc := &finishCtx{deadline: time.Now().Add(time.Minute)}
	warns := g.finishSearch(fc)
	if !fc.ranOut || len(warns) != 1 || !strings.HasPrefix(warns[0], "failed closed:") {
		t.Errorf("ranOut %v, warnings %q: want the search to fail closed at its limit", fc.ranOut, warns)
	}
}

// TestOpenBeneath: the finishers' opens refuse a symlink anywhere in the
// path and ".." out of the directory, never block on a FIFO, and read
// only regular files; the walk used without openat2 does the same.
func TestOpenBeneath(t *testing.T) {
	root := t.TempDir()
	ws, out := filepath.Join(root, "ws"), filepath.Join(root, "out")
	os.MkdirAll(filepath.Join(ws, "a"), 0o755)
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(ws, "a", "f"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(out, "f"), []byte("outside"), 0o644)
	os.Symlink(out, filepath.Join(ws, "link"))
	os.Symlink("f", filepath.Join(ws, "a", "flink"))
	if err := unix.Mkfifo(filepath.Join(ws, "a", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(ws, "a", "d"), 0o755)
	wsfd, err := unix.Open(ws, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(wsfd)
	opens := map[string]func(int, string, int) (int, error){"openat2": openBeneath, "walk": openWalk}
	for name, open := range opens {
		if fd, err := open(wsfd, "a/f", unix.O_RDONLY); err != nil {
			t.Errorf("%s a/f: %v", name, err)
		} else {
			unix.Close(fd)
		}
		for _, bad := range []string{"link/f", "a/flink", "../out/f", "a/../../out/f"} {
			if fd, err := open(wsfd, bad, unix.O_RDONLY); err == nil {
				unix.Close(fd)
				t.Errorf("%s %s: opened, want refused", name, bad)
			}
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := readRegularAt(wsfd, "a/fifo")
		done <- err
	}()
	select {
	case err := <-done:
		if err != errNotRegular {
			t.Errorf("FIFO: %v, want errNotRegular", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("reading a FIFO blocked")
	}
	if _, err := readRegularAt(wsfd, "a/d"); err != errNotRegular {
		t.Errorf("directory: %v, want errNotRegular", err)
	}
	if b, err := readRegularAt(wsfd, "a/f"); err != nil || string(b) != "inside" {
		t.Errorf("a/f: %q %v", b, err)
	}
	if err := removeBeneath(wsfd, "link"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "f")); err != nil {
		t.Errorf("removing a symlink to a directory touched the directory: %v", err)
	}
}
