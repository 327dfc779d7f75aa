// Package config loads shellguard's configuration. It is the only package
// that reads configuration files or the environment.
//
// One strict YAML format: an unknown key or a value of the wrong type is an
// error naming file, line and key. Sources, weakest first:
//
//  1. built-in defaults (defaults.yaml, embedded),
//  2. the user file $XDG_CONFIG_HOME/shellguard/config.yaml (or
//     ~/.config/shellguard/config.yaml),
//  3. --config FILE,
//  4. flags ([Options.Flags]),
//  5. the project file .shellguard.yaml in the workspace, which may only
//     tighten: add ask/deny rules, blocked commands, deny patterns, masked
//     paths, scrubbed variables and redaction patterns; lower timeouts,
//     output caps, task limits and sandbox limits; narrow allowed_commands;
//     make readonly true; make the sandbox mode stricter. Any other key in a
//     project file is an error, so a command that edits the workspace cannot
//     weaken its own policy.
//
// Scalars from a stronger source replace weaker ones; lists are appended
// (duplicates dropped). Every value's origin is kept ([Config.Provenance]).
//
// What it does not do: it does not apply the configuration (the root
// package turns it into runner, sandbox and policy options), and it does not
// watch files for changes.
package config

import (
	_ "embed"
	"errors"
	"fmt"
	"github.com/shellguard/shellguard/internal/lazyre"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/redact"
)

//go:embed defaults.yaml
var defaultsYAML []byte

// DefaultsYAML returns the embedded defaults file.
func DefaultsYAML() []byte { return append([]byte(nil), defaultsYAML...) }

// ProjectFile is the name of the project file in the workspace.
const ProjectFile = ".shellguard.yaml"

// MaxTimeout is the highest timeout.max a configuration may set (seconds).
const MaxTimeout = 1800

// Rule is a prefix rule ("npm run test *") with optional examples that
// must (Match) or must not (NotMatch) match it.
type Rule struct {
	Rule     string   `json:"rule"`
	Match    []string `json:"match,omitempty"`
	NotMatch []string `json:"not_match,omitempty"`
}

// Pattern is a custom redaction pattern (redact.patterns), the type the
// redactor takes.
type Pattern = redact.Pattern

// Config is the effective configuration. Durations are whole seconds,
// sizes bytes.
type Config struct {
	Timeout struct {
		Default int `json:"default"` // seconds
		Max     int `json:"max"`     // seconds, ≤ MaxTimeout
	} `json:"timeout"`
	Output struct {
		MaxBytes      int64 `json:"max_bytes"`       // per stream, head+tail kept
		MaxTotalBytes int64 `json:"max_total_bytes"` // everything a command may print before it is killed
		// Escapes is "strip" (terminal control sequences other than SGR
		// colours are removed from output) or "keep".
		Escapes string `json:"escapes"`
	} `json:"output"`
	Rules struct {
		Allow               []Rule   `json:"allow"`
		Ask                 []Rule   `json:"ask"`
		Deny                []Rule   `json:"deny"`
		CustomDenyPatterns  []string `json:"custom_deny_patterns"`
		CustomAllowPatterns []string `json:"custom_allow_patterns"`
		AllowedCommands     []string `json:"allowed_commands"`
		BlockedCommands     []string `json:"blocked_commands"`
		AllowedRoots        []string `json:"allowed_roots"`
		Readonly            bool     `json:"readonly"`
		Unrestricted        bool     `json:"unrestricted"`
		BuiltinDefaults     bool     `json:"builtin_defaults"`
	} `json:"rules"`
	Sandbox struct {
		Mode             string   `json:"mode"`    // auto | required | off
		Network          string   `json:"network"` // off | allowlist | on
		NetworkAllow     []string `json:"network_allow"`
		NetworkDeny      []string `json:"network_deny"`
		WritableRoots    []string `json:"writable_roots"`
		MaskedPaths      []string `json:"masked_paths"`
		HomeAllow        []string `json:"home_allow"`
		ExcludedCommands []string `json:"excluded_commands"`
		AllowUnsandboxed bool     `json:"allow_unsandboxed"`
		// Review holds every sandboxed run's writes in a copy-on-write
		// layer until a reviewer picks what lands (sandbox.Spec.Review).
		Review bool `json:"review"`
		// Pool is how many warm sandbox helpers a long-lived face keeps
		// per session (0: none).
		Pool int `json:"pool"`
		// Limits are caps; 0 means the sandbox's built-in default. The
		// effective limit is the smaller of the two.
		Limits struct {
			Processes  int   `json:"processes"`
			MemoryMB   int64 `json:"memory_mb"`
			FileSizeMB int64 `json:"file_size_mb"`
			CPUSeconds int   `json:"cpu_seconds"`
			OpenFiles  int   `json:"open_files"`
			CPUPercent int   `json:"cpu_percent"`
		} `json:"limits"`
	} `json:"sandbox"`
	Env struct {
		Allow []string `json:"allow"` // variable names passed even when they look secret (runner.EnvPolicy.Allow)
		Scrub []string `json:"scrub"` // further name substrings that mark a variable as secret (runner.EnvPolicy.Scrub)
	} `json:"env"`
	Tasks struct {
		Max            int `json:"max"`             // background tasks per session
		RingLines      int `json:"ring_lines"`      // output lines kept per task
		BlockingBudget int `json:"blocking_budget"` // seconds before a foreground command moves to the background
		MaxTotal       int `json:"max_total"`       // background tasks running over all sessions of one server
	} `json:"tasks"`
	// Server bounds what `shellguard mcp` and `serve` take on at once
	// (the --max-calls, --max-queued and --max-sessions flags win).
	Server struct {
		MaxCalls    int `json:"max_calls"`    // commands run at once over all sessions; 0: twice the CPUs, at least 4
		MaxQueued   int `json:"max_queued"`   // calls waiting for a slot before further ones are answered "busy"
		MaxSessions int `json:"max_sessions"` // MCP sessions open at once (serve)
	} `json:"server"`
	Redact struct {
		Patterns []Pattern `json:"patterns"`
	} `json:"redact"`
	Audit struct {
		Path string `json:"path"` // "" = no audit log
		// KeyFile holds the key that signs the chain (HMAC-SHA256); "" =
		// plain SHA-256.
		KeyFile string `json:"key_file"`
		// FailOpen runs commands even when the log cannot record them
		// (each result warns); false refuses them.
		FailOpen bool `json:"fail_open"`
	} `json:"audit"`

	// Workspace is Options.Workspace, made absolute.
	Workspace string `json:"workspace,omitempty"`
	// Files lists the files that were read, weakest first.
	Files []Source `json:"-"`
	// Searched lists every place a file was looked for, found or not,
	// weakest first.
	Searched []Searched `json:"-"`
	// Notes are things about the files the user should know, e.g. a
	// config.yml next to the config.yaml that was looked for (and not read).
	Notes []string `json:"-"`
	// GrantsFile is where approvals given "always in this workspace" are
	// kept: grants.json beside the user file ("" without a user file).
	GrantsFile string `json:"-"`
	// PagesDir is where a running server publishes its approval page's
	// secret address for `shellguard doctor`: pages/ beside the user file
	// ("" without a user file). Sandboxed commands never see it.
	PagesDir string `json:"-"`
	// Provenance maps every key ("timeout.default") and every list element
	// ("rules.deny[0]") to where its value came from.
	Provenance map[string]Source `json:"-"`
}

// SourceKind says which kind of source set a value.
type SourceKind string

const (
	FromDefault SourceKind = "default"
	FromUser    SourceKind = "user"
	FromConfig  SourceKind = "--config"
	FromFlag    SourceKind = "flag"
	FromProject SourceKind = "project"
)

// Source is where a value came from.
type Source struct {
	Kind SourceKind `json:"kind"`
	File string     `json:"file,omitempty"` // for flags: the flag's name
	Line int        `json:"line,omitempty"`
}

func (s Source) String() string {
	switch {
	case s.Kind == FromDefault:
		return "default"
	case s.Kind == FromFlag:
		return "flag " + s.File
	case s.Line > 0:
		return fmt.Sprintf("%s %s:%d", s.Kind, s.File, s.Line)
	}
	return fmt.Sprintf("%s %s", s.Kind, s.File)
}

// Error is a configuration error at a place: a line of a file, or a
// flag.
type Error struct {
	Source        // where: the file and line, or the flag
	Key    string // dotted key, may be empty
	Msg    string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.file())
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrInvalid is matched (errors.Is) by every *Error.
var ErrInvalid = errors.New("config: invalid")

func (e *Error) Is(t error) bool { return t == ErrInvalid }

// Setting is one flag's value. Value is YAML ("30", "true", "[a, b]").
type Setting struct {
	Flag  string // the flag's name, for provenance ("--timeout")
	Key   string // dotted key ("timeout.default")
	Value string
}

// Options say where to load from. The zero value loads the defaults and
// the user file.
type Options struct {
	// ConfigFile is --config FILE.
	ConfigFile string
	// Workspace, if set, is searched for the project file.
	Workspace string
	// Flags are applied after the files, before the project file.
	Flags []Setting
	// UserFile overrides the user file's location; NoUserFile skips it.
	UserFile   string
	NoUserFile bool
	// NoProjectFile skips the project file.
	NoProjectFile bool
	// Getenv is used for XDG_CONFIG_HOME and HOME; nil means os.Getenv.
	Getenv func(string) string
}

// UserFilePath returns where the user file is looked for.
func UserFilePath(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "shellguard", "config.yaml")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "shellguard", "config.yaml")
	}
	return ""
}

// Load reads and merges all sources and validates the result.
func Load(o Options) (*Config, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	l := &loader{c: &Config{Provenance: map[string]Source{}}, home: o.Getenv("HOME")}
	if err := l.loadDefaults(); err != nil {
		return nil, fmt.Errorf("config: embedded defaults: %w", err)
	}
	if !o.NoUserFile {
		p := o.UserFile
		if p == "" {
			p = UserFilePath(o.Getenv)
		}
		if p != "" {
			if err := l.loadFile(p, FromUser, true); err != nil {
				return nil, err
			}
			if abs, err := filepath.Abs(p); err == nil {
				l.c.GrantsFile = filepath.Join(filepath.Dir(abs), "grants.json")
				l.c.PagesDir = filepath.Join(filepath.Dir(abs), "pages")
			}
		}
	}
	if o.ConfigFile != "" {
		if err := l.loadFile(o.ConfigFile, FromConfig, false); err != nil {
			return nil, err
		}
	}
	for _, s := range o.Flags {
		if err := l.loadFlag(s); err != nil {
			return nil, err
		}
	}
	if o.Workspace != "" {
		ws, err := filepath.Abs(o.Workspace)
		if err != nil {
			return nil, fmt.Errorf("config: workspace: %w", err)
		}
		l.c.Workspace = ws
		if !o.NoProjectFile {
			if err := l.loadFile(filepath.Join(ws, ProjectFile), FromProject, true); err != nil {
				return nil, err
			}
		}
	}
	if err := l.validate(); err != nil {
		return nil, err
	}
	return l.c, nil
}

// CheckFile validates one file on its own (over the defaults), as
// `shellguard config check` does, running the rules' examples. project
// says to apply the project-file restrictions.
func CheckFile(path string, project bool) (*Config, error) {
	l := &loader{c: &Config{Provenance: map[string]Source{}}, home: os.Getenv("HOME")}
	if err := l.loadDefaults(); err != nil {
		return nil, err
	}
	kind := FromConfig
	if project {
		kind = FromProject
	}
	if err := l.loadFile(path, kind, false); err != nil {
		return nil, err
	}
	if err := l.validate(); err != nil {
		return nil, err
	}
	return l.c, nil
}

type loader struct {
	c    *Config
	home string
	errs []error
}

// Searched is one place a configuration file was looked for.
type Searched struct {
	Kind  SourceKind `json:"kind"`
	Path  string     `json:"path"`
	Found bool       `json:"found"`
}

func (l *loader) loadFile(path string, kind SourceKind, optional bool) error {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	data, err := os.ReadFile(path)
	l.c.Searched = append(l.c.Searched, Searched{Kind: kind, Path: path, Found: err == nil})
	l.noteSpelling(path)
	if err != nil {
		if optional && errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("config: %w", err)
	}
	src := Source{Kind: kind, File: path}
	l.c.Files = append(l.c.Files, src)
	return l.loadBytes(data, src)
}

// noteSpelling notes a file with the other spelling of a YAML extension
// next to path (config.yml for config.yaml): it is never read, which is
// easy to miss.
func (l *loader) noteSpelling(path string) {
	var other string
	switch {
	case strings.HasSuffix(path, ".yaml"):
		other = strings.TrimSuffix(path, ".yaml") + ".yml"
	case strings.HasSuffix(path, ".yml"):
		other = strings.TrimSuffix(path, ".yml") + ".yaml"
	default:
		return
	}
	if _, err := os.Stat(other); err == nil {
		l.c.Notes = append(l.c.Notes, fmt.Sprintf("%s is not read: shellguard reads %s (rename it, or merge the two)", other, path))
	}
}

func (l *loader) loadBytes(data []byte, src Source) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return &Error{Source: src.at(yamlErrLine(err)), Msg: "invalid YAML: " + yamlErrMsg(err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil // empty file
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil
	}
	return l.loadNode(root, src)
}

func (l *loader) loadNode(root *yaml.Node, src Source) error {
	l.errs = nil
	l.walk(root, "", src)
	return errors.Join(l.errs...)
}

// loadDefaults loads defaults.yaml from its parsed form, generated into
// defaults_tree.go (TestDefaultsTree): parsing it took a third of a
// millisecond of every CLI start.
func (l *loader) loadDefaults() error {
	return l.loadNode(defaultsRoot, Source{Kind: FromDefault})
}

func (l *loader) loadFlag(s Setting) error {
	src := Source{Kind: FromFlag, File: s.Flag}
	if src.File == "" {
		src.File = s.Key
	}
	f, ok := fields[s.Key]
	if !ok {
		return &Error{Source: src, Key: s.Key, Msg: "unknown key" + suggest(s.Key)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s.Value), &doc); err != nil || len(doc.Content) == 0 {
		return &Error{Source: src, Key: s.Key, Msg: fmt.Sprintf("cannot parse %q", s.Value)}
	}
	l.errs = nil
	l.set(f, s.Key, doc.Content[0], src)
	return errors.Join(l.errs...)
}

// at is s at a line.
func (s Source) at(line int) Source {
	s.Line = line
	return s
}

// file names the place for an error: the file, or the flag.
func (s Source) file() string {
	switch s.Kind {
	case FromDefault:
		return "defaults.yaml"
	case FromFlag:
		return "flag " + s.File
	}
	return s.File
}

func (l *loader) errorf(n *yaml.Node, src Source, key, format string, args ...any) {
	line := 0
	if n != nil && src.Kind != FromFlag {
		line = n.Line
	}
	l.errs = append(l.errs, &Error{Source: src.at(line), Key: key, Msg: fmt.Sprintf(format, args...)})
}

func (l *loader) walk(n *yaml.Node, prefix string, src Source) {
	if n.Kind != yaml.MappingNode {
		name := prefix
		if name == "" {
			name = "(top level)"
		}
		l.errorf(n, src, name, "want a mapping, got %s", describe(n))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if prefix != "" {
			key = prefix + "." + k.Value
		}
		if seen[key] {
			l.errorf(k, src, key, "duplicate key")
			continue
		}
		seen[key] = true
		if sections[key] {
			l.walk(v, key, src)
			continue
		}
		f, ok := fields[key]
		if !ok {
			l.errorf(k, src, key, "unknown key%s", suggest(key))
			continue
		}
		l.set(f, key, v, src)
	}
}

func suggest(key string) string {
	best, bd := "", 4
	for k := range fields {
		if d := editDistance(k, key); d < bd {
			best, bd = k, d
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return ""
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.Tag {
	case "!!int":
		return "integer " + n.Value
	case "!!bool":
		return "boolean " + n.Value
	case "!!null":
		return "null"
	case "!!float":
		return "number " + n.Value
	}
	return strconv.Quote(n.Value)
}

var yamlLineRE = lazyre.New(`line (\d+)`)

func yamlErrLine(err error) int {
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

func yamlErrMsg(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// PolicyRules converts the rules section into policy inputs.
func (c *Config) PolicyRules() policy.Rules {
	return policy.Rules{
		Allow:               ruleStrings(c.Rules.Allow),
		Ask:                 ruleStrings(c.Rules.Ask),
		Deny:                ruleStrings(c.Rules.Deny),
		CustomDenyPatterns:  clone(c.Rules.CustomDenyPatterns),
		CustomAllowPatterns: clone(c.Rules.CustomAllowPatterns),
		AllowedCommands:     clone(c.Rules.AllowedCommands),
		BlockedCommands:     clone(c.Rules.BlockedCommands),
		Workspace:           c.Workspace,
		AllowedRoots:        clone(c.Rules.AllowedRoots),
		Readonly:            c.Rules.Readonly,
		Unrestricted:        c.Rules.Unrestricted,
		DisableDefaults:     !c.Rules.BuiltinDefaults,
	}
}

// RedactPatterns converts redact.patterns for redact.Options.
func (c *Config) RedactPatterns() []redact.Pattern {
	var out []redact.Pattern
	for _, p := range c.Redact.Patterns {
		p.Keywords = clone(p.Keywords)
		out = append(out, p)
	}
	return out
}

func ruleStrings(rs []Rule) []string {
	if len(rs) == 0 {
		return nil
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Rule
	}
	return out
}

func clone(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return append([]string(nil), s...)
}
