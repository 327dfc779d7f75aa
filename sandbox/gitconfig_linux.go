//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The post-run steps read and edit git config files in process: running
// git on a file the command could have replaced would follow its
// symlinks, block on its FIFO and start a process outside the sandbox.
// The parser follows git's config.c; what it does not understand is an
// error, and the callers refuse the file then.

// gitConfigEntry is one key = value line of a config file.
type gitConfigEntry struct {
	key   string // section.subsection.name: section and name lower case
	value string
	// start, end: the bytes of the entry in the file (from its name to
	// the end of its last line).
	start, end int
}

// parseGitConfig parses a git config file.
func parseGitConfig(b []byte) ([]gitConfigEntry, error) {
	var out []gitConfigEntry
	section := ""
	line := 1
	i := 0
	fail := func(why string) ([]gitConfigEntry, error) {
		return nil, fmt.Errorf("line %d: %s", line, why)
	}
	if len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		i = 3
	}
	for i < len(b) {
		c := b[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '#' || c == ';':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case c == '[':
			s, n, err := parseGitSection(b[i:])
			if err != nil {
				return fail(err.Error())
			}
			section, i = s, i+n
		case isAlpha(c):
			if section == "" {
				return fail("a key outside any section")
			}
			start := i
			for i < len(b) && (isAlpha(b[i]) || isDigit(b[i]) || b[i] == '-') {
				i++
			}
			name := strings.ToLower(string(b[start:i]))
			for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
				i++
			}
			// The entry's bytes start with its line's indentation (or,
			// after a section header on the same line, with the name).
			if j := lineIndent(b, start); j == 0 || b[j-1] == '\n' {
				start = j
			}
			e := gitConfigEntry{key: section + "." + name, start: start}
			if i < len(b) && b[i] == '=' {
				v, n, lines, err := parseGitValue(b[i+1:])
				if err != nil {
					return fail(err.Error())
				}
				e.value, i, line = v, i+1+n, line+lines
			} else if i < len(b) && b[i] != '\n' && b[i] != '\r' && b[i] != '#' && b[i] != ';' {
				return fail("bad key")
			} else {
				for i < len(b) && b[i] != '\n' {
					i++
				}
			}
			if i < len(b) && b[i] == '\n' {
				i++
				line++
			}
			e.end = i
			out = append(out, e)
		default:
			return fail(fmt.Sprintf("unexpected %q", c))
		}
	}
	return out, nil
}

// lineIndent returns where the blanks before i begin.
func lineIndent(b []byte, i int) int {
	for i > 0 && (b[i-1] == ' ' || b[i-1] == '\t') {
		i--
	}
	return i
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseGitSection parses "[name]", `[name "sub"]` or the old "[name.sub]"
// and returns the key prefix and the bytes used.
func parseGitSection(b []byte) (string, int, error) {
	i := 1
	start := i
	for i < len(b) && (isAlpha(b[i]) || isDigit(b[i]) || b[i] == '-' || b[i] == '.') {
		i++
	}
	name := strings.ToLower(string(b[start:i]))
	if name == "" {
		return "", 0, errors.New("bad section header")
	}
	if i < len(b) && b[i] == ']' {
		return name, i + 1, nil
	}
	if strings.Contains(name, ".") {
		return "", 0, errors.New("bad section header")
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i >= len(b) || b[i] != '"' {
		return "", 0, errors.New("bad section header")
	}
	i++
	var sub strings.Builder
	for {
		if i >= len(b) || b[i] == '\n' {
			return "", 0, errors.New("unterminated subsection")
		}
		c := b[i]
		i++
		if c == '"' {
			break
		}
		if c == '\\' {
			if i >= len(b) || b[i] == '\n' {
				return "", 0, errors.New("bad subsection")
			}
			c = b[i]
			i++
		}
		sub.WriteByte(c)
	}
	if i >= len(b) || b[i] != ']' {
		return "", 0, errors.New("bad section header")
	}
	return name + "." + sub.String(), i + 1, nil
}

// parseGitValue parses a value after "=", up to the end of its line (a
// backslash continues it on the next), and returns it, the bytes used
// (not the final newline) and the newlines passed.
func parseGitValue(b []byte) (string, int, int, error) {
	var v strings.Builder
	quote, space, lines := false, 0, 0
	i := 0
	for ; i < len(b); i++ {
		c := b[i]
		if c == '\n' {
			if quote {
				return "", 0, 0, errors.New("unterminated quote")
			}
			return v.String(), i, lines, nil
		}
		if !quote {
			if c == ';' || c == '#' {
				for i < len(b) && b[i] != '\n' {
					i++
				}
				return v.String(), i, lines, nil
			}
			if c == ' ' || c == '\t' || c == '\r' {
				if v.Len() > 0 {
					space++
				}
				continue
			}
		}
		for ; space > 0; space-- {
			v.WriteByte(' ')
		}
		switch c {
		case '\\':
			i++
			if i >= len(b) {
				return "", 0, 0, errors.New("bad escape")
			}
			switch b[i] {
			case '\n':
				lines++
			case 't':
				v.WriteByte('\t')
			case 'b':
				v.WriteByte('\b')
			case 'n':
				v.WriteByte('\n')
			case '\\', '"':
				v.WriteByte(b[i])
			default:
				return "", 0, 0, errors.New("bad escape")
			}
		case '"':
			quote = !quote
		default:
			v.WriteByte(c)
		}
	}
	if quote {
		return "", 0, 0, errors.New("unterminated quote")
	}
	return v.String(), i, lines, nil
}

// gitConfigValues gives key -> values in file order.
func gitConfigValues(ents []gitConfigEntry) map[string][]string {
	m := map[string][]string{}
	for _, e := range ents {
		m[e.key] = append(m[e.key], e.value)
	}
	return m
}

// editGitConfig returns b with every entry of the keys in set removed
// and, for each of them with values, a new section holding them added
// at the end.
func editGitConfig(b []byte, ents []gitConfigEntry, set map[string][]string) ([]byte, error) {
	var out []byte
	last := 0
	for _, e := range ents {
		if _, ok := set[e.key]; !ok {
			continue
		}
		out = append(out, b[last:e.start]...)
		last = e.end
	}
	out = append(out, b[last:]...)
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vs := set[k]
		if len(vs) == 0 {
			continue
		}
		i, j := strings.IndexByte(k, '.'), strings.LastIndexByte(k, '.')
		if i < 0 {
			return nil, fmt.Errorf("bad key %q", k)
		}
		header := "[" + k[:i] + "]"
		if i != j {
			sub := k[i+1 : j]
			if strings.ContainsAny(sub, "\n\x00") {
				return nil, fmt.Errorf("bad key %q", k)
			}
			sub = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(sub)
			header = "[" + k[:i] + " \"" + sub + "\"]"
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, header+"\n"...)
		for _, v := range vs {
			if strings.ContainsRune(v, 0) {
				return nil, fmt.Errorf("bad value for %q", k)
			}
			q := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\b", `\b`).Replace(v)
			out = append(out, "\t"+k[j+1:]+" = \""+q+"\"\n"...)
		}
	}
	return out, nil
}
