package runner

import (
	"net/url"
	"slices"
	"strings"
)

// SecretNameParts are the substrings that mark an environment variable as a
// secret. A variable whose upper-cased name contains any of them is dropped
// from a command's environment unless it is explicitly allowed by name.
var SecretNameParts = []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "PRIVATE"}

// baseAllow are the variables passed through from the parent's environment.
// LC_* is matched as a prefix.
var baseAllow = []string{"PATH", "HOME", "LANG", "LANGUAGE", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ"}

// fixedEnv is set for every command, whatever the parent has.
var fixedEnv = []string{
	"TERM=dumb",
	"PAGER=cat",
	"GIT_PAGER=cat",
	"GIT_TERMINAL_PROMPT=0",
	"NO_COLOR=1",
}

// EnvPolicy says how a command's environment is built from the parent's.
// The zero value passes only the base allow-list.
type EnvPolicy struct {
	// Allow adds variable names to the allow-list. An allowed name is
	// passed even when it looks like a secret.
	Allow []string
	// Scrub adds name substrings that mark a variable as a secret.
	Scrub []string
	// Set adds or overrides variables ("NAME=value") after filtering.
	Set []string
}

// IsSecretName reports whether name looks like it holds a secret under p.
func (p EnvPolicy) IsSecretName(name string) bool {
	up := strings.ToUpper(name)
	for _, s := range SecretNameParts {
		if strings.Contains(up, s) {
			return true
		}
	}
	for _, s := range p.Scrub {
		if s != "" && strings.Contains(up, strings.ToUpper(s)) {
			return true
		}
	}
	return false
}

// BuildEnv returns the environment for a command and the values of the
// secret-looking variables it dropped (for redaction of any echo of them).
func BuildEnv(parent []string, p EnvPolicy) (env []string, droppedSecrets []string) {
	seen := map[string]bool{}
	for _, kv := range parent {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		explicit := slices.Contains(p.Allow, name)
		// A registry variable is judged by its value, not its name
		// (GOPRIVATE holds module patterns, not a secret).
		registry := !explicit && IsRegistryVar(name)
		secret := p.IsSecretName(name) && !registry
		if registry && HasCredentials(val) {
			secret = true
		}
		if secret && !explicit {
			if len(val) >= 6 {
				droppedSecrets = append(droppedSecrets, val)
			}
			continue
		}
		if !explicit && !registry && !slices.Contains(baseAllow, name) && !strings.HasPrefix(name, "LC_") {
			continue
		}
		if name == "TERM" || seen[name] {
			continue
		}
		seen[name] = true
		env = append(env, kv)
	}
	if !seen["PATH"] {
		env = append(env, "PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin")
	}
	env = setAll(env, fixedEnv)
	env = setAll(env, p.Set)
	return env, droppedSecrets
}

// setAll sets each NAME=value of kvs in env, replacing earlier values.
func setAll(env, kvs []string) []string {
	for _, kv := range kvs {
		name, _, _ := strings.Cut(kv, "=")
		env = slices.DeleteFunc(env, func(e string) bool {
			n, _, _ := strings.Cut(e, "=")
			return n == name
		})
		env = append(env, kv)
	}
	return env
}

// Getenv returns the value of name in env ("" when absent).
func Getenv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if n, v, ok := strings.Cut(env[i], "="); ok && n == name {
			return v
		}
	}
	return ""
}

// registryVars name the variables that tell toolchains which registry or
// module proxy to use: the command must ask the same ones as its caller.
var registryVars = []string{
	"GOPROXY", "GOSUMDB", "GOPRIVATE", "GONOSUMDB", "GONOPROXY", "GOINSECURE",
	"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST", "PIP_FIND_LINKS",
	"UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_INDEX",
	"CARGO_REGISTRY_DEFAULT", "YARN_NPM_REGISTRY_SERVER", "YARN_REGISTRY", "BUN_CONFIG_REGISTRY",
}

// IsRegistryVar reports whether name configures a registry or module
// proxy: one of registryVars, npm's npm_config_*registry (any case), or
// Cargo's CARGO_REGISTRIES_<name>_INDEX.
func IsRegistryVar(name string) bool {
	if slices.Contains(registryVars, name) {
		return true
	}
	low := strings.ToLower(name)
	if strings.HasPrefix(low, "npm_config_") && strings.HasSuffix(low, "registry") {
		return true
	}
	return strings.HasPrefix(name, "CARGO_REGISTRIES_") && strings.HasSuffix(name, "_INDEX")
}

// HasCredentials reports whether a registry value carries credentials: a
// URL with a user or password in it (any of the comma-, pipe- or
// space-separated URLs of the value), or a query with a token-like name.
func HasCredentials(val string) bool {
	for _, f := range strings.FieldsFunc(val, func(r rune) bool { return r == ',' || r == '|' || r == ' ' }) {
		f = strings.TrimPrefix(strings.TrimPrefix(f, "sparse+"), "git+")
		if !strings.Contains(f, "@") && !strings.Contains(f, "?") {
			continue
		}
		u, err := url.Parse(f)
		if err != nil {
			return true // fail closed: unreadable and holds an @ or ?
		}
		if u.User != nil {
			return true
		}
		for k := range u.Query() {
			if (EnvPolicy{}).IsSecretName(k) {
				return true
			}
		}
	}
	return false
}
