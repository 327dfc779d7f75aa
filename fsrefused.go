package shellguard

// Refused paths: after a sandboxed foreground command failed, its error
// output is read for the usual messages that name a path it could not
// write or read (refusalForms). A path counts only when the sandbox is
// what refused it, judged from the spec the run used: a write outside
// every writable root, a read inside the hidden HOME or of a masked
// path. Each is reported (sandbox.Applied.FSRefused) and, when it lies
// outside every sensitive place, offered to the sandbox approver as one
// exact grant (fsgrant.go).

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/shellguard/shellguard/internal/lazyre"
	"github.com/shellguard/shellguard/internal/world"
	"github.com/shellguard/shellguard/sandbox"
)

const (
	maxRefusedScan  = 64 << 10 // bytes of error output read
	maxRefusedPaths = 8        // distinct paths taken from it
)

// accessHint is what a message says of the access: a write, a read or
// write (EACCES, EPERM), or a file that was not there (a hidden one).
type accessHint uint8

const (
	hintEither accessHint = iota
	hintWrite
	hintMissing
)

func (h accessHint) String() string { return [...]string{"either", "write", "missing"}[h] }

// refusalForm is one way programs report a refused path.
type refusalForm struct {
	name string
	re   *lazyre.RE
	path int                         // the group holding the path
	hint func(m []string) accessHint // from the submatches
}

const (
	openQ  = `['‘"]`
	closeQ = `['’"]`
	denied = `(Permission denied|Read-only file system|Operation not permitted)`
)

func hintOf(write ...string) func([]string) accessHint {
	return func(m []string) accessHint {
		for _, s := range m[1:] {
			switch {
			case strings.EqualFold(s, "Read-only file system"), s == "EROFS", s == "30":
				return hintWrite
			case strings.EqualFold(s, "No such file or directory"), s == "ENOENT", s == "2":
				return hintMissing
			case slices.Contains(write, s):
				return hintWrite
			}
		}
		return hintEither
	}
}

// refusalForms are the messages of coreutils and bash, Python (pip),
// Node (npm), Go and git that name a refused path. A match whose path
// holds another match's path is the looser reading of the same message
// and is dropped (refusedPaths).
var refusalForms = []refusalForm{
	{"coreutils cannot", lazyre.New(`cannot (?:create directory|create regular file|create fifo|create special file|touch|remove|overwrite|open) ` +
		openQ + `([^\n]+?)` + closeQ + `(?: for (reading|writing))?: (Permission denied|Read-only file system|Operation not permitted|No such file or directory)`), 1,
		func(m []string) accessHint {
			switch {
			case m[3] == "No such file or directory":
				return hintMissing
			case m[2] == "reading" && m[3] != "Read-only file system":
				return hintEither
			}
			return hintWrite
		}},
	{"coreutils link", lazyre.New(`failed to create (?:symbolic|hard) link ` + openQ + `([^\n]+?)` + closeQ + `: ` + denied), 1,
		hintOf("Permission denied", "Operation not permitted")},
	{"program: path: message", lazyre.New(`(?m)^(?:[\w./+-]+: )+(?:line \d+: )?([^:'‘’"\n]+): ` +
		`(Permission denied|Read-only file system|Operation not permitted|No such file or directory)$`), 1, hintOf()},
	{"python errno", lazyre.New(`\[Errno (1|2|13|30)\] [A-Za-z -]+: ['"]([^\n]+?)['"]`), 2, hintOf()},
	{"node errno", lazyre.New(`\b(EACCES|EROFS|EPERM|ENOENT): [a-z -]+, (\w+) '([^\n]+?)'`), 3,
		hintOf("mkdir", "rmdir", "unlink", "rename", "symlink", "link", "copyfile", "chmod", "chown", "utime", "futime", "cp")},
	{"go path error", lazyre.New(`\b(open|mkdir|remove|unlinkat|openat|chmod|chown|symlink|link|truncate|stat|lstat) ` +
		`([^\s:'"]+): (permission denied|read-only file system|operation not permitted|no such file or directory)`), 2,
		hintOf("mkdir", "remove", "unlinkat", "chmod", "chown", "symlink", "link", "truncate")},
	{"git", lazyre.New(`(?:could not lock config file|could not create work tree dir|could not create leading directories of|` +
		`[Uu]nable to create(?: file| temporary file)?|cannot mkdir|unable to write(?: file)?) ` + openQ + `?([^\n]+?)` + closeQ + `?: ` + denied), 1,
		hintOf("Permission denied", "Operation not permitted")},
}

// candidate is a path a message named.
type candidate struct {
	path string
	hint accessHint
}

// refusedPaths returns the paths the first maxRefusedScan bytes of text
// name as refused (at most maxRefusedPaths, in order, each once),
// absolute against cwd and cleaned.
func refusedPaths(text, cwd string) []candidate {
	if len(text) > maxRefusedScan {
		text = text[:maxRefusedScan]
	}
	type match struct {
		start, end int
		c          candidate
	}
	var ms []match
	for _, f := range refusalForms {
		for _, idx := range f.re.FindAllStringSubmatchIndex(text, 64) {
			m := make([]string, len(idx)/2)
			for i := range m {
				if idx[2*i] >= 0 {
					m[i] = text[idx[2*i]:idx[2*i+1]]
				}
			}
			p := strings.TrimSpace(m[f.path])
			if p == "" || strings.ContainsRune(p, 0) {
				continue
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			m[f.path] = "" // the hint reads the message, never the path
			ms = append(ms, match{idx[2*f.path], idx[2*f.path+1], candidate{filepath.Clean(p), f.hint(m)}})
		}
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].start < ms[j].start })
	var out []candidate
	for i, m := range ms {
		looser := slices.ContainsFunc(ms, func(o match) bool {
			return o != ms[i] && o.start >= m.start && o.end <= m.end && (o.end-o.start) < (m.end-m.start)
		})
		if looser || slices.ContainsFunc(out, func(c candidate) bool { return c.path == m.c.path }) {
			continue
		}
		if out = append(out, m.c); len(out) == maxRefusedPaths {
			break
		}
	}
	return out
}

// fsJudge holds what a run's sandbox was: who refused a path is judged
// from it, never from anything the command could change.
type fsJudge struct {
	home      string   // the HOME the sandbox hides
	hidden    bool     // HOME was hidden (sandbox.LayerHome applied)
	workspace string   // the workspace (never inside a write grant)
	writable  []string // where the run could write
	homeAllow []string // what of HOME was brought back (home-relative, globs)
	masked    []string // hidden paths
	own       []string // shellguard's own files and directories
}

// judgeFor returns the judge of a run with spec in g.
func (g *Guard) judgeFor(spec sandbox.Spec, hidden bool) fsJudge {
	env := func(k string) string {
		for _, kv := range slices.Backward(g.env) {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	home := spec.Home
	if home == "" {
		home = env("HOME")
	}
	if home != "" {
		home = realOr(filepath.Clean(home))
	}
	j := fsJudge{home: home, hidden: hidden && home != "", workspace: realOr(spec.Workspace)}
	for _, r := range slices.Concat([]string{spec.Workspace, g.cfg.Workspace, "/tmp", "/dev/shm", env("TMPDIR")},
		spec.WritableRoots, g.cfg.Rules.AllowedRoots) {
		if filepath.IsAbs(r) {
			j.writable = append(j.writable, filepath.Clean(r), realOr(r))
		}
	}
	j.homeAllow = slices.Concat(sandbox.DefaultHomeAllow, spec.HomeAllow)
	masked := spec.MaskedPaths
	if !j.hidden {
		masked = slices.Concat(masked, sandbox.DefaultMaskedPaths)
	}
	for _, m := range masked {
		if m = expandTilde(m, home); filepath.IsAbs(m) {
			j.masked = append(j.masked, filepath.Clean(m))
		}
	}
	cache := spec.CacheDir
	if cache == "" {
		cache = sandbox.DefaultCacheDir(g.env)
	}
	for _, p := range []string{g.cfg.GrantsFile, g.cfg.AuditPath} {
		if filepath.IsAbs(p) {
			j.own = append(j.own, filepath.Clean(p), filepath.Dir(filepath.Clean(p)))
		}
	}
	if filepath.IsAbs(cache) {
		j.own = append(j.own, filepath.Clean(cache))
	}
	return j
}

func expandTilde(p, home string) string {
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home == "" {
			return ""
		}
		return filepath.Join(home, rest)
	}
	return p
}

// realOr is p with its symbolic links resolved, or p.
func realOr(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func withinAny(p string, roots []string) bool {
	return slices.ContainsFunc(roots, func(r string) bool { return r != "" && within(p, r) })
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// judge says whether the sandbox refused c and, if a grant may lift it,
// which one (the path itself, or for a write to a path that does not
// exist, its nearest existing directory). A refusal the sandbox did not
// make has an empty Access.
func (j fsJudge) judge(c candidate) (sandbox.FSRefusal, *PathGrant) {
	r, why := j.refusal(c)
	if r.Access == "" {
		return r, nil
	}
	var g *PathGrant
	if why == "" {
		g, why = j.grantFor(r)
	}
	r.Grantable = g != nil
	r.Why = why
	return r, g
}

func (j fsJudge) refusal(c candidate) (r sandbox.FSRefusal, why string) {
	p := c.path
	r.Path = p
	if withinAny(p, j.writable) {
		return sandbox.FSRefusal{}, "" // the sandbox lets the command write there
	}
	masked := withinAny(p, j.masked)
	inHome := j.hidden && within(p, j.home) && p != j.home && !j.broughtBack(p)
	switch {
	case masked && c.hint != hintWrite:
		r.Access = "read"
		return r, "it is hidden from commands on purpose"
	case inHome && c.hint != hintWrite && exists(p):
		r.Access = "read"
	case c.hint == hintMissing:
		return sandbox.FSRefusal{}, "" // a file that is not there
	default:
		r.Access = "write"
	}
	return r, ""
}

// broughtBack reports a path of HOME the sandbox brings back.
func (j fsJudge) broughtBack(p string) bool {
	rel, err := filepath.Rel(j.home, p)
	if err != nil {
		return false
	}
	parts := strings.Split(rel, "/")
	for _, a := range j.homeAllow {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "~"), "/")
		ap := strings.Split(a, "/")
		if a == "" || len(ap) > len(parts) {
			continue
		}
		if ok, _ := path.Match(a, strings.Join(parts[:len(ap)], "/")); ok {
			return true
		}
	}
	return false
}

// grantFor returns the grant that lifts r, or why there is none.
func (j fsJudge) grantFor(r sandbox.FSRefusal) (*PathGrant, string) {
	if r.Access == "read" {
		if why := j.unsafe(r.Path, false); why != "" {
			return nil, why
		}
		real, err := filepath.EvalSymlinks(r.Path)
		if err != nil {
			return nil, "it cannot be resolved on this machine"
		}
		if !within(real, j.home) || real == j.home {
			return nil, "it leads out of the home directory"
		}
		if why := j.unsafe(real, false); why != "" {
			return nil, why
		}
		return &PathGrant{Path: r.Path}, ""
	}
	dir := r.Path
	for dir != "/" {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			break
		}
		dir = filepath.Dir(dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, "it cannot be resolved on this machine"
	}
	for _, p := range []string{dir, real} {
		if why := j.unsafe(p, true); why != "" {
			return nil, why
		}
	}
	g := &PathGrant{Path: real, Write: true}
	if real != r.Path {
		g.Refused = r.Path
	}
	return g, ""
}

// unsafe says why p may never be granted ("" when it may): /, HOME,
// system directories, credential stores, start-up files, shellguard's
// own files, and for a write, a directory holding any of those or the
// workspace.
func (j fsJudge) unsafe(p string, write bool) string {
	o := world.Options{Workspace: j.workspace, Home: j.home}
	switch {
	case strings.ContainsAny(p, "*?[\\") || strings.Contains(p, "/../"):
		return "its name holds characters a grant cannot name"
	case p == "/" || p == j.home || world.FloorPath(p, o):
		return "it is the root, the home directory or a system directory"
	case within(p, "/tmp") || within(p, "/dev/shm"):
		return "commands have a /tmp and /dev/shm of their own"
	case withinAny(p, j.own) || slices.ContainsFunc(j.own, func(o string) bool { return within(o, p) }):
		return "it holds shellguard's own files"
	case withinAny(p, j.masked):
		return "it is hidden from commands on purpose"
	}
	switch r := world.Classify(p, o); r.Class {
	case world.ClassOther, world.ClassHome, world.ClassTemp:
	default:
		return "it is " + describe(r)
	}
	if r := world.Holds(p, o); r.Class == world.ClassCredential {
		return "it holds " + describe(r)
	}
	if write {
		switch {
		case within(j.home, p):
			return "it holds the home directory"
		case j.workspace != "" && within(j.workspace, p):
			return "it holds the workspace"
		case slices.ContainsFunc(j.masked, func(m string) bool { return within(m, p) }):
			return "it holds a path hidden from commands on purpose"
		}
	}
	return ""
}

func describe(r world.Resource) string {
	if r.What != "" {
		return r.What
	}
	return "a " + r.Class.String() + " location"
}
