package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// cacheVars are pointed into this workspace's part of CacheDir unless they
// already point into a writable root. Every one is per workspace, and only
// that part of CacheDir is writable and visible in the sandbox: homes that
// hold configuration a tool obeys (CARGO_HOME/config.toml, GRADLE_USER_HOME
// init.d scripts) or credentials (CARGO_HOME/credentials.toml), and build
// caches whose entries a tool trusts as they are (GOCACHE outputs, pip's
// wheels), so that what one workspace's commands plant or store there
// never reaches another workspace.
var cacheVars = []struct{ key, sub string }{
	{"XDG_CACHE_HOME", "xdg"},
	{"GOCACHE", "go-build"},
	{"GOMODCACHE", "gomod"},
	{"npm_config_cache", "npm"},
	{"YARN_CACHE_FOLDER", "yarn"},
	{"PIP_CACHE_DIR", "pip"},
	{"CARGO_HOME", "cargo"},
	{"GRADLE_USER_HOME", "gradle"},
	// GOPATH holds the checksum database's state (pkg/sumdb: without it
	// writable, fetching a module not in the cache fails to verify) and
	// go install's bin/.
	{"GOPATH", "gopath"},
}

// wsCacheDir is the per-workspace part of cacheDir for ws.
func wsCacheDir(cacheDir, ws string) string {
	sum := sha256.Sum256([]byte(ws))
	return filepath.Join(cacheDir, "ws", filepath.Base(ws)+"-"+hex.EncodeToString(sum[:8]))
}

// withCacheEnv returns env with the cache variables pointed into ws's part
// of cacheDir.
func withCacheEnv(env []string, cacheDir string, writable []string, ws string) []string {
	if cacheDir == "" {
		return env
	}
	for _, cv := range cacheVars {
		if v, ok := envGet(env, cv.key); ok && filepath.IsAbs(v) {
			keep := false
			for _, w := range writable {
				if under(filepath.Clean(v), w) {
					keep = true
				}
			}
			if keep {
				continue
			}
		}
		env = envSet(env, cv.key, filepath.Join(wsCacheDir(cacheDir, ws), cv.sub))
	}
	return env
}
