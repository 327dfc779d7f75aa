package sandbox

import (
	"fmt"
	"strings"
	"sync"
)

// FilterGitConfig returns the part of a git config file that carries no
// secret and makes git run nothing: each key is kept only when it is on an
// allowlist (gitKeyKept: identity, core settings that are not commands,
// aliases that are not shell commands, colours, diff/merge/pull/push
// options, remote and url rewrites …). Comments are dropped, and the
// credentials of every URL kept (https://user:token@host) are removed.
// The text is parsed as git parses it (quotes, escapes, continuation
// lines, a key on a section's line, legacy [section.sub] headers) and
// written back in a plain form git reads the same way; what follows a
// syntax error is dropped. The second result lists what was dropped, as
// section.key names.
func FilterGitConfig(text string) (string, []string) {
	p := gitParser{s: text}
	var out strings.Builder
	var dropped []string
	header := ""
	seen := map[string]bool{}
	drop := func(name string) {
		if !seen[name] {
			seen[name] = true
			dropped = append(dropped, name)
		}
	}
	for {
		e, ok, err := p.next()
		if err != nil {
			drop(fmt.Sprintf("everything from line %d (%v)", p.line, err))
			break
		}
		if !ok {
			break
		}
		sub := stripUserinfo(e.sub)
		name := e.section + "." + e.key
		if e.sub != "" {
			name = e.section + "." + sectionName(sub) + "." + e.key
		}
		if !gitKeyKept(e.section, e.sub != "", e.key, e.value, e.null) {
			drop(name)
			continue
		}
		h := "[" + e.section + "]"
		if e.sub != "" {
			h = "[" + e.section + " " + quoteGit(sub) + "]"
		}
		if h != header {
			out.WriteString(h + "\n")
			header = h
		}
		if e.null {
			out.WriteString("\t" + e.key + "\n")
			continue
		}
		out.WriteString("\t" + e.key + " = " + quoteGit(stripUserinfo(e.value)) + "\n")
	}
	return out.String(), dropped
}

// sectionName shows a subsection in the dropped list without a URL's
// credentials.
func sectionName(sub string) string {
	if strings.ContainsAny(sub, "\n\"") {
		return "<subsection>"
	}
	return sub
}

// stripUserinfo removes the credentials of every URL in s: any userinfo
// with a password (scheme://user:pass@), and any at all for http, https
// and ftp, where it is a token (https://TOKEN@host); ssh://git@host keeps
// its user name. A URL's scheme starts at a letter after a non-word byte
// (or at the start) and runs over letters, digits, "+", "." and "-"; its
// userinfo ends at the first "@" before any "/", '"' or white space. It
// does what the expression userinfoExpr (in the tests) does with
// ReplaceAllString(s, "${1}${2}://"), leftmost match first, without
// compiling it in every process that reads a git config.
func stripUserinfo(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	last, pos := 0, 0
	for {
		j := strings.Index(s[pos:], "://")
		if j < 0 {
			break
		}
		j += pos
		k := j + 3
		// The userinfo: up to the first stop byte, which must be "@".
		m := k
		for m < len(s) && !userinfoStop(s[m]) {
			m++
		}
		if m == len(s) || s[m] != '@' {
			pos = k
			continue
		}
		password := strings.IndexByte(s[k:m], ':') >= 0
		r := j
		for r > pos && schemeByte(s[r-1]) {
			r--
		}
		start := -1
		for i := r; i < j; i++ {
			if !isLetter(s[i]) || (i > 0 && wordByte(s[i-1])) {
				continue
			}
			if password || tokenScheme(s[i:j]) {
				start = i
				break
			}
		}
		if start < 0 {
			pos = k
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(s[start:j])
		b.WriteString("://")
		last, pos = m+1, m+1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// tokenScheme: the schemes whose user name alone is a credential.
func tokenScheme(s string) bool {
	return strings.EqualFold(s, "http") || strings.EqualFold(s, "https") || strings.EqualFold(s, "ftp") || strings.EqualFold(s, "ftps")
}

func userinfoStop(c byte) bool {
	switch c {
	case '/', '@', '"', ' ', '\t', '\n', '\f', '\r':
		return true
	}
	return false
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func schemeByte(c byte) bool {
	return isLetter(c) || '0' <= c && c <= '9' || c == '+' || c == '.' || c == '-'
}

func wordByte(c byte) bool { return isLetter(c) || '0' <= c && c <= '9' || c == '_' }

// gitSections are whole sections whose keys (without a subsection, except
// color) are settings of git's output and housekeeping: no key in them
// names a program or carries a credential.
var gitSections = map[string]bool{
	"color": true, "advice": true, "status": true, "log": true, "column": true, "grep": true,
	"blame": true, "feature": true, "index": true, "gc": true, "rerere": true, "pretty": true,
}

// gitKeys are the single keys kept, by section (names in lower case, as
// git compares them). Made on first use: every process that links the
// package would otherwise build these sets at start, the sandbox helper
// included, which never filters a git config.
var gitKeys = sync.OnceValue(func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"user":   set("name", "email", "signingkey", "useconfigonly"),
		"author": set("name", "email"), "committer": set("name", "email"),
		// core.* that are not commands (editor, pager, sshcommand, askpass,
		// fsmonitor, hookspath, gitproxy, worktree … are not here).
		"core": set("autocrlf", "eol", "filemode", "ignorecase", "precomposeunicode", "protecthfs", "protectntfs",
			"quotepath", "safecrlf", "whitespace", "abbrev", "compression", "loosecompression",
			"bigfilethreshold", "excludesfile", "attributesfile", "symlinks", "trustctime", "checkstat",
			"untrackedcache", "preloadindex", "longpaths", "commentchar", "commentstring",
			"logallrefupdates", "splitindex", "multipackindex", "commitgraph", "fscache",
			"packedgitlimit", "packedgitwindowsize", "deltabasecachelimit", "fsync", "fsyncmethod",
			"warnambiguousrefs", "notesref", "sparsecheckout", "sparsecheckoutcone", "filesrefLockTimeout"),
		"init":        set("defaultbranch"),
		"pull":        set("rebase", "ff", "twohead", "octopus"),
		"push":        set("default", "autosetupremote", "followtags", "gpgsign", "recursesubmodules", "usebitmaps", "negotiate"),
		"fetch":       set("prune", "prunetags", "parallel", "writecommitgraph", "recursesubmodules", "fsckobjects", "output", "negotiationalgorithm", "showforcedupdates", "all"),
		"rebase":      set("autostash", "autosquash", "updaterefs", "abbreviatecommands", "stat", "missingcommitscheck", "instructionformat", "backend", "forkpoint"),
		"merge":       set("conflictstyle", "ff", "log", "renames", "renamelimit", "stat", "tool", "autostash", "verbosity", "defaulttoupstream", "directoryrenames"),
		"diff":        set("algorithm", "colormoved", "colormovedws", "renames", "renamelimit", "noprefix", "mnemonicprefix", "context", "interhunkcontext", "indentheuristic", "submodule", "tool", "guitool", "wserrorhighlight", "statgraphwidth", "dirstat", "relative", "ignoresubmodules", "suppressblankempty", "orderfile", "statnamewidth"),
		"commit":      set("verbose", "cleanup", "gpgsign", "status", "template"),
		"tag":         set("sort", "gpgsign", "forcesignannotated"),
		"branch":      set("sort", "autosetupmerge", "autosetuprebase"),
		"format":      set("pretty", "signoff", "numbered", "coverletter", "suffix", "outputdirectory"),
		"help":        set("autocorrect", "format"),
		"submodule":   set("recurse", "fetchjobs", "propagatebranches"),
		"protocol":    set("version"),
		"transfer":    set("fsckobjects"),
		"checkout":    set("defaultremote", "workers"),
		"clone":       set("defaultremotename", "rejectshallow"),
		"worktree":    set("guessremote"),
		"stash":       set("showpatch", "showstat", "showincludeuntracked"),
		"am":          set("threeway", "keepcr"),
		"apply":       set("whitespace", "ignorewhitespace"),
		"safe":        set("directory"),
		"pack":        set("threads", "windowmemory", "usebitmaps", "writebitmaphashcache"),
		"http":        set("postbuffer", "version", "lowspeedlimit", "lowspeedtime"),
		"interactive": set("singlekey"),
	}
})

// gitSubKeys are the keys kept in sections with a subsection: remotes
// and URL rewrites (their URLs lose credentials).
var gitSubKeys = sync.OnceValue(func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"remote": set("url", "pushurl", "fetch", "push", "tagopt", "prune", "prunetags", "mirror", "skipdefaultupdate", "skipfetchall"),
		"url":    set("insteadof", "pushinsteadof"),
		"color":  nil, // any key: colours
	}
})

func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[strings.ToLower(k)] = true
	}
	return m
}

// gitKeyKept says whether a key is on the allowlist.
func gitKeyKept(section string, hasSub bool, key, value string, null bool) bool {
	if hasSub {
		keys, ok := gitSubKeys()[section]
		return ok && (keys == nil || keys[key])
	}
	if section == "alias" {
		// An alias to a git command only: "!…" runs a shell command.
		return !null && !strings.HasPrefix(strings.TrimLeft(value, " \t"), "!")
	}
	return gitSections[section] || gitKeys()[section][key]
}

// quoteGit writes s as a git config value or subsection in double quotes.
func quoteGit(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// gitEntry is one key of a config file.
type gitEntry struct {
	section, sub, key, value string
	null                     bool // "key" without "=": a boolean true
}

// gitParser reads a config file the way git's config.c does.
type gitParser struct {
	s            string
	i            int
	line         int
	section, sub string
	started, eof bool
}

// char returns the next character, '\n' at the end (git's get_next_char).
func (p *gitParser) char() byte {
	if p.i >= len(p.s) {
		p.eof = true
		return '\n'
	}
	c := p.s[p.i]
	p.i++
	if c == '\r' && p.i < len(p.s) && p.s[p.i] == '\n' {
		c = '\n'
		p.i++
	}
	if c == '\n' {
		p.line++
	}
	return c
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// next returns the next key (ok false at the end).
func (p *gitParser) next() (gitEntry, bool, error) {
	if !p.started {
		p.started = true
		p.line = 1
		p.s = strings.TrimPrefix(p.s, "\xef\xbb\xbf")
	}
	comment := false
	for {
		c := p.char()
		if c == '\n' {
			if p.eof {
				return gitEntry{}, false, nil
			}
			comment = false
			continue
		}
		if comment || isSpace(c) {
			continue
		}
		if c == '#' || c == ';' {
			comment = true
			continue
		}
		if c == '[' {
			if err := p.header(); err != nil {
				return gitEntry{}, false, err
			}
			continue
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') || p.section == "" {
			return gitEntry{}, false, fmt.Errorf("bad config line")
		}
		return p.entry(c)
	}
}

// header reads a section header after '['.
func (p *gitParser) header() error {
	var name []byte
	for {
		c := p.char()
		if p.eof {
			return fmt.Errorf("unterminated section header")
		}
		if c == ']' {
			sec, sub, _ := strings.Cut(string(name), ".")
			if sec == "" {
				return fmt.Errorf("empty section name")
			}
			p.section, p.sub = sec, sub // legacy [section.sub]: lower case
			return nil
		}
		if isSpace(c) {
			return p.extHeader(string(name))
		}
		if !isKeyChar(c) && c != '.' {
			return fmt.Errorf("bad section header")
		}
		name = append(name, lower(c))
	}
}

// extHeader reads ` "subsection"]` after a section name.
func (p *gitParser) extHeader(name string) error {
	if name == "" || strings.Contains(name, ".") {
		return fmt.Errorf("bad section header")
	}
	c := p.char()
	for isSpace(c) && !p.eof {
		c = p.char()
	}
	if c != '"' {
		return fmt.Errorf("bad section header")
	}
	var sub []byte
	for {
		c = p.char()
		if c == '\n' {
			return fmt.Errorf("newline in a subsection name")
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			c = p.char()
			if c == '\n' {
				return fmt.Errorf("newline in a subsection name")
			}
		}
		sub = append(sub, c)
	}
	if p.char() != ']' {
		return fmt.Errorf("bad section header")
	}
	if len(sub) == 0 {
		return fmt.Errorf("empty subsection name")
	}
	p.section, p.sub = name, string(sub)
	return nil
}

// entry reads a key whose first character is c, and its value.
func (p *gitParser) entry(c byte) (gitEntry, bool, error) {
	key := []byte{lower(c)}
	for {
		c = p.char()
		if p.eof || !isKeyChar(c) {
			break
		}
		key = append(key, lower(c))
	}
	for c == ' ' || c == '\t' {
		c = p.char()
	}
	e := gitEntry{section: p.section, sub: p.sub, key: string(key)}
	if c == '\n' {
		e.null = true
		return e, true, nil
	}
	if c != '=' {
		return gitEntry{}, false, fmt.Errorf("bad config line")
	}
	v, err := p.value()
	if err != nil {
		return gitEntry{}, false, err
	}
	e.value = v
	return e, true, nil
}

// value reads a value after '=' (git's parse_value).
func (p *gitParser) value() (string, error) {
	var b []byte
	quote, comment, space := false, false, 0
	for {
		c := p.char()
		if c == '\n' {
			if quote {
				return "", fmt.Errorf("unterminated quote")
			}
			return string(b), nil
		}
		if comment {
			continue
		}
		if isSpace(c) && !quote {
			if len(b) > 0 {
				space++
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		for ; space > 0; space-- {
			b = append(b, ' ')
		}
		if c == '\\' {
			c = p.char()
			switch c {
			case '\n':
				if p.eof {
					return "", fmt.Errorf("backslash at the end")
				}
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", fmt.Errorf("bad escape")
			}
			b = append(b, c)
			continue
		}
		if c == '"' {
			quote = !quote
			continue
		}
		b = append(b, c)
	}
}
