//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// wsProtectedNew are workspace files that something outside the sandbox
// obeys (direnv, shellguard's project config). They are read-only when they
// exist; one created inside the sandbox is removed after the run.
var wsProtectedNew = []string{".envrc", ".shellguard.yaml", ".shellguard.yml"}

// wsScanLimit bounds the post-run search for git metadata the run created
// in the workspace (directories read). At the limit the search fails
// closed: the run is reported as not fully checked.
var wsScanLimit = 20000

// wsScanSkip are directories of installed dependencies and tool caches
// the post-run search does not enter, nor any directory holding a
// CACHEDIR.TAG (cargo's target/, most caches), unless the directory or
// its tag was created or changed during the run: a marker the command
// wrote is not trusted. They hold most of a project's directories (a
// node_modules tree alone has thousands, which cost ~5 µs each on every
// call), and nobody runs git inside them.
var wsScanSkip = map[string]bool{
	"node_modules": true, "bower_components": true, ".venv": true, "venv": true,
	"__pycache__": true, ".tox": true, ".nox": true, ".mypy_cache": true, ".pytest_cache": true,
	".ruff_cache": true, ".gradle": true, ".next": true, ".nuxt": true, ".terraform": true,
}

// wsGuard is the parent's after-the-run check of the workspace: git
// metadata that would make the user's own git run a program later — a
// gitfile or a .git symlink anywhere (`src/.git: gitdir: …`), a new or
// changed git directory (found by git's rules: .git directories, the
// targets of gitfiles and .git symlinks inside the workspace, commondir,
// worktrees/ and modules/) whose config sets exec-bearing keys, hooks or
// a commondir — and the protected files above.
//
// It works from a descriptor of the workspace taken before the run
// (finish_linux.go): nothing it opens, reads or removes is reached
// through a symlink or outside the workspace.
type wsGuard struct {
	ws   string
	wsfd int // the workspace, opened before the run (-1: could not be)
	// start is the coarse clock when the run started: the kernel stamps
	// every change after it with a ctime at or after it (a ctime cannot
	// be set back), so "ctime >= start" is "changed during the run".
	start unix.Timespec
	// protected: what the protected files were before the run.
	protected map[string]wsFileSnap
	// rootView: the workspace's own .git directory is protected by the
	// view (git_linux.go) and not searched.
	rootView bool
	// visited: git directories checked in this search (dev, inode).
	visited map[[2]uint64]bool
	fc      *finishCtx
}

// wsFileSnap is a protected file before the run.
type wsFileSnap struct {
	dev, ino uint64
	ctim     unix.Timespec
	data     []byte // a regular file's content (nil otherwise)
	regular  bool
}

func prepareWSGuard(ws string, rootView bool) *wsGuard {
	g := &wsGuard{ws: ws, protected: map[string]wsFileSnap{}, rootView: rootView}
	unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &g.start)
	fd, err := unix.Open(ws, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		g.wsfd = -1
		return g
	}
	g.wsfd = fd
	for _, n := range wsProtectedNew {
		var st unix.Stat_t
		if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		s := wsFileSnap{dev: st.Dev, ino: st.Ino, ctim: st.Ctim, regular: st.Mode&unix.S_IFMT == unix.S_IFREG}
		if s.regular {
			s.data, _ = readRegularAt(fd, n)
		}
		g.protected[n] = s
	}
	return g
}

// close releases the workspace descriptor.
func (g *wsGuard) close() {
	if g != nil && g.wsfd >= 0 {
		unix.Close(g.wsfd)
		g.wsfd = -1
	}
}

func (g *wsGuard) changed(st *unix.Stat_t) bool {
	return tsNotBefore(st.Ctim, g.start) || tsNotBefore(st.Mtim, g.start)
}

func tsNotBefore(a, b unix.Timespec) bool {
	return a.Sec > b.Sec || (a.Sec == b.Sec && a.Nsec >= b.Nsec)
}

// finishProtected removes a protected file the run created, and puts
// back one it replaced or changed (through another name of its inode).
func (g *wsGuard) finishProtected(fc *finishCtx) (warns []string) {
	if g == nil || g.wsfd < 0 {
		return nil
	}
	for _, n := range wsProtectedNew {
		var st unix.Stat_t
		exists := unix.Fstatat(g.wsfd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil
		old, had := g.protected[n]
		switch {
		case exists && !had:
			kind := kindAt(g.wsfd, n)
			if err := removeNameAt(g.wsfd, n); err != nil {
				warns = append(warns, fmt.Sprintf("refused: %s (a %s) created inside the sandbox could not be removed: %v", n, kind, err))
				continue
			}
			warns = append(warns, fmt.Sprintf("refused: %s (a %s) created inside the sandbox was removed (it would be obeyed outside)", n, kind))
		case had && old.regular && (!exists || st.Dev != old.dev || st.Ino != old.ino || st.Ctim != old.ctim):
			if exists {
				if b, err := readRegularAt(g.wsfd, n); err == nil && string(b) == string(old.data) && st.Ino == old.ino {
					continue
				}
				if st.Mode&unix.S_IFMT == unix.S_IFDIR {
					removeNameAt(g.wsfd, n)
				}
			}
			if err := writeFileAt(g.wsfd, n, old.data, 0o644); err != nil {
				warns = append(warns, fmt.Sprintf("refused: %s was changed inside the sandbox and could not be put back: %v", n, err))
				continue
			}
			warns = append(warns, fmt.Sprintf("refused: %s was changed inside the sandbox; its content from before the run was put back", n))
		}
	}
	return warns
}

// finishSearch searches the workspace for git metadata the run created.
func (g *wsGuard) finishSearch(fc *finishCtx) (warns []string) {
	if g == nil {
		return nil
	}
	if g.wsfd < 0 {
		fc.ranOut = true
		return []string{"failed closed: the workspace could not be opened for the post-run search"}
	}
	g.fc = fc
	g.visited = map[[2]uint64]bool{}
	dirs := 0
	limited := false
	buf := make([]byte, 32<<10)
	old := takeWSTree(g.ws)
	tree := map[string]*wsDirMemo{}
	now := time.Now()
	var walk func(dfd int, rel string, depth int)
	walk = func(dfd int, rel string, depth int) {
		if dirs >= wsScanLimit {
			limited = true
			return
		}
		if fc.expired() {
			return
		}
		dirs++
		// Taken before the directory is read: a change made after that
		// moves its times, and the next search reads it again.
		var st unix.Stat_t
		if unix.Fstat(dfd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return
		}
		sub := func(name string) {
			cfd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
			if err != nil {
				return
			}
			walk(cfd, joinRel(rel, name), depth+1)
			unix.Close(cfd)
		}
		if m := old[rel]; m != nil && m.same(&st) {
			// Nothing was added, removed or renamed in it since the
			// last search: its subdirectories and .git entry are
			// those it had (a .git entry is still checked: a file's
			// content can change without its directory's times).
			tree[rel] = m
			if m.skip {
				return
			}
			if m.git != 0 {
				warns = append(warns, g.checkDotGit(dfd, rel, depth)...)
			}
			for _, s := range m.subdirs {
				sub(s)
			}
			return
		}
		ents := readDirentsFd(dfd, buf)
		wsDirsRead.Add(1)
		m := &wsDirMemo{ino: st.Ino, mtim: st.Mtim, ctim: st.Ctim}
		if depth > 0 && !g.changed(&st) {
			for _, e := range ents {
				var ts unix.Stat_t
				// A tag the run wrote is not trusted.
				if e.name == "CACHEDIR.TAG" && !e.dir && unix.Fstatat(dfd, e.name, &ts, unix.AT_SYMLINK_NOFOLLOW) == nil && !g.changed(&ts) {
					m.skip = true
				}
			}
		}
		if m.settled(now) {
			// Changed just now: times this close to the search may not
			// move for a change in the same clock tick; read it again
			// next time.
			tree[rel] = m
		}
		if m.skip {
			return
		}
		for _, e := range ents {
			if e.name == ".git" {
				m.git = gitEntryFile
				if e.dir {
					m.git = gitEntryDir
				}
				warns = append(warns, g.checkDotGit(dfd, rel, depth)...)
				continue
			}
			if !e.dir {
				continue
			}
			if wsScanSkip[e.name] {
				// Skipped only as it was before the run.
				var ss unix.Stat_t
				if unix.Fstatat(dfd, e.name, &ss, unix.AT_SYMLINK_NOFOLLOW) != nil || !g.changed(&ss) {
					continue
				}
			}
			m.subdirs = append(m.subdirs, e.name)
			sub(e.name)
		}
	}
	walk(g.wsfd, "", 0)
	if !fc.expired() && !limited {
		putWSTree(g.ws, tree)
	}
	if limited {
		fc.ranOut = true
		warns = append(warns, fmt.Sprintf("failed closed: the workspace has more than %d directories: git metadata created by the command was not searched everywhere", wsScanLimit))
	}
	return warns
}

// checkDotGit handles the .git entry of the directory dfd (rel).
func (g *wsGuard) checkDotGit(dfd int, rel string, depth int) []string {
	var st unix.Stat_t
	if unix.Fstatat(dfd, ".git", &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return nil
	}
	p := joinRel(rel, ".git")
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		if depth == 0 && g.rootView {
			return nil // the view protects it (git_linux.go)
		}
		gfd, err := unix.Openat(dfd, ".git", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil
		}
		defer unix.Close(gfd)
		return g.checkGitDir(gfd, p, 0)
	}
	if g.changed(&st) {
		// A gitfile, a symlink or anything else written during the run:
		// it redirects git to another directory.
		kind := kindAt(dfd, ".git")
		how, err := g.refuse(dfd, ".git", &st)
		if err != nil {
			return []string{fmt.Sprintf("refused: %s (a %s written inside the sandbox) could not be removed: %v", p, kind, err)}
		}
		return []string{fmt.Sprintf("refused: %s (a %s written inside the sandbox; it redirects git) was %s", p, kind, how)}
	}
	// One from before the run: the git directory it names, when that is
	// in the workspace, is checked like any other.
	var target string
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		b, err := readRegularAt(dfd, ".git")
		if err != nil {
			return nil
		}
		t, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return nil
		}
		target = strings.TrimSpace(t)
	case unix.S_IFLNK:
		t, err := readlinkAt(dfd, ".git")
		if err != nil {
			return nil
		}
		target = t
	default:
		return nil
	}
	return g.checkGitDirAt(rel, target)
}

// checkGitDirAt checks the git directory target (absolute, or relative
// to the workspace directory rel) when it lies in the workspace.
func (g *wsGuard) checkGitDirAt(rel, target string) []string {
	var r string
	if filepath.IsAbs(target) {
		var err error
		if r, err = filepath.Rel(g.ws, filepath.Clean(target)); err != nil {
			return nil
		}
	} else {
		r = filepath.Clean(filepath.Join(rel, target))
	}
	if r == ".." || strings.HasPrefix(r, "../") {
		return nil // outside the workspace: read-only inside the sandbox
	}
	gfd, err := openBeneath(g.wsfd, r, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			return []string{fmt.Sprintf("the git directory %s is reached through a symlink and was not checked", r)}
		}
		return nil
	}
	defer unix.Close(gfd)
	return g.checkGitDir(gfd, r, 0)
}

// gitDirMaxDepth bounds modules/ and worktrees/ nesting.
const gitDirMaxDepth = 8

// checkGitDir cleans a git directory (gfd, rel) of what the run wrote
// there: a commondir or gitdir file removed, new hooks removed, config
// keys that can run a program dropped; then its worktrees/ and modules/
// (git directories of their own) and the common directory it names.
func (g *wsGuard) checkGitDir(gfd int, rel string, depth int) (warns []string) {
	var st unix.Stat_t
	if unix.Fstat(gfd, &st) != nil || depth > gitDirMaxDepth || g.fc.expired() {
		return nil
	}
	id := [2]uint64{st.Dev, st.Ino}
	if g.visited[id] {
		return nil
	}
	g.visited[id] = true
	for _, n := range []string{"commondir", "gitdir"} {
		var fs unix.Stat_t
		if unix.Fstatat(gfd, n, &fs, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		p := joinRel(rel, n)
		if g.changed(&fs) {
			kind := kindAt(gfd, n)
			if how, err := g.refuse(gfd, n, &fs); err != nil {
				warns = append(warns, fmt.Sprintf("refused: %s (a %s written inside the sandbox) could not be removed: %v", p, kind, err))
			} else {
				warns = append(warns, fmt.Sprintf("refused: %s (a %s written inside the sandbox) was %s", p, kind, how))
			}
			continue
		}
		if n == "commondir" {
			if b, err := readRegularAt(gfd, n); err == nil {
				warns = append(warns, g.checkGitDirAt(rel, strings.TrimSpace(string(b)))...)
			}
		}
	}
	warns = append(warns, g.checkHooks(gfd, rel)...)
	for _, n := range []string{"config", "config.worktree"} {
		warns = append(warns, g.checkConfig(gfd, rel, n)...)
	}
	for _, d := range []string{"worktrees", "modules"} {
		warns = append(warns, g.checkGitSubdirs(gfd, joinRel(rel, d), d, depth+1)...)
	}
	return warns
}

// checkGitSubdirs checks every git directory below name in gfd
// (worktrees/<w>, modules/<path…>).
func (g *wsGuard) checkGitSubdirs(gfd int, rel, name string, depth int) (warns []string) {
	if depth > gitDirMaxDepth {
		return nil
	}
	dfd, err := unix.Openat(gfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		var st unix.Stat_t
		if unix.Fstatat(gfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR && g.changed(&st) {
			kind := kindAt(gfd, name)
			if how, err := g.refuse(gfd, name, &st); err == nil {
				warns = append(warns, fmt.Sprintf("refused: %s (a %s written inside the sandbox) was %s", rel, kind, how))
			}
		}
		return warns
	}
	defer unix.Close(dfd)
	for _, e := range readDirentsFd(dfd, make([]byte, 8<<10)) {
		if !e.dir {
			continue
		}
		cfd, err := unix.Openat(dfd, e.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		// Every directory here is taken for a git directory (what
		// it holds is git's alone); one without a HEAD may also hold
		// others (a submodule named a/b is modules/a/b).
		warns = append(warns, g.checkGitDir(cfd, joinRel(rel, e.name), depth)...)
		var hs unix.Stat_t
		if unix.Fstatat(cfd, "HEAD", &hs, unix.AT_SYMLINK_NOFOLLOW) != nil {
			warns = append(warns, g.checkGitSubdirs(dfd, joinRel(rel, e.name), e.name, depth+1)...)
		}
		unix.Close(cfd)
	}
	return warns
}

// checkHooks removes the hooks written during the run (hooks/ itself
// when the run replaced it by something else).
func (g *wsGuard) checkHooks(gfd int, rel string) (warns []string) {
	p := joinRel(rel, "hooks")
	var st unix.Stat_t
	if unix.Fstatat(gfd, "hooks", &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		if !g.changed(&st) {
			return nil
		}
		kind := kindAt(gfd, "hooks")
		how, err := g.refuse(gfd, "hooks", &st)
		if err != nil {
			return []string{fmt.Sprintf("refused: %s (a %s written inside the sandbox) could not be removed: %v", p, kind, err)}
		}
		return []string{fmt.Sprintf("refused: %s (a %s written inside the sandbox) was %s", p, kind, how)}
	}
	hfd, err := unix.Openat(gfd, "hooks", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(hfd)
	for _, e := range readDirentsFd(hfd, make([]byte, 8<<10)) {
		var hs unix.Stat_t
		if strings.HasSuffix(e.name, ".sample") || unix.Fstatat(hfd, e.name, &hs, unix.AT_SYMLINK_NOFOLLOW) != nil || !g.changed(&hs) {
			continue
		}
		hp := joinRel(p, e.name)
		how, err := g.refuse(hfd, e.name, &hs)
		if err != nil {
			warns = append(warns, fmt.Sprintf("refused: hook %s written inside the sandbox could not be removed: %v", hp, err))
			continue
		}
		warns = append(warns, fmt.Sprintf("refused: hook %s written inside the sandbox was %s", hp, how))
	}
	return warns
}

// checkConfig drops from a config written during the run the keys that
// can make git run a program: parsed and rewritten in process, from a
// regular file only. Anything else there is removed.
func (g *wsGuard) checkConfig(gfd int, rel, name string) (warns []string) {
	p := joinRel(rel, name)
	var st unix.Stat_t
	if unix.Fstatat(gfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || !g.changed(&st) {
		return nil
	}
	b, err := readRegularAt(gfd, name)
	if err != nil {
		kind := kindAt(gfd, name)
		if rerr := removeNameAt(gfd, name); rerr != nil {
			return []string{fmt.Sprintf("refused: %s (a %s written inside the sandbox) could not be removed: %v", p, kind, rerr)}
		}
		return []string{fmt.Sprintf("refused: %s (a %s written inside the sandbox: %v) was removed", p, kind, err)}
	}
	ents, err := parseGitConfig(b)
	if err != nil {
		if rerr := unix.Renameat(gfd, name, gfd, name+".refused"); rerr != nil {
			removeNameAt(gfd, name)
		}
		return []string{fmt.Sprintf("refused: %s could not be parsed (%v) and was renamed to %s.refused", p, err, name)}
	}
	drop := map[string][]string{}
	for k, vs := range gitConfigValues(ents) {
		ok := gitInitKey(k)
		for _, v := range vs {
			ok = ok || gitConfigAllowed(k, v)
		}
		if !ok {
			drop[k] = nil
		}
	}
	if len(drop) == 0 {
		return nil
	}
	nb, err := editGitConfig(b, ents, drop)
	if err == nil {
		err = writeFileAt(gfd, name, nb, st.Mode&0o666)
	}
	keys := make([]string, 0, len(drop))
	for k := range drop {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if err != nil {
		if rerr := unix.Renameat(gfd, name, gfd, name+".refused"); rerr != nil {
			removeNameAt(gfd, name)
		}
		return []string{fmt.Sprintf("refused: %s sets %s and was renamed to %s.refused", p, strings.Join(keys, ", "), name)}
	}
	for _, k := range keys {
		warns = append(warns, fmt.Sprintf("refused: %s was removed from %s (it can make git run a program)", k, p))
	}
	return warns
}

// refusedSuffix names what the search set aside instead of removing.
const refusedSuffix = ".shellguard-refused"

// coarseTick is the resolution of the clock that stamps file times.
var coarseTick = sync.OnceValue(func() int64 {
	var ts unix.Timespec
	if unix.ClockGetres(unix.CLOCK_REALTIME_COARSE, &ts) != nil || ts.Nano() <= 0 {
		return int64(10 * time.Millisecond)
	}
	return ts.Nano()
})

// refuse takes away name in pfd (st is what it is), written during the
// run. Within the first clock tick of the run a time cannot tell the
// run's change from the user's of just before (file times come from a
// clock that ticks every few milliseconds, fine-grained ones can be a
// tick ahead of it): a file, directory or symlink changed then is set
// aside under a new name, not removed, so nothing of the user's is lost.
// Anything else is removed, by descriptor.
func (g *wsGuard) refuse(pfd int, name string, st *unix.Stat_t) (string, error) {
	t := st.Mode & unix.S_IFMT
	firstTick := st.Ctim.Nano()-g.start.Nano() < coarseTick()
	if firstTick && (t == unix.S_IFREG || t == unix.S_IFDIR || t == unix.S_IFLNK) {
		for i := 0; i < 100; i++ {
			aside := name + refusedSuffix
			if i > 0 {
				aside += "-" + strconv.Itoa(i)
			}
			err := unix.Renameat2(pfd, name, pfd, aside, unix.RENAME_NOREPLACE)
			if err == nil {
				return "renamed to " + aside + " (it may be from just before the run)", nil
			}
			if err != unix.EEXIST {
				break
			}
		}
	}
	if err := removeNameAt(pfd, name); err != nil {
		return "", err
	}
	return "removed", nil
}

// gitInitKey: what git init and git clone write themselves.
func gitInitKey(k string) bool {
	switch strings.ToLower(k) {
	case "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
		"core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.eol",
		"extensions.objectformat", "extensions.refstorage", "extensions.noop",
		"init.defaultbranch", "submodule.active", "gc.auto", "pull.rebase", "pull.ff":
		return true
	}
	return false
}

// wsDirMemo is what the post-run search found in one directory: its
// identity and change times when it was read, the subdirectories it
// descended into, its .git entry and whether it is a tagged cache. While
// a directory keeps that inode and those times, no entry was added,
// removed or renamed in it, so the next search does not read it again
// (one lstat instead of an open and two getdents).
type wsDirMemo struct {
	ino        uint64
	mtim, ctim unix.Timespec
	subdirs    []string
	git        int8 // gitEntryNone, gitEntryDir, gitEntryFile
	skip       bool // CACHEDIR.TAG: not entered
}

const (
	gitEntryNone = iota
	gitEntryDir
	gitEntryFile
)

func (m *wsDirMemo) same(st *unix.Stat_t) bool {
	return m.ino == st.Ino && m.mtim == st.Mtim && m.ctim == st.Ctim
}

// wsRacyWindow: a directory changed less than this before it was read is
// not remembered (its times come from a coarse clock).
const wsRacyWindow = 100 * time.Millisecond

func (m *wsDirMemo) settled(now time.Time) bool {
	newest := time.Unix(m.mtim.Unix())
	if c := time.Unix(m.ctim.Unix()); c.After(newest) {
		newest = c
	}
	return now.Sub(newest) > wsRacyWindow
}

// wsTrees holds, per workspace, the directories of the last post-run
// search, in a process that keeps a pool (a long-lived one: one command
// per process would only pay for remembering). A search takes its
// workspace's tree out while it runs, so a concurrent search in the same
// workspace reads everything.
// wsDirsRead counts the directories the post-run searches read (tests).
var wsDirsRead atomic.Int64

var wsTrees struct {
	sync.Mutex
	m map[string]map[string]*wsDirMemo
}

func takeWSTree(ws string) map[string]*wsDirMemo {
	if !longLived.Load() {
		return nil
	}
	wsTrees.Lock()
	defer wsTrees.Unlock()
	t := wsTrees.m[ws]
	delete(wsTrees.m, ws)
	return t
}

func putWSTree(ws string, t map[string]*wsDirMemo) {
	if !longLived.Load() {
		return
	}
	wsTrees.Lock()
	defer wsTrees.Unlock()
	if wsTrees.m == nil || len(wsTrees.m) >= 64 {
		wsTrees.m = map[string]map[string]*wsDirMemo{}
	}
	wsTrees.m[ws] = t
}

type dirent struct {
	name string
	dir  bool
}

// readDirentsFd lists the directory dfd with getdents64 directly (no
// per-file poller set-up, no sorting): the post-run search reads every
// directory. The offset is rewound first (a memo may list it again).
func readDirentsFd(dfd int, buf []byte) []dirent {
	fd, err := unix.Openat(dfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	var out []dirent
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil || n <= 0 {
			return out
		}
		eachDirent(buf[:n], func(s string, typ byte) {
			d := typ == unix.DT_DIR
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				d = unix.Fstatat(dfd, s, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
			}
			out = append(out, dirent{s, d})
		})
	}
}

// eachDirent calls f with the name and d_type of each linux_dirent64
// record in buf (what getdents64 returned), "." and ".." left out.
func eachDirent(buf []byte, f func(name string, typ byte)) {
	for off := 0; off+19 <= len(buf); {
		reclen := int(buf[off+16]) | int(buf[off+17])<<8
		if reclen == 0 || off+reclen > len(buf) {
			return
		}
		name := buf[off+19 : off+reclen]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if s := string(name); s != "." && s != ".." {
			f(s, buf[off+18])
		}
		off += reclen
	}
}
