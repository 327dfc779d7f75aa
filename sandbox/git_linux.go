//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
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
	links     map[string]uint64              // state file -> inode of the real file
	mtimes    map[string]unix.Timespec       // … and its mtime (inode numbers get reused)
	moved     []string                       // state dirs moved into the view
	programs  map[string]map[string][]string // … and what their files named to run (gitstate_linux.go)
	config    []byte                         // the real config before the run
	copies    map[string][]byte              // other files, copied
	dfd       int                            // the real .git, opened before the run
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
	dfd, err := unix.Open(gd, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if lockFd >= 0 {
			unix.Close(lockFd)
		}
		return nil, nil, err
	}
	st := &gitState{dir: gd, view: view, dfd: dfd, lockFd: lockFd, bound: map[string]bool{}, links: map[string]uint64{}, mtimes: map[string]unix.Timespec{}, copies: map[string][]byte{}}
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
//
// What the killed run's state names to run is unknown as before: any
// program it names is set aside (vetGitState), and what is not a
// directory is left to be removed with the view.
func recoverStateDirs(gd, view string) (moved bool) {
	vfd, err := unix.Open(view, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(vfd)
	for d := range gitStateDirs {
		src, dst := filepath.Join(view, d), filepath.Join(gd, d)
		if fi, err := os.Lstat(src); err != nil || !fi.IsDir() {
			continue
		}
		if _, err := os.Lstat(dst); errors.Is(err, os.ErrNotExist) {
			vetGitState(vfd, d, nil)
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
			if st.programs == nil {
				st.programs = map[string]map[string][]string{}
			}
			st.programs[name] = gitStateProgramsAt(st.dfd, name)
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
			b, err := readRegularAt(st.dfd, name)
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

// release unlocks the view of a run whose post-run steps ran out of
// time before this one: nothing is moved back.
func (st *gitState) release() {
	if st.done {
		return
	}
	st.done = true
	unix.Close(st.lockFd)
	unix.Close(st.dfd)
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
	unix.Close(st.dfd)
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
// allowed config changes, reports the refused ones and leaves the view
// for the next run. Every sandboxed process is dead when it runs (the
// handle is closed after the pid namespace is gone).
//
// It works from descriptors of the real .git (taken before the run; the
// command cannot reach it) and of the view in it: what the command left
// in the view is looked at with fstatat, read only when it is a regular
// file (opened O_NOFOLLOW|O_NONBLOCK), moved with renameat and removed
// with unlinkat, never followed.
func (st *gitState) finish(fc *finishCtx) (notes, warns []string) {
	if st == nil || st.done {
		return nil, nil
	}
	st.done = true
	// The view stays for the next run (prepareGit); what was refused is
	// removed from it now, the rest is brought in line then. The lock is
	// released last.
	defer unix.Close(st.lockFd)
	defer unix.Close(st.dfd)
	vfd, err := unix.Openat(st.dfd, filepath.Base(st.view), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, []string{fmt.Sprintf("failed closed: the .git view could not be opened: %v", err)}
	}
	defer unix.Close(vfd)
	dfd := st.dfd
	typeAt := func(fd int, name string) (unix.Stat_t, bool) {
		var s unix.Stat_t
		return s, unix.Fstatat(fd, name, &s, unix.AT_SYMLINK_NOFOLLOW) == nil
	}
	isDir := func(s unix.Stat_t) bool { return s.Mode&unix.S_IFMT == unix.S_IFDIR }
	isReg := func(s unix.Stat_t) bool { return s.Mode&unix.S_IFMT == unix.S_IFREG }
	for _, d := range st.moved {
		s, ok := typeAt(vfd, d)
		if !ok {
			continue // git finished it (rebase done)
		}
		if !isDir(s) {
			warns = append(warns, fmt.Sprintf("refused: .git/%s (a %s written inside the sandbox) was dropped", d, kindAt(vfd, d)))
			removeNameAt(vfd, d)
			continue
		}
		warns = append(warns, vetGitState(vfd, d, st.programs[d])...)
		if err := unix.Renameat(vfd, d, dfd, d); err != nil {
			warns = append(warns, fmt.Sprintf(".git/%s could not be moved back: %v", d, err))
		}
	}
	seen := map[string]bool{}
	for _, e := range readDirentsFd(vfd, make([]byte, 16<<10)) {
		if fc.expired() {
			return notes, warns
		}
		name := e.name
		seen[name] = true
		vs, ok := typeAt(vfd, name)
		if !ok {
			continue
		}
		switch {
		case slices.Contains(st.moved, name):
		case st.bound[name]:
			// Bound over inside, or (hooks/, branches/ …) an empty
			// directory of the view: anything in the view's own
			// directory was written there by the command.
			warns = append(warns, st.dropInView(vfd, name, vs)...)
		case (gitStateDirs[name] || gitDataDirs[name]) && isDir(vs):
			// A data directory is bound writable when it exists; one the
			// command created (logs/ at a repository's first commit) is
			// kept the same way as a state directory.
			if _, ok := typeAt(dfd, name); ok {
				warns = append(warns, fmt.Sprintf(".git/%s exists already; the sandbox's copy was dropped", name))
				removeNameAt(vfd, name)
				continue
			}
			if gitStateDirs[name] {
				warns = append(warns, vetGitState(vfd, name, nil)...)
			}
			if err := unix.Renameat(vfd, name, dfd, name); err != nil {
				warns = append(warns, fmt.Sprintf(".git/%s: %v", name, err))
			}
		case gitStateFiles[name] && isReg(vs):
			ino, had := st.links[name]
			if had && vs.Ino == ino {
				continue // unchanged, or written in place (same inode)
			}
			// Changed outside meanwhile (the user's own git during a long
			// run): keep theirs rather than go back in time.
			cur, curOK := typeAt(dfd, name)
			if (had && (!curOK || cur.Ino != ino || cur.Mtim != st.mtimes[name])) || (!had && curOK) {
				warns = append(warns, fmt.Sprintf(".git/%s changed outside during the run; the sandbox's version was dropped", name))
				continue
			}
			if vs.Nlink != 1 {
				// A second name of the file elsewhere: not git's.
				warns = append(warns, fmt.Sprintf("refused: .git/%s (a file with another name inside the sandbox) was dropped", name))
				removeNameAt(vfd, name)
				continue
			}
			if err := unix.Renameat(vfd, name, dfd, name); err != nil {
				warns = append(warns, fmt.Sprintf(".git/%s: %v", name, err))
			}
		case name == "config":
			b, err := readRegularAt(vfd, name)
			if err != nil {
				warns = append(warns, fmt.Sprintf("refused: .git/config was replaced inside the sandbox by a %s; the change was dropped", kindAt(vfd, name)))
				removeNameAt(vfd, name)
				continue
			}
			if !bytes.Equal(b, st.config) {
				n, w := st.brokerConfig(b)
				notes, warns = append(notes, n...), append(warns, w...)
			}
		case strings.HasSuffix(name, ".lock") && isReg(vs):
		default:
			old, existed := st.copies[name]
			if !existed {
				warns = append(warns, fmt.Sprintf("refused: .git/%s (a %s) created inside the sandbox was dropped (git metadata outside objects/refs/logs and the state files cannot be added)", name, kindAt(vfd, name)))
				removeNameAt(vfd, name)
				continue
			}
			var b []byte
			var err error
			if bytes.HasPrefix(old, []byte("symlink:")) {
				var l string
				if l, err = readlinkAt(vfd, name); err == nil {
					b = []byte("symlink:" + l)
				}
			} else {
				b, err = readRegularAt(vfd, name)
			}
			if err != nil || !bytes.Equal(b, old) {
				warns = append(warns, fmt.Sprintf("refused: the change to .git/%s was dropped", name))
				removeNameAt(vfd, name)
			}
		}
	}
	if !seen["config"] && st.config != nil {
		warns = append(warns, "refused: removing .git/config was dropped")
	}
	for name, ino := range st.links {
		if !seen[name] {
			if cur, ok := typeAt(dfd, name); ok && cur.Ino == ino && cur.Mtim == st.mtimes[name] {
				unix.Unlinkat(dfd, name, 0) // git removed it (MERGE_HEAD after a commit …)
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

// dropInView empties the view's own directory name (bound over inside
// the sandbox, or one the view keeps empty) of what the command put
// there, or removes what replaced it.
func (st *gitState) dropInView(vfd int, name string, vs unix.Stat_t) []string {
	if vs.Mode&unix.S_IFMT != unix.S_IFDIR {
		kind := kindAt(vfd, name)
		removeNameAt(vfd, name)
		return []string{fmt.Sprintf("refused: .git/%s (a %s written inside the sandbox) was dropped", name, kind)}
	}
	cfd, err := unix.Openat(vfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(cfd)
	var warns []string
	for _, e := range readDirentsFd(cfd, make([]byte, 8<<10)) {
		warns = append(warns, fmt.Sprintf("refused: .git/%s/%s (a %s written inside the sandbox) was dropped", name, e.name, kindAt(cfd, e.name)))
		removeNameAt(cfd, e.name)
	}
	return warns
}

// brokerConfig applies the allowed key changes of the view's config
// (viewConfig, its content) to the real .git/config: both parsed in
// process, the real one rewritten beside itself and renamed over it
// under git's own lock (config.lock).
func (st *gitState) brokerConfig(viewConfig []byte) (notes, warns []string) {
	// Compare against the config as it was before the run, not as it is
	// now, so concurrent outside changes are kept.
	oldEnts, err1 := parseGitConfig(st.config)
	newEnts, err2 := parseGitConfig(viewConfig)
	if err1 != nil || err2 != nil {
		return nil, []string{fmt.Sprintf("refused: .git/config changes were dropped (cannot parse: %v %v)", err1, err2)}
	}
	oldVals, newVals := gitConfigValues(oldEnts), gitConfigValues(newEnts)
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
	set := map[string][]string{}
	var applied []string
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
		set[k] = n
		applied = append(applied, k)
	}
	if len(set) == 0 {
		return nil, warns
	}
	real, err := readRegularAt(st.dfd, "config")
	var ents []gitConfigEntry
	if err == nil {
		ents, err = parseGitConfig(real)
	}
	var out []byte
	if err == nil {
		out, err = editGitConfig(real, ents, set)
	}
	if err == nil {
		var cs unix.Stat_t
		mode := uint32(0o644)
		if unix.Fstatat(st.dfd, "config", &cs, unix.AT_SYMLINK_NOFOLLOW) == nil {
			mode = cs.Mode & 0o666
		}
		err = writeFileAt(st.dfd, "config", out, mode)
	}
	if err != nil {
		return nil, append(warns, fmt.Sprintf("git config %s: not applied: %v", strings.Join(applied, ", "), err))
	}
	for _, k := range applied {
		notes = append(notes, "applied git config "+k)
	}
	return notes, warns
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
