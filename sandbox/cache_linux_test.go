//go:build linux

package sandbox

import (
	"archive/zip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A symlink planted where the cache directory goes (class: the shared
// cache) is refused before anything runs; so are a directory of wider mode
// and, as root, one owned by someone else.
func TestCacheDirRefusesPlantedLink(t *testing.T) {
	f := newFixture(t)
	cache := filepath.Join(f.tmp, "planted-cache")
	if err := os.Symlink(f.outside, cache); err != nil {
		t.Fatal(err)
	}
	_, _, err := Command(context.Background(), Spec{Workspace: f.ws, CacheDir: cache}, "true", f.env(), f.ws)
	if err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("planted symlink accepted: %v", err)
	}
	wide := filepath.Join(f.tmp, "wide-cache")
	os.Mkdir(wide, 0o777)
	os.Chmod(wide, 0o777)
	if _, _, err := Command(context.Background(), Spec{Workspace: f.ws, CacheDir: wide}, "true", f.env(), f.ws); err == nil || !strings.Contains(err.Error(), "mode") {
		t.Fatalf("world-writable cache accepted: %v", err)
	}
	if os.Getuid() == 0 {
		other := filepath.Join(f.tmp, "other-cache")
		os.Mkdir(other, 0o700)
		os.Chown(other, 65534, 65534)
		if _, _, err := Command(context.Background(), Spec{Workspace: f.ws, CacheDir: other}, "true", f.env(), f.ws); err == nil || !strings.Contains(err.Error(), "owned") {
			t.Fatalf("foreign cache accepted: %v", err)
		}
	}
	// The default location in $TMPDIR gets the same check.
	def := DefaultCacheDir(f.env())
	if err := os.Symlink(f.outside, def); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Command(context.Background(), Spec{Workspace: f.ws}, "true", f.env(), f.ws); err == nil {
		t.Fatalf("planted default cache link accepted")
	}
	f.canaryIntact(t)
}

// Config-bearing homes and the build and download caches are per
// workspace; GOMODCACHE is redirected.
func TestCacheEnvPerWorkspace(t *testing.T) {
	f := newFixture(t)
	f.assertActive(t, Spec{})
	ws2 := filepath.Join(f.root, "ws2")
	os.Mkdir(ws2, 0o755)
	script := `echo "CARGO_HOME=$CARGO_HOME"; echo "GRADLE_USER_HOME=$GRADLE_USER_HOME"; echo "GOMODCACHE=$GOMODCACHE"; echo "GOCACHE=$GOCACHE"; mkdir -p "$CARGO_HOME" && echo x > "$CARGO_HOME/config.toml" && echo wrote`
	a := f.run(t, Spec{}, script, 20*time.Second)
	b := f.run(t, Spec{Workspace: ws2}, script, 20*time.Second)
	line := func(out, k string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, k+"=") {
				return strings.TrimPrefix(l, k+"=")
			}
		}
		return ""
	}
	if line(a.out, "CARGO_HOME") == "" || line(a.out, "CARGO_HOME") == line(b.out, "CARGO_HOME") || line(a.out, "GRADLE_USER_HOME") == line(b.out, "GRADLE_USER_HOME") {
		t.Fatalf("config homes shared between workspaces:\n%s\n%s", a.out, b.out)
	}
	if line(a.out, "GOCACHE") == line(b.out, "GOCACHE") || line(a.out, "GOMODCACHE") == "" || line(a.out, "GOMODCACHE") == line(b.out, "GOMODCACHE") {
		t.Fatalf("build and download caches shared between workspaces / GOMODCACHE not set:\n%s\n%s", a.out, b.out)
	}
	if !strings.Contains(a.out, "wrote") {
		t.Fatalf("CARGO_HOME not writable:\n%s", a.out)
	}
}

// writeModProxy writes a GOPROXY directory serving example.com/sgdep v1.0.0.
func writeModProxy(t *testing.T, dir string) {
	t.Helper()
	v := filepath.Join(dir, "example.com", "sgdep", "@v")
	if err := os.MkdirAll(v, 0o755); err != nil {
		t.Fatal(err)
	}
	mod := "module example.com/sgdep\n\ngo 1.21\n"
	os.WriteFile(filepath.Join(v, "list"), []byte("v1.0.0\n"), 0o644)
	os.WriteFile(filepath.Join(v, "v1.0.0.info"), []byte(`{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`), 0o644)
	os.WriteFile(filepath.Join(v, "v1.0.0.mod"), []byte(mod), 0o644)
	zf, err := os.Create(filepath.Join(v, "v1.0.0.zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	for name, body := range map[string]string{"go.mod": mod, "dep.go": "package sgdep\n\nfunc Answer() int { return 42 }\n"} {
		w, _ := zw.Create("example.com/sgdep@v1.0.0/" + name)
		w.Write([]byte(body))
	}
	zw.Close()
	zf.Close()
}

// `go get` of a new dependency and `go build` work inside (offline: the
// module proxy is a local directory).
func TestGoGetInside(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		skipOrFail(t, "no go toolchain: %v", err)
	}
	f := newFixture(t)
	f.assertActive(t, Spec{})
	proxy := filepath.Join(f.root, "proxy")
	writeModProxy(t, proxy)
	os.WriteFile(filepath.Join(f.ws, "go.mod"), []byte("module example.com/app\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(f.ws, "main.go"), []byte("package main\n\nimport \"example.com/sgdep\"\n\nfunc main() { println(sgdep.Answer()) }\n"), 0o644)
	script := `export PATH=` + filepath.Dir(gobin) + `:$PATH GOTOOLCHAIN=local GOSUMDB=off GOPROXY=file://` + proxy + ` GOFLAGS=-mod=mod
go get example.com/sgdep@v1.0.0 && go build -o app . && ./app && echo built`
	r := f.run(t, Spec{Network: true}, script, 120*time.Second)
	if !strings.Contains(r.out, "42") || !strings.Contains(r.out, "built") {
		t.Fatalf("go get/build inside failed (exit %d):\n%s", r.code, r.out)
	}
}

// TestRealpathFollowsChanges: a remembered resolution is used only while
// the path still leads to the same directory; a link retargeted, a
// directory replaced by a link, or removed, resolves again.
func TestRealpathFollowsChanges(t *testing.T) {
	longLived.Store(true)
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ra, rb := realpath(a), realpath(b)
	link := filepath.Join(root, "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	if got := realpath(link); got != ra {
		t.Fatalf("link: %q, want %q", got, ra)
	}
	if got := realpath(link); got != ra { // remembered
		t.Fatalf("link again: %q, want %q", got, ra)
	}
	os.Remove(link)
	if err := os.Symlink(b, link); err != nil {
		t.Fatal(err)
	}
	if got := realpath(link); got != rb {
		t.Fatalf("retargeted link: %q, want %q", got, rb)
	}
	// A directory replaced by a link to another one.
	d := filepath.Join(root, "d")
	os.Mkdir(d, 0o755)
	rd := realpath(d)
	if rd == "" || realpath(d) != rd {
		t.Fatalf("directory: %q", rd)
	}
	os.Remove(d)
	if err := os.Symlink(a, d); err != nil {
		t.Fatal(err)
	}
	if got := realpath(d); got != ra {
		t.Fatalf("directory replaced by a link: %q, want %q", got, ra)
	}
	os.Remove(d)
	if got := realpath(d); got != "" {
		t.Fatalf("removed: %q", got)
	}
	// A parent directory renamed away and recreated with a link inside.
	p := filepath.Join(root, "p")
	os.MkdirAll(filepath.Join(p, "x"), 0o755)
	rx := realpath(filepath.Join(p, "x"))
	os.Rename(p, filepath.Join(root, "p-old"))
	os.Mkdir(p, 0o755)
	os.Symlink(b, filepath.Join(p, "x"))
	if got := realpath(filepath.Join(p, "x")); got != rb || got == rx {
		t.Fatalf("after the parent was swapped: %q, want %q", got, rb)
	}
}

// A command in one workspace can neither plant configuration that a tool
// obeys in another workspace (a Cargo registry replacement, a Gradle init
// script, a Go build cache entry) nor read that workspace's tool
// credentials: only its own part of the cache directory is there, for the
// default cache directory and one given in the spec alike.
func TestCacheIsolatedBetweenWorkspaces(t *testing.T) {
	f := newFixture(t)
	f.assertActive(t, Spec{})
	wsB := filepath.Join(f.root, "wsB")
	os.Mkdir(wsB, 0o755)
	for _, cache := range []string{"", filepath.Join(f.root, "cache")} {
		spec := Spec{CacheDir: cache}
		specB := Spec{Workspace: wsB, CacheDir: cache}
		secret := "sgtestCACHE" + strings.ReplaceAll(time.Now().Format("150405.000000"), ".", "")
		b := f.run(t, specB, `for v in CARGO_HOME GRADLE_USER_HOME GOCACHE XDG_CACHE_HOME PIP_CACHE_DIR; do eval "d=\$$v"; mkdir -p "$d" && echo "$v=$d"; done
printf '[registry]\ntoken = "%s"\n' `+secret+` > "$CARGO_HOME/credentials.toml" && echo wroteB`, 20*time.Second)
		if !strings.Contains(b.out, "wroteB") {
			t.Fatalf("workspace B could not write its own cache:\n%s", b.out)
		}
		dirs := map[string]string{}
		for _, l := range strings.Split(b.out, "\n") {
			if k, v, ok := strings.Cut(l, "="); ok && filepath.IsAbs(v) {
				dirs[k] = v
			}
		}
		if len(dirs) != 5 {
			t.Fatalf("cache variables of B: %v\n%s", dirs, b.out)
		}
		planted := []string{
			filepath.Join(dirs["CARGO_HOME"], "config.toml"),
			filepath.Join(dirs["GRADLE_USER_HOME"], "init.d", "evil.gradle"),
			filepath.Join(dirs["GOCACHE"], "00", "planted-a"),
			filepath.Join(dirs["XDG_CACHE_HOME"], "planted"),
			filepath.Join(dirs["PIP_CACHE_DIR"], "planted"),
		}
		script := `cat "` + dirs["CARGO_HOME"] + `/credentials.toml"; grep -rs sgtestCACHE "` + filepath.Dir(filepath.Dir(dirs["CARGO_HOME"])) + `" "` + cacheRoot(dirs["CARGO_HOME"]) + `"
for p in ` + strings.Join(quoteAll(planted), " ") + `; do mkdir -p "$(dirname "$p")" 2>/dev/null; echo planted > "$p" 2>/dev/null && echo "PLANTED $p"; done
mkdir -p "$CARGO_HOME" && echo own > "$CARGO_HOME/config.toml" && echo wroteA`
		a := f.run(t, spec, script, 20*time.Second)
		if strings.Contains(a.out, secret) {
			t.Errorf("cache %q: B's credentials read from A:\n%s", cache, a.out)
		}
		if strings.Contains(a.out, "PLANTED") {
			t.Errorf("cache %q: A wrote into B's cache:\n%s", cache, a.out)
		}
		for _, p := range planted {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("cache %q: %s exists", cache, p)
			}
		}
		if !strings.Contains(a.out, "wroteA") {
			t.Errorf("cache %q: A could not write its own cache:\n%s", cache, a.out)
		}
	}
	f.canaryIntact(t)
}

// cacheRoot is the cache directory of a per-workspace cache path
// (<cache>/ws/<name>/<tool>).
func cacheRoot(p string) string { return filepath.Dir(filepath.Dir(filepath.Dir(p))) }

func quoteAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = `"` + p + `"`
	}
	return out
}
