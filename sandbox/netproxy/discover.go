package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Sources of the derived allowlist, as Entry.Source says them.
const (
	SourceNpm   = "npm config (registry)"
	SourceGo    = "go env"
	SourcePip   = "pip config"
	SourceCargo = "cargo config"
	SourceGit   = "git remote"
	SourceUser  = "user config " + Setting
)

// DiscoverOptions say where the toolchains' configuration is read.
type DiscoverOptions struct {
	// Env is the environment the toolchains are asked with (default:
	// os.Environ()). Its registry variables count.
	Env []string
	// Home is the directory the toolchains run in, so that only user and
	// global configuration counts, never a project's (default: HOME).
	Home string
	// Workspace is where git remotes are read (empty: none).
	Workspace string
	// CacheFile keeps the toolchains' answers between runs, keyed by the
	// environment and the configuration files they read (empty: no
	// cache). Asking npm and pip takes seconds.
	CacheFile string
	// Timeout bounds each toolchain's answer (default 15 s).
	Timeout time.Duration
}

// Discover derives the default allowlist from what the machine's
// toolchains are configured to use: npm's registries, Go's module proxy
// and checksum database, pip's indexes, Cargo's registries and the
// workspace's git remotes. A toolchain that is missing or fails adds
// nothing. No host is built in: a toolchain whose registry is its
// compiled-in default is asked for it (npm), or adds nothing (pip and
// Cargo, which have no command that prints their default).
func Discover(ctx context.Context, o DiscoverOptions) Allowlist {
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if o.Home == "" {
		o.Home = envGet(o.Env, "HOME")
	}
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	var al Allowlist
	key := fingerprint(o)
	if cached, ok := readCache(o.CacheFile, key); ok {
		al.Entries = cached
	} else {
		al.Entries = discoverTools(ctx, o)
		writeCache(o.CacheFile, key, al.Entries)
	}
	if o.Workspace != "" {
		al.Entries = append(al.Entries, gitRemotes(ctx, o)...)
	}
	return al
}

func discoverTools(ctx context.Context, o DiscoverOptions) []Entry {
	var mu sync.Mutex
	var out [4][]Entry
	var wg sync.WaitGroup
	for i, f := range []func(context.Context, DiscoverOptions) []Entry{npmRegistries, goProxies, pipIndexes, cargoRegistries} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, cancel := context.WithTimeout(ctx, o.Timeout)
			defer cancel()
			e := f(c, o)
			mu.Lock()
			out[i] = e
			mu.Unlock()
		}()
	}
	wg.Wait()
	var all []Entry
	for _, e := range out {
		all = append(all, e...)
	}
	return all
}

func envGet(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// run runs a toolchain in Home with env and returns its output.
func run(ctx context.Context, o DiscoverOptions, name string, args ...string) []byte {
	path, err := lookPath(name, envGet(o.Env, "PATH"))
	if err != nil {
		return nil
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = o.Env
	if o.Home != "" {
		cmd.Dir = o.Home
	} else {
		cmd.Dir = os.TempDir()
	}
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	return out
}

func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// urlEntry is the host and port of a registry URL (credentials dropped).
func urlEntry(raw, source string) (Entry, bool) {
	raw = strings.Trim(strings.TrimSpace(raw), `"'`)
	raw = strings.TrimPrefix(raw, "sparse+")
	raw = strings.TrimPrefix(raw, "git+")
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "ssh" && u.Scheme != "git") {
		return Entry{}, false
	}
	spec := u.Hostname()
	if strings.Contains(spec, ":") {
		spec = "[" + spec + "]"
	}
	switch {
	case u.Port() != "":
		spec += ":" + u.Port()
	case u.Scheme == "ssh":
		spec += ":22"
	case u.Scheme == "git":
		spec += ":9418"
	}
	e, err := ParseEntry(spec, source)
	return e, err == nil
}

func npmRegistries(ctx context.Context, o DiscoverOptions) []Entry {
	out := run(ctx, o, "npm", "config", "list", "--json")
	var m map[string]any
	if json.Unmarshal(out, &m) != nil {
		return nil
	}
	var keys []string
	for k := range m {
		if k == "registry" || strings.HasSuffix(k, ":registry") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var es []Entry
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			if e, ok := urlEntry(s, "npm config ("+k+")"); ok {
				es = append(es, e)
			}
		}
	}
	return es
}

func goProxies(ctx context.Context, o DiscoverOptions) []Entry {
	out := run(ctx, o, "go", "env", "-json", "GOPROXY", "GOSUMDB")
	var m map[string]string
	if json.Unmarshal(out, &m) != nil {
		return nil
	}
	var es []Entry
	for _, p := range strings.FieldsFunc(m["GOPROXY"], func(r rune) bool { return r == ',' || r == '|' }) {
		if e, ok := urlEntry(p, "go env GOPROXY"); ok {
			es = append(es, e)
		}
	}
	// GOSUMDB: "off", "name", "name+key" or "name[+key] url".
	f := strings.Fields(m["GOSUMDB"])
	switch {
	case len(f) == 0 || f[0] == "off":
	case len(f) > 1:
		if e, ok := urlEntry(f[1], "go env GOSUMDB"); ok {
			es = append(es, e)
		}
	default:
		name, _, _ := strings.Cut(f[0], "+")
		if e, err := ParseEntry(name, "go env GOSUMDB"); err == nil && !e.prefix.IsValid() {
			es = append(es, e)
		}
	}
	return es
}

func pipIndexes(ctx context.Context, o DiscoverOptions) []Entry {
	out := run(ctx, o, "pip", "config", "list")
	if out == nil {
		out = run(ctx, o, "pip3", "config", "list")
	}
	var es []Entry
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok || !(strings.HasSuffix(k, "index-url") || strings.HasSuffix(k, "extra-index-url")) {
			continue
		}
		for _, u := range strings.Fields(strings.Trim(v, `'"`)) {
			if e, ok := urlEntry(u, "pip config ("+k+")"); ok {
				es = append(es, e)
			}
		}
	}
	return es
}

// cargoConfigs are the Cargo configuration files of the user.
func cargoConfigs(o DiscoverOptions) []string {
	home := envGet(o.Env, "CARGO_HOME")
	if home == "" && o.Home != "" {
		home = filepath.Join(o.Home, ".cargo")
	}
	if home == "" {
		return nil
	}
	return []string{filepath.Join(home, "config.toml"), filepath.Join(home, "config")}
}

func cargoRegistries(_ context.Context, o DiscoverOptions) []Entry {
	var es []Entry
	for _, kv := range o.Env {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CARGO_REGISTRIES_") && strings.HasSuffix(k, "_INDEX") {
			if e, ok := urlEntry(v, "env "+k); ok {
				es = append(es, e)
			}
		}
	}
	for _, f := range cargoConfigs(o) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), "=")
			k = strings.TrimSpace(k)
			if !ok || (k != "index" && k != "registry") {
				continue
			}
			if e, ok := urlEntry(v, SourceCargo+" "+f); ok {
				es = append(es, e)
			}
		}
	}
	return es
}

// gitRemotes are the URLs of the workspace's remotes.
func gitRemotes(ctx context.Context, o DiscoverOptions) []Entry {
	c, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	path, err := lookPath("git", envGet(o.Env, "PATH"))
	if err != nil {
		return nil
	}
	cmd := exec.CommandContext(c, path, "-C", o.Workspace, "config", "--get-regexp", `^remote\..*\.(push)?url$`)
	cmd.Env = o.Env
	out, _ := cmd.Output()
	var es []Entry
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		name := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(k, "remote."), ".url"), ".pushurl")
		src := SourceGit + " " + name
		if e, ok := urlEntry(v, src); ok {
			es = append(es, e)
			continue
		}
		// scp-like: user@host:path
		if at := strings.IndexByte(v, '@'); at >= 0 && !strings.Contains(v, "://") {
			if h, _, ok := strings.Cut(v[at+1:], ":"); ok {
				if e, err := ParseEntry(h+":22", src); err == nil {
					es = append(es, e)
				}
			}
		}
	}
	return es
}

// registryVars are the variables whose values change what the toolchains
// ask, part of the cache key.
var registryVars = []string{"PATH", "HOME", "GOPROXY", "GOSUMDB", "GOENV", "GOROOT", "CARGO_HOME",
	"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONFIG_FILE", "NPM_CONFIG_USERCONFIG", "NPM_CONFIG_GLOBALCONFIG"}

// fingerprint keys the cache: the registry variables (and every npm_config_
// or CARGO_REGISTRIES_ one) plus the size and time of the configuration
// files the toolchains read.
func fingerprint(o DiscoverOptions) string {
	h := sha256.New()
	var vars []string
	for _, kv := range o.Env {
		k, _, _ := strings.Cut(kv, "=")
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "npm_config_") || strings.HasPrefix(k, "CARGO_REGISTR") || strings.HasPrefix(k, "PIP_") {
			vars = append(vars, kv)
		}
	}
	for _, k := range registryVars {
		vars = append(vars, k+"="+envGet(o.Env, k))
	}
	sort.Strings(vars)
	for _, v := range vars {
		h.Write([]byte(v + "\x00"))
	}
	files := append(cargoConfigs(o), "/etc/npmrc", "/usr/etc/npmrc", "/usr/local/etc/npmrc", "/etc/pip.conf", "/etc/xdg/pip/pip.conf")
	if o.Home != "" {
		files = append(files, filepath.Join(o.Home, ".npmrc"), filepath.Join(o.Home, ".config/go/env"),
			filepath.Join(o.Home, ".config/pip/pip.conf"), filepath.Join(o.Home, ".pip/pip.conf"))
	}
	for _, t := range []string{"npm", "go", "pip", "pip3"} {
		if p, err := lookPath(t, envGet(o.Env, "PATH")); err == nil {
			files = append(files, p)
		}
	}
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			h.Write([]byte(f + "\x00" + st.ModTime().UTC().String() + "\x00" + st.Mode().String()))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

type cacheFile struct {
	Key     string    `json:"key"`
	Time    time.Time `json:"time"`
	Entries []Entry   `json:"entries"`
}

// cacheTTL bounds how long an answer is reused even when nothing seen
// changed (a global npmrc elsewhere, a new pip.conf in a virtualenv).
const cacheTTL = 24 * time.Hour

func readCache(path, key string) ([]Entry, bool) {
	if path == "" {
		return nil, false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	var c cacheFile
	if json.Unmarshal(b, &c) != nil || c.Key != key || time.Since(c.Time) > cacheTTL || time.Since(c.Time) < 0 {
		return nil, false
	}
	out := make([]Entry, 0, len(c.Entries))
	for _, e := range c.Entries {
		// Parsed again: the file is data, not trusted structure.
		x, err := ParseEntry(e.String(), e.Source)
		if err != nil {
			return nil, false
		}
		out = append(out, x)
	}
	return out, true
}

func writeCache(path, key string, es []Entry) {
	if path == "" {
		return
	}
	b, err := json.Marshal(cacheFile{Key: key, Time: time.Now(), Entries: es})
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".netallow-*")
	if err != nil {
		return
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil && cerr == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}
