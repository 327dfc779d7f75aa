//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// gitConfigCases are config files with what git itself lists for them
// (key -> values), or "" where git refuses the file.
var gitConfigCases = []struct {
	name, text string
	want       map[string][]string
}{
	{"plain", "[core]\n\tbare = false\n[user]\n\tname = A B\n", map[string][]string{"core.bare": {"false"}, "user.name": {"A B"}}},
	{"subsection", "[remote \"Or\\\"ig\"]\n\turl = x\n", map[string][]string{"remote.Or\"ig.url": {"x"}}},
	{"old-subsection", "[Remote.ORIGIN]\n\tURL = x\n", map[string][]string{"remote.origin.url": {"x"}}},
	{"bool", "[core]\n\tbare\n", map[string][]string{"core.bare": {""}}},
	{"comments", "# c\n; c\n[a]\n\tb = c # d\n\te = \"f # g\" ; h\n", map[string][]string{"a.b": {"c"}, "a.e": {"f # g"}}},
	{"escapes", "[a]\n\tb = x\\ty\\n\\\"z\\\\\n", map[string][]string{"a.b": {"x\ty\n\"z\\"}}},
	{"continuation", "[a]\n\tb = one \\\ntwo\n\tc = 3\n", map[string][]string{"a.b": {"one two"}, "a.c": {"3"}}},
	{"multi", "[a]\n\tb = 1\n[a]\n\tb = 2\n", map[string][]string{"a.b": {"1", "2"}}},
	{"same-line", "[a] b = 1\n", map[string][]string{"a.b": {"1"}}},
	{"spaces", "[a]\n\tb =   x   y  \n", map[string][]string{"a.b": {"x   y"}}},
	{"bad-escape", "[a]\n\tb = \\q\n", nil},
	{"unterminated", "[a]\n\tb = \"x\n", nil},
	{"no-section", "b = 1\n", nil},
	{"gitfile", "gitdir: /elsewhere\n", nil},
}

// gitConfigStricter are the cases git reads and the parser refuses
// (failing closed).
var gitConfigStricter = map[string]bool{"no-section": true}

// TestParseGitConfig: the in-process parser reads what git reads, and
// refuses what git refuses; git (when present) is the reference.
func TestParseGitConfig(t *testing.T) {
	git, _ := exec.LookPath("git")
	for _, c := range gitConfigCases {
		t.Run(c.name, func(t *testing.T) {
			ents, err := parseGitConfig([]byte(c.text))
			if c.want == nil {
				if err == nil {
					t.Errorf("parsed %q, want an error", c.text)
				}
			} else if err != nil {
				t.Fatalf("parse: %v", err)
			} else if got := gitConfigValues(ents); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if git == "" {
				return
			}
			p := filepath.Join(t.TempDir(), "config")
			os.WriteFile(p, []byte(c.text), 0o644)
			cmd := exec.Command(git, "config", "--file", p, "--list", "--null")
			cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "HOME=/nonexistent"}
			out, gerr := cmd.Output()
			if (gerr != nil) != (c.want == nil) && !gitConfigStricter[c.name] {
				t.Errorf("git disagrees: %v", gerr)
			}
			if gerr == nil && c.want != nil {
				m := map[string][]string{}
				for _, rec := range strings.Split(string(out), "\x00") {
					if rec != "" {
						k, v, _ := strings.Cut(rec, "\n")
						m[k] = append(m[k], v)
					}
				}
				if !reflect.DeepEqual(m, c.want) {
					t.Errorf("git lists %q, the table says %q", m, c.want)
				}
			}
		})
	}
}

// TestEditGitConfig: keys are removed wherever they are and set again in
// a section of their own; the rest of the file is kept byte for byte,
// and the result parses to what was asked.
func TestEditGitConfig(t *testing.T) {
	in := "# keep me\n[core]\n\tbare = false\n\tfsmonitor = evil\n[remote \"o\"]\n\turl = old\n\tfetch = +refs/heads/*:refs/remotes/o/*\n"
	ents, err := parseGitConfig([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := editGitConfig([]byte(in), ents, map[string][]string{"core.fsmonitor": nil, "remote.o.url": {"https://x/\"q\"\\"}, "user.name": {"A\tB"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "# keep me\n[core]\n\tbare = false\n[remote \"o\"]\n\tfetch") {
		t.Errorf("the rest was not kept:\n%s", out)
	}
	got, err := parseGitConfig(out)
	if err != nil {
		t.Fatalf("the result does not parse: %v\n%s", err, out)
	}
	want := map[string][]string{"core.bare": {"false"}, "remote.o.fetch": {"+refs/heads/*:refs/remotes/o/*"}, "remote.o.url": {"https://x/\"q\"\\"}, "user.name": {"A\tB"}}
	if v := gitConfigValues(got); !reflect.DeepEqual(v, want) {
		t.Errorf("got %q, want %q", v, want)
	}
}
