package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// cacheVars are pointed into CacheDir unless they already point into a
// writable root. Pure download and build caches (content-addressed, no
// configuration) are shared by every workspace; homes that also hold
// configuration a tool obeys (CARGO_HOME/config.toml, GRADLE_USER_HOME
// init.d scripts and gradle.properties) are per workspace, so what one
// workspace's commands plant there never reaches another workspace.
var cacheVars = []struct {
	key, sub string
	perWS    bool
}{
	{"XDG_CACHE_HOME", "xdg", false},
	{"GOCACHE", "go-build", false},
	{"GOMODCACHE", "gomod", false},
	{"npm_config_cache", "npm", false},
	{"YARN_CACHE_FOLDER", "yarn", false},
	{"PIP_CACHE_DIR", "pip", false},
	{"CARGO_HOME", "cargo", true},
	{"GRADLE_USER_HOME", "gradle", true},
	// GOPATH holds the checksum database's state (pkg/sumdb: without it
	// writable, fetching a module not in the cache fails to verify) and
	// go install's bin/.
	{"GOPATH", "gopath", true},
}

// wsCacheDir is the per-workspace part of cacheDir for ws.
func wsCacheDir(cacheDir, ws string) string {
	sum := sha256.Sum256([]byte(ws))
	return filepath.Join(cacheDir, "ws", filepath.Base(ws)+"-"+hex.EncodeToString(sum[:8]))
}

// withCacheEnv returns env with the cache variables pointed into cacheDir.
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
		dir := cacheDir
		if cv.perWS && ws != "" {
			dir = wsCacheDir(cacheDir, ws)
		}
		env = envSet(env, cv.key, filepath.Join(dir, cv.sub))
	}
	return env
}
