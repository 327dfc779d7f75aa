//go:build linux

package sandbox

import (
	"path/filepath"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A long-lived process (one that keeps a Pool) resolves HOME for every
// command, warm ones included: the listings of HOME and of the
// directories the allowlist looks into, a stat for each allowlisted
// entry, the git config files read and filtered. That answer is kept
// while nothing it depends on has changed, which inotify tells: every
// directory it listed or looked into, with every ancestor of it and of
// where it resolves to (a rename or a new link above moves what is
// beneath), is watched for entries appearing, going, moving or changing
// rights, and every git config file it read for its content. Any event,
// an overflow of the event queue, or a watch that cannot be set drops
// the answer; so does its age (homeCacheTTL), for what inotify does not
// report (a mount over one of those paths).
//
// A change between reading a path and watching it would go unseen, so
// an answer is kept only when it was resolved with every watch it needs
// already set: the first resolution sets them and is not kept, the next
// one is.
var homeCache struct {
	sync.Mutex
	key   string
	w     *homeWatch
	fs    fsSpec
	valid bool
	at    time.Time
	hits  int // answers served from the cache (tests)
}

const (
	// homeCacheTTL bounds how long an answer is kept without a change.
	homeCacheTTL = 10 * time.Second
	// homeWatchMax bounds the watches of one answer: beyond, it is not
	// kept.
	homeWatchMax = 256
)

// resolveHomeCached is resolveHome, answered from homeCache when nothing
// it depends on has changed.
func resolveHomeCached(fs *fsSpec, home string, allow []string, path string) {
	key := homeKey(home, allow, path)
	c := &homeCache
	c.Lock()
	defer c.Unlock()
	if c.key == key && c.valid && time.Since(c.at) < homeCacheTTL && !c.w.changed() {
		c.hits++
		*fs = c.fs.clone()
		return
	}
	c.valid = false
	if c.key != key || c.w == nil || c.w.broken {
		c.w.close()
		c.key, c.w = key, newHomeWatch()
	}
	c.w.changed() // what happened so far is what this resolution reads
	var seen homeSeen
	resolveHomeSeen(fs, home, allow, path, &seen)
	if added := c.w.watch(&seen); added == 0 && !c.w.broken && !c.w.changed() {
		c.fs, c.valid, c.at = fs.clone(), true, time.Now()
	}
}

// clone copies fs with slices of its own: a caller appends to them.
func (fs fsSpec) clone() fsSpec {
	fs.HomeEntries = slices.Clone(fs.HomeEntries)
	fs.GitConfigs = slices.Clone(fs.GitConfigs)
	fs.SecretRoots = slices.Clone(fs.SecretRoots)
	fs.FallbackMasks = slices.Clone(fs.FallbackMasks)
	return fs
}

// homeSeen collects what a resolution of HOME looked at. Its methods do
// nothing on a nil *homeSeen.
type homeSeen struct {
	dirs  map[string]bool // directories whose entries matter
	files map[string]bool // files whose content matters
}

// path records that the existence, kind or rights of p matter: its
// directory is watched.
func (s *homeSeen) path(p string) {
	if s != nil && filepath.IsAbs(p) {
		s.dir(filepath.Dir(p))
		if r := resolvePath(p); r != "" && r != p {
			s.dir(filepath.Dir(r)) // a link: where it leads too
		}
	}
}

// dir records that the entries of d matter.
func (s *homeSeen) dir(d string) {
	if s == nil || !filepath.IsAbs(d) {
		return
	}
	if s.dirs == nil {
		s.dirs = map[string]bool{}
	}
	s.dirs[filepath.Clean(d)] = true
}

// file records that the content of f matters (and its existence).
func (s *homeSeen) file(f string) {
	if s == nil || !filepath.IsAbs(f) {
		return
	}
	s.path(f)
	if s.files == nil {
		s.files = map[string]bool{}
	}
	s.files[filepath.Clean(f)] = true
}

// homeWatch is an inotify instance watching what answers depended on.
type homeWatch struct {
	fd      int
	watched map[watchKey]bool
	broken  bool // a watch could not be set, or reading failed
}

const (
	// homeDirEvents: an entry of a watched directory appears, goes,
	// moves or changes rights, or the directory itself goes.
	homeDirEvents = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
		unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
	// homeFileEvents: a watched file's content or rights change.
	homeFileEvents = unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF
)

func newHomeWatch() *homeWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return &homeWatch{fd: -1, broken: true}
	}
	return &homeWatch{fd: fd, watched: map[watchKey]bool{}}
}

// watchKey is an inode and the events watched on it.
type watchKey struct {
	dev, ino uint64
	mask     uint32
}

// watch sets the watches seen needs and returns how many it added. Of a
// directory it watches every ancestor, and those of where it resolves
// to; a path that does not exist is not watched (its creation is an
// event of an ancestor that does).
func (w *homeWatch) watch(seen *homeSeen) int {
	if w.broken {
		return 0
	}
	added := 0
	// add watches what p leads to now. Watches are kept by inode: a
	// path replaced since it was watched (an event, which brought this
	// resolution) leads to another inode, which is watched anew.
	add := func(p string, mask uint32) {
		var st unix.Stat_t
		switch err := unix.Stat(p, &st); err {
		case nil:
		case unix.ENOENT, unix.ENOTDIR:
			return // not there: its creation is an event above it
		default:
			w.broken = true
			return
		}
		key := watchKey{st.Dev, st.Ino, mask}
		if w.broken || w.watched[key] {
			return
		}
		if len(w.watched) >= homeWatchMax {
			w.broken = true
			return
		}
		// IN_MASK_ADD: a link and its target are one inode.
		switch _, err := unix.InotifyAddWatch(w.fd, p, mask|unix.IN_MASK_ADD); err {
		case nil:
			w.watched[key] = true
			added++
		case unix.ENOENT, unix.ENOTDIR:
		default:
			w.broken = true
		}
	}
	addDir := func(d string) {
		for {
			add(d, homeDirEvents)
			if d == "/" {
				return
			}
			d = filepath.Dir(d)
		}
	}
	for _, d := range sortedKeys(seen.dirs) {
		addDir(d)
		// Where d resolves to, or its nearest ancestor that exists.
		for a := d; ; a = filepath.Dir(a) {
			if r := resolvePath(a); r != "" {
				if r != a {
					addDir(r)
				}
				break
			}
			if a == "/" {
				break
			}
		}
	}
	for _, f := range sortedKeys(seen.files) {
		add(f, homeFileEvents)
	}
	return added
}

// changed reports whether an event arrived since the last call (and
// takes them all); true once the watch is broken.
func (w *homeWatch) changed() bool {
	if w == nil || w.broken {
		return true
	}
	var buf [4096]byte
	got := false
	for {
		n, err := unix.Read(w.fd, buf[:])
		switch {
		case n > 0:
			got = true
			continue
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return got
		}
		w.broken = true
		return true
	}
}

func (w *homeWatch) close() {
	if w != nil && w.fd >= 0 {
		unix.Close(w.fd)
		w.fd = -1
		w.broken = true
	}
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
