//go:build linux

package sandbox

// Review: a run in the copy-on-write overlay whose changes are listed for
// a reviewer before any of them lands. The listing walks the upper
// directory and the workspace by descriptor, as the apply step does
// (overlay_linux.go): nothing is followed, a file is read only when fstat
// says it is regular and only up to ReviewMaxFile, and every process of
// the run is gone (its pid namespace died with it), so what is listed is
// what is applied.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/diff"
	"golang.org/x/sys/unix"
)

// errTooManyChanges stops a listing past ReviewMaxChanges.
var errTooManyChanges = fmt.Errorf("the run changed more than %d entries: too many to review", ReviewMaxChanges)

// reviewList lists what applying the upper directory to the workspace
// would change. rels holds, per change, the upper directory's own name of
// its path (the .git view's name, before unviewName).
type reviewList struct {
	changes   []Change
	rels      []string
	diffSpent int
}

func (o *overlayState) listChanges() (*reviewList, error) {
	ufd, err := unix.Open(filepath.Join(o.dir, "upper"), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(ufd)
	l := &reviewList{}
	return l, l.dir(ufd, o.wsfd, "", 0)
}

func (l *reviewList) add(rel string, c Change) error {
	if len(l.changes) >= ReviewMaxChanges {
		return errTooManyChanges
	}
	c.Path = unviewName(rel)
	l.changes = append(l.changes, c)
	l.rels = append(l.rels, rel)
	return nil
}

// dir lists the entries of the upper directory ufd against wfd (-1: the
// workspace has nothing there, every entry is new).
func (l *reviewList) dir(ufd, wfd int, rel string, depth int) error {
	if depth > applyMaxDepth {
		return fmt.Errorf("%s: nested too deep", rel)
	}
	names, err := fdNames(ufd)
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	slices.Sort(names) // the reviewer reads them in order
	for _, n := range names {
		if n == "." || n == ".." || strings.ContainsRune(n, '/') {
			continue
		}
		if err := l.entry(ufd, wfd, n, joinRel(rel, n), depth); err != nil {
			return err
		}
	}
	return nil
}

func kindOf(m uint32) string {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return "dir"
	case unix.S_IFREG:
		return "file"
	case unix.S_IFLNK:
		return "symlink"
	}
	return fileType(m)
}

func modeText(old *unix.Stat_t, m uint32, dir bool) string {
	now := fmt.Sprintf("%04o", safeMode(m, dir))
	if old == nil {
		return now
	}
	was := fmt.Sprintf("%04o", safeMode(old.Mode, old.Mode&unix.S_IFMT == unix.S_IFDIR))
	if was == now {
		return now
	}
	return was + " -> " + now
}

func (l *reviewList) entry(ufd, wfd int, n, rel string, depth int) error {
	var us unix.Stat_t
	if err := unix.Fstatat(ufd, n, &us, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	var ws unix.Stat_t
	exists := false
	if wfd >= 0 {
		werr := unix.Fstatat(wfd, n, &ws, unix.AT_SYMLINK_NOFOLLOW)
		if werr != nil && !errors.Is(werr, unix.ENOENT) {
			return fmt.Errorf("%s: %w", rel, werr)
		}
		exists = werr == nil
	}
	var old *unix.Stat_t
	if exists {
		old = &ws
	}
	wIsDir := exists && ws.Mode&unix.S_IFMT == unix.S_IFDIR
	ut := us.Mode & unix.S_IFMT
	switch {
	case ut == unix.S_IFCHR && us.Rdev == 0: // a whiteout
		if !exists {
			return nil
		}
		c := Change{Op: "delete", Kind: kindOf(ws.Mode)}
		if ws.Mode&unix.S_IFMT == unix.S_IFREG {
			l.diffFile(&c, wfd, n, -1, "", rel, ws.Size, 0)
		}
		return l.add(rel, c)
	case ut == unix.S_IFDIR:
		cfd, err := unix.Openat(ufd, n, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		defer unix.Close(cfd)
		dfd := -1
		switch {
		case !exists:
			if err := l.add(rel, Change{Op: "add", Kind: "dir", Mode: modeText(nil, us.Mode, true)}); err != nil {
				return err
			}
		case !wIsDir:
			if err := l.add(rel, Change{Op: "replace", Kind: "dir", Mode: modeText(nil, us.Mode, true), Note: "was a " + kindOf(ws.Mode)}); err != nil {
				return err
			}
		default:
			dfd, err = unix.Openat(wfd, n, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			defer unix.Close(dfd)
			if safeMode(us.Mode, true) != safeMode(ws.Mode, true) {
				if err := l.add(rel, Change{Op: "mode", Kind: "dir", Mode: modeText(old, us.Mode, true)}); err != nil {
					return err
				}
			}
			if opaque(cfd) {
				// The command removed the directory and made a new one:
				// what the workspace has beyond the upper is deleted.
				keep, err := fdNames(cfd)
				if err != nil {
					return fmt.Errorf("%s: %w", rel, err)
				}
				have, err := fdNames(dfd)
				if err != nil {
					return fmt.Errorf("%s: %w", rel, err)
				}
				for _, h := range have {
					var s unix.Stat_t
					if !slices.Contains(keep, h) && unix.Fstatat(dfd, h, &s, unix.AT_SYMLINK_NOFOLLOW) == nil {
						if err := l.add(joinRel(rel, h), Change{Op: "delete", Kind: kindOf(s.Mode)}); err != nil {
							return err
						}
					}
				}
			}
		}
		return l.dir(cfd, dfd, rel, depth+1)
	case ut == unix.S_IFREG:
		c := Change{Op: "add", Kind: "file", Mode: modeText(old, us.Mode, false), Size: us.Size}
		oldSize := int64(-1)
		switch {
		case exists && ws.Mode&unix.S_IFMT == unix.S_IFREG:
			c.Op = "modify"
			oldSize = ws.Size
		case exists:
			c.Op, c.Note = "replace", "was a "+kindOf(ws.Mode)
		}
		same := l.diffFile(&c, wfd, n, ufd, n, rel, oldSize, us.Size)
		if same && c.Op == "modify" {
			if safeMode(us.Mode, false) == safeMode(ws.Mode, false) {
				// Copied up and written back as it was (a file opened
				// for writing, touched): nothing to review.
				return nil
			}
			c.Op, c.Diff, c.Note = "mode", "", ""
		}
		return l.add(rel, c)
	case ut == unix.S_IFLNK:
		target, err := readlinkAt(ufd, n)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		c := Change{Op: "add", Kind: "symlink", Diff: "-> " + target + "\n"}
		if exists && ws.Mode&unix.S_IFMT == unix.S_IFLNK {
			cur, err := readlinkAt(wfd, n)
			if err == nil && cur == target {
				return nil
			}
			c.Op, c.Diff = "modify", "-> "+cur+"\n+> "+target+"\n"
		} else if exists {
			c.Op, c.Note = "replace", "was a "+kindOf(ws.Mode)
		}
		return l.add(rel, c)
	}
	// Refused by the apply step whatever the reviewer says; listed so
	// that the reviewer sees it.
	return l.add(rel, Change{Op: "add", Kind: kindOf(us.Mode), Note: "a " + fileType(us.Mode) + " is never applied"})
}

// diffFile fills c.Diff (or c.Note) from the old file n in ofd (ofd -1 or
// oldSize -1: none) and the new one nn in nfd (-1: deleted). It reports
// whether both have the same content.
func (l *reviewList) diffFile(c *Change, ofd int, n string, nfd int, nn, rel string, oldSize, newSize int64) bool {
	if oldSize > ReviewMaxFile || newSize > ReviewMaxFile {
		c.Note = fmt.Sprintf("not diffed: larger than %d bytes", ReviewMaxFile)
		return false
	}
	var old, new []byte
	var err error
	if ofd >= 0 && oldSize >= 0 {
		if old, err = readRegular(ofd, n); err != nil {
			c.Note = "not diffed: " + err.Error()
			return false
		}
	}
	if nfd >= 0 {
		if new, err = readRegular(nfd, nn); err != nil {
			c.Note = "not diffed: " + err.Error()
			return false
		}
	}
	if bytes.Equal(old, new) && oldSize >= 0 && nfd >= 0 {
		return true
	}
	if !isText(old) || !isText(new) {
		c.Note = "binary"
		return false
	}
	name := unviewName(rel)
	oldName, newName := "a/"+name, "b/"+name
	if oldSize < 0 {
		oldName = "/dev/null"
	}
	if nfd < 0 {
		newName = "/dev/null"
	}
	d := diff.Diff(oldName, old, newName, new)
	if i := bytes.IndexByte(d, '\n'); i >= 0 && bytes.HasPrefix(d, []byte("diff ")) {
		d = d[i+1:] // the "diff a b" line says nothing the header does not
	}
	switch {
	case len(d) > ReviewMaxDiff:
		c.Note = fmt.Sprintf("diff of %d bytes left out (over %d)", len(d), ReviewMaxDiff)
	case l.diffSpent+len(d) > ReviewMaxDiffTotal:
		c.Note = "diff left out: the review's diff budget is spent"
	default:
		l.diffSpent += len(d)
		c.Diff = string(d)
	}
	return false
}

// readRegular reads the regular file n in dfd, never following a symlink
// or blocking on a FIFO, up to ReviewMaxFile.
func readRegular(dfd int, n string) ([]byte, error) {
	fd, err := unix.Openat(dfd, n, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), n)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, errNotRegular
	}
	b, err := io.ReadAll(io.LimitReader(f, ReviewMaxFile+1))
	if err == nil && len(b) > ReviewMaxFile {
		err = fmt.Errorf("larger than %d bytes", ReviewMaxFile)
	}
	return b, err
}

// isText: valid UTF-8 without NUL bytes.
func isText(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}

// finishReview lists the run's changes, asks fn which to apply and
// leaves the answer for the apply step (the finisher "overlay-review"). Nothing is applied when the listing fails or
// is too long, or when fn is nil.
func (o *overlayState) finishReview(fn func([]Change) ([]string, error)) *Reviewed {
	r := &Reviewed{}
	o.keep = map[string]bool{} // nothing, unless the reviewer says so
	l, err := o.listChanges()
	if err != nil {
		r.Note = "nothing was applied: " + unviewName(err.Error())
		if l != nil {
			r.Changes = l.changes
		}
		return r
	}
	if len(l.changes) == 0 {
		return r
	}
	if fn == nil {
		r.Changes = l.changes
		r.Note = "nothing was applied: no reviewer to show the changes to"
		return r
	}
	shown := make([]Change, len(l.changes))
	copy(shown, l.changes)
	apply, err := fn(shown)
	if err != nil {
		apply = nil
		r.Note = "nothing was applied: the review failed: " + err.Error()
	}
	want := map[string]bool{}
	for _, p := range apply {
		want[p] = true
	}
	for i := range l.changes {
		c := &l.changes[i]
		if want[c.Path] {
			// What the apply step refuses (a FIFO, a device) it also
			// reports: it gets the answer as it is.
			c.Applied = !strings.HasSuffix(c.Note, "is never applied")
			o.keep[l.rels[i]] = true
		}
		c.Diff = ""
	}
	r.Changes = l.changes
	return r
}

// OnReview sets the reviewer of a review run (Spec.Review): at Close,
// after every process of the run has ended and before anything is
// applied, fn gets the run's changes and returns the paths (Change.Path)
// to apply; the rest is discarded, and an error discards everything.
// PostRun.Review reports the answer. Call it before Close; it is ignored
// for other runs.
func (h *Handle) OnReview(fn func(changes []Change) (apply []string, err error)) {
	h.reviewer = fn
}

// CanReview says whether a review run under spec can hold its changes
// here: it runs "exit 0" as one (in spec.Workspace) and returns why not.
func CanReview(spec Spec, env []string) error {
	spec.Review, spec.Pool = true, -1
	a, err := probeRun(spec, env, spec.Workspace)
	if err != nil {
		return err
	}
	if !a.Has(LayerOverlay) {
		return errors.New("the copy-on-write workspace is missing here")
	}
	return nil
}
