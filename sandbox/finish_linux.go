//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shellguard/shellguard/internal/steptime"
)

// A finisher is one step shellguard takes outside the sandbox, with the
// user's full rights, after a run (or, for the .git view, around it),
// on files the command could have planted or changed. Every such step is
// listed in finishers, and nothing else runs after a run: Handle.Close
// calls runFinishers and no other finish method (TestFinishersListed
// checks the sources). The deputy test (finish_linux_test.go) plants a
// symlink to a canary outside, a symlink loop, a FIFO, a device node, a
// directory and a gitfile at every path each one lists.
//
// The rules every finisher keeps (the helpers below implement them):
// each path is opened with openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|
// RESOLVE_NO_MAGICLINKS from a descriptor of the workspace (or of the
// real .git, or of the overlay's upper directory) taken before the run,
// with O_NOFOLLOW|O_NONBLOCK; a file is read only after fstat says it is
// regular, and only up to finishMaxFile; an entry is removed or renamed
// by unlinkat/renameat on its parent's descriptor; no external program
// is started on a workspace path (git config is parsed and written in
// process, gitconfig_linux.go). All of them share one deadline
// (Spec.PostRunTimeout): on expiry the rest is not done, the result says
// which steps were not finished and the run is reported failed-closed.
type finisher struct {
	name string
	// paths are the workspace-relative names the step touches. "**/" is
	// any directory (the workspace itself included); a trailing "/" is a
	// directory.
	paths []string
	// ordinary: the step applies whatever the command left at its paths
	// as the command's own work (the strict overlay copies a symlink or
	// a directory as such, never through it); a warning is only due for
	// what it refuses.
	ordinary bool
	// waits: the step waits for a person (the review of a review run):
	// it runs first, in line, before the shared deadline starts, and is
	// bounded by its own limits (ReviewMaxChanges, ReviewMaxFile).
	waits bool
	// active says whether the run has work for it; release gives it up
	// unrun (the deadline passed first).
	active  func(h *Handle) bool
	run     func(h *Handle, fc *finishCtx) (notes, warns []string)
	release func(h *Handle)
}

// finishers are all the post-run steps, in the order they run: the
// overlay first (the others look at the real workspace it updates), its
// review before it.
var finishers = []finisher{
	{
		name:     "overlay-review",
		paths:    []string{"**/applied-here"},
		ordinary: true,
		waits:    true,
		active:   func(h *Handle) bool { return h.ov != nil && h.review && h.ov.mounted },
		run: func(h *Handle, fc *finishCtx) ([]string, []string) {
			h.post.Review = h.ov.finishReview(h.reviewer)
			return nil, nil
		},
		release: func(h *Handle) {},
	},
	{
		name:     "overlay-apply",
		paths:    []string{"**/applied-here"},
		ordinary: true,
		active:   func(h *Handle) bool { return h.ov != nil },
		run: func(h *Handle, fc *finishCtx) ([]string, []string) {
			return h.ov.finish(fc)
		},
		// The command's changes are dropped.
		release: func(h *Handle) { h.ov.discard() },
	},
	{
		name: "git-view",
		paths: []string{".git/config", ".git/HEAD", ".git/description", ".git/rebase-merge/",
			".git/rebase-merge/git-rebase-todo", ".git/sequencer/todo", ".git/sequencer/opts",
			".git/hooks/pre-commit", ".git/commondir", ".git/info/"},
		active: func(h *Handle) bool { return h.git != nil },
		run: func(h *Handle, fc *finishCtx) ([]string, []string) {
			return h.git.finish(fc)
		},
		// Unlocked as it is: the next run brings the view in line.
		release: func(h *Handle) { h.git.release() },
	},
	{
		name:   "protected-files",
		paths:  wsProtectedNew,
		active: func(h *Handle) bool { return h.ws != nil },
		run: func(h *Handle, fc *finishCtx) ([]string, []string) {
			return nil, h.ws.finishProtected(fc)
		},
		release: func(h *Handle) {},
	},
	{
		name: "git-search",
		paths: []string{"**/.git", "**/.git/config", "**/.git/commondir", "**/.git/hooks/",
			"**/.git/hooks/pre-commit", "**/.git/modules/m/config", "**/.git/worktrees/w/hooks/post-checkout"},
		active: func(h *Handle) bool { return h.ws != nil },
		run: func(h *Handle, fc *finishCtx) ([]string, []string) {
			return nil, h.ws.finishSearch(fc)
		},
		release: func(h *Handle) {},
	},
}

// finishMaxFile bounds what a finisher reads of one file (a git config,
// a gitfile): more is refused, not read.
const finishMaxFile = 1 << 20

// finishCtx is the deadline the finishers of one run share.
type finishCtx struct {
	deadline time.Time
	// ranOut: a step stopped early because the deadline passed.
	ranOut bool
}

func (fc *finishCtx) expired() bool {
	if fc == nil {
		return false
	}
	if time.Now().After(fc.deadline) {
		fc.ranOut = true
	}
	return fc.ranOut
}

// finisherRuns counts, per finisher, the runs where it had something to
// do (tests: every listed step is exercised).
var finisherRuns struct {
	sync.Mutex
	n map[string]int64
}

func countFinisher(name string) {
	finisherRuns.Lock()
	defer finisherRuns.Unlock()
	if finisherRuns.n == nil {
		finisherRuns.n = map[string]int64{}
	}
	finisherRuns.n[name]++
}

// runFinishers runs every finisher of h under one deadline and records
// what they did in h.post. A step still running at the deadline is left
// behind (it holds only descriptors beneath the workspace and stops at
// its next check); the steps not reached are not run.
func (h *Handle) runFinishers() {
	timeout := h.postTimeout
	if timeout <= 0 {
		timeout = DefaultPostRunTimeout
	}
	post := h.post
	if post == nil {
		post = &PostRun{}
	}
	steptime.Mark("sb.closed")
	fc := &finishCtx{deadline: time.Now().Add(timeout)}
	type out struct{ notes, warns []string }
	var unfinished []string
	abandoned := false
	for i, f := range finishers {
		if !f.active(h) {
			continue
		}
		countFinisher(f.name)
		if f.waits {
			hc := &Handle{ov: h.ov, review: h.review, reviewer: h.reviewer, post: post}
			f.run(hc, nil)
			fc.deadline = time.Now().Add(timeout)
			continue
		}
		if time.Now().After(fc.deadline) {
			unfinished = append(unfinished, f.name)
			f.release(h)
			continue
		}
		sub := &finishCtx{deadline: fc.deadline}
		done := make(chan out, 1)
		// The step gets its own copy of what it works on: one left
		// behind at the deadline shares nothing with what follows.
		hc := &Handle{ov: h.ov, git: h.git, ws: h.ws}
		go func(f finisher) {
			n, w := f.run(hc, sub)
			done <- out{n, w}
		}(finishers[i])
		timer := time.NewTimer(time.Until(fc.deadline) + 50*time.Millisecond)
		select {
		case o := <-done:
			timer.Stop()
			if sub.ranOut {
				unfinished = append(unfinished, f.name)
			}
			if f.name == "overlay-apply" {
				post.Overlay = append(append(post.Overlay, o.notes...), o.warns...)
			} else {
				post.Git = append(post.Git, o.notes...)
				post.Git = append(post.Git, o.warns...)
			}
			post.Warnings = append(post.Warnings, o.warns...)
			if steptime.On() { // the name is built only when marks are recorded
				steptime.Mark("sb.finish-" + f.name)
			}
		case <-timer.C:
			unfinished = append(unfinished, f.name)
			abandoned = true
		}
	}
	if !abandoned {
		// A step left behind still works from the descriptor: it is
		// not closed under it (a reused number would be another file).
		h.ws.close()
	}
	h.ov, h.git, h.ws = nil, nil, nil
	if len(unfinished) > 0 {
		post.Unfinished = unfinished
		post.Warnings = append(post.Warnings, fmt.Sprintf("failed closed: the post-run checks did not finish within %s (not finished: %s); what the command left in the workspace was not all checked", timeout, strings.Join(unfinished, ", ")))
	}
}

// resolveBeneath are the openat2 resolve flags of every finisher open.
const resolveBeneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

// errNotRegular: a finisher found something other than a regular file
// where it expected one.
var errNotRegular = errors.New("not a regular file")

// openBeneath opens rel (relative, without symlinks anywhere in it)
// beneath the directory dfd, never following a symlink, never blocking
// on a FIFO or a device.
func openBeneath(dfd int, rel string, flags int) (int, error) {
	if rel == "" {
		rel = "."
	}
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY), Resolve: resolveBeneath}
	for i := 0; ; i++ {
		fd, err := unix.Openat2(dfd, rel, &how)
		if err == unix.EAGAIN && i < 8 {
			continue // a rename raced the lookup
		}
		if err == unix.ENOSYS {
			return openWalk(dfd, rel, flags)
		}
		return fd, err
	}
}

// openWalk is openBeneath for kernels without openat2 (before 5.6): one
// component at a time, each directory opened with O_NOFOLLOW.
func openWalk(dfd int, rel string, flags int) (int, error) {
	parts := strings.Split(rel, "/")
	cur := dfd
	closeCur := func() {
		if cur != dfd {
			unix.Close(cur)
		}
	}
	for i, p := range parts {
		if p == ".." {
			closeCur()
			return -1, unix.EXDEV
		}
		if p == "" || p == "." {
			if i < len(parts)-1 {
				continue
			}
		}
		fl := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_PATH
		if i == len(parts)-1 {
			fl = flags
		}
		fd, err := unix.Openat(cur, p, fl|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
		closeCur()
		if err != nil {
			return -1, err
		}
		cur = fd
	}
	if cur == dfd {
		return unix.Openat(dfd, ".", flags|unix.O_CLOEXEC, 0)
	}
	return cur, nil
}

// splitRel splits rel into its parent and last name.
func splitRel(rel string) (dir, name string) {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i], rel[i+1:]
	}
	return ".", rel
}

// readRegularAt reads name in the directory dfd if it is a regular file
// of at most finishMaxFile bytes (errNotRegular otherwise), without
// following a symlink or blocking on anything.
func readRegularAt(dfd int, name string) ([]byte, error) {
	fd, err := openBeneath(dfd, name, unix.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, errNotRegular
	}
	if st.Size > finishMaxFile {
		return nil, fmt.Errorf("larger than %d bytes", finishMaxFile)
	}
	buf := make([]byte, 0, st.Size+1)
	for {
		if len(buf) == cap(buf) {
			if len(buf) > finishMaxFile {
				return nil, fmt.Errorf("larger than %d bytes", finishMaxFile)
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if n > 0 {
			buf = buf[:len(buf)+n]
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return buf, nil
		}
	}
}

// removeBeneath removes rel beneath dfd (a directory with everything in
// it) by unlinkat on its parent's descriptor.
func removeBeneath(dfd int, rel string) error {
	dir, name := splitRel(rel)
	pfd, err := openBeneath(dfd, dir, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	return removeNameAt(pfd, name)
}

// removeNameAt removes name in pfd, whatever it is (a directory
// recursively, by descriptor).
func removeNameAt(pfd int, name string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	return removeAt(pfd, name, st.Mode&unix.S_IFMT == unix.S_IFDIR, 0)
}

// writeFileAt replaces name in dfd with a new regular file holding b:
// written to name+".lock" (created, never opened if it exists: git's own
// lock file, so a concurrent git outside waits) and renamed over name.
func writeFileAt(dfd int, name string, b []byte, mode uint32) error {
	lock := name + ".lock"
	fd, err := unix.Openat(dfd, lock, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	if err != nil {
		return err
	}
	for len(b) > 0 && err == nil {
		var n int
		n, err = unix.Write(fd, b)
		b = b[n:]
		if err == nil && n == 0 {
			err = io.ErrShortWrite
		}
	}
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dfd, lock, dfd, name)
	}
	if err != nil {
		unix.Unlinkat(dfd, lock, 0)
	}
	return err
}

// kindAt names what name in dfd is, for messages ("" when absent).
func kindAt(dfd int, name string) string {
	var st unix.Stat_t
	if unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return ""
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return "file"
	case unix.S_IFDIR:
		return "directory"
	case unix.S_IFLNK:
		return "symlink"
	case unix.S_IFCHR:
		return "character device"
	}
	return fileType(st.Mode)
}
