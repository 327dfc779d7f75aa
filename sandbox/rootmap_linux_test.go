//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRootMapped: as root, the command is not root on the host. A
// root-owned 0644 file outside the writable roots is refused by the
// permission check itself (EACCES from open, which the kernel checks
// before the read-only mount's EROFS and before Landlock: a command that
// is still root gets EROFS there), and so is a /proc/sys entry; the
// workspace and /tmp stay writable, what HOME holds readable, and `git
// commit` works.
func TestRootMapped(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("maps root only: run as root (CI does)")
	}
	f := newFixture(t)
	a := f.assertActive(t, Spec{})
	need(t, a, LayerRootMap)
	scratch := filepath.Join(f.outside, "root-owned")
	if err := os.WriteFile(scratch, []byte("root's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(f.ws, "tracked.txt"), []byte("one\n"), 0o644)
	os.WriteFile(filepath.Join(f.home, ".ssh", "id_rsa.pub"), []byte("ssh-ed25519 AAAA test\n"), 0o644)
	id := strconv.Itoa(RootMapID)
	r := f.run(t, Spec{}, `
echo "uid=$(id -u) gid=$(id -g) groups=$(id -G)"
grep -E '^(Uid|Gid):' /proc/self/status
echo "ws-owner=$(stat -c %u tracked.txt)"
echo "outside-owner=$(stat -c %u `+scratch+`)"
( exec 3<>`+scratch+` ) 2>&1 | sed 's/^/outside: /'
( exec 3<>/proc/sys/kernel/hostname ) 2>&1 | sed 's/^/procsys: /'
echo two >> tracked.txt && echo ws-ok
echo t > /tmp/x && echo tmp-ok
cat ~/.ssh/id_rsa.pub >/dev/null && echo home-ok
d=$(stat -c %d ~)
echo "home-entries=$(find ~ -xdev -printf '%D\n' | grep -cx "$d")"
echo "home-not-ours=$(find ~ -xdev -printf '%D %U %p\n' | awk -v d="$d" -v id=`+id+` '$1 == d && $2 != id' | wc -l)"
git init -q . && git add tracked.txt && git -c user.name=T -c user.email=t@example.invalid commit -qm one && git log --oneline | wc -l | sed 's/^/commits=/'
`, 30*time.Second)
	t.Logf("output:\n%s", r.out)
	if r.err != nil {
		t.Fatalf("sandbox: %v", r.err)
	}
	for _, want := range []string{
		"uid=" + id + " gid=" + id + " groups=" + id,
		"ws-owner=" + id, // the idmapped workspace: root's files are the command's
		"outside-owner=0",
		"ws-ok", "tmp-ok", "home-ok", "commits=1",
		"home-not-ours=0", // HOME's tmpfs, as the helper made it, is the command's
	} {
		if !strings.Contains(r.out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	entries := 0
	for _, l := range strings.Split(r.out, "\n") {
		if v, ok := strings.CutPrefix(l, "home-entries="); ok {
			entries, _ = strconv.Atoi(v)
		}
	}
	if entries < 2 {
		t.Errorf("HOME's tmpfs shows %d entries; the fixture's allowlist makes at least HOME and .ssh", entries)
	}
	for _, l := range strings.Split(r.out, "\n") {
		if (strings.HasPrefix(l, "Uid:") || strings.HasPrefix(l, "Gid:")) && len(strings.Fields(l)) == 5 {
			for _, v := range strings.Fields(l)[1:] {
				if v != id {
					t.Errorf("%s: want every id %s", l, id)
				}
			}
		}
	}
	for _, probe := range []string{"outside: ", "procsys: "} {
		line := ""
		for _, l := range strings.Split(r.out, "\n") {
			if strings.HasPrefix(l, probe) {
				line = l
			}
		}
		if !strings.Contains(line, "Permission denied") {
			t.Errorf("%swant EACCES from the permission check (not root), got %q", probe, line)
		}
	}
	if b, _ := os.ReadFile(scratch); string(b) != "root's\n" {
		t.Errorf("scratch file changed: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, "tracked.txt")); string(b) != "one\ntwo\n" {
		t.Errorf("workspace write: %q", b)
	}
	if uid := fileUID(t, filepath.Join(f.ws, ".git", "HEAD")); uid != 0 {
		t.Errorf(".git/HEAD created by the command is owned by %d on disk, want 0 (the workspace owner)", uid)
	}
}

// TestRootMappedStrict: the overlay works over the idmapped workspace.
func TestRootMappedStrict(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("maps root only: run as root (CI does)")
	}
	f := newFixture(t)
	os.WriteFile(filepath.Join(f.ws, "a.txt"), []byte("a\n"), 0o644)
	r := f.run(t, Spec{Mode: Strict}, `id -u; echo b >> a.txt && echo new > n.txt && echo ok`, 30*time.Second)
	if r.err != nil || !strings.Contains(r.out, "ok") {
		t.Fatalf("%v:\n%s", r.err, r.out)
	}
	need(t, r.applied, LayerRootMap, LayerOverlay)
	if !strings.Contains(r.out, strconv.Itoa(RootMapID)) {
		t.Errorf("not run as %d:\n%s", RootMapID, r.out)
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, "a.txt")); string(b) != "a\nb\n" {
		t.Errorf("a.txt = %q", b)
	}
	if uid := fileUID(t, filepath.Join(f.ws, "n.txt")); uid != 0 {
		t.Errorf("n.txt owned by %d, want 0", uid)
	}
}

func fileUID(t *testing.T, p string) int {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return int(st.Uid)
}
