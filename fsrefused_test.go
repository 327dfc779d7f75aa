package shellguard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every form of refusal the table knows is found, with its path made
// absolute against the cwd and cleaned.
func TestRefusedPathForms(t *testing.T) {
	cases := []struct {
		form, text string
		path       string
		hint       accessHint
	}{
		{"coreutils mkdir", "mkdir: cannot create directory ‘/srv/out’: Read-only file system", "/srv/out", hintWrite},
		{"coreutils mkdir C locale", "mkdir: cannot create directory '/srv/out': Permission denied", "/srv/out", hintWrite},
		{"coreutils touch", "touch: cannot touch 'out/x.txt': Permission denied", "/w/out/x.txt", hintWrite},
		{"coreutils cp", "cp: cannot create regular file '/srv/a/b': Read-only file system", "/srv/a/b", hintWrite},
		{"coreutils rm", "rm: cannot remove '/srv/a/b': Read-only file system", "/srv/a/b", hintWrite},
		{"coreutils ln", "ln: failed to create symbolic link '/srv/l': Read-only file system", "/srv/l", hintWrite},
		{"coreutils head", "head: cannot open '/srv/data/f' for reading: Permission denied", "/srv/data/f", hintEither},
		{"coreutils head missing", "head: cannot open '/home/u/notes.txt' for reading: No such file or directory", "/home/u/notes.txt", hintMissing},
		{"script redirect", "./build.sh: line 3: /srv/out/y: Read-only file system", "/srv/out/y", hintWrite},
		{"coreutils cat", "cat: /srv/data/f: Permission denied", "/srv/data/f", hintEither},
		{"bash redirect", "bash: /srv/out/y: Read-only file system", "/srv/out/y", hintWrite},
		{"bash -c redirect", "bash: line 1: ../out/y: Permission denied", "/out/y", hintEither},
		{"python EACCES", "PermissionError: [Errno 13] Permission denied: '/srv/data/f'", "/srv/data/f", hintEither},
		{"python EROFS", "OSError: [Errno 30] Read-only file system: 'rel/f'", "/w/rel/f", hintWrite},
		{"pip", "ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: '/usr/lib/python3/dist-packages/x'", "/usr/lib/python3/dist-packages/x", hintEither},
		{"node EACCES open", "Error: EACCES: permission denied, open '/srv/data/f'", "/srv/data/f", hintEither},
		{"node EACCES mkdir", "Error: EACCES: permission denied, mkdir '/srv/out'", "/srv/out", hintWrite},
		{"node EROFS", "Error: EROFS: read-only file system, open '/srv/out/f'", "/srv/out/f", hintWrite},
		{"npm", "npm error Error: EACCES: permission denied, mkdir '/usr/local/lib/node_modules/x'", "/usr/local/lib/node_modules/x", hintWrite},
		{"go open", "open /srv/data/f: permission denied", "/srv/data/f", hintEither},
		{"go mkdir", "mkdir /srv/out: read-only file system", "/srv/out", hintWrite},
		{"go wrapped", "error: write config: open /srv/out/c.json: read-only file system", "/srv/out/c.json", hintWrite},
		{"git lock", "error: could not lock config file /srv/repo/.gitconfig: Permission denied", "/srv/repo/.gitconfig", hintWrite},
		{"git clone", "fatal: could not create work tree dir '/srv/clone': Read-only file system", "/srv/clone", hintWrite},
		{"git index", "fatal: Unable to create '/srv/repo/.git/index.lock': Read-only file system", "/srv/repo/.git/index.lock", hintWrite},
		{"path named like a message", "OSError: [Errno 13] Permission denied: '30'", "/w/30", hintEither},
		{"missing", "cat: /home/u/notes.txt: No such file or directory", "/home/u/notes.txt", hintMissing},
		{"python missing", "FileNotFoundError: [Errno 2] No such file or directory: '/home/u/notes.txt'", "/home/u/notes.txt", hintMissing},
		{"node missing", "Error: ENOENT: no such file or directory, open '/home/u/notes.txt'", "/home/u/notes.txt", hintMissing},
	}
	for _, c := range cases {
		got := refusedPaths("some output\n"+c.text+"\nmore output\n", "/w")
		if len(got) != 1 || got[0].path != c.path || got[0].hint != c.hint {
			t.Errorf("%s: %q: got %+v, want %s (%v)", c.form, c.text, got, c.path, c.hint)
		}
	}
	// Every row of the table has a case above.
	for _, r := range refusalForms {
		if !slices.ContainsFunc(cases, func(c struct {
			form, text string
			path       string
			hint       accessHint
		}) bool {
			return r.re.MatchString(c.text)
		}) {
			t.Errorf("form %s has no test case", r.name)
		}
	}
}

// What is not a refusal of a path is not one; the scan is bounded.
func TestRefusedPathBounds(t *testing.T) {
	for _, s := range []string{"", "Permission denied", "ok\n", "error: permission denied (publickey)", "curl: (7) Failed to connect"} {
		if got := refusedPaths(s, "/w"); len(got) != 0 {
			t.Errorf("%q: %+v", s, got)
		}
	}
	var b strings.Builder
	for i := range 20 {
		b.WriteString("touch: cannot touch '/srv/" + string(rune('a'+i)) + "': Permission denied\n")
	}
	if got := refusedPaths(b.String(), "/w"); len(got) != maxRefusedPaths || got[0].path != "/srv/a" {
		t.Errorf("want the first %d paths, got %+v", maxRefusedPaths, got)
	}
	late := strings.Repeat("x", maxRefusedScan) + "\ntouch: cannot touch '/srv/late': Permission denied\n"
	if got := refusedPaths(late, "/w"); len(got) != 0 {
		t.Errorf("a refusal past %d bytes was read: %+v", maxRefusedScan, got)
	}
	dup := "touch: cannot touch '/srv/a': Permission denied\ntouch: cannot touch '/srv/./a': Permission denied\n"
	if got := refusedPaths(dup, "/w"); len(got) != 1 {
		t.Errorf("one path once: %+v", got)
	}
}

// Judging: only what the sandbox refused is reported, and only a path
// outside every sensitive place is offered.
func TestJudgeRefused(t *testing.T) {
	// Not under /tmp, which is private (and writable) in the sandbox.
	scratch, err := os.MkdirTemp("/var/tmp", "sg-fsjudge-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(scratch)
	home := filepath.Join(scratch, "home")
	ws := filepath.Join(scratch, "ws")
	outside := filepath.Join(scratch, "outside")
	cfgdir := filepath.Join(scratch, "cfg")
	for _, d := range []string{home, ws, outside, cfgdir, filepath.Join(home, ".ssh"), filepath.Join(home, "notes"), filepath.Join(home, ".config/systemd/user")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"notes/a.txt", ".ssh/id_ed25519"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	j := fsJudge{
		home: home, hidden: true, workspace: ws,
		writable: []string{ws, "/tmp", "/dev/shm"},
		own:      []string{cfgdir, filepath.Join(cfgdir, "grants.json")},
		masked:   []string{filepath.Join(home, ".aws")},
	}
	type want struct {
		access    string // "" not refused by the sandbox
		grantable bool
		grant     string
	}
	cases := []struct {
		path string
		hint accessHint
		want want
	}{
		{filepath.Join(outside, "y"), hintWrite, want{"write", true, outside}},
		{filepath.Join(outside, "new/deeper/y"), hintEither, want{"write", true, outside}},
		{outside, hintWrite, want{"write", true, outside}},
		{filepath.Join(ws, "y"), hintWrite, want{}},               // writable: not the sandbox
		{filepath.Join(ws, "y"), hintEither, want{}},              // idem
		{"/tmp/x/y", hintWrite, want{}},                           // private /tmp is writable
		{"/etc/passwd", hintWrite, want{"write", false, ""}},      // system
		{"/usr/local/lib/x", hintWrite, want{"write", false, ""}}, // system
		{"/", hintWrite, want{"write", false, ""}},                // never
		{filepath.Join(home, ".ssh/id_ed25519"), hintEither, want{"read", false, ""}},
		{filepath.Join(home, ".ssh/new_key"), hintWrite, want{"write", false, ""}},
		{filepath.Join(home, ".bashrc"), hintWrite, want{"write", false, ""}},                        // start-up file
		{filepath.Join(home, ".config/systemd/user/x.service"), hintWrite, want{"write", false, ""}}, // persistence
		{filepath.Join(home, "newfile"), hintWrite, want{"write", false, ""}},                        // its parent is HOME itself
		{filepath.Join(home, "notes/a.txt"), hintMissing, want{"read", true, filepath.Join(home, "notes/a.txt")}},
		{filepath.Join(home, "notes/a.txt"), hintEither, want{"read", true, filepath.Join(home, "notes/a.txt")}},
		{filepath.Join(home, "notes/none.txt"), hintMissing, want{}}, // missing on the host too
		{filepath.Join(home, ".aws/credentials"), hintEither, want{"read", false, ""}},
		{filepath.Join(cfgdir, "grants.json"), hintWrite, want{"write", false, ""}}, // shellguard's own
		{filepath.Join(cfgdir, "x"), hintWrite, want{"write", false, ""}},
		{filepath.Join(outside, "y"), hintMissing, want{}}, // not hidden: a plain missing file
	}
	for _, c := range cases {
		r, g := j.judge(candidate{path: c.path, hint: c.hint})
		got := want{access: r.Access, grantable: r.Grantable}
		if g != nil {
			got.grant = g.Path
			if g.Write != (r.Access == "write") {
				t.Errorf("%s: grant %+v for access %s", c.path, g, r.Access)
			}
		}
		if r.Access != "" && r.Path != c.path {
			t.Errorf("%s: reported as %s", c.path, r.Path)
		}
		if got != c.want {
			t.Errorf("%s (%v): got %+v, want %+v", c.path, c.hint, got, c.want)
		}
	}
	// Without a hidden HOME nothing in it is a refusal to read.
	j.hidden = false
	if r, _ := j.judge(candidate{path: filepath.Join(home, "notes/a.txt"), hint: hintMissing}); r.Access != "" {
		t.Errorf("no hidden HOME: %+v", r)
	}
}
