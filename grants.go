package shellguard

// Remembered approvals: an ask answered "for this session" or "always in
// this workspace" becomes a narrow allow rule (policy.Grant proposes it),
// kept by the Session or written to the grants file.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// Grant is an approval that outlives its call: the allow rules it added
// and for how long.
type Grant struct {
	Rules []string `json:"rules,omitempty" jsonschema:"the allow rules added, each matching one exact command"`
	// Hosts are network destinations (host:port, exactly as the sandbox's
	// proxy refused them) allowed beyond its allowlist.
	Hosts []string `json:"hosts,omitempty" jsonschema:"host:port allowed beyond the network allowlist"`
	// Paths are files and directories the sandbox refused and the user
	// allowed: written (a writable root) or read (brought back into the
	// hidden home directory).
	Paths []PathGrant `json:"paths,omitempty" jsonschema:"paths the sandbox refused and the user allowed (write: writable; else readable in the hidden home)"`
	Scope string      `json:"scope" jsonschema:"once, session or always (in this workspace)"`
}

// PathGrant is one path a sandboxed command may use beyond its sandbox.
type PathGrant struct {
	Path string `json:"path" jsonschema:"absolute path"`
	// Write makes Path (a directory) writable; otherwise Path, in the
	// hidden home directory, is readable.
	Write bool `json:"write,omitempty" jsonschema:"writable (a directory); else readable in the hidden home"`
	// Refused is the path the command was refused when the grant is its
	// nearest existing directory (a write to a path that does not exist).
	Refused string `json:"refused,omitempty" jsonschema:"the refused path, when the grant is its nearest existing directory"`
}

// Question says in plain words what the sandbox refused and what the
// grant allows, for a person asked about it.
func (p PathGrant) Question() string {
	switch {
	case !p.Write:
		return fmt.Sprintf("It was refused reading %s, which the sandbox hides in the home directory. Granted, the command runs once more and may read it (read-only).", p.Path)
	case p.Refused != "":
		return fmt.Sprintf("It was refused writing %s. Granted, the command runs once more and may write in %s (its nearest existing directory) and everything under it.", p.Refused, p.Path)
	}
	return fmt.Sprintf("It was refused writing in %s. Granted, the command runs once more and may write there and everything under it.", p.Path)
}

func (p PathGrant) text() string {
	if p.Write {
		return p.Path + " (write)"
	}
	return p.Path + " (read)"
}

// maxGrantsFile bounds what is read of the grants file.
const maxGrantsFile = 1 << 20

// grantsFile is the on-disk form of Config.GrantsFile.
type grantsFile struct {
	Grants []grantEntry `json:"grants"`
}

type grantEntry struct {
	Workspace string      `json:"workspace"`
	Allow     []string    `json:"allow,omitempty"`
	Hosts     []string    `json:"hosts,omitempty"` // network grants (host:port)
	Paths     []PathGrant `json:"paths,omitempty"` // file-system grants
	Command   string      `json:"command,omitempty"`
	Added     time.Time   `json:"added"`
}

// Check is Guard.Check under the session's grants.
func (s *Session) Check(ctx context.Context, req Request) policy.Verdict {
	return s.g.Check(ctx, s.withGrants(req))
}

// Remember applies an approval of command to later calls. The rules are
// the ones policy.Grant proposed for it (exact rules only: nothing with
// a wildcard is remembered). scope says for how long: "session" (the
// rest of this session), "always" (also written to Config.GrantsFile for
// this workspace; an error when there is none or it cannot be written:
// see GrantsError), or "once"/"" (nothing is remembered).
func (s *Session) Remember(scope, command string, rules []string) error {
	switch scope {
	case "", "once":
		return nil
	case "session", "always":
	default:
		return fmt.Errorf("shellguard: remember %q: the scopes are once, session and always", scope)
	}
	if len(rules) == 0 {
		return errors.New("shellguard: nothing to remember: no rule may allow this command (policy.Grant proposed none)")
	}
	if err := checkGrantRules(rules); err != nil {
		return err
	}
	if scope == "always" {
		if err := s.g.rememberAlways(grantEntry{Allow: rules, Command: command}); err != nil {
			return err
		}
	}
	s.grantMu.Lock()
	for _, r := range rules {
		if !slices.Contains(s.grants, r) {
			s.grants = append(s.grants, r)
		}
	}
	s.grantMu.Unlock()
	return nil
}

// withGrants returns req carrying the session's grants.
func (s *Session) withGrants(req Request) Request {
	s.grantMu.Lock()
	req.grants = slices.Clone(s.grants)
	req.hosts = slices.Concat(req.hosts, s.hosts)
	req.paths = slices.Concat(req.paths, s.paths)
	s.grantMu.Unlock()
	req.sess = s
	return req
}

// rulesFor returns the policy rules for req: the configuration's, with
// the workspace's remembered grants and the request's session grants
// added to Allow.
func (g *Guard) rulesFor(req Request) policy.Rules {
	r := g.cfg.Rules
	g.grantMu.RLock()
	always := g.always
	g.grantMu.RUnlock()
	if len(always) == 0 && len(req.grants) == 0 {
		return r
	}
	r.Allow = slices.Concat(r.Allow, always, req.grants)
	return r
}

// checkGrantRules: only exact rules (no wildcard) are ever remembered.
func checkGrantRules(rules []string) error {
	for _, r := range rules {
		if strings.ContainsAny(r, "*?[") || strings.TrimSpace(r) == "" {
			return fmt.Errorf("shellguard: %q: a remembered rule must match one exact command", r)
		}
	}
	return (policy.Rules{Allow: rules}).Validate()
}

// GrantsError says why approvals cannot be remembered "always" (nil when
// they can): no grants file, or one that is not safe to trust. Such a
// file is neither read nor written; the Guard works on without it.
func (g *Guard) GrantsError() error { return g.grantsErr }

// loadGrants reads the grants of this workspace from Config.GrantsFile.
// The file must lie outside every directory a sandboxed command may
// write, and must not be writable by others: a command must never be able
// to grant itself anything. A file that fails this is ignored, and
// GrantsError says why.
func (g *Guard) loadGrants() {
	p := g.cfg.GrantsFile
	switch {
	case p == "":
		g.grantsErr = errors.New("no grants file is configured: an approval can hold for the session only")
		return
	case !filepath.IsAbs(p):
		g.grantsErr = fmt.Errorf("grants file %q: not an absolute path", p)
		return
	}
	if root := g.writableRootOf(p); root != "" {
		g.grantsErr = fmt.Errorf("grants file %s lies inside %s, which sandboxed commands may write: approvals are not remembered beyond the session", p, root)
		return
	}
	f, err := readGrants(p)
	if err != nil {
		g.grantsErr = err
		return
	}
	for _, e := range f.Grants {
		if e.Workspace != g.cfg.Workspace {
			continue
		}
		if checkGrantRules(e.Allow) != nil {
			continue // hand-edited into something wider: not honoured
		}
		if _, err := sandbox.NetGrantEntries(e.Hosts); err != nil {
			continue
		}
		if slices.ContainsFunc(e.Paths, func(pg PathGrant) bool { return !g.pathGrantOK(pg) }) {
			continue
		}
		g.always = append(g.always, e.Allow...)
		g.hosts = append(g.hosts, e.Hosts...)
		g.paths = append(g.paths, e.Paths...)
	}
}

// writableRootOf returns the directory sandboxed commands may write (the
// workspace, the policy's allowed roots, the sandbox's writable roots and
// cache) that holds p, or "". (/tmp and /dev/shm are private to each
// session inside the sandbox.)
func (g *Guard) writableRootOf(p string) string {
	roots := append([]string{g.cfg.Workspace}, g.cfg.Rules.AllowedRoots...)
	if sp := g.cfg.Sandbox; sp != nil {
		roots = append(roots, sp.WritableRoots...)
		if sp.CacheDir != "" {
			roots = append(roots, sp.CacheDir)
		}
	}
	real := p
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		real = filepath.Join(r, filepath.Base(p))
	}
	for _, r := range roots {
		for _, q := range []string{p, real} {
			if rel, err := filepath.Rel(r, q); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
				return r
			}
		}
	}
	return ""
}

func readGrants(p string) (grantsFile, error) {
	var f grantsFile
	fh, err := os.OpenFile(p, os.O_RDONLY|nofollow, 0)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("grants file: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return f, fmt.Errorf("grants file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return f, fmt.Errorf("grants file %s is not a regular file", p)
	}
	if st.Mode().Perm()&0o022 != 0 {
		return f, fmt.Errorf("grants file %s is writable by others (chmod 600 it)", p)
	}
	b, err := io.ReadAll(io.LimitReader(fh, maxGrantsFile+1))
	if err != nil {
		return f, fmt.Errorf("grants file: %w", err)
	}
	if len(b) > maxGrantsFile {
		return f, fmt.Errorf("grants file %s is larger than %d bytes", p, maxGrantsFile)
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return f, nil
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("grants file %s: %w", p, err)
	}
	return f, nil
}

// rememberAlways adds e (its rules and hosts) for this workspace to the
// grants file (read again, appended, written to a temporary file and
// renamed over it) and to the Guard's rules and network grants.
func (g *Guard) rememberAlways(e grantEntry) error {
	if g.grantsErr != nil {
		return g.grantsErr
	}
	p := g.cfg.GrantsFile
	g.grantMu.Lock()
	defer g.grantMu.Unlock()
	f, err := readGrants(p)
	if err != nil {
		return err
	}
	e.Workspace, e.Added = g.cfg.Workspace, time.Now().UTC().Truncate(time.Second)
	f.Grants = append(f.Grants, e)
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("grants file: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".grants-*")
	if err != nil {
		return fmt.Errorf("grants file: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), p)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("grants file: %w", werr)
	}
	for _, r := range e.Allow {
		if !slices.Contains(g.always, r) {
			g.always = append(g.always, r)
		}
	}
	for _, h := range e.Hosts {
		if !slices.Contains(g.hosts, h) {
			g.hosts = append(g.hosts, h)
		}
	}
	for _, pg := range e.Paths {
		if !slices.Contains(g.paths, pg) {
			g.paths = append(g.paths, pg)
		}
	}
	return nil
}
