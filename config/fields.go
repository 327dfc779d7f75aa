package config

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/shellguard/shellguard/internal/lazyre"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/redact"
	"github.com/shellguard/shellguard/sandbox/netproxy"
)

type kind int

const (
	kInt kind = iota
	kInt64
	kBool
	kString
	kStrings
	kRules
	kPatterns
)

// tighten says what a project file may do with a key.
type tighten int

const (
	tForbidden    tighten = iota // not in a project file
	tLower                       // a number no higher than the current one
	tAdd                         // list entries are added
	tTrueOnly                    // may only be set to true
	tFalseOnly                   // may only be set to false
	tStricterMode                // a value of a ranked set no weaker than the current one (modeRanks)
	tNarrow                      // allowed_commands: intersect with the current list
)

type field struct {
	kind    kind
	project tighten
	ptr     func(*Config) any
	path    bool // list of paths: "~" expanded, relative resolved against the file's directory
}

var sections = map[string]bool{
	"timeout": true, "output": true, "rules": true, "sandbox": true, "sandbox.limits": true,
	"env": true, "tasks": true, "server": true, "redact": true, "audit": true,
}

// schemaOrder is the order of keys in `config show`.
var schemaOrder = []string{
	"timeout.default", "timeout.max",
	"output.max_bytes", "output.max_total_bytes", "output.escapes",
	"rules.allow", "rules.ask", "rules.deny", "rules.custom_deny_patterns", "rules.custom_allow_patterns",
	"rules.allowed_commands", "rules.blocked_commands", "rules.allowed_roots",
	"rules.readonly", "rules.unrestricted", "rules.builtin_defaults",
	"sandbox.mode", "sandbox.network", "sandbox.network_allow", "sandbox.network_deny", "sandbox.writable_roots", "sandbox.masked_paths",
	"sandbox.home_allow",
	"sandbox.excluded_commands", "sandbox.allow_unsandboxed", "sandbox.review", "sandbox.pool",
	"sandbox.limits.processes", "sandbox.limits.memory_mb", "sandbox.limits.file_size_mb",
	"sandbox.limits.cpu_seconds", "sandbox.limits.open_files", "sandbox.limits.cpu_percent",
	"env.allow", "env.scrub",
	"tasks.max", "tasks.ring_lines", "tasks.blocking_budget", "tasks.max_total",
	"server.max_calls", "server.max_queued", "server.max_sessions",
	"redact.patterns", "audit.path", "audit.key_file", "audit.fail_open",
}

// Keys returns every configuration key, in schema order.
func Keys() []string { return append([]string(nil), schemaOrder...) }

var fields = map[string]field{
	"timeout.default": {kInt, tLower, func(c *Config) any { return &c.Timeout.Default }, false},
	"timeout.max":     {kInt, tLower, func(c *Config) any { return &c.Timeout.Max }, false},

	"output.max_bytes":       {kInt64, tLower, func(c *Config) any { return &c.Output.MaxBytes }, false},
	"output.max_total_bytes": {kInt64, tLower, func(c *Config) any { return &c.Output.MaxTotalBytes }, false},
	"output.escapes":         {kString, tStricterMode, func(c *Config) any { return &c.Output.Escapes }, false},

	"rules.allow":                 {kRules, tForbidden, func(c *Config) any { return &c.Rules.Allow }, false},
	"rules.ask":                   {kRules, tAdd, func(c *Config) any { return &c.Rules.Ask }, false},
	"rules.deny":                  {kRules, tAdd, func(c *Config) any { return &c.Rules.Deny }, false},
	"rules.custom_deny_patterns":  {kStrings, tAdd, func(c *Config) any { return &c.Rules.CustomDenyPatterns }, false},
	"rules.custom_allow_patterns": {kStrings, tForbidden, func(c *Config) any { return &c.Rules.CustomAllowPatterns }, false},
	"rules.allowed_commands":      {kStrings, tNarrow, func(c *Config) any { return &c.Rules.AllowedCommands }, false},
	"rules.blocked_commands":      {kStrings, tAdd, func(c *Config) any { return &c.Rules.BlockedCommands }, false},
	"rules.allowed_roots":         {kStrings, tForbidden, func(c *Config) any { return &c.Rules.AllowedRoots }, true},
	"rules.readonly":              {kBool, tTrueOnly, func(c *Config) any { return &c.Rules.Readonly }, false},
	"rules.unrestricted":          {kBool, tFalseOnly, func(c *Config) any { return &c.Rules.Unrestricted }, false},
	"rules.builtin_defaults":      {kBool, tTrueOnly, func(c *Config) any { return &c.Rules.BuiltinDefaults }, false},

	"sandbox.mode":    {kString, tStricterMode, func(c *Config) any { return &c.Sandbox.Mode }, false},
	"sandbox.network": {kString, tStricterMode, func(c *Config) any { return &c.Sandbox.Network }, false},
	// Hosts let out through the allowlist proxy: only the user may add,
	// a project file may only remove (network_deny).
	"sandbox.network_allow":  {kStrings, tForbidden, func(c *Config) any { return &c.Sandbox.NetworkAllow }, false},
	"sandbox.network_deny":   {kStrings, tAdd, func(c *Config) any { return &c.Sandbox.NetworkDeny }, false},
	"sandbox.writable_roots": {kStrings, tForbidden, func(c *Config) any { return &c.Sandbox.WritableRoots }, true},
	"sandbox.masked_paths":   {kStrings, tAdd, func(c *Config) any { return &c.Sandbox.MaskedPaths }, true},
	// Bringing more of HOME into the sandbox loosens it: user file only.
	"sandbox.home_allow":        {kStrings, tForbidden, func(c *Config) any { return &c.Sandbox.HomeAllow }, false},
	"sandbox.excluded_commands": {kStrings, tForbidden, func(c *Config) any { return &c.Sandbox.ExcludedCommands }, false},
	"sandbox.allow_unsandboxed": {kBool, tFalseOnly, func(c *Config) any { return &c.Sandbox.AllowUnsandboxed }, false},
	// Reviewing what lands only tightens: a project file may turn it on.
	"sandbox.review": {kBool, tTrueOnly, func(c *Config) any { return &c.Sandbox.Review }, false},
	// Warm helpers are a start-up cost, not a permission: every command
	// sees what a cold start sees, so any file may lower it.
	"sandbox.pool": {kInt, tLower, func(c *Config) any { return &c.Sandbox.Pool }, false},

	"sandbox.limits.processes":    {kInt, tLower, func(c *Config) any { return &c.Sandbox.Limits.Processes }, false},
	"sandbox.limits.memory_mb":    {kInt64, tLower, func(c *Config) any { return &c.Sandbox.Limits.MemoryMB }, false},
	"sandbox.limits.file_size_mb": {kInt64, tLower, func(c *Config) any { return &c.Sandbox.Limits.FileSizeMB }, false},
	"sandbox.limits.cpu_seconds":  {kInt, tLower, func(c *Config) any { return &c.Sandbox.Limits.CPUSeconds }, false},
	"sandbox.limits.open_files":   {kInt, tLower, func(c *Config) any { return &c.Sandbox.Limits.OpenFiles }, false},
	"sandbox.limits.cpu_percent":  {kInt, tLower, func(c *Config) any { return &c.Sandbox.Limits.CPUPercent }, false},

	"env.allow": {kStrings, tForbidden, func(c *Config) any { return &c.Env.Allow }, false},
	"env.scrub": {kStrings, tAdd, func(c *Config) any { return &c.Env.Scrub }, false},

	"tasks.max":             {kInt, tLower, func(c *Config) any { return &c.Tasks.Max }, false},
	"tasks.ring_lines":      {kInt, tLower, func(c *Config) any { return &c.Tasks.RingLines }, false},
	"tasks.blocking_budget": {kInt, tLower, func(c *Config) any { return &c.Tasks.BlockingBudget }, false},
	"tasks.max_total":       {kInt, tLower, func(c *Config) any { return &c.Tasks.MaxTotal }, false},

	// What a server takes on at once is the operator's: a project file
	// may not set it (0 for max_calls means "by the CPUs", not "less").
	"server.max_calls":    {kInt, tForbidden, func(c *Config) any { return &c.Server.MaxCalls }, false},
	"server.max_queued":   {kInt, tForbidden, func(c *Config) any { return &c.Server.MaxQueued }, false},
	"server.max_sessions": {kInt, tForbidden, func(c *Config) any { return &c.Server.MaxSessions }, false},

	"redact.patterns": {kPatterns, tAdd, func(c *Config) any { return &c.Redact.Patterns }, false},
	"audit.path":      {kString, tForbidden, func(c *Config) any { return &c.Audit.Path }, false},
	"audit.key_file":  {kString, tForbidden, func(c *Config) any { return &c.Audit.KeyFile }, false},
	// Running commands the log cannot record loosens: a project file may
	// only turn it off.
	"audit.fail_open": {kBool, tFalseOnly, func(c *Config) any { return &c.Audit.FailOpen }, false},
}

var modeRank = map[string]int{"off": 0, "auto": 1, "required": 2, "strict": 3}

// modeRanks orders the values of each string key with a fixed set of
// values, weakest first: a project file may only move up.
var modeRanks = map[string]map[string]int{
	"sandbox.mode":   modeRank,
	"output.escapes": {"keep": 0, "strip": 1},
	// true and false (the boolean this key was) are read as on and off.
	"sandbox.network": {"on": 0, "allowlist": 1, "off": 2},
}

func rankNames(r map[string]int) string {
	names := make([]string, len(r))
	for n, i := range r {
		names[i] = n
	}
	if len(names) == 2 {
		return names[0] + " or " + names[1]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// set decodes n into the field at key and applies it from src.
func (l *loader) set(f field, key string, n *yaml.Node, src Source) {
	project := src.Kind == FromProject
	if project && f.project == tForbidden {
		l.errorf(n, src, key, "not allowed in a project file: it could only loosen the policy (set it in the user file or with --config)")
		return
	}
	at := src
	at.Line = n.Line
	if src.Kind == FromFlag {
		at.Line = 0
	}
	c := l.c
	switch f.kind {
	case kInt, kInt64:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			l.errorf(n, src, key, "want an integer, got %s", describe(n))
			return
		}
		v, err := strconv.ParseInt(n.Value, 0, 64)
		if err != nil {
			l.errorf(n, src, key, "want an integer, got %s", describe(n))
			return
		}
		if v < 0 {
			l.errorf(n, src, key, "must not be negative")
			return
		}
		var cur int64
		switch p := f.ptr(c).(type) {
		case *int:
			cur = int64(*p)
		case *int64:
			cur = *p
		}
		if project && v > cur && !(cur == 0 && strings.HasPrefix(key, "sandbox.limits.")) {
			l.errorf(n, src, key, "a project file may only lower this (now %d, project says %d)", cur, v)
			return
		}
		if project && strings.HasPrefix(key, "sandbox.limits.") && v == 0 && cur != 0 {
			l.errorf(n, src, key, "a project file may only lower this (0 would mean the default, now %d)", cur)
			return
		}
		switch p := f.ptr(c).(type) {
		case *int:
			if v > 1<<31-1 {
				l.errorf(n, src, key, "too large")
				return
			}
			*p = int(v)
		case *int64:
			*p = v
		}
		c.Provenance[key] = at
	case kBool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			l.errorf(n, src, key, "want true or false, got %s", describe(n))
			return
		}
		var v bool
		if err := n.Decode(&v); err != nil {
			l.errorf(n, src, key, "want true or false, got %s", describe(n))
			return
		}
		if project && f.project == tTrueOnly && !v {
			l.errorf(n, src, key, "a project file may only set this to true")
			return
		}
		if project && f.project == tFalseOnly && v {
			l.errorf(n, src, key, "a project file may only set this to false")
			return
		}
		*f.ptr(c).(*bool) = v
		c.Provenance[key] = at
	case kString:
		if key == "sandbox.network" && n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
			// The boolean form: true is on, false is off.
			c := *n
			c.Tag = "!!str"
			if v := strings.ToLower(n.Value); v == "true" || v == "yes" || v == "on" {
				c.Value = "on"
			} else {
				c.Value = "off"
			}
			n = &c
		}
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			l.errorf(n, src, key, "want a string, got %s", describe(n))
			return
		}
		v := n.Value
		if key == "sandbox.mode" {
			v = strings.ToLower(strings.TrimSpace(v))
			if _, ok := modeRank[v]; !ok {
				l.errorf(n, src, key, "want auto, required, strict or off, got %q", n.Value)
				return
			}
			if project && modeRank[v] < modeRank[c.Sandbox.Mode] {
				l.errorf(n, src, key, "a project file may only make the sandbox stricter (now %s, project says %s)", c.Sandbox.Mode, v)
				return
			}
		} else if ranks, ok := modeRanks[key]; ok {
			v = strings.ToLower(strings.TrimSpace(v))
			if _, ok := ranks[v]; !ok {
				l.errorf(n, src, key, "want %s, got %q", rankNames(ranks), n.Value)
				return
			}
			if cur := *f.ptr(c).(*string); project && ranks[v] < ranks[cur] {
				l.errorf(n, src, key, "a project file may only make this stricter (now %s, project says %s)", cur, v)
				return
			}
		}
		if (key == "audit.path" || key == "audit.key_file") && v != "" {
			v = l.expandPath(v, src)
		}
		*f.ptr(c).(*string) = v
		c.Provenance[key] = at
	case kStrings:
		vals, nodes, ok := l.stringList(n, src, key)
		if !ok {
			return
		}
		if key == "sandbox.network_allow" || key == "sandbox.network_deny" {
			for i, v := range vals {
				if _, err := netproxy.ParseEntry(v, ""); err != nil {
					l.errorf(nodes[i], src, key, "%v", err)
					return
				}
			}
		}
		if f.path {
			for i := range vals {
				vals[i] = l.expandPath(vals[i], src)
			}
		}
		p := f.ptr(c).(*[]string)
		if project && f.project == tNarrow && len(*p) > 0 {
			// Keep only commands both lists allow.
			keepOld := map[string]bool{}
			for _, v := range vals {
				keepOld[v] = true
			}
			var kept []string
			var keptSrc []Source
			for i, v := range *p {
				if keepOld[v] {
					kept = append(kept, v)
					keptSrc = append(keptSrc, c.Provenance[fmt.Sprintf("%s[%d]", key, i)])
				}
			}
			l.clearList(key, len(*p))
			*p = kept
			for i := range kept {
				c.Provenance[fmt.Sprintf("%s[%d]", key, i)] = keptSrc[i]
			}
			if len(kept) == 0 {
				// Nothing left: an allow-list that allows nothing.
				*p = []string{}
			}
			c.Provenance[key] = at
			return
		}
		for i, v := range vals {
			if contains(*p, v) {
				continue
			}
			*p = append(*p, v)
			e := at
			if src.Kind != FromFlag {
				e.Line = nodes[i].Line
			}
			c.Provenance[fmt.Sprintf("%s[%d]", key, len(*p)-1)] = e
		}
		c.Provenance[key] = at
	case kRules:
		if n.Kind != yaml.SequenceNode {
			l.errorf(n, src, key, "want a list, got %s", describe(n))
			return
		}
		p := f.ptr(c).(*[]Rule)
		for _, e := range n.Content {
			r, ok := l.rule(e, src, key)
			if !ok {
				continue
			}
			if i := ruleIndex(*p, r.Rule); i >= 0 {
				(*p)[i].Match = append((*p)[i].Match, r.Match...)
				(*p)[i].NotMatch = append((*p)[i].NotMatch, r.NotMatch...)
				continue
			}
			*p = append(*p, r)
			s := at
			if src.Kind != FromFlag {
				s.Line = e.Line
			}
			c.Provenance[fmt.Sprintf("%s[%d]", key, len(*p)-1)] = s
		}
		c.Provenance[key] = at
	case kPatterns:
		if n.Kind != yaml.SequenceNode {
			l.errorf(n, src, key, "want a list, got %s", describe(n))
			return
		}
		p := f.ptr(c).(*[]Pattern)
		for _, e := range n.Content {
			pt, ok := l.pattern(e, src, key)
			if !ok {
				continue
			}
			*p = append(*p, pt)
			s := at
			if src.Kind != FromFlag {
				s.Line = e.Line
			}
			c.Provenance[fmt.Sprintf("%s[%d]", key, len(*p)-1)] = s
		}
		c.Provenance[key] = at
	}
}

func (l *loader) clearList(key string, n int) {
	for i := 0; i < n; i++ {
		delete(l.c.Provenance, fmt.Sprintf("%s[%d]", key, i))
	}
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func ruleIndex(rs []Rule, r string) int {
	for i, x := range rs {
		if x.Rule == r {
			return i
		}
	}
	return -1
}

func (l *loader) stringList(n *yaml.Node, src Source, key string) ([]string, []*yaml.Node, bool) {
	if n.Kind != yaml.SequenceNode {
		l.errorf(n, src, key, "want a list of strings, got %s", describe(n))
		return nil, nil, false
	}
	var out []string
	ok := true
	for i, e := range n.Content {
		if e.Kind != yaml.ScalarNode || e.Tag != "!!str" {
			l.errorf(e, src, fmt.Sprintf("%s[%d]", key, i), "want a string, got %s", describe(e))
			ok = false
			continue
		}
		if strings.TrimSpace(e.Value) == "" {
			l.errorf(e, src, fmt.Sprintf("%s[%d]", key, i), "empty string")
			ok = false
			continue
		}
		out = append(out, e.Value)
	}
	return out, n.Content, ok
}

// rule decodes "prefix *" or {rule: ..., match: [...], not_match: [...]}.
func (l *loader) rule(n *yaml.Node, src Source, key string) (Rule, bool) {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		if strings.TrimSpace(n.Value) == "" {
			l.errorf(n, src, key, "empty rule")
			return Rule{}, false
		}
		return Rule{Rule: n.Value}, true
	case n.Kind == yaml.MappingNode:
		var r Rule
		ok := true
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch k.Value {
			case "rule":
				if v.Kind != yaml.ScalarNode || v.Tag != "!!str" || strings.TrimSpace(v.Value) == "" {
					l.errorf(v, src, key+".rule", "want a non-empty string, got %s", describe(v))
					ok = false
					continue
				}
				r.Rule = v.Value
			case "match", "not_match":
				vals, _, good := l.stringList(v, src, key+"."+k.Value)
				if !good {
					ok = false
					continue
				}
				if k.Value == "match" {
					r.Match = vals
				} else {
					r.NotMatch = vals
				}
			default:
				l.errorf(k, src, key+"."+k.Value, "unknown key (a rule has rule, match, not_match)")
				ok = false
			}
		}
		if r.Rule == "" && ok {
			l.errorf(n, src, key, "rule mapping without rule:")
			return r, false
		}
		return r, ok
	}
	l.errorf(n, src, key, "want a rule string or {rule, match, not_match}, got %s", describe(n))
	return Rule{}, false
}

func (l *loader) pattern(n *yaml.Node, src Source, key string) (Pattern, bool) {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		return Pattern{Regex: n.Value}, true
	case n.Kind == yaml.MappingNode:
		var p Pattern
		ok := true
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			switch k.Value {
			case "name", "regex":
				if v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
					l.errorf(v, src, key+"."+k.Value, "want a string, got %s", describe(v))
					ok = false
					continue
				}
				if k.Value == "name" {
					p.Name = v.Value
				} else {
					p.Regex = v.Value
				}
			case "keywords":
				vals, _, good := l.stringList(v, src, key+".keywords")
				ok = ok && good
				p.Keywords = vals
			default:
				l.errorf(k, src, key+"."+k.Value, "unknown key (a pattern has name, regex, keywords)")
				ok = false
			}
		}
		if p.Regex == "" && ok {
			l.errorf(n, src, key, "pattern without regex:")
			return p, false
		}
		if p.Name != "" && !validKind.MatchString(p.Name) {
			l.errorf(n, src, key+".name", "name %q: use letters, digits, '-' and '_'", p.Name)
			return p, false
		}
		if ok {
			if _, err := regexp.Compile(p.Regex); err != nil {
				l.errorf(n, src, key, "invalid regex: %v", err)
				return p, false
			}
		}
		return p, ok
	}
	l.errorf(n, src, key, "want a regex string or {name, regex, keywords}, got %s", describe(n))
	return Pattern{}, false
}

var validKind = lazyre.New(`^[A-Za-z0-9_-]{1,40}$`)

// expandPath expands "~" and makes a relative path absolute against the
// directory of the file that set it (flags: the current directory).
func (l *loader) expandPath(p string, src Source) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if l.home != "" {
			p = filepath.Join(l.home, p[1:])
		}
	}
	if !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") {
		base := "."
		if src.Kind != FromFlag && src.Kind != FromDefault && src.File != "" {
			base = filepath.Dir(src.File)
		}
		if abs, err := filepath.Abs(filepath.Join(base, p)); err == nil {
			p = abs
		}
	}
	return filepath.Clean(p)
}

// validate checks the merged configuration and runs the rule examples.
func (l *loader) validate() error {
	c := l.c
	var errs []error
	bad := func(key, format string, args ...any) {
		src := c.Provenance[key]
		errs = append(errs, &Error{Source: src, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if c.Timeout.Default < 1 {
		bad("timeout.default", "must be at least 1 second (0 would mean no timeout)")
	}
	if c.Timeout.Max < 1 || c.Timeout.Max > MaxTimeout {
		bad("timeout.max", "must be between 1 and %d seconds, got %d", MaxTimeout, c.Timeout.Max)
	}
	if c.Timeout.Default > c.Timeout.Max {
		bad("timeout.default", "%d is above timeout.max %d", c.Timeout.Default, c.Timeout.Max)
	}
	if c.Output.MaxBytes < 1024 {
		bad("output.max_bytes", "must be at least 1024, got %d", c.Output.MaxBytes)
	}
	if c.Output.MaxTotalBytes < c.Output.MaxBytes {
		bad("output.max_total_bytes", "%d is below output.max_bytes %d", c.Output.MaxTotalBytes, c.Output.MaxBytes)
	}
	if c.Tasks.Max < 1 {
		bad("tasks.max", "must be at least 1")
	}
	if c.Tasks.RingLines < 1 {
		bad("tasks.ring_lines", "must be at least 1")
	}
	if c.Tasks.BlockingBudget < 1 {
		bad("tasks.blocking_budget", "must be at least 1 second")
	}
	if c.Tasks.MaxTotal < 1 {
		bad("tasks.max_total", "must be at least 1")
	}
	if c.Server.MaxCalls < 0 {
		bad("server.max_calls", "must be at least 1 (0: twice the CPUs, at least 4)")
	}
	if c.Server.MaxQueued < 1 {
		bad("server.max_queued", "must be at least 1")
	}
	if c.Server.MaxSessions < 1 {
		bad("server.max_sessions", "must be at least 1")
	}
	for i, p := range c.Rules.CustomDenyPatterns {
		if _, err := regexp.Compile(p); err != nil {
			bad(fmt.Sprintf("rules.custom_deny_patterns[%d]", i), "invalid regex: %v", err)
		}
	}
	for i, p := range c.Rules.CustomAllowPatterns {
		if _, err := regexp.Compile(p); err != nil {
			bad(fmt.Sprintf("rules.custom_allow_patterns[%d]", i), "invalid regex: %v", err)
		}
	}
	if len(c.Redact.Patterns) > 0 { // building a redactor is not free: only when there is something to check
		if _, err := redact.New(redact.Options{Patterns: c.RedactPatterns(), NoGitleaks: true}); err != nil {
			bad("redact.patterns", "%v", err)
		}
	}
	for _, sec := range []struct {
		kind  string
		rules []Rule
	}{{"allow", c.Rules.Allow}, {"ask", c.Rules.Ask}, {"deny", c.Rules.Deny}} {
		for i, r := range sec.rules {
			key := fmt.Sprintf("rules.%s[%d]", sec.kind, i)
			for _, ex := range r.Match {
				ok := policy.MatchCommand(r.Rule, ex)
				if !ok {
					bad(key, "rule %q does not match its example %q", r.Rule, ex)
				}
			}
			for _, ex := range r.NotMatch {
				ok := policy.MatchCommand(r.Rule, ex)
				if ok {
					bad(key, "rule %q matches %q, listed under not_match", r.Rule, ex)
				}
			}
		}
	}
	return joinErrs(errs)
}

func joinErrs(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return multiError(errs)
}

type multiError []error

func (m multiError) Error() string {
	var s []string
	for _, e := range m {
		s = append(s, e.Error())
	}
	return strings.Join(s, "\n")
}

func (m multiError) Unwrap() []error { return m }
