//go:build linux

package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
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
// in the workspace (directories read).
const wsScanLimit = 20000

// wsScanSkip are directories of installed dependencies and tool caches
// the post-run search does not enter, nor any directory holding a
// CACHEDIR.TAG (cargo's target/, most caches). They hold most of a
// project's directories (a node_modules tree alone has thousands, which
// cost ~5 µs each on every call), and nobody runs git inside them: a
// gitfile there only redirects a git started in that directory.
var wsScanSkip = map[string]bool{
	"node_modules": true, "bower_components": true, ".venv": true, "venv": true,
	"__pycache__": true, ".tox": true, ".nox": true, ".mypy_cache": true, ".pytest_cache": true,
	".ruff_cache": true, ".gradle": true, ".next": true, ".nuxt": true, ".terraform": true,
}

// wsGuard is the parent's after-the-run check of the workspace: git
// metadata that would make the user's own git run a program later — a
// gitfile or a .git symlink anywhere (`src/.git: gitdir: …`), a new or
// changed nested .git whose config sets exec-bearing keys, hooks or a
// commondir — and the protected files above.
type wsGuard struct {
	ws      string
	start   time.Time
	existed map[string]bool
	git     *gitState // for git config --file (its git binary)
	// rootGit: the workspace had a .git before the run (the view
	// protects it; its config may legitimately hold any key).
	rootGit bool
}

func prepareWSGuard(ws string, gitBin string) *wsGuard {
	g := &wsGuard{ws: ws, start: time.Now().Add(-100 * time.Millisecond), existed: map[string]bool{}, git: &gitState{git: gitBin}}
	for _, n := range wsProtectedNew {
		if _, err := os.Lstat(filepath.Join(ws, n)); err == nil {
			g.existed[n] = true
		}
	}
	_, err := os.Lstat(filepath.Join(ws, ".git"))
	g.rootGit = err == nil
	return g
}

func (g *wsGuard) changed(st *unix.Stat_t) bool {
	c := time.Unix(st.Ctim.Unix())
	m := time.Unix(st.Mtim.Unix())
	return !c.Before(g.start) || !m.Before(g.start)
}

func (g *wsGuard) finish() (warns []string) {
	if g == nil {
		return nil
	}
	for _, n := range wsProtectedNew {
		p := filepath.Join(g.ws, n)
		if _, err := os.Lstat(p); err == nil && !g.existed[n] {
			os.RemoveAll(p)
			warns = append(warns, fmt.Sprintf("refused: %s created inside the sandbox was removed (it would be obeyed outside)", n))
		}
	}
	dirs := 0
	buf := make([]byte, 32<<10)
	old := takeWSTree(g.ws)
	tree := map[string]*wsDirMemo{}
	now := time.Now()
	checkGit := func(p string, isDir bool, depth int) {
		if depth == 0 && isDir {
			// The workspace's own .git is protected by the view;
			// only a new one (git init inside) is checked.
			if !g.rootGit {
				warns = append(warns, g.checkGitDir(p)...)
			}
			return
		}
		warns = append(warns, g.checkDotGit(p, isDir)...)
	}
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if dirs >= wsScanLimit {
			return
		}
		dirs++
		// Taken before the directory is read: a change made after that
		// moves its times, and the next search reads it again.
		var st unix.Stat_t
		if unix.Lstat(dir, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return
		}
		if m := old[dir]; m != nil && m.same(&st) {
			// Nothing was added, removed or renamed in it since the
			// last search: its subdirectories and .git entry are
			// those it had (a .git entry is still checked: a file's
			// content can change without its directory's times).
			tree[dir] = m
			if m.skip {
				return
			}
			if m.git != 0 {
				checkGit(dir+"/.git", m.git == gitEntryDir, depth)
			}
			for _, sub := range m.subdirs {
				walk(dir+"/"+sub, depth+1)
			}
			return
		}
		ents := readDirents(dir, buf)
		wsDirsRead.Add(1)
		m := &wsDirMemo{ino: st.Ino, mtim: st.Mtim, ctim: st.Ctim}
		if depth > 0 {
			for _, e := range ents {
				if e.name == "CACHEDIR.TAG" && !e.dir {
					m.skip = true
				}
			}
		}
		if m.settled(now) {
			// Changed just now: times this close to the search may not
			// move for a change in the same clock tick; read it again
			// next time.
			tree[dir] = m
		}
		if m.skip {
			return
		}
		for _, e := range ents {
			p := dir + "/" + e.name
			if e.name == ".git" {
				m.git = gitEntryFile
				if e.dir {
					m.git = gitEntryDir
				}
				checkGit(p, e.dir, depth)
				continue
			}
			if e.dir && !wsScanSkip[e.name] {
				m.subdirs = append(m.subdirs, e.name)
				walk(p, depth+1)
			}
		}
	}
	walk(g.ws, 0)
	putWSTree(g.ws, tree)
	if dirs >= wsScanLimit {
		warns = append(warns, fmt.Sprintf("the workspace has more than %d directories: git metadata created by the command was not searched everywhere", wsScanLimit))
	}
	return warns
}

func (g *wsGuard) rel(p string) string {
	if r, err := filepath.Rel(g.ws, p); err == nil {
		return r
	}
	return p
}

// checkDotGit handles a .git entry below the workspace root.
func (g *wsGuard) checkDotGit(p string, isDir bool) []string {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil {
		return nil
	}
	if !isDir {
		// A gitfile or a symlink redirects git to another directory.
		if g.changed(&st) {
			os.Remove(p)
			return []string{fmt.Sprintf("refused: %s (a gitfile or .git link written inside the sandbox) was removed", g.rel(p))}
		}
		return nil
	}
	return g.checkGitDir(p)
}

// checkGitDir cleans a git directory written during the run: exec-bearing
// config keys unset, new hooks and commondir removed.
func (g *wsGuard) checkGitDir(p string) (warns []string) {
	for _, n := range []string{"commondir", "gitdir"} {
		f := filepath.Join(p, n)
		var st unix.Stat_t
		if unix.Lstat(f, &st) == nil && g.changed(&st) {
			os.Remove(f)
			warns = append(warns, fmt.Sprintf("refused: %s was removed", g.rel(f)))
		}
	}
	if ents, err := os.ReadDir(filepath.Join(p, "hooks")); err == nil {
		for _, e := range ents {
			f := filepath.Join(p, "hooks", e.Name())
			var st unix.Stat_t
			if strings.HasSuffix(e.Name(), ".sample") || unix.Lstat(f, &st) != nil || !g.changed(&st) {
				continue
			}
			os.RemoveAll(f)
			warns = append(warns, fmt.Sprintf("refused: hook %s written inside the sandbox was removed", g.rel(f)))
		}
	}
	cfg := filepath.Join(p, "config")
	var st unix.Stat_t
	if unix.Lstat(cfg, &st) != nil || !g.changed(&st) {
		return warns
	}
	if g.git.git == "" {
		os.Rename(cfg, cfg+".refused")
		return append(warns, fmt.Sprintf("refused: %s written inside the sandbox was renamed to config.refused (git not found to check it)", g.rel(cfg)))
	}
	vals, err := g.git.gitList(cfg)
	if err != nil {
		os.Rename(cfg, cfg+".refused")
		return append(warns, fmt.Sprintf("refused: %s could not be parsed and was renamed to config.refused", g.rel(cfg)))
	}
	for k, vs := range vals {
		ok := gitInitKey(k)
		for _, v := range vs {
			ok = ok || gitConfigAllowed(k, v)
		}
		if ok {
			continue
		}
		if err := g.git.gitRun("--file", cfg, "--unset-all", k); err != nil {
			os.Rename(cfg, cfg+".refused")
			return append(warns, fmt.Sprintf("refused: %s sets %s and was renamed to config.refused", g.rel(cfg), k))
		}
		warns = append(warns, fmt.Sprintf("refused: %s was removed from %s (it can make git run a program)", k, g.rel(cfg)))
	}
	return warns
}

// gitInitKey: what git init and git clone write themselves.
func gitInitKey(k string) bool {
	switch strings.ToLower(k) {
	case "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates",
		"core.ignorecase", "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.eol",
		"core.worktree", "extensions.objectformat", "extensions.refstorage", "extensions.noop",
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

// readDirents lists dir with getdents64 directly (no per-file poller
// set-up, no sorting): the post-run search reads every directory.
func readDirents(dir string, buf []byte) []dirent {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
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
		for off := 0; off+19 <= n; {
			reclen := int(buf[off+16]) | int(buf[off+17])<<8
			if reclen == 0 || off+reclen > n {
				break
			}
			typ := buf[off+18]
			name := buf[off+19 : off+reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if s := string(name); s != "." && s != ".." {
				d := typ == unix.DT_DIR
				if typ == unix.DT_UNKNOWN {
					var st unix.Stat_t
					d = unix.Lstat(dir+"/"+s, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
				}
				out = append(out, dirent{s, d})
			}
			off += reclen
		}
	}
}
