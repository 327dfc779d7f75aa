package policy

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shellguard/shellguard/analyze"
	"github.com/shellguard/shellguard/effects"
	"github.com/shellguard/shellguard/internal/grammar"
	"github.com/shellguard/shellguard/internal/lazyre"
)

// Obfuscation: command names computed, decoded, globbed or hidden by $IFS.

var reOctal = lazyre.New(`\\[0-7]{3}`)

func (k *cmdCheck) obfuscation() {
	c := k.c
	a0 := c.Args[0]
	switch {
	case a0.Dynamic && !(c.FuncDef != "" && a0.Positional) && !k.located:
		if k.e.substHas(a0.Subst, isDecoder) {
			k.emitAt(sg2401deny, a0.Span, "command name is decoded at run time")
		} else {
			k.emitAt(sg2401ask, a0.Span, "command name is computed at run time ("+quote(a0.Value)+")")
		}
	case len(a0.Subst) > 0 && !k.located:
		k.emitAt(sg2401ask, a0.Span, "command name comes from a command substitution ("+quote(a0.Value)+")")
	case a0.Glob:
		k.emitAt(sg2402, a0.Span, "command name is a glob pattern "+quote(a0.Value))
	case a0.ANSIC:
		k.emitAt(sg2403, a0.Span, "command name uses $'…' quoting")
	case a0.Brace:
		k.emitAt(sg2404, a0.Span, "command name comes from brace expansion")
	}
	for _, a := range c.Args {
		if a.IFS {
			k.emitAt(sg2405deny, a.Span, "word uses $IFS to hide spaces (obfuscation)")
			break
		}
	}
	k.lookalikeHosts()
}

// lookalikeHosts reports a host that reads like another one to a
// reviewer. A host is wherever an address puts it: after "scheme://" and
// any user@, after the user@ of an ssh or scp-like address (git@host:path),
// or the first segment of a network effect's destination (curl host/path,
// ping host); a non-ASCII letter there is a homoglyph. Any other word
// shaped like a bare domain (ghcr.io/org/image, a resolver's name) is a
// host when its letters mix Latin with another script that has Latin
// look-alikes (UTS #39): a name in one script (résumé.py) is not, nor is
// a word the program's grammar reads as a file.
func (k *cmdCheck) lookalikeHosts() {
	var dests, files map[string]bool
	for _, ef := range k.e.effs[k.i] {
		switch ef.Kind {
		case effects.Net:
			if dests == nil {
				dests = map[string]bool{}
			}
			dests[ef.Dest] = true
		case effects.Read, effects.Write, effects.Delete, effects.Exec, effects.Chmod, effects.Chown:
			if ef.Path.Raw != "" {
				if files == nil {
					files = map[string]bool{}
				}
				files[ef.Path.Raw] = true
			}
		}
	}
	for _, a := range k.c.Args[1:] {
		v := optionValue(a.Value)
		h, explicit := addressHost(v)
		if a.Dynamic {
			// What cannot be seen is rendered as a placeholder ("$(…)",
			// "$NAME"), not letters of the host: only the parts the
			// command line spells are judged.
			h = strings.ReplaceAll(h, "$(…)", "")
		}
		if h == "" || files[a.Value] || files[v] {
			continue
		}
		if explicit || dests[a.Value] || dests[v] {
			if nonASCII(h) {
				k.emitAt(sg1009, a.Span, "host "+quote(h)+" contains non-ASCII letters (possible homoglyph)")
				return
			}
			continue
		}
		if bareDomain(h) && mixedScript(h) {
			k.emitAt(sg1009, a.Span, "host "+quote(h)+" mixes Latin with look-alike letters of another script (possible homoglyph)")
			return
		}
	}
}

// optionValue returns the value of --opt=VALUE, or w itself.
func optionValue(w string) string {
	if strings.HasPrefix(w, "-") {
		if i := strings.IndexByte(w, '='); i > 0 {
			return w[i+1:]
		}
	}
	return w
}

// addressHost returns the host of word w read as an address, and whether
// w has an explicit address form (scheme://, user@host). Otherwise the
// host is the first segment of host/path. A word with blanks is text,
// not an address.
func addressHost(w string) (host string, explicit bool) {
	if w == "" || strings.ContainsAny(w, " \t\n") {
		return "", false
	}
	rest := w
	if i := strings.Index(w, "://"); i >= 0 {
		rest, explicit = w[i+3:], true
	}
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.LastIndexByte(rest, '@'); j > 0 || j == 0 && explicit {
		rest, explicit = rest[j+1:], true
	} else if j == 0 {
		return "", false // a scoped package name (@scope/pkg)
	}
	if j := strings.IndexByte(rest, ':'); j >= 0 {
		rest = rest[:j] // a port, or the path of host:path
	}
	return rest, explicit
}

func nonASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// bareDomain reports a dotted name made only of host characters whose
// last label is a word (example.com, not main.c_v2 or 1.2.3).
func bareDomain(h string) bool {
	dot := strings.LastIndexByte(h, '.')
	if dot <= 0 || len(h)-dot < 3 {
		return false
	}
	for _, r := range h {
		if !(r == '.' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)) {
			return false
		}
	}
	for _, r := range h[dot+1:] {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return !strings.Contains(h, "..")
}

// mixedScript reports letters of Latin and of another script in one
// name. Han, kana, Hangul and Bopomofo mix with Latin in ordinary names
// and have no Latin look-alikes (the "highly restrictive" profile of
// UTS #39); any other script beside Latin does (Cyrillic, Greek,
// Armenian, Cherokee…).
func mixedScript(h string) bool {
	var latin, other bool
	for _, r := range h {
		switch {
		case r < utf8.RuneSelf:
			latin = latin || 'a' <= r|0x20 && r|0x20 <= 'z'
		case !unicode.IsLetter(r):
		case unicode.Is(unicode.Latin, r):
			latin = true
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Bopomofo):
		default:
			other = true
		}
	}
	return latin && other
}

// isDecoder reports a command whose output decodes its input: a program
// whose line (or the subcommand its first word names) says decodes=,
// always or with one of the options given, or printf and echo -e
// turning escapes into bytes.
func isDecoder(c *analyze.Command) bool {
	n := c.Name()
	if g := grammar.Resolve(n).Line; g != nil {
		if len(c.Argv) > 1 && g.Subs[c.Argv[1]] != nil {
			g = g.Subs[c.Argv[1]]
		}
		if g.Decodes["*"] {
			return true
		}
		for _, a := range c.Argv[1:] {
			if g.Decodes[a] {
				return true
			}
			if len(a) > 1 && a[0] == '-' && a[1] != '-' {
				for j := 1; j < len(a); j++ {
					if g.Decodes["-"+a[j:j+1]] {
						return true
					}
				}
			}
		}
	}
	switch n {
	case "printf":
		for _, a := range c.Argv[1:] {
			if strings.Contains(a, `\x`) || reOctal.MatchString(a) {
				return true
			}
		}
	case "echo":
		for _, a := range c.Argv[1:] {
			if a == "-e" && true {
				return true
			}
		}
	}
	return false
}
