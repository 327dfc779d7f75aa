package shellguard_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	mdLinkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeadingRE = regexp.MustCompile(`^#{1,6}\s+(.+?)\s*#*\s*$`)
)

// mdProse returns the lines of a Markdown file outside fenced code blocks.
func mdProse(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}

// mdSlug is the anchor GitHub gives a heading: lower case, every character
// but letters, digits, '-', '_' and spaces dropped, spaces made '-'.
func mdSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// mdAnchors returns the anchors of a Markdown file's headings, repeated
// ones numbered as GitHub numbers them.
func mdAnchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, line := range mdProse(text) {
		m := mdHeadingRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := mdSlug(m[1])
		for i, s := 1, slug; ; i++ {
			if !out[s] {
				out[s] = true
				break
			}
			s = fmt.Sprintf("%s-%d", slug, i)
		}
	}
	return out
}

// TestDocLinks: every relative link of the README, the other top-level
// Markdown files and docs/ names a file that exists and, with a #anchor, a
// heading of that file, so that moving a section cannot leave a link
// behind.
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "README.md", "CHANGELOG.md", "CONTRIBUTING.md")
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		anchors[path] = mdAnchors(string(b))
		return anchors[path]
	}
	n := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range mdProse(string(b)) {
			for _, m := range mdLinkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				n++
				path, anchor, _ := strings.Cut(target, "#")
				if path == "" {
					path = file
				} else {
					path = filepath.Join(filepath.Dir(file), path)
				}
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %q: %v", file, target, err)
					continue
				}
				if anchor != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[anchor] {
					t.Errorf("%s: link %q: %s has no heading with that anchor", file, target, path)
				}
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d relative links found: the link pattern no longer matches", n)
	}
}

func TestMdSlug(t *testing.T) {
	for in, want := range map[string]string{
		"MCP server and HTTP endpoint":                "mcp-server-and-http-endpoint",
		"`shellguard run`":                            "shellguard-run",
		"The output path, 2026-11-27 evening":         "the-output-path-2026-11-27-evening",
		"Third pass (2026-11-27, later)":              "third-pass-2026-11-27-later",
		"Why the CLI cannot come within 5 ms of bash": "why-the-cli-cannot-come-within-5-ms-of-bash",
	} {
		if got := mdSlug(in); got != want {
			t.Errorf("mdSlug(%q) = %q, want %q", in, got, want)
		}
	}
}
