//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// devHome fills the fixture's HOME like a developer's: secrets the old
// mask list did not know, and files toolchains need.
func devHome(t *testing.T, f *fixture) map[string]string {
	t.Helper()
	secret := "sgtestHOME" + f.awsSecret
	files := map[string]string{
		".ssh/id_rsa.pub":                  "ssh-rsa AAAApublic user@host\n",
		".ssh/config":                      "Host sgbox\n  HostName 192.0.2.7\n  User builder\n  Port 2222\n",
		".ssh/known_hosts":                 "sgbox ssh-ed25519 AAAAknown\n",
		".gitconfig":                       "[user]\n\tname = Dev\n\temail = dev@example.com\n[credential]\n\thelper = store\n[http]\n\textraHeader = Authorization: Bearer " + secret + "\n[url \"https://x:" + secret + "@github.com/\"]\n\tinsteadOf = https://github.com/\n[github]\n\ttoken = " + secret + "\n",
		".claude/.credentials.json":        `{"token":"` + secret + `"}`,
		".config/containers/auth.json":     `{"auths":{"r":{"auth":"` + secret + `"}}}`,
		".authinfo":                        "machine x login y password " + secret + "\n",
		".zsh_history":                     "export TOKEN=" + secret + "\n",
		".m2/settings.xml":                 "<password>" + secret + "</password>\n",
		".mozilla/firefox/p/logins.json":   secret,
		"go/pkg/mod/cache/download/x.info": "modinfo\n",
		".cargo/credentials.toml":          secret,
		".cargo/registry/index/i":          "registry\n",
	}
	for p, body := range files {
		full := filepath.Join(f.home, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return map[string]string{"secret": secret}
}

func TestHomeAllowlist(t *testing.T) {
	f := newFixture(t)
	a := f.assertActive(t, Spec{})
	need(t, a, LayerHome)
	secret := devHome(t, f)["secret"]
	r := f.run(t, Spec{}, `cd "$HOME"; for p in .claude/.credentials.json .config/containers/auth.json .authinfo .zsh_history .m2/settings.xml .mozilla/firefox/p/logins.json .cargo/credentials.toml .ssh/id_rsa .aws/credentials .gitconfig; do cat "$p"; done; grep -rs sgtest . ; ls -A; echo ---; cat .ssh/id_rsa.pub .ssh/known_hosts go/pkg/mod/cache/download/x.info .cargo/registry/index/i; git config --global user.email; echo "token=$(git config --global github.token)"; touch .ssh/new 2>&1 || echo touch-refused`, 20*time.Second)
	if strings.Contains(r.out, secret) || strings.Contains(r.out, f.sshSecret) || strings.Contains(r.out, f.awsSecret) {
		t.Fatalf("secret leaked:\n%s", r.out)
	}
	for _, want := range []string{"ssh-rsa AAAApublic", "sgbox ssh-ed25519", "modinfo", "registry", "dev@example.com", "token=\n", "touch-refused"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("missing %q inside:\n%s", want, r.out)
		}
	}
	if a := r.applied; !a.Has(LayerHome) {
		t.Fatalf("no %s layer: %v", LayerHome, a)
	}
	if _, err := exec.LookPath("ssh"); err == nil {
		r = f.run(t, Spec{}, `ssh -F "$HOME/.ssh/config" -G sgbox`, 20*time.Second)
		for _, want := range []string{"hostname 192.0.2.7", "user builder", "port 2222"} {
			if !strings.Contains(r.out, want) {
				t.Errorf("ssh -G: missing %q:\n%s", want, r.out)
			}
		}
	}
	// home_allow brings back more; nothing else changes.
	r = f.run(t, Spec{HomeAllow: []string{"notes.txt"}}, `cat ~/notes.txt; cat ~/.authinfo`, 20*time.Second)
	if !strings.Contains(r.out, "# rc") || strings.Contains(r.out, secret) {
		t.Fatalf("home_allow notes.txt:\n%s", r.out)
	}
}

// A workspace and writable roots inside HOME stay reachable and writable.
func TestHomeWorkspaceInside(t *testing.T) {
	f := newFixture(t)
	f.assertActive(t, Spec{})
	secret := devHome(t, f)["secret"]
	ws := filepath.Join(f.home, "src", "proj")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	r := f.run(t, Spec{Workspace: ws}, `cd `+ws+` && echo hi > out.txt && cat out.txt; cat ~/.authinfo; ls -A ~`, 20*time.Second)
	if strings.Contains(r.out, secret) || !strings.Contains(r.out, "hi") {
		t.Fatalf("workspace in HOME:\n%s", r.out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "out.txt")); string(b) != "hi\n" {
		t.Fatalf("write did not land: %q", b)
	}
}

// HOME inside a writable root cannot be hidden: the built-in mask list is
// the fallback, and the result says so.
func TestHomeFallbackMasks(t *testing.T) {
	f := newFixture(t)
	f.assertActive(t, Spec{})
	home := filepath.Join(f.ws, "home")
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o755)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte(f.sshSecret), 0o600)
	r := f.run(t, Spec{Home: home}, `cat `+home+`/.ssh/id_rsa; echo done`, 20*time.Second)
	if strings.Contains(r.out, f.sshSecret) {
		t.Fatalf("fallback masks not applied:\n%s", r.out)
	}
	found := false
	for _, m := range r.applied.Missing {
		found = found || m.Name == LayerHome
	}
	if !found || !r.applied.Has(LayerMasks) {
		t.Fatalf("want %s missing and masks applied: %+v", LayerHome, r.applied)
	}
}

// Other secret roots (other users' homes, /root …) are hidden the same way.
func TestSecretRootsHidden(t *testing.T) {
	f := newFixture(t)
	other := filepath.Join(f.root, "otherhomes")
	os.MkdirAll(filepath.Join(other, "bob", ".aws"), 0o755)
	os.WriteFile(filepath.Join(other, "bob", ".aws", "credentials"), []byte(f.awsSecret), 0o644)
	old := secretRoots
	secretRoots = []string{other}
	defer func() { secretRoots = old }()
	f.assertActive(t, Spec{})
	r := f.run(t, Spec{}, `cat `+other+`/bob/.aws/credentials; echo "n=$(ls -A `+other+` | wc -l)"`, 20*time.Second)
	if strings.Contains(r.out, f.awsSecret) || !strings.Contains(r.out, "n=0") {
		t.Fatalf("secret root not hidden:\n%s", r.out)
	}
	if !strings.Contains(r.applied.String(), LayerHome) {
		t.Fatalf("layer: %s", r.applied)
	}
}

func TestFilterGitConfig(t *testing.T) {
	in := "[user]\n\tname = A\n\temail = a@x\n[credential \"https://h\"]\n\thelper = store\n[http \"https://h/\"]\n\textraheader = AUTHORIZATION: basic Zm9v\n" +
		"[url \"https://tok123@github.com/\"]\n\tinsteadOf = gh:\n[url \"ssh://git@github.com/\"]\n\tinsteadOf = https://github.com/\n" +
		"[remote \"o\"]\n\turl = https://u:p4ss@h/r.git\n\tfetch = +refs/heads/*:refs/remotes/o/*\n[include]\n\tpath = ~/.secret\n" +
		"[includeIf \"gitdir:~/w/\"]\n\tpath = w.inc\n[credential] helper = cache\n[hub]\n\toauthtoken = xyz\n[core]\n\teditor = vim\n"
	out, dropped := FilterGitConfig(in)
	for _, bad := range []string{"store", "Zm9v", "tok123", "p4ss", ".secret", "w.inc", "cache", "xyz", "vim"} {
		if strings.Contains(out, bad) {
			t.Errorf("%q kept:\n%s", bad, out)
		}
	}
	for _, good := range []string{`email = "a@x"`, "ssh://git@github.com/", `fetch = "+refs`, `url = "https://h/r.git"`, "[remote \"o\"]"} {
		if !strings.Contains(out, good) {
			t.Errorf("%q dropped:\n%s", good, out)
		}
	}
	if len(dropped) < 7 {
		t.Errorf("dropped: %v", dropped)
	}
}

var _ = time.Second

// TestReadListing: the getdents64 listing gives os.ReadDir's names, in
// its order, and marks the links, also for a directory larger than one
// read; an unreadable path gives no listing.
func TestReadListing(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 400; i++ {
		name := filepath.Join(dir, fmt.Sprintf("entry-%03d-%s", i, strings.Repeat("x", 40)))
		switch i % 3 {
		case 0:
			os.Mkdir(name, 0o755)
		case 1:
			os.WriteFile(name, nil, 0o644)
		default:
			os.Symlink("/nowhere", name)
		}
	}
	l := readListing(dir)
	want, err := os.ReadDir(dir)
	if err != nil || !l.ok {
		t.Fatalf("ReadDir: %v, listing ok %v", err, l.ok)
	}
	if len(l.ents) != len(want) || len(l.names) != len(want) {
		t.Fatalf("%d entries, ReadDir %d", len(l.ents), len(want))
	}
	for i, e := range want {
		if l.names[i] != e.Name() || l.ents[i].name != e.Name() || l.ents[i].link != (e.Type()&os.ModeSymlink != 0) {
			t.Fatalf("entry %d: %q link=%v, ReadDir %q %v", i, l.ents[i].name, l.ents[i].link, e.Name(), e.Type())
		}
	}
	if l := readListing(filepath.Join(dir, "entry-001-"+strings.Repeat("x", 40))); l.ok || len(l.names) != 0 {
		t.Errorf("a file listed as a directory: %+v", l)
	}
}

// TestPrewarmHome: the HOME entries Prewarm resolved in the background
// are those resolve would find, taken once by the command with the same
// HOME, PATH and allowlist; another allowlist resolves afresh.
func TestPrewarmHome(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".pyenv/versions/3.12.1/bin", ".pyenv/versions/3.12.1/lib", ".cargo/bin", "bin"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = T\n"), 0o644)
	t.Setenv("PATH", filepath.Join(home, "bin")+":/usr/bin:/bin")
	allow := append(append([]string{}, DefaultHomeAllow...), "extra")
	var want fsSpec
	resolveHome(&want, home, allow, os.Getenv("PATH"))
	if len(want.HomeEntries) == 0 {
		t.Fatal("the scratch HOME has no allowlisted entry")
	}

	prewarmHome(Spec{Home: home, HomeAllow: []string{"extra"}})
	var got fsSpec
	resolveHomeOnce(&got, home, allow, os.Getenv("PATH"))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("prewarmed:\n%+v\nresolved:\n%+v", got, want)
	}
	homePrewarmed.Lock()
	left := homePrewarmed.r
	homePrewarmed.Unlock()
	if left != nil {
		t.Error("the prewarmed result was not taken")
	}

	// Made for other inputs: not taken, and resolve finds the same.
	prewarmHome(Spec{Home: home})
	var again fsSpec
	resolveHomeOnce(&again, home, allow, os.Getenv("PATH"))
	if !reflect.DeepEqual(again, want) {
		t.Errorf("resolved after a prewarm for another allowlist:\n%+v\nwant\n%+v", again, want)
	}
	homePrewarmed.Lock()
	left = homePrewarmed.r
	homePrewarmed.r = nil
	homePrewarmed.Unlock()
	if left == nil {
		t.Error("a prewarmed result for another allowlist was taken")
	} else {
		<-left.done
	}
}
