package netproxy

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeTools writes stand-ins for npm, go and pip that print fixed
// configuration (and count their runs in dir/runs).
func fakeTools(t *testing.T, dir string) {
	t.Helper()
	tools := map[string]string{
		"npm": `{"registry":"https://user:s3cret@npm.mirror.test:8443/","@corp:registry":"https://npm.corp.test/","cache":"/x"}`,
		"go":  `{"GOPROXY":"https://goproxy.mirror.test,direct|http://10.0.0.5:3000","GOSUMDB":"sum.mirror.test+abc"}`,
		"pip": `global.index-url='https://pypi.mirror.test/simple'` + "\n" + `:env:.extra-index-url='https://a.test/x https://b.test:4443/y'` + "\n" + `global.cert='/x'`,
	}
	for name, out := range tools {
		script := "#!/bin/sh\necho run >> " + filepath.Join(dir, "runs") + "\ncat <<'EOF'\n" + out + "\nEOF\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDiscover(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell stand-ins")
	}
	bin, home, ws := t.TempDir(), t.TempDir(), t.TempDir()
	fakeTools(t, bin)
	os.MkdirAll(filepath.Join(home, ".cargo"), 0o755)
	os.WriteFile(filepath.Join(home, ".cargo", "config.toml"), []byte("[registries.corp]\nindex = \"sparse+https://crates.mirror.test/index/\"\n"), 0o644)
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	for _, args := range [][]string{{"init", "-q", ws}, {"-C", ws, "remote", "add", "origin", "https://tok@git.mirror.test/o/r.git"}, {"-C", ws, "remote", "add", "up", "git@ssh.mirror.test:o/r.git"}} {
		if out, err := exec.Command(git, args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	binPath := bin + ":" + filepath.Dir(git)
	env := []string{"PATH=" + binPath, "HOME=" + home, "CARGO_REGISTRIES_X_INDEX=https://x.mirror.test/"}
	cache := filepath.Join(t.TempDir(), "netallow.json")
	al := Discover(context.Background(), DiscoverOptions{Env: env, Home: home, Workspace: ws, CacheFile: cache})
	got := map[string]string{}
	for _, e := range al.Entries {
		got[e.String()] = e.Source
	}
	want := map[string]string{
		"npm.mirror.test:8443": "npm config (registry)",
		"npm.corp.test":        "npm config (@corp:registry)",
		"goproxy.mirror.test":  "go env GOPROXY",
		"10.0.0.5:3000":        "go env GOPROXY",
		"sum.mirror.test":      "go env GOSUMDB",
		"pypi.mirror.test":     "pip config (global.index-url)",
		"a.test":               "pip config (:env:.extra-index-url)",
		"b.test:4443":          "pip config (:env:.extra-index-url)",
		"crates.mirror.test":   SourceCargo + " " + filepath.Join(home, ".cargo", "config.toml"),
		"x.mirror.test":        "env CARGO_REGISTRIES_X_INDEX",
		"git.mirror.test":      "git remote origin",
		"ssh.mirror.test:22":   "git remote up",
	}
	for h, src := range want {
		if got[h] != src {
			t.Errorf("%s: source %q, want %q (all: %v)", h, got[h], src, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, e := range al.Entries {
		if strings.Contains(e.Host, "s3cret") || strings.Contains(e.Host, "tok") {
			t.Errorf("credentials in %v", e)
		}
	}
	runs, _ := os.ReadFile(filepath.Join(bin, "runs"))
	// The second discovery answers from the cache: no tool runs again.
	al2 := Discover(context.Background(), DiscoverOptions{Env: env, Home: home, Workspace: ws, CacheFile: cache})
	runs2, _ := os.ReadFile(filepath.Join(bin, "runs"))
	if len(runs2) != len(runs) || strings.Join(al2.Hosts(), " ") != strings.Join(al.Hosts(), " ") {
		t.Fatalf("cache not used: runs %q -> %q, hosts %v vs %v", runs, runs2, al.Hosts(), al2.Hosts())
	}
	// A changed registry variable asks again.
	Discover(context.Background(), DiscoverOptions{Env: append(env, "GOPROXY=off"), Home: home, CacheFile: cache})
	runs3, _ := os.ReadFile(filepath.Join(bin, "runs"))
	if len(runs3) == len(runs2) {
		t.Fatal("a changed GOPROXY did not invalidate the cache")
	}
}

// A project's own npm configuration is never asked: the tools run in HOME.
func TestDiscoverRunsInHome(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell stand-ins")
	}
	bin, home := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(bin, "npm"), []byte("#!/bin/sh\necho \"{\\\"registry\\\":\\\"https://${PWD##*/}.test/\\\"}\"\n"), 0o755)
	al := Discover(context.Background(), DiscoverOptions{Env: []string{"PATH=" + bin}, Home: home})
	if h := al.Hosts(); len(h) != 1 || h[0] != strings.ToLower(filepath.Base(home))+".test" {
		t.Fatalf("hosts %v, want the one npm printed in HOME", h)
	}
}
