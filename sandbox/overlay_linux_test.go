//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// hardLinkWrites modify a workspace file through its own name; the file
// is a hard link of the canary outside (as pnpm and uv stores make them).
// Without the overlay each of them changes the canary.
var hardLinkWrites = []struct{ name, script, want string }{
	{"append", `echo pwned >> linked.txt`, canaryText + "pwned\n"},
	{"redirect", `echo pwned > linked.txt`, "pwned\n"},
	{"truncate", `truncate -s 0 linked.txt`, ""},
	{"cp-onto", `printf 'copied\n' > src.txt && cp src.txt linked.txt`, "copied\n"},
	{"dd-notrunc", `printf XXXXXX | dd of=linked.txt bs=1 conv=notrunc status=none`, "XXXXXX" + canaryText[6:]},
	{"chmod", `chmod 600 linked.txt`, canaryText},
	{"touch", `touch -d 2001-02-03 linked.txt`, canaryText},
	{"tee", `echo pwned | tee -a linked.txt >/dev/null`, canaryText + "pwned\n"},
	{"sed-i", `sed -i s/canary/bird/ linked.txt`, strings.Replace(canaryText, "canary", "bird", 1)},
	{"nested", `echo pwned >> sub/dir/linked.txt`, ""},
}

// TestStrictHardLinks: in Strict mode a write through a pre-existing
// hard link changes the workspace name only; the file outside keeps its
// content, mode and times, and the workspace name ends up a file of its
// own holding what the command wrote.
func TestStrictHardLinks(t *testing.T) {
	f := newFixture(t)
	a := f.assertActive(t, Spec{Mode: Strict})
	need(t, a, LayerOverlay)
	var before unix.Stat_t
	if err := unix.Stat(f.canary, &before); err != nil {
		t.Fatal(err)
	}
	for _, c := range hardLinkWrites {
		t.Run(c.name, func(t *testing.T) {
			name := "linked.txt"
			if c.name == "nested" {
				name = "sub/dir/linked.txt"
				os.MkdirAll(filepath.Join(f.ws, "sub/dir"), 0o755)
			}
			p := filepath.Join(f.ws, name)
			os.Remove(p)
			if err := os.Link(f.canary, p); err != nil {
				t.Fatal(err)
			}
			r := f.run(t, Spec{Mode: Strict}, c.script, 20*time.Second)
			if r.err != nil || r.code != 0 {
				t.Fatalf("exit %d, %v:\n%s", r.code, r.err, r.out)
			}
			need(t, r.applied, LayerOverlay)
			f.canaryIntact(t)
			var after unix.Stat_t
			if err := unix.Stat(f.canary, &after); err != nil {
				t.Fatal(err)
			}
			if after.Mtim != before.Mtim || after.Nlink != 1 {
				t.Errorf("the canary changed: mtime %v→%v, nlink %d (want 1: the workspace name is a file of its own)", before.Mtim, after.Mtim, after.Nlink)
			}
			var ws unix.Stat_t
			if err := unix.Lstat(p, &ws); err != nil {
				t.Fatal(err)
			}
			if ws.Ino == after.Ino {
				t.Fatalf("%s is still the canary's inode after the write", name)
			}
			want := c.want
			if c.name == "nested" {
				want = canaryText + "pwned\n"
			}
			if b, _ := os.ReadFile(p); string(b) != want {
				t.Errorf("%s = %q, want %q (the command's write must land in the workspace)", name, b, want)
			}
			if c.name == "chmod" && ws.Mode&0o777 != 0o600 {
				t.Errorf("%s mode %o, want 600", name, ws.Mode&0o777)
			}
			if c.name == "touch" && time.Unix(ws.Mtim.Unix()).Year() != 2001 {
				t.Errorf("%s mtime %v, want 2001", name, time.Unix(ws.Mtim.Unix()))
			}
			os.Remove(p)
		})
	}
}

// TestStrictUpperHidden: the run's upper directory cannot be reached from
// inside (no command can plant or change what is applied), and it is
// gone after the run.
func TestStrictUpperHidden(t *testing.T) {
	f := newFixture(t)
	a := f.assertActive(t, Spec{Mode: Strict})
	need(t, a, LayerOverlay)
	base := overlayBase()
	r := f.run(t, Spec{Mode: Strict}, `ls -A `+base+` 2>&1; grep -o 'upperdir=[^,]*' /proc/self/mountinfo | head -1 | cut -d= -f2 > up.txt; u=$(cat up.txt); if ( : > "$u/planted" ) 2>/dev/null; then echo PLANTED; else echo REFUSED; fi; ls -A "$u" 2>&1 | head -3`, 20*time.Second)
	if strings.Contains(r.out, "PLANTED") || !strings.Contains(r.out, "REFUSED") {
		t.Fatalf("the upper directory was writable from inside:\n%s", r.out)
	}
	up, _ := os.ReadFile(filepath.Join(f.ws, "up.txt"))
	u := strings.TrimSpace(string(up))
	if !strings.HasPrefix(u, base+"/run-") {
		t.Fatalf("upperdir %q not under %s (output %s)", u, base, r.out)
	}
	if _, err := os.Lstat(filepath.Dir(u)); !os.IsNotExist(err) {
		t.Errorf("the run's directory %s is left after the run: %v", filepath.Dir(u), err)
	}
}

// TestStrictMissingFailsClosed: strict without namespaces runs nothing.
func TestStrictMissingFailsClosed(t *testing.T) {
	withoutNamespaces(t)
	f := newFixture(t)
	r := f.run(t, Spec{Mode: Strict}, `echo RAN > ran.txt`, 20*time.Second)
	if r.err == nil {
		t.Fatalf("strict ran without the overlay: %s", r.out)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "ran.txt")); err == nil {
		t.Fatalf("the command ran")
	}
}

// TestOverlayApply applies a hand-made upper directory: what the
// options and the sandbox never produce must still be refused.
func TestOverlayApply(t *testing.T) {
	root := t.TempDir()
	upper, ws, out := filepath.Join(root, "upper"), filepath.Join(root, "ws"), filepath.Join(root, "outside")
	for _, d := range []string{upper, ws, out, filepath.Join(ws, "gone"), filepath.Join(ws, "opq"), filepath.Join(upper, "opq"), filepath.Join(upper, "esc")} {
		os.MkdirAll(d, 0o755)
	}
	write := func(p, s string, m os.FileMode) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), m); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, m)
	}
	write(filepath.Join(ws, "gone", "x"), "x", 0o644)
	write(filepath.Join(ws, "opq", "old"), "old", 0o644)
	write(filepath.Join(ws, "keep"), "keep", 0o644)
	write(filepath.Join(out, "canary"), "canary", 0o644)
	// The workspace's "esc" is a symlink to outside; the upper has a
	// directory there with a file in it.
	os.Symlink(out, filepath.Join(ws, "esc"))
	write(filepath.Join(upper, "esc", "canary"), "pwned", 0o644)
	write(filepath.Join(upper, "suid"), "#!/bin/sh\n", 0o755)
	if err := os.Chmod(filepath.Join(upper, "suid"), 0o755|os.ModeSetuid|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	write(filepath.Join(upper, "dated"), "d", 0o640)
	os.Chtimes(filepath.Join(upper, "dated"), old, old)
	write(filepath.Join(upper, "opq", "new"), "new", 0o644)
	if err := unix.Setxattr(filepath.Join(upper, "opq"), "user.overlay.opaque", []byte("y"), 0); err != nil {
		skipOrFail(t, "user xattrs on %s: %v", root, err)
	}
	os.Symlink("../outside/canary", filepath.Join(upper, "link"))
	if err := unix.Mkfifo(filepath.Join(upper, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	whiteouts := unix.Mknod(filepath.Join(upper, "gone"), unix.S_IFCHR, 0) == nil // device 0/0: a whiteout
	os.MkdirAll(filepath.Join(upper, "redir"), 0o755)
	unix.Setxattr(filepath.Join(upper, "redir"), "user.overlay.redirect", []byte("/elsewhere"), 0)

	wsfd, err := unix.Open(ws, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(wsfd)
	a := &overlayApply{}
	if err := a.run(upper, wsfd); err != nil {
		t.Fatal(err)
	}
	t.Logf("warnings: %q", a.warns)
	if b, _ := os.ReadFile(filepath.Join(out, "canary")); string(b) != "canary" {
		t.Errorf("applied through a symlinked directory: outside canary = %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(ws, "esc")); err != nil || !fi.IsDir() {
		t.Errorf("esc: want a real directory in the workspace, got %v %v", fi, err)
	}
	if fi, err := os.Stat(filepath.Join(ws, "suid")); err != nil || fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 || fi.Mode().Perm() != 0o755 {
		t.Errorf("suid: mode %v (%v), want 0755 without setuid/setgid", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Join(ws, "dated")); err != nil || !fi.ModTime().Equal(old) || fi.Mode().Perm() != 0o640 {
		t.Errorf("dated: %v %v, want mtime %v and mode 0640", fi.ModTime(), fi.Mode(), old)
	}
	if _, err := os.Stat(filepath.Join(ws, "opq", "old")); !os.IsNotExist(err) {
		t.Errorf("opaque directory: old entry kept (%v)", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "opq", "new")); string(b) != "new" {
		t.Errorf("opaque directory: new entry %q", b)
	}
	if l, err := os.Readlink(filepath.Join(ws, "link")); err != nil || l != "../outside/canary" {
		t.Errorf("symlink: %q %v", l, err)
	}
	if _, err := os.Lstat(filepath.Join(ws, "fifo")); !os.IsNotExist(err) {
		t.Errorf("a fifo was applied (%v)", err)
	}
	if _, err := os.Lstat(filepath.Join(ws, "redir")); !os.IsNotExist(err) {
		t.Errorf("a redirected directory was applied (%v)", err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "keep")); string(b) != "keep" {
		t.Errorf("an untouched file changed: %q", b)
	}
	if whiteouts {
		if _, err := os.Lstat(filepath.Join(ws, "gone")); !os.IsNotExist(err) {
			t.Errorf("whiteout: gone/ still exists (%v)", err)
		}
	} else if os.Getuid() == 0 {
		t.Errorf("mknod of a whiteout failed as root")
	}
	ents, _ := os.ReadDir(ws)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), applyNamePrefix) {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	for _, w := range []string{"fifo", "redir"} {
		found := false
		for _, s := range a.warns {
			found = found || strings.Contains(s, w)
		}
		if !found {
			t.Errorf("no warning about %s: %q", w, a.warns)
		}
	}
}

// TestStrictStaleOverlayRemoved: a run directory whose lock is free (its
// parent was killed) is removed by the next strict run's preparation.
func TestStrictStaleOverlayRemoved(t *testing.T) {
	ws := t.TempDir()
	spec, st, err := prepareOverlay(ws)
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Dir(spec.Upper)
	os.WriteFile(filepath.Join(spec.Upper, "x"), []byte("x"), 0o644)
	unix.Close(st.lockFd) // as if the parent died
	_, st2, err := prepareOverlay(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.discard()
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("stale %s kept: %v", stale, err)
	}
}
