package policy

import (
	"strings"

	"github.com/shellguard/shellguard/analyze"
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
	for _, a := range c.Args[1:] {
		if h, ok := nonASCIIHost(a.Value); ok {
			k.emitAt(sg1009, a.Span, "URL host "+quote(h)+" contains non-ASCII letters (possible homoglyph)")
			break
		}
	}
}

// nonASCIIHost returns the host of a URL in word w (a whole word, or
// the value of --opt=URL) when it holds non-ASCII characters: a
// look-alike of a known host reads the same to a reviewer.
func nonASCIIHost(w string) (string, bool) {
	i := strings.Index(w, "://")
	if i < 0 {
		return "", false
	}
	rest := w[i+3:]
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.LastIndexByte(rest, '@'); j >= 0 {
		rest = rest[j+1:]
	}
	for k := 0; k < len(rest); k++ {
		if rest[k] >= 0x80 {
			return rest, true
		}
	}
	return "", false
}

func isDecoder(c *analyze.Command) bool {
	n := c.Name()
	switch n {
	case "base64", "base32", "basenc":
		for _, a := range c.Argv[1:] {
			if a == "-d" || a == "--decode" || a == "-D" || strings.HasPrefix(a, "-") && strings.Contains(a, "d") && !strings.HasPrefix(a, "--") {
				return true
			}
		}
		return false
	case "xxd":
		for _, a := range c.Argv[1:] {
			if strings.HasPrefix(a, "-r") {
				return true
			}
		}
	case "openssl":
		return len(c.Argv) > 1 && (c.Argv[1] == "enc" || c.Argv[1] == "base64")
	case "rev", "uudecode", "gunzip", "zcat":
		return true
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
	case "tr":
		return true
	}
	return false
}
