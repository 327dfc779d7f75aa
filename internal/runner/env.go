package runner

import (
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
		secret := p.IsSecretName(name)
		if secret && !explicit {
			if len(val) >= 6 {
				droppedSecrets = append(droppedSecrets, val)
			}
			continue
		}
		if !explicit && !slices.Contains(baseAllow, name) && !strings.HasPrefix(name, "LC_") {
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
