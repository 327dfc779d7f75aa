//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// fsSpec is the part of the helper spec for the HOME allowlist, the
// secret roots, .git and the cgroup (resolved by the parent).
type fsSpec struct {
	// Home is HOME (real path); "" when there is none to isolate.
	Home string `json:"home,omitempty"`
	// HomeEntries are the existing allowlisted paths in Home, bound back
	// read-only.
	HomeEntries []string `json:"home_entries,omitempty"`
	// GitConfigs are the git config files in Home, replaced inside by
	// the copies filtered here, in the parent: the helper never reads
	// the real files, so it never holds what the filter drops.
	GitConfigs []gitConfigFile `json:"git_configs,omitempty"`
	// SecretRoots are hidden like Home (only writable roots under them
	// come back).
	SecretRoots []string `json:"secret_roots,omitempty"`
	// CacheRoot is the cache directory when it is among SecretRoots:
	// only this workspace's part of it comes back.
	CacheRoot string `json:"cache_root,omitempty"`
	// FallbackMasks are masked when Home cannot be isolated.
	FallbackMasks []string `json:"fallback_masks,omitempty"`
	// Git protects the workspace's .git (see git_linux.go); GitErr says
	// why there is no view although there is a .git directory.
	Git    *gitSpec `json:"git,omitempty"`
	GitErr string   `json:"git_err,omitempty"`
}

// gitConfigFile is a filtered git config: its path and the text the
// command sees there.
type gitConfigFile struct {
	Path    string `json:"path"`
	Text    string `json:"text"`
	Dropped int    `json:"dropped"` // keys and sections left out
}

// maxGitConfig bounds a git config file read for the filter; the spec
// travels in argv, where one string may not exceed 128 KiB.
const maxGitConfig = 64 << 10

// readGitConfig reads and filters the git config file at p, which may be
// a link (dotfile managers link it) but must be a regular file: a FIFO or
// a device there is never waited on.
func readGitConfig(p string) (gitConfigFile, bool) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return gitConfigFile{}, false
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return gitConfigFile{}, false
	}
	if fi.Size() > maxGitConfig {
		return gitConfigFile{Path: p, Dropped: 1}, true
	}
	b, err := io.ReadAll(io.LimitReader(f, maxGitConfig+1))
	if err != nil || len(b) > maxGitConfig {
		return gitConfigFile{Path: p, Dropped: 1}, true
	}
	text, dropped := FilterGitConfig(string(b))
	return gitConfigFile{Path: p, Text: text, Dropped: len(dropped)}, true
}

// secretRoots is DefaultSecretRoots (tests point it at scratch directories).
var secretRoots = DefaultSecretRoots

// homePrewarmed is a resolveHome that Prewarm started for the inputs a
// one-command caller's first command will most likely have (its HOME and
// PATH, the configured allowlist), so that it runs while the command is
// checked; resolve takes it, once, when the inputs are the same.
var homePrewarmed struct {
	sync.Mutex
	r *homeResult
}

type homeResult struct {
	key  string
	done chan struct{}
	fs   fsSpec
}

func homeKey(home string, allow []string, path string) string {
	return home + "\x00" + path + "\x00" + strings.Join(allow, "\x00")
}

// prewarmHome starts resolveHome in the background for spec with this
// process's HOME and PATH.
func prewarmHome(spec Spec) {
	home := spec.Home
	if home == "" {
		home = os.Getenv("HOME")
	}
	if home != "" {
		if r := realpath(home); r != "" {
			home = r
		}
	}
	allow := append(append([]string{}, DefaultHomeAllow...), spec.HomeAllow...)
	path := os.Getenv("PATH")
	r := &homeResult{key: homeKey(home, allow, path), done: make(chan struct{})}
	homePrewarmed.Lock()
	homePrewarmed.r = r
	homePrewarmed.Unlock()
	go func() {
		defer close(r.done)
		resolveHome(&r.fs, home, allow, path)
	}()
}

// resolveHomeOnce is resolveHome, served by the prewarmed result when it
// was made for the same inputs (and then forgotten).
func resolveHomeOnce(fs *fsSpec, home string, allow []string, path string) {
	homePrewarmed.Lock()
	r := homePrewarmed.r
	if r != nil && r.key == homeKey(home, allow, path) {
		homePrewarmed.r = nil
	} else {
		r = nil
	}
	homePrewarmed.Unlock()
	if r != nil {
		<-r.done
		*fs = r.fs
		return
	}
	if longLived.Load() {
		resolveHomeCached(fs, home, allow, path) // homecache_linux.go
		return
	}
	resolveHome(fs, home, allow, path)
}

// resolveHome fills the HOME part of fs from the parent's view.
func resolveHome(fs *fsSpec, home string, allow []string, path string) {
	resolveHomeSeen(fs, home, allow, path, nil)
}

// resolveHomeSeen is resolveHome telling seen, when not nil, every path
// whose entries, existence, kind, rights or content its answer depends
// on (see homeSeen).
func resolveHomeSeen(fs *fsSpec, home string, allow []string, path string, seen *homeSeen) {
	for _, p := range DefaultMaskedPaths {
		if e := expandHome(p, home); e != "" && filepath.IsAbs(e) {
			fs.FallbackMasks = append(fs.FallbackMasks, e)
		}
	}
	for _, r := range secretRoots {
		rp := realpath(r)
		seen.path(r)
		seen.path(rp)
		if rp == "" || rp == "/" || rp == home {
			continue
		}
		// Unsearchable for this uid (another user's 0700 home, /root
		// for a user): already out of reach, no mount needed.
		if unix.Access(rp, unix.X_OK) != nil {
			continue
		}
		fs.SecretRoots = append(fs.SecretRoots, rp)
	}
	if home == "" || home == "/" || !filepath.IsAbs(home) {
		return
	}
	fs.Home = home
	// Each directory the allowlist's patterns and wholeDirs look into is
	// read once, with getdents64 directly.
	listed := map[string]*dirListing{}
	listing := func(dir string) *dirListing {
		l, ok := listed[dir]
		if !ok {
			seen.dir(dir)
			l = readListing(dir)
			listed[dir] = l
		}
		return l
	}
	list := func(dir string) []string { return listing(dir).names }
	// One listing of HOME spares a stat for each allowlisted entry whose
	// first element is not there (most of them, in most homes).
	var top map[string]bool
	if l := listing(home); l.ok {
		top = make(map[string]bool, len(l.names))
		for _, n := range l.names {
			top[n] = true
		}
	}
	exists := func(p string) bool {
		seen.path(p)
		if top != nil {
			if rel, ok := strings.CutPrefix(p, home+"/"); ok {
				first, _, _ := strings.Cut(rel, "/")
				if !top[first] {
					return false
				}
			}
		}
		var st unix.Stat_t
		return unix.Stat(p, &st) == nil
	}
	fs.HomeEntries = wholeDirs(home, homeEntries(home, allow, path, exists, list), func(dir string) ([]dirName, bool) {
		l := listing(dir)
		return l.ents, l.ok
	})
	for g := range gitconfigFiles {
		if p := filepath.Join(home, g); exists(p) {
			seen.file(p)
			if c, ok := readGitConfig(p); ok {
				fs.GitConfigs = append(fs.GitConfigs, c)
			}
		}
	}
	sort.Slice(fs.GitConfigs, func(i, j int) bool { return fs.GitConfigs[i].Path < fs.GitConfigs[j].Path })
}

// isolateRoots hides HOME and the other secret roots behind empty tmpfs
// mounts and binds back, read-only by the later read-only root step, only
// the allowlisted entries and the writable roots that lie under them. It
// runs in the new mount namespace before the read-only root step. When
// HOME cannot be isolated it falls back to masking the built-in list.
func (h *helper) isolateRoots() {
	hs := &h.hs
	fs := &hs.FS
	fallback := func(err error) {
		hs.Masked = append(append([]string{}, fs.FallbackMasks...), hs.Masked...)
		h.miss(LayerHome, err, "")
	}
	// Roots to hide: the secret roots and HOME unless it is under one.
	roots := map[string][]string{}
	var order []string
	addRoot := func(r string) {
		if _, ok := roots[r]; !ok {
			roots[r] = nil
			order = append(order, r)
		}
	}
	homeRoot := ""
	if fs.Home != "" {
		homeRoot = fs.Home
		for _, r := range fs.SecretRoots {
			if under(fs.Home, r) {
				homeRoot = r
			}
		}
	}
	if homeRoot != "" {
		addRoot(homeRoot)
	}
	for _, r := range fs.SecretRoots {
		addRoot(r)
	}
	var skipped []string
	homeOK := homeRoot != ""
	var hidden []string
	gitFiles := map[string][]byte{}
	dropped := 0
	for _, g := range fs.GitConfigs {
		gitFiles[g.Path] = []byte(g.Text)
		dropped += g.Dropped
	}
	for _, r := range order {
		fi, err := os.Lstat(r)
		if err != nil || !fi.IsDir() {
			continue
		}
		// A writable root at or above r: r cannot be hidden.
		blocked := ""
		for _, w := range hs.Writable {
			if under(r, w) {
				blocked = w
			}
		}
		if blocked != "" {
			skipped = append(skipped, r+" (inside writable "+blocked+")")
			if r == homeRoot {
				homeOK = false
			}
			continue
		}
		var keep []string
		for _, w := range hs.Writable {
			if under(w, r) {
				keep = append(keep, w)
			}
		}
		files := map[string][]byte{}
		if r == homeRoot {
			keep = append(keep, fs.HomeEntries...)
			keep = append(keep, fs.Home)
			files = gitFiles
		}
		mode := uint32(0)
		if r == fs.CacheRoot {
			// Searchable by the command (as root, an unprivileged
			// uid), not listable: only its own part is under it.
			mode = 0o711
		}
		made, err := isolate(r, keep, files, fs.Home, mode)
		if err != nil {
			if r == homeRoot {
				fallback(fmt.Errorf("hiding %s: %w", r, err))
				return
			}
			skipped = append(skipped, r+" ("+err.Error()+")")
			continue
		}
		if r == homeRoot {
			h.homeMade = made
		}
		hidden = append(hidden, r)
	}
	if !homeOK {
		why := "no HOME"
		if homeRoot != "" {
			why = "HOME " + fs.Home + " lies inside a writable root"
		}
		fallback(errors.New(why + "; the built-in secret list is masked instead"))
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "HOME %s empty but %d allowlisted entries (read-only)", fs.Home, len(fs.HomeEntries))
	if len(gitFiles) > 0 {
		fmt.Fprintf(&b, ", git config filtered (%d keys not on the allowlist dropped)", dropped)
	}
	fmt.Fprintf(&b, "; hidden: %s", strings.Join(hidden, " "))
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "; not hidden: %s", strings.Join(skipped, ", "))
	}
	h.ok(LayerHome, b.String())
}

// isolate mounts an empty tmpfs over root and puts back, at the same
// paths, detached copies of keep (taken before the tmpfs hides them;
// "home", when under root, is re-created as an empty directory) and the
// given generated files. It returns what it created on the tmpfs (root
// itself, the directories it made and the files it wrote, not the mount
// points it covered), for chownTmpfs.
func isolate(root string, keep []string, files map[string][]byte, home string, mode uint32) ([]string, error) {
	type tree struct {
		fd   int
		path string
		dir  bool
	}
	var trees []tree
	defer func() {
		for _, t := range trees {
			unix.Close(t.fd)
		}
	}()
	var dirs []string
	sort.Strings(keep)
	for _, k := range keep {
		if k == home && k != root {
			dirs = append(dirs, k)
			continue
		}
		if k == root {
			continue
		}
		fd, err := unix.OpenTree(unix.AT_FDCWD, k, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			if _, serr := os.Stat(k); serr != nil {
				continue // not there (or not reachable): nothing to keep
			}
			return nil, fmt.Errorf("open_tree %s: %w", k, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("open_tree %s: %w", k, err)
		}
		trees = append(trees, tree{fd, k, st.Mode&unix.S_IFMT == unix.S_IFDIR})
	}
	if mode == 0 {
		mode = 0o755
		if fi, err := os.Stat(root); err == nil {
			mode = uint32(fi.Mode().Perm()) &^ 0o022
		}
	}
	opts := fmt.Sprintf("mode=%o,size=4m,nr_inodes=%d", mode, 256+4*len(keep)+len(files))
	if err := unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return nil, fmt.Errorf("tmpfs: %w", err)
	}
	md := tmpfsDirs{root: root, seen: map[string]bool{root: true}, tmp: map[string]bool{root: true}, made: []string{root}}
	for _, d := range dirs {
		if err := md.mkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	for _, t := range trees {
		if err := md.mkdirAll(filepath.Dir(t.path), 0o755); err != nil {
			return nil, err
		}
		if t.dir {
			if err := unix.Mkdir(t.path, 0o700); err != nil && err != unix.EEXIST {
				return nil, &os.PathError{Op: "mkdir", Path: t.path, Err: err}
			}
		} else {
			fd, err := unix.Open(t.path, unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
			if err != nil {
				return nil, &os.PathError{Op: "open", Path: t.path, Err: err}
			}
			unix.Close(fd)
		}
		if err := unix.MoveMount(t.fd, "", unix.AT_FDCWD, t.path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return nil, fmt.Errorf("move_mount %s: %w", t.path, err)
		}
		md.seen[t.path] = true // a mount point now, not the tmpfs's
	}
	for p, b := range files {
		if !under(p, root) {
			continue
		}
		if err := md.mkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return nil, err
		}
		if md.tmp[filepath.Dir(p)] {
			md.made = append(md.made, p)
		}
	}
	return md.made, nil
}

// tmpfsDirs makes directories under root as os.MkdirAll would, each
// once, and lists those it made on the tmpfs itself (not inside a tree
// put back on it).
type tmpfsDirs struct {
	root string
	seen map[string]bool // made, or found there
	tmp  map[string]bool // directories of the tmpfs
	made []string
}

func (m *tmpfsDirs) mkdirAll(d string, perm uint32) error {
	if m.seen[d] || !under(d, m.root) {
		return nil
	}
	if parent := filepath.Dir(d); parent != d {
		if err := m.mkdirAll(parent, perm); err != nil {
			return err
		}
	}
	switch err := unix.Mkdir(d, perm); err {
	case nil:
		if m.tmp[filepath.Dir(d)] {
			m.tmp[d] = true
			m.made = append(m.made, d)
		}
	case unix.EEXIST:
		var st unix.Stat_t
		if err := unix.Stat(d, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return &os.PathError{Op: "mkdir", Path: d, Err: unix.ENOTDIR}
		}
	default:
		return &os.PathError{Op: "mkdir", Path: d, Err: err}
	}
	m.seen[d] = true
	return nil
}

// dirListing is a directory's entries, names sorted as filepath.Glob
// sorts them.
type dirListing struct {
	names []string
	ents  []dirName
	ok    bool
}

// readListing lists dir with getdents64 (four system calls for a small
// directory, against about seven for os.ReadDir).
func readListing(dir string) *dirListing {
	l := &dirListing{}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return l
	}
	defer unix.Close(fd)
	var buf [8 << 10]byte
	for {
		n, err := unix.Getdents(fd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return l
		}
		if n <= 0 {
			break
		}
		eachDirent(buf[:n], func(s string, typ byte) {
			link := typ == unix.DT_LNK
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				link = unix.Fstatat(fd, s, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK
			}
			l.ents = append(l.ents, dirName{name: s, link: link})
		})
	}
	slices.SortFunc(l.ents, func(a, b dirName) int { return strings.Compare(a.name, b.name) })
	l.names = make([]string, len(l.ents))
	for i, e := range l.ents {
		l.names[i] = e.name
	}
	l.ok = true
	return l
}
