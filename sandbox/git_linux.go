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
	if recoverStaleViews(gd, ents) {
		if ents, err = os.ReadDir(gd); err != nil {
			return nil, nil, err
		}
	}
	view, err := os.MkdirTemp(gd, gitViewPrefix)
	if err != nil {
		return nil, nil, err
	}
	// The lock (next to the view, so not visible inside) is held while
	// the run lives; a view whose lock is free was left by a killed run.
	lockFd, err := unix.Open(view+".lock", unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o600)
	if err == nil {
		if err = unix.Flock(lockFd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			unix.Close(lockFd)
		}
	}
	if err != nil {
		os.Remove(view)
		return nil, nil, fmt.Errorf("locking the view: %w", err)
	}
	gs := &gitSpec{Dir: gd, View: view}
	st := &gitState{dir: gd, view: view, lockFd: lockFd, bound: map[string]bool{}, links: map[string]uint64{}, mtimes: map[string]unix.Timespec{}, copies: map[string][]byte{}}
	st.git = lookGit(env)
	fail := func(err error) (*gitSpec, *gitState, error) {
		st.finish()
		return nil, nil, err
	}
	hooks := false
	for _, e := range ents {
		name := e.Name()
		src, dst := filepath.Join(gd, name), filepath.Join(view, name)
		if strings.HasPrefix(name, gitViewPrefix) {
			continue
		}
		switch t := e.Type(); {
		case t.IsDir() && gitDataDirs[name]:
			if err := os.Mkdir(dst, 0o700); err != nil {
				return fail(err)
			}
			gs.RW = append(gs.RW, name)
			st.bound[name] = true
		case t.IsDir() && gitStateDirs[name]:
			if err := os.Rename(src, dst); err != nil {
				return fail(err)
			}
			st.moved = append(st.moved, name)
		case t.IsDir():
			if err := os.Mkdir(dst, 0o700); err != nil {
				return fail(err)
			}
			st.bound[name] = true
			// Nothing in it to read (branches/, hooks/ with only the
			// samples): the empty view directory will do, and whatever
			// is written there is dropped with the view.
			if !onlySamples(src) {
				gs.RO = append(gs.RO, name)
			}
			hooks = hooks || name == "hooks"
		case t.IsRegular() && gitStateFiles[name]:
			if err := os.Link(src, dst); err != nil {
				return fail(err)
			}
			var s unix.Stat_t
			if err := unix.Lstat(dst, &s); err != nil {
				return fail(err)
			}
			st.links[name], st.mtimes[name] = s.Ino, s.Mtim
		case t.IsRegular():
			b, err := os.ReadFile(src)
			if err != nil {
				return fail(err)
			}
			if err := os.WriteFile(dst, b, 0o600); err != nil {
				return fail(err)
			}
			if name == "config" {
				st.config = b
			} else {
				st.copies[name] = b
			}
		case t&os.ModeSymlink != 0:
			if l, err := os.Readlink(src); err == nil {
				os.Symlink(l, dst)
				st.copies[name] = []byte("symlink:" + l)
			}
		}
	}
	if !hooks {
		// An empty hooks/ in the view: a hook written there is dropped.
		if err := os.Mkdir(filepath.Join(view, "hooks"), 0o700); err != nil {
			return fail(err)
		}
		st.bound["hooks"] = true
	}
	return gs, st, nil
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

// staleViewAge is how long a view without a held lock must have been left
// alone before it counts as left by a killed run.
const staleViewAge = time.Minute

// recoverStaleViews removes the views of runs that were killed before
// they could clean up, putting back the rebase/sequencer state they had
// moved in.
func recoverStaleViews(gd string, ents []os.DirEntry) (recovered bool) {
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, gitViewPrefix) || !e.IsDir() {
			continue
		}
		view := filepath.Join(gd, name)
		if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < staleViewAge {
			// Maybe another run is creating it and has not locked it
			// yet (the lock comes right after the directory).
			continue
		}
		fd, err := unix.Open(view+".lock", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err == nil {
			if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
				unix.Close(fd)
				continue // a live run
			}
			defer unix.Close(fd)
		} else if !errors.Is(err, unix.ENOENT) {
			continue
		}
		for d := range gitStateDirs {
			src, dst := filepath.Join(view, d), filepath.Join(gd, d)
			if _, err := os.Lstat(src); err != nil {
				continue
			}
			if _, err := os.Lstat(dst); errors.Is(err, os.ErrNotExist) {
				os.Rename(src, dst)
			}
		}
		os.RemoveAll(view)
		os.Remove(view + ".lock")
		recovered = true
	}
	return recovered
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
	defer func() {
		os.RemoveAll(st.view)
		os.Remove(st.view + ".lock")
		unix.Close(st.lockFd)
	}()
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
		case gitStateDirs[name] && e.IsDir():
			if _, err := os.Lstat(dst); err == nil {
				warns = append(warns, fmt.Sprintf(".git/%s exists already; the sandbox's copy was dropped", name))
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
