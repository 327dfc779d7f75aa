//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// overlaySpec is what the helper mounts (helperSpec.Overlay).
type overlaySpec struct {
	Lower string `json:"lower"` // the workspace (also the mount point)
	Upper string `json:"upper"`
	Work  string `json:"work"`
	// Err: the parent could not prepare the directories.
	Err string `json:"err,omitempty"`
}

// overlayState is the parent's side: the run's private directory, applied
// to the workspace and removed by Handle.Close.
type overlayState struct {
	ws     string
	wsfd   int    // the workspace, opened before the run
	dir    string // holds upper/ and work/
	lockFd int
	// mounted: the helper reported the overlay layer; before that the
	// upper directory holds nothing to apply.
	mounted bool
	// keep, after a review (review_linux.go), holds the upper
	// directory's names of the changes to apply; nil: all of them.
	keep map[string]bool
}

// overlayBase is the directory that holds the private upper/work
// directories of strict runs: in the host /tmp, which every sandboxed run
// replaces by a private one, so no command (of this run or another) can
// reach another run's pending changes.
func overlayBase() string {
	return filepath.Join("/tmp", "shellguard-overlay-"+strconv.Itoa(os.Getuid()))
}

// prepareOverlay creates the run's upper and work directories: the base
// is created (never followed through a symlink) owned by the uid with
// mode 0700, and refused otherwise. Directories of earlier runs whose
// parent died before applying them are removed.
func prepareOverlay(ws string) (*overlaySpec, *overlayState, error) {
	base := overlayBase()
	if err := os.Mkdir(base, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, nil, err
	}
	var st unix.Stat_t
	if err := unix.Lstat(base, &st); err != nil {
		return nil, nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Getuid() || st.Mode&0o077 != 0 {
		return nil, nil, fmt.Errorf("%s is not a directory owned by uid %d with mode 0700: refused", base, os.Getuid())
	}
	removeStaleOverlays(base)
	dir, err := os.MkdirTemp(base, "run-")
	if err != nil {
		return nil, nil, err
	}
	lockFd, err := lockBeside(dir)
	if err != nil {
		os.Remove(dir)
		return nil, nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	os_ := &overlayState{ws: ws, dir: dir, lockFd: lockFd, wsfd: -1}
	if os_.wsfd, err = unix.Open(ws, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
		os_.discard()
		return nil, nil, err
	}
	for _, d := range []string{"upper", "work"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			os_.discard()
			return nil, nil, err
		}
	}
	// The overlay's root takes the upper directory's mode: the
	// workspace's, as the command would have seen it.
	if fi, err := os.Stat(ws); err == nil {
		os.Chmod(filepath.Join(dir, "upper"), fi.Mode().Perm())
	}
	return &overlaySpec{Lower: ws, Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, "work")}, os_, nil
}

// removeStaleOverlays removes run directories whose lock is free: their
// run's parent was killed before it could apply them, and their changes
// are dropped (as a killed command's writes would have been cut short).
func removeStaleOverlays(base string) {
	ents, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, "run-") || strings.HasSuffix(n, ".lock") || !e.IsDir() {
			continue
		}
		lock := filepath.Join(base, n+".lock")
		fd, err := unix.Open(lock, unix.O_RDWR|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			if fi, e2 := os.Stat(filepath.Join(base, n)); e2 == nil && time.Since(fi.ModTime()) > time.Hour {
				removeTree(filepath.Join(base, n)) // never locked: a crash between mkdir and lock
			}
			continue
		}
		if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
			removeTree(filepath.Join(base, n))
			os.Remove(lock)
		}
		unix.Close(fd)
	}
}

// discard removes the run's directory and releases its lock.
func (o *overlayState) discard() {
	if o == nil || o.dir == "" {
		return
	}
	removeTree(o.dir)
	os.Remove(o.dir + ".lock")
	unix.Close(o.lockFd)
	if o.wsfd >= 0 {
		unix.Close(o.wsfd)
	}
	o.dir = ""
}

// removeTree removes dir like os.RemoveAll, first making directories the
// kernel left unreadable (overlay's work/work is mode 000) readable.
func removeTree(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

// overlayWorkspace mounts the overlay over the workspace (helper side, in
// the new mount namespace, before the private /tmp hides the upper
// directory and before the writable roots are bound: their bind of the
// workspace takes the overlay with it).
func (h *helper) overlayWorkspace() {
	ov := h.hs.Overlay
	if ov == nil {
		if h.hs.Mode == Strict || h.hs.Review {
			why := h.hs.NSReason
			if why == "" {
				why = "needs the user and mount namespaces"
			}
			h.miss(LayerOverlay, errors.New(why), "")
		}
		return
	}
	if ov.Err != "" {
		h.miss(LayerOverlay, errors.New(ov.Err), "")
		return
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		h.miss(LayerOverlay, fmt.Errorf("make / private: %w", err), "")
		return
	}
	// As root, the lower layer is the idmapped workspace, so that the
	// command (RootMapID) owns what root owns there (rootmap_linux.go).
	if _, err := h.rootMapTake(ov.Lower, ov.Lower); err != nil {
		h.miss(LayerOverlay, err, "")
		return
	}
	if err := mountOverlay(ov); err != nil {
		h.miss(LayerOverlay, err, "Linux 5.11+ (overlayfs in a user namespace) with user extended attributes on the filesystem of /tmp")
		return
	}
	// The upper directory stays reachable by the kernel only: an empty
	// read-only tmpfs covers the run's directory.
	if err := unix.Mount("tmpfs", filepath.Dir(ov.Upper), "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=000,size=4k,nr_inodes=2"); err != nil {
		h.miss(LayerOverlay, fmt.Errorf("hiding the upper directory: %w", err), "")
		return
	}
	h.ok(LayerOverlay, "copy-on-write workspace, applied by rename after the run")
}

// overlayCaps are kept (in the user namespace only) by a helper that
// mounts an overlay: CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER.
var overlayCaps = []uintptr{0, 1, 3}

// overlayOptions: user.* xattrs (the only ones a user namespace may
// write), no directory redirects, metadata-only copy-ups or index, so
// that the upper directory holds plain files, directories, symlinks,
// whiteouts and opaque markers and nothing else.
var overlayOptions = []string{"userxattr", "redirect_dir=nofollow", "metacopy=off", "index=off", "xino=off"}

func mountOverlay(ov *overlaySpec) error {
	fd, err := unix.Fsopen("overlay", unix.FSOPEN_CLOEXEC)
	if err == nil {
		defer unix.Close(fd)
		err = overlayConfig(fd, ov)
		if err == nil {
			var mfd int
			if mfd, err = unix.Fsmount(fd, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NODEV); err == nil {
				err = unix.MoveMount(mfd, "", unix.AT_FDCWD, ov.Lower, unix.MOVE_MOUNT_F_EMPTY_PATH)
				unix.Close(mfd)
			}
			if err != nil {
				return fmt.Errorf("mount overlay: %w", err)
			}
			return nil
		}
	}
	// Before "lowerdir+" (Linux 6.8): the old interface, whose option
	// string cannot carry every path.
	for _, p := range []string{ov.Lower, ov.Upper, ov.Work} {
		if strings.ContainsAny(p, ",:\\=\n") {
			return fmt.Errorf("mount overlay: %v, and the workspace path %q cannot be passed to mount(2)", err, p)
		}
	}
	data := "lowerdir=" + ov.Lower + ",upperdir=" + ov.Upper + ",workdir=" + ov.Work + "," + strings.Join(overlayOptions, ",")
	if e := unix.Mount("overlay", ov.Lower, "overlay", unix.MS_NODEV, data); e != nil {
		return fmt.Errorf("mount overlay: %w", e)
	}
	return nil
}

func overlayConfig(fd int, ov *overlaySpec) error {
	for _, kv := range [][2]string{{"lowerdir+", ov.Lower}, {"upperdir", ov.Upper}, {"workdir", ov.Work}} {
		if err := unix.FsconfigSetString(fd, kv[0], kv[1]); err != nil {
			return fmt.Errorf("fsconfig %s: %w", kv[0], err)
		}
	}
	for _, o := range overlayOptions {
		k, v, hasV := strings.Cut(o, "=")
		var err error
		if hasV {
			err = unix.FsconfigSetString(fd, k, v)
		} else {
			err = unix.FsconfigSetFlag(fd, k)
		}
		if err != nil {
			return fmt.Errorf("fsconfig %s: %w", o, err)
		}
	}
	if err := unix.FsconfigCreate(fd); err != nil {
		return fmt.Errorf("fsconfig create: %w", err)
	}
	return nil
}

// finish applies the upper directory to the workspace and removes it.
// Every process of the run is gone (the pid namespace died with it).
// Both trees are walked by descriptor (the workspace's taken before the
// run), nothing is followed, and the walk stops at the deadline.
func (o *overlayState) finish(fc *finishCtx) (notes, warns []string) {
	if o == nil || o.dir == "" {
		return nil, nil
	}
	defer o.discard()
	if !o.mounted {
		return nil, nil
	}
	a := &overlayApply{fc: fc}
	a.only(o.keep)
	if err := a.run(filepath.Join(o.dir, "upper"), o.wsfd); err != nil {
		a.warns = append(a.warns, "the workspace changes could not all be applied: "+err.Error())
	}
	if a.changed > 0 {
		notes = append(notes, fmt.Sprintf("overlay: %d workspace changes applied", a.changed))
	}
	for i, w := range a.warns {
		// The command saw the .git view as .git.
		a.warns[i] = unviewName(w)
	}
	return notes, a.warns
}

// unviewName drops the name of a .git view from the paths in s.
func unviewName(s string) string {
	for {
		i := strings.Index(s, ".git/"+gitViewPrefix)
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i+5:], '/')
		if j < 0 {
			return s
		}
		s = s[:i+5] + s[i+5+j+1:]
	}
}

// overlayApply copies an overlay upper directory onto a directory tree,
// walking both by descriptor, never following a symlink on either side.
type overlayApply struct {
	changed int
	warns   []string
	fc      *finishCtx
	// keep, when not nil, are the names to apply (a review's answer)
	// and under their ancestors: nothing else is.
	keep, under map[string]bool
}

func (a *overlayApply) only(keep map[string]bool) {
	if keep == nil {
		return
	}
	a.keep, a.under = keep, map[string]bool{}
	for rel := range keep {
		for i := strings.LastIndexByte(rel, '/'); i > 0; i = strings.LastIndexByte(rel[:i], '/') {
			a.under[rel[:i]] = true
		}
	}
}

// kept says whether the change at rel is applied.
func (a *overlayApply) kept(rel string) bool { return a.keep == nil || a.keep[rel] }

// applyNamePrefix names the temporary files written beside their target.
const applyNamePrefix = ".shellguard-apply-"

func (a *overlayApply) run(upper string, wsfd int) error {
	ufd, err := unix.Open(upper, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(ufd)
	wfd, err := unix.Openat(wsfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(wfd)
	if err := a.refuseRedirect(ufd, "."); err != nil {
		return err
	}
	return a.dir(ufd, wfd, "", 0)
}

const applyMaxDepth = 512

// dir applies the entries of the upper directory ufd to wfd (rel names
// it for messages).
func (a *overlayApply) dir(ufd, wfd int, rel string, depth int) error {
	if depth > applyMaxDepth {
		return fmt.Errorf("%s: nested too deep", rel)
	}
	// Read all names first (the upper directory does not change now).
	names, err := fdNames(ufd)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	for _, n := range names {
		if n == "." || n == ".." || strings.ContainsRune(n, '/') {
			continue
		}
		if a.fc.expired() {
			return fmt.Errorf("%s: the post-run deadline passed; the rest was not applied", rel)
		}
		if err := a.entry(ufd, wfd, n, joinRel(rel, n), depth); err != nil {
			a.warns = append(a.warns, "overlay: "+err.Error())
		}
	}
	return nil
}

func joinRel(rel, n string) string {
	if rel == "" {
		return n
	}
	return rel + "/" + n
}

func fdNames(fd int) ([]string, error) {
	dfd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dfd), "dir")
	defer f.Close()
	return f.Readdirnames(-1)
}

// refuseRedirect fails on overlay metadata the apply step does not
// understand (a renamed directory or a metadata-only copy-up): the
// options forbid them, so one here means something is wrong.
func (a *overlayApply) refuseRedirect(fd int, name string) error {
	for _, x := range []string{"user.overlay.redirect", "user.overlay.metacopy", "trusted.overlay.redirect", "trusted.overlay.metacopy"} {
		if _, err := unix.Fgetxattr(fd, x, nil); err == nil {
			return fmt.Errorf("%s carries %s: not applied", name, x)
		}
	}
	return nil
}

func opaque(fd int) bool {
	buf := make([]byte, 8)
	for _, x := range []string{"user.overlay.opaque", "trusted.overlay.opaque"} {
		if n, err := unix.Fgetxattr(fd, x, buf); err == nil && n >= 1 && buf[0] == 'y' {
			return true
		}
	}
	return false
}

func (a *overlayApply) entry(ufd, wfd int, n, rel string, depth int) error {
	var us unix.Stat_t
	if err := unix.Fstatat(ufd, n, &us, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	var ws unix.Stat_t
	werr := unix.Fstatat(wfd, n, &ws, unix.AT_SYMLINK_NOFOLLOW)
	exists := werr == nil
	if werr != nil && !errors.Is(werr, unix.ENOENT) {
		return fmt.Errorf("%s: %w", rel, werr)
	}
	wIsDir := exists && ws.Mode&unix.S_IFMT == unix.S_IFDIR
	switch us.Mode & unix.S_IFMT {
	case unix.S_IFCHR:
		if us.Rdev != 0 {
			if !a.kept(rel) {
				return nil
			}
			return fmt.Errorf("%s: a device node is not applied", rel)
		}
		// A whiteout: the command deleted the name.
		if exists && a.kept(rel) {
			a.changed++
			return removeAt(wfd, n, wIsDir, depth)
		}
		return nil
	case unix.S_IFDIR:
		if !a.kept(rel) && !a.under[rel] {
			return nil
		}
		cfd, err := unix.Openat(ufd, n, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		defer unix.Close(cfd)
		if err := a.refuseRedirect(cfd, rel); err != nil {
			return err
		}
		if exists && !wIsDir && !a.kept(rel) {
			return nil // what is beneath needs the file it replaces gone
		}
		created := !exists || !wIsDir
		if exists && !wIsDir {
			if err := unix.Unlinkat(wfd, n, 0); err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			exists = false
		}
		if !exists {
			if err := unix.Mkdirat(wfd, n, 0o700); err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			a.changed++
		}
		dfd, err := unix.Openat(wfd, n, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err) // a symlink raced in: refused
		}
		defer unix.Close(dfd)
		if exists && opaque(cfd) {
			// The command removed the directory and made a new one:
			// what the upper holds is all of it.
			keep, err := fdNames(cfd)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			have, err := fdNames(dfd)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			kept := map[string]bool{}
			for _, k := range keep {
				kept[k] = true
			}
			for _, h := range have {
				if !kept[h] && a.kept(joinRel(rel, h)) {
					var s unix.Stat_t
					if unix.Fstatat(dfd, h, &s, unix.AT_SYMLINK_NOFOLLOW) == nil {
						if err := removeAt(dfd, h, s.Mode&unix.S_IFMT == unix.S_IFDIR, depth+1); err != nil {
							a.warns = append(a.warns, "overlay: "+err.Error())
						}
						a.changed++
					}
				}
			}
		}
		if err := a.dir(cfd, dfd, rel, depth+1); err != nil {
			return err
		}
		if !created && !a.kept(rel) {
			return nil // its mode and times stay as they were
		}
		if err := unix.Fchmod(dfd, safeMode(us.Mode, true)); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		unix.UtimesNanoAt(dfd, ".", []unix.Timespec{us.Atim, us.Mtim}, 0)
		return nil
	case unix.S_IFREG:
		if !a.kept(rel) {
			return nil
		}
		a.changed++
		return a.file(ufd, wfd, n, rel, &us, wIsDir, depth)
	case unix.S_IFLNK:
		if !a.kept(rel) {
			return nil
		}
		target, err := readlinkAt(ufd, n)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if exists && ws.Mode&unix.S_IFMT == unix.S_IFLNK {
			if cur, err := readlinkAt(wfd, n); err == nil && cur == target {
				return nil
			}
		}
		a.changed++
		tmp, err := tempName(wfd, func(t string) error { return unix.Symlinkat(target, wfd, t) })
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		return renameOver(wfd, tmp, n, rel, wIsDir, depth)
	}
	if !a.kept(rel) {
		return nil
	}
	return fmt.Errorf("%s: a %s is not applied", rel, fileType(us.Mode))
}

func fileType(m uint32) string {
	switch m & unix.S_IFMT {
	case unix.S_IFIFO:
		return "fifo"
	case unix.S_IFSOCK:
		return "socket"
	case unix.S_IFBLK:
		return "block device"
	}
	return "special file"
}

// safeMode keeps the permission bits, drops setuid and setgid (a file
// made setuid inside the sandbox must not become one outside), and the
// sticky bit on directories only.
func safeMode(m uint32, dir bool) uint32 {
	keep := uint32(0o777)
	if dir {
		keep |= unix.S_ISVTX
	}
	return m & keep
}

// file writes the upper file's content into a new file beside the
// target and renames it over the target's name: the inode the name had
// (and every other name of it) is left untouched.
func (a *overlayApply) file(ufd, wfd int, n, rel string, us *unix.Stat_t, wIsDir bool, depth int) error {
	src, err := unix.Openat(ufd, n, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	sf := os.NewFile(uintptr(src), rel)
	defer sf.Close()
	var df *os.File
	tmp, err := tempName(wfd, func(t string) error {
		fd, err := unix.Openat(wfd, t, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err == nil {
			df = os.NewFile(uintptr(fd), t)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	fail := func(err error) error {
		df.Close()
		unix.Unlinkat(wfd, tmp, 0)
		return fmt.Errorf("%s: %w", rel, err)
	}
	if _, err := io.Copy(df, sf); err != nil {
		return fail(err)
	}
	if err := unix.Fchmod(int(df.Fd()), safeMode(us.Mode, false)); err != nil {
		return fail(err)
	}
	if err := unix.UtimesNanoAt(int(df.Fd()), "", []unix.Timespec{us.Atim, us.Mtim}, unix.AT_EMPTY_PATH); err != nil {
		// AT_EMPTY_PATH is refused by older kernels: by name instead.
		unix.UtimesNanoAt(wfd, tmp, []unix.Timespec{us.Atim, us.Mtim}, unix.AT_SYMLINK_NOFOLLOW)
	}
	if err := df.Close(); err != nil {
		unix.Unlinkat(wfd, tmp, 0)
		return fmt.Errorf("%s: %w", rel, err)
	}
	return renameOver(wfd, tmp, n, rel, wIsDir, depth)
}

// tempName creates a new entry beside the target with make, under a
// fresh name, and returns the name.
func tempName(wfd int, make func(string) error) (string, error) {
	var last error
	for i := 0; i < 100; i++ {
		t := applyNamePrefix + strconv.FormatInt(time.Now().UnixNano()+int64(i), 36)
		if last = make(t); last == nil {
			return t, nil
		}
		if !errors.Is(last, unix.EEXIST) {
			return "", last
		}
	}
	return "", last
}

func renameOver(wfd int, tmp, n, rel string, wIsDir bool, depth int) error {
	if wIsDir {
		// A file or symlink replaces what was a directory.
		if err := removeAt(wfd, n, true, depth); err != nil {
			unix.Unlinkat(wfd, tmp, 0)
			return err
		}
	}
	if err := unix.Renameat(wfd, tmp, wfd, n); err != nil {
		unix.Unlinkat(wfd, tmp, 0)
		return fmt.Errorf("%s: %w", rel, err)
	}
	return nil
}

func readlinkAt(fd int, n string) (string, error) {
	buf := make([]byte, 4096)
	k, err := unix.Readlinkat(fd, n, buf)
	if err != nil {
		return "", err
	}
	if k == len(buf) {
		return "", errors.New("symlink target too long")
	}
	return string(buf[:k]), nil
}

// removeAt removes n in dfd, a directory recursively, by descriptor
// (never following a symlink).
func removeAt(dfd int, n string, isDir bool, depth int) error {
	if !isDir {
		return unix.Unlinkat(dfd, n, 0)
	}
	if depth > applyMaxDepth {
		return fmt.Errorf("%s: nested too deep", n)
	}
	cfd, err := unix.Openat(dfd, n, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	names, err := fdNames(cfd)
	if err == nil {
		for _, c := range names {
			var s unix.Stat_t
			if unix.Fstatat(cfd, c, &s, unix.AT_SYMLINK_NOFOLLOW) != nil {
				continue
			}
			if e := removeAt(cfd, c, s.Mode&unix.S_IFMT == unix.S_IFDIR, depth+1); e != nil && err == nil {
				err = e
			}
		}
	}
	unix.Close(cfd)
	if err != nil {
		return err
	}
	return unix.Unlinkat(dfd, n, unix.AT_REMOVEDIR)
}
