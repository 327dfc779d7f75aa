//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// secureDir makes sure dir is a directory of ours that nobody else can
// write and that is not a symlink: it is created (mode 0700, without
// following a symlink in its last element) when missing, and refused when
// it is a symlink, not a directory, owned by another uid or group/world
// accessible. A cache directory becomes a writable root of every run, so a
// link planted there earlier (to HOME, say) must not make its target
// writable.
func secureDir(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("%s is not absolute", dir)
	}
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Open(dir, flags, 0)
	if err == unix.ENOENT {
		// Missing (the usual case only the first time): create it.
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return err
		}
		if err := unix.Mkdir(dir, 0o700); err != nil && err != unix.EEXIST {
			return fmt.Errorf("mkdir %s: %w", dir, err)
		}
		fd, err = unix.Open(dir, flags, 0)
	}
	if err != nil {
		if err == unix.ELOOP || err == unix.ENOTDIR {
			var st unix.Stat_t
			if unix.Lstat(dir, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				return fmt.Errorf("%s is a symlink", dir)
			}
			return fmt.Errorf("%s is not a directory", dir)
		}
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s is owned by uid %d, not %d", dir, st.Uid, os.Getuid())
	}
	if st.Mode&0o077 != 0 {
		return fmt.Errorf("%s has mode %04o; want 0700", dir, st.Mode&0o7777)
	}
	return nil
}

// goProxyEnv lets a redirected GOMODCACHE fill itself from the user's own
// module cache (read-only in the sandbox) before the network: the
// download cache is a valid GOPROXY, so offline builds keep working.
func goProxyEnv(env []string, origEnv []string, home string) []string {
	if v, _ := envGet(origEnv, "GOPROXY"); v == "off" {
		return env
	}
	orig, _ := envGet(origEnv, "GOMODCACHE")
	if orig == "" {
		gopath, _ := envGet(origEnv, "GOPATH")
		if gp := filepath.SplitList(gopath); len(gp) > 0 && filepath.IsAbs(gp[0]) {
			orig = filepath.Join(gp[0], "pkg", "mod")
		} else if home != "" {
			orig = filepath.Join(home, "go", "pkg", "mod")
		}
	}
	now, _ := envGet(env, "GOMODCACHE")
	if orig == "" || filepath.Clean(orig) == filepath.Clean(now) {
		return env
	}
	dl := filepath.Join(orig, "cache", "download")
	if fi, err := os.Stat(dl); err != nil || !fi.IsDir() {
		return env
	}
	proxy, _ := envGet(origEnv, "GOPROXY")
	if proxy == "" {
		proxy = "https://proxy.golang.org,direct"
	}
	if strings.Contains(proxy, "file://"+dl) {
		return env
	}
	return envSet(env, "GOPROXY", "file://"+dl+","+proxy)
}

// prepareCache checks the cache directory and creates the per-workspace
// part; an unsafe cache directory is an error (nothing runs).
func prepareCache(cache, ws string) error {
	if cache == "" {
		return nil
	}
	if err := secureDir(cache); err != nil {
		return fmt.Errorf("sandbox: cache directory refused: %w (remove it or set another cache dir)", err)
	}
	for _, d := range []string{filepath.Join(cache, "ws"), wsCacheDir(cache, ws)} {
		if err := secureDir(d); err != nil {
			return fmt.Errorf("sandbox: cache directory refused: %w", err)
		}
	}
	return nil
}

// hideCache hides the cache directory like HOME (an empty tmpfs with only
// the writable roots under it, this workspace's part, bound back), so that
// the other workspaces' parts cannot be read: their tool credentials
// (CARGO_HOME/credentials.toml) and what their builds trust. Nothing is
// added when the cache lies in HOME or another hidden root already, or in
// a writable root (the private /tmp or $TMPDIR, where the host's files
// are not seen).
func hideCache(fs *fsSpec, cache string, writable []string) {
	if cache == "" || cache == "/" || (fs.Home != "" && under(cache, fs.Home)) {
		return
	}
	for _, r := range fs.SecretRoots {
		if under(cache, r) {
			return
		}
	}
	for _, w := range writable {
		if under(cache, w) {
			return
		}
	}
	fs.SecretRoots = append(fs.SecretRoots, cache)
	fs.CacheRoot = cache
}
