//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// gitSpec tells the helper how to present the workspace's .git: a private
// view directory is bound over it; the data directories of the real .git
// are bound into it writable, the other directories read-only.
type gitSpec struct {
	Dir  string   `json:"dir"`
	View string   `json:"view"`
	RW   []string `json:"rw,omitempty"`
	RO   []string `json:"ro,omitempty"`
}

// gitViewPrefix names the view directories inside .git.
const gitViewPrefix = ".shellguard-view-"

// gitState is the parent's side of a .git view: what to move back after
// the run.
type gitState struct {
	dir, view string
	bound     map[string]bool
	links     map[string]uint64        // state file -> inode of the real file
	mtimes    map[string]unix.Timespec // … and its mtime (inode numbers get reused)
	moved     []string                 // state dirs moved into the view
	config    []byte                   // the real config before the run
	copies    map[string][]byte        // other files, copied
	git       string                   // git binary for the config broker
	lockFd    int
	done      bool
}

// prepareGit builds the view of ws/.git (nil when ws has no .git
// directory). Hard links make the state files the same inodes as the real
// ones, so nothing is copied but the config.
//
// A view outlives its run: finish leaves it in .git, unlocked, and the
// next run locks it and brings it in line with the real .git entry by
// entry (syncView). In the common case, where nothing in .git changed,
// that is a handful of stats and reads instead of creating and removing
// a dozen directories, links and files on every call.
func prepareGit(ws string, env []string) (*gitSpec, *gitState, error) {
	gd := filepath.Join(ws, ".git")
	fi, err := os.Lstat(gd)
	if err != nil || !fi.IsDir() {
		return nil, nil, nil
	}
	ents, err := os.ReadDir(gd)
	if err != nil {
		return nil, nil, err
	}
	view, lockFd, changed := claimView(gd, ents)
	if changed {
		if ents, err = os.ReadDir(gd); err != nil {
			if lockFd >= 0 {
				unix.Close(lockFd)
			}
			return nil, nil, err
		}
	}
	if view == "" {
		if view, lockFd, err = newView(gd); err != nil {
			return nil, nil, err
		}
	}
	gs := &gitSpec{Dir: gd, View: view}
	st := &gitState{dir: gd, view: view, lockFd: lockFd, bound: map[string]bool{}, links: map[string]uint64{}, mtimes: map[string]unix.Timespec{}, copies: map[string][]byte{}}
	st.git = lookGit(env)
	if err := st.syncView(gs, ents); err != nil {
		st.discard()
		return nil, nil, err
	}
	return gs, st, nil
}

// staleViewAge is how long a view without a lock file, or one still being
// created, must have been left alone before it counts as left by a killed
// run.
const staleViewAge = time.Minute

// gitViewNew prefixes a view while it is being created: its lock is taken
// before it gets its final name, so no other run can take it meanwhile.
const gitViewNew = gitViewPrefix + "new-"

// lockBeside creates path+".lock" (it must not exist yet) and holds an
// exclusive lock on it, returning its descriptor.
func lockBeside(path string) (int, error) {
	fd, err := unix.Open(path+".lock", unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return -1, err
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// newView creates an empty view in gd and returns it locked.
func newView(gd string) (string, int, error) {
	tmp, err := os.MkdirTemp(gd, gitViewNew)
	if err != nil {
		return "", -1, err
	}
	// The lock (next to the view, so not visible inside) is held while
	// the run lives; a view whose lock is free is reused by the next run.
	lockFd, err := lockBeside(tmp)
	if err != nil {
		os.Remove(tmp)
		return "", -1, fmt.Errorf("locking the view: %w", err)
	}
	view := filepath.Join(gd, gitViewPrefix+strings.TrimPrefix(filepath.Base(tmp), gitViewNew))
	if err = os.Rename(tmp+".lock", view+".lock"); err == nil {
		if err = os.Rename(tmp, view); err != nil {
			os.Remove(view + ".lock")
		}
	} else {
		os.Remove(tmp + ".lock")
	}
	if err != nil {
		os.Remove(tmp)
		unix.Close(lockFd)
		return "", -1, fmt.Errorf("naming the view: %w", err)
	}
	return view, lockFd, nil
}

// claimView locks a view that an earlier run left in gd, for reuse, and
// puts back the rebase/sequencer state that a killed run had moved into
// a view. A view without a lock file, or one never finished, left alone
// for staleViewAge (a run killed while creating it) is removed. changed
// says whether gd's entries changed.
func claimView(gd string, ents []os.DirEntry) (view string, lockFd int, changed bool) {
	lockFd = -1
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, gitViewPrefix) || !e.IsDir() {
			continue
		}
		v := filepath.Join(gd, name)
		old := func() bool {
			fi, err := e.Info()
			return err == nil && time.Since(fi.ModTime()) >= staleViewAge
		}
		if strings.HasPrefix(name, gitViewNew) {
			if old() {
				os.RemoveAll(v)
				os.Remove(v + ".lock")
			}
			continue // another run is creating it
		}
		fd, err := unix.Open(v+".lock", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		switch {
		case errors.Is(err, unix.ENOENT):
			if old() {
				changed = recoverStateDirs(gd, v) || changed
				os.RemoveAll(v)
			}
			continue
		case err != nil:
			continue
		}
		if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
			unix.Close(fd)
			continue // a live run
		}
		changed = recoverStateDirs(gd, v) || changed
		if view != "" {
			unix.Close(fd) // one is enough; the others stay for parallel runs
			continue
		}
		view, lockFd = v, fd
	}
	return view, lockFd, changed
}

// recoverStateDirs moves the state directories a killed run left in view
// back into gd, unless gd has them again.
func recoverStateDirs(gd, view string) (moved bool) {
	for d := range gitStateDirs {
		src, dst := filepath.Join(view, d), filepath.Join(gd, d)
		if _, err := os.Lstat(src); err != nil {
			continue
		}
		if _, err := os.Lstat(dst); errors.Is(err, os.ErrNotExist) {
			moved = os.Rename(src, dst) == nil || moved
		}
	}
	return moved
}

// syncView makes st.view the view of the real .git whose entries are
// ents: an empty directory for every directory (the data directories are
// bound writable over theirs inside, the others read-only), the state
// files hard-linked, the other files and symlinks copied, the state
// directories moved in. What an earlier run left that does not belong
// there is removed, and nothing in the view is written through (it may
// hold links and symlinks an earlier command made).
func (st *gitState) syncView(gs *gitSpec, ents []os.DirEntry) error {
	have := map[string]os.DirEntry{}
	if vents, err := os.ReadDir(st.view); err == nil {
		for _, e := range vents {
			have[e.Name()] = e
		}
	} else {
		return err
	}
	keep := map[string]bool{}
	hooks := false
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, gitViewPrefix) {
			continue
		}
		src, dst := filepath.Join(st.dir, name), filepath.Join(st.view, name)
		old := have[name]
		keep[name] = true
		switch t := e.Type(); {
		case t.IsDir() && gitDataDirs[name]:
			if err := emptyDir(dst, old); err != nil {
				return err
			}
			gs.RW = append(gs.RW, name)
			st.bound[name] = true
		case t.IsDir() && gitStateDirs[name]:
			if old != nil {
				if err := os.RemoveAll(dst); err != nil {
					return err
				}
			}
			if err := os.Rename(src, dst); err != nil {
				return err
			}
			st.moved = append(st.moved, name)
		case t.IsDir():
			if err := emptyDir(dst, old); err != nil {
				return err
			}
			st.bound[name] = true
			// Nothing in it to read (branches/, hooks/ with only the
			// samples): the empty view directory will do, and whatever
			// is written there is dropped.
			if !onlySamples(src) {
				gs.RO = append(gs.RO, name)
			}
			hooks = hooks || name == "hooks"
		case t.IsRegular() && gitStateFiles[name]:
			var rs unix.Stat_t
			if err := unix.Lstat(src, &rs); err != nil {
				return err
			}
			var vs unix.Stat_t
			if old == nil || !old.Type().IsRegular() || unix.Lstat(dst, &vs) != nil || vs.Ino != rs.Ino || vs.Dev != rs.Dev {
				if old != nil {
					if err := os.RemoveAll(dst); err != nil {
						return err
					}
				}
				if err := os.Link(src, dst); err != nil {
					return err
				}
				if err := unix.Lstat(dst, &vs); err != nil {
					return err
				}
			}
			st.links[name], st.mtimes[name] = vs.Ino, vs.Mtim
		case t.IsRegular():
			b, err := os.ReadFile(src)
			if err != nil {
				return err
			}
			if err := copyInto(dst, b, old); err != nil {
				return err
			}
			if name == "config" {
				st.config = b
			} else {
				st.copies[name] = b
			}
		case t&os.ModeSymlink != 0:
			l, err := os.Readlink(src)
			if err != nil {
				keep[name] = false
				continue
			}
			if old == nil || old.Type()&os.ModeSymlink == 0 {
				os.RemoveAll(dst)
				os.Symlink(l, dst)
			} else if vl, err := os.Readlink(dst); err != nil || vl != l {
				os.Remove(dst)
				os.Symlink(l, dst)
			}
			st.copies[name] = []byte("symlink:" + l)
		default:
			keep[name] = false // sockets, fifos: not part of the view
		}
	}
	if !hooks {
		// An empty hooks/ in the view: a hook written there is dropped.
		if err := emptyDir(filepath.Join(st.view, "hooks"), have["hooks"]); err != nil {
			return err
		}
		st.bound["hooks"] = true
		keep["hooks"] = true
	}
	for name := range have {
		if !keep[name] {
			if err := os.RemoveAll(filepath.Join(st.view, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// emptyDir makes p an empty directory; old is what the view had there.
func emptyDir(p string, old os.DirEntry) error {
	if old != nil {
		if old.IsDir() && dirEmpty(p) {
			return nil
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	return os.Mkdir(p, 0o700)
}

// dirEmpty reports whether p is a directory (not a symlink to one) with
// nothing in it.
func dirEmpty(p string) bool {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	names, err := f.Readdirnames(1)
	return len(names) == 0 && errors.Is(err, io.EOF)
}

// copyInto makes p a regular file of its own holding b; old is what the
// view had there. An existing file is never written through: it may be a
// hard link or a symlink an earlier command made.
func copyInto(p string, b []byte, old os.DirEntry) error {
	if old != nil {
		if old.Type().IsRegular() {
			fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err == nil {
				f := os.NewFile(uintptr(fd), p)
				var st unix.Stat_t
				same := unix.Fstat(fd, &st) == nil && st.Nlink == 1 && st.Size == int64(len(b))
				if same {
					cur, err := io.ReadAll(f)
					same = err == nil && bytes.Equal(cur, b)
				}
				f.Close()
				if same {
					return nil
				}
			}
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	fd, err := unix.Open(p, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), p)
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// discard gives up a view that could not be prepared: the state
// directories go back, and the view and its lock are removed.
func (st *gitState) discard() {
	st.done = true
	for _, d := range st.moved {
		os.Rename(filepath.Join(st.view, d), filepath.Join(st.dir, d))
	}
	os.RemoveAll(st.view)
	os.Remove(st.view + ".lock")
	unix.Close(st.lockFd)
}

// onlySamples reports whether dir is empty or holds only git's *.sample
// files.
func onlySamples(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(64)
	if err != nil && len(names) == 0 {
		return errors.Is(err, io.EOF)
	}
	if len(names) == 64 {
		return false
	}
	for _, n := range names {
		if !strings.HasSuffix(n, ".sample") {
			return false
		}
	}
	return true
}

// lookGit finds git on the PATH of env ("" if there is none).
func lookGit(env []string) string {
	p, _ := envGet(env, "PATH")
	for _, d := range filepath.SplitList(p) {
		if c := filepath.Join(d, "git"); filepath.IsAbs(c) {
			if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
				return c
			}
		}
	}
	return ""
}

func inode(p string) uint64 {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil {
		return 0
	}
	return st.Ino
}

// gitView binds the view over .git inside the sandbox (helper side, in
// the mount namespace, after the writable roots are bound).
func (h *helper) gitView(g *gitSpec) error {
	type tree struct {
		fd   int
		name string
		ro   bool
	}
	var trees []tree
	defer func() {
		for _, t := range trees {
			unix.Close(t.fd)
		}
	}()
	for _, set := range []struct {
		names []string
		ro    bool
	}{{g.RW, false}, {g.RO, true}} {
		for _, n := range set.names {
			fd, err := unix.OpenTree(unix.AT_FDCWD, filepath.Join(g.Dir, n), unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
			if err != nil {
				return fmt.Errorf("open_tree .git/%s: %w", n, err)
			}
			trees = append(trees, tree{fd, n, set.ro})
		}
	}
	if err := unix.Mount(g.View, g.Dir, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind view: %w", err)
	}
	for _, t := range trees {
		target := filepath.Join(g.Dir, t.name)
		if err := unix.MoveMount(t.fd, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("move_mount .git/%s: %w", t.name, err)
		}
		if t.ro {
			if err := mountAttr(target, true, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, 0); err != nil {
				return fmt.Errorf(".git/%s read-only: %w", t.name, err)
			}
		}
	}
	return nil
}

// finish moves what git wrote back into the real .git, applies the
// allowed config changes, reports the refused ones and removes the view.
// Every sandboxed process is dead when it runs (the handle is closed
// after the pid namespace is gone).
func (st *gitState) finish() (notes, warns []string) {
	if st == nil || st.done {
		return nil, nil
	}
	st.done = true
	// The view stays for the next run (prepareGit); what was refused is
	// removed from it now, the rest is brought in line then. The lock is
	// released last.
	defer unix.Close(st.lockFd)
	for _, d := range st.moved {
		if _, err := os.Lstat(filepath.Join(st.view, d)); err != nil {
			continue // git finished it (rebase done)
		}
		if err := os.Rename(filepath.Join(st.view, d), filepath.Join(st.dir, d)); err != nil {
			warns = append(warns, fmt.Sprintf(".git/%s could not be moved back: %v", d, err))
		}
	}
	ents, _ := os.ReadDir(st.view)
	seen := map[string]bool{}
	for _, e := range ents {
		name := e.Name()
		seen[name] = true
		src, dst := filepath.Join(st.view, name), filepath.Join(st.dir, name)
		switch {
		case st.bound[name] || contains(st.moved, name):
		case (gitStateDirs[name] || gitDataDirs[name]) && e.IsDir():
			// A data directory is bound writable when it exists; one the
			// command created (logs/ at a repository's first commit) is
			// kept the same way as a state directory.
			if _, err := os.Lstat(dst); err == nil {
				warns = append(warns, fmt.Sprintf(".git/%s exists already; the sandbox's copy was dropped", name))
				os.RemoveAll(src)
			} else if err := os.Rename(src, dst); err != nil {
				warns = append(warns, fmt.Sprintf(".git/%s: %v", name, err))
			}
		case gitStateFiles[name] && e.Type().IsRegular():
			ino, had := st.links[name]
			if had && inode(src) == ino {
				continue // unchanged, or written in place (same inode)
			}
			// Changed outside meanwhile (the user's own git during a long
			// run): keep theirs rather than go back in time.
			var cur unix.Stat_t
			curErr := unix.Lstat(dst, &cur)
			if (had && (curErr != nil || cur.Ino != ino || cur.Mtim != st.mtimes[name])) || (!had && curErr == nil) {
				warns = append(warns, fmt.Sprintf(".git/%s changed outside during the run; the sandbox's version was dropped", name))
				continue
			}
			if err := os.Rename(src, dst); err != nil {
				warns = append(warns, fmt.Sprintf(".git/%s: %v", name, err))
			}
		case name == "config":
			b, err := os.ReadFile(src)
			if err == nil && !bytes.Equal(b, st.config) {
				n, w := st.brokerConfig(src)
				notes, warns = append(notes, n...), append(warns, w...)
			}
		case strings.HasSuffix(name, ".lock"):
		default:
			old, existed := st.copies[name]
			if !existed {
				warns = append(warns, fmt.Sprintf("refused: .git/%s created inside the sandbox was dropped (git metadata outside objects/refs/logs and the state files cannot be added)", name))
				os.RemoveAll(src)
				continue
			}
			if b, err := os.ReadFile(src); err != nil || !bytes.Equal(b, old) {
				warns = append(warns, fmt.Sprintf("refused: the change to .git/%s was dropped", name))
			}
		}
	}
	if !seen["config"] && st.config != nil {
		warns = append(warns, "refused: removing .git/config was dropped")
	}
	for name, ino := range st.links {
		if !seen[name] {
			real := filepath.Join(st.dir, name)
			var cur unix.Stat_t
			if unix.Lstat(real, &cur) == nil && cur.Ino == ino && cur.Mtim == st.mtimes[name] {
				os.Remove(real) // git removed it (MERGE_HEAD after a commit …)
			}
		}
	}
	for name := range st.copies {
		if !seen[name] {
			warns = append(warns, fmt.Sprintf("refused: removing .git/%s was dropped", name))
		}
	}
	return notes, warns
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// brokerConfig applies the allowed key changes of the view's config to
// the real .git/config with `git config --file` (which runs nothing: no
// repository, no includes, no system or global config).
func (st *gitState) brokerConfig(viewConfig string) (notes, warns []string) {
	if st.git == "" {
		return nil, []string{"refused: .git/config changes were dropped (git not found to apply them)"}
	}
	real := filepath.Join(st.dir, "config")
	oldVals, err1 := st.gitList(real)
	newVals, err2 := st.gitList(viewConfig)
	if err1 != nil || err2 != nil {
		return nil, []string{fmt.Sprintf("refused: .git/config changes were dropped (cannot parse: %v %v)", err1, err2)}
	}
	// Compare against the config as it was before the run, not as it is
	// now, so concurrent outside changes are kept.
	tmp, err := os.CreateTemp(st.view, "orig-config-")
	if err == nil {
		defer os.Remove(tmp.Name())
		tmp.Write(st.config)
		tmp.Close()
		if o, err := st.gitList(tmp.Name()); err == nil {
			oldVals = o
		}
	}
	keys := map[string]bool{}
	for k := range oldVals {
		keys[k] = true
	}
	for k := range newVals {
		keys[k] = true
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		o, n := oldVals[k], newVals[k]
		if strings.Join(o, "\x00") == strings.Join(n, "\x00") {
			continue
		}
		ok := true
		if len(n) == 0 {
			ok = gitConfigAllowed(k, "")
		}
		for _, v := range n {
			ok = ok && gitConfigAllowed(k, v)
		}
		if !ok {
			warns = append(warns, fmt.Sprintf("refused: git config %s was not applied to .git/config (it can make git run a program, or is not on the list of keys the sandbox passes on: user.*, remote.*.url/fetch, branch.*)", k))
			continue
		}
		if err := st.gitRun("--file", real, "--unset-all", k); err != nil && !isExit(err, 5) {
			warns = append(warns, fmt.Sprintf("git config %s: %v", k, err))
			continue
		}
		for _, v := range n {
			if err := st.gitRun("--file", real, "--add", k, v); err != nil {
				warns = append(warns, fmt.Sprintf("git config %s: %v", k, err))
			}
		}
		notes = append(notes, "applied git config "+k)
	}
	return notes, warns
}

func isExit(err error, code int) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee) && ee.ExitCode() == code
}

func (st *gitState) gitCmd(args ...string) *exec.Cmd {
	c := exec.Command(st.git, append([]string{"config"}, args...)...)
	c.Dir = "/"
	c.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CEILING_DIRECTORIES=/", "LC_ALL=C"}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.WaitDelay = time.Second
	return c
}

func (st *gitState) gitRun(args ...string) error {
	return st.gitCmd(args...).Run()
}

// gitList returns key -> values (in order) of a config file.
func (st *gitState) gitList(file string) (map[string][]string, error) {
	out, err := st.gitCmd("--file", file, "--list", "--null").Output()
	if err != nil {
		return nil, err
	}
	m := map[string][]string{}
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		k, v, _ := strings.Cut(rec, "\n")
		m[k] = append(m[k], v)
	}
	return m, nil
}

// gitLayer applies the .git view when the parent prepared one and reports
// the git layer; false means the old per-path protection applies.
func (h *helper) gitLayer(gitDir string) bool {
	g := h.hs.FS.Git
	if g == nil {
		if fi, err := os.Lstat(gitDir); err == nil && fi.Mode().IsRegular() {
			err := unix.Mount(gitDir, gitDir, "", unix.MS_BIND, "")
			if err == nil {
				err = mountAttr(gitDir, false, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV, 0)
			}
			if err != nil {
				h.miss(LayerGit, fmt.Errorf("gitfile read-only: %w", err), "")
				return false
			}
			h.ok(LayerGit, ".git is a file (linked worktree): it stays read-only; its git directory is outside the workspace and read-only")
		} else if err != nil {
			h.ok(LayerGit, "no .git in the workspace")
		} else if fi.Mode()&os.ModeSymlink != 0 {
			target := realpath(gitDir)
			for _, w := range h.hs.Writable {
				if target != "" && under(target, w) {
					h.miss(LayerGit, fmt.Errorf(".git is a symlink to %s, inside a writable root", target), "make .git a directory")
					return false
				}
			}
			h.ok(LayerGit, ".git is a symlink to "+target+", outside the writable roots (read-only)")
		} else {
			why := h.hs.FS.GitErr
			if why == "" {
				why = "no .git view was prepared"
			}
			h.miss(LayerGit, errors.New(why), "")
		}
		return false
	}
	if err := h.gitView(g); err != nil {
		h.miss(LayerGit, err, "a kernel with open_tree and move_mount (5.2+)")
		return false
	}
	h.ok(LayerGit, fmt.Sprintf(".git read-only except %s and git's state files; config changes go through the broker; new metadata is dropped", strings.Join(g.RW, " ")))
	return true
}
