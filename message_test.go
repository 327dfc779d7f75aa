package shellguard

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shellguard/shellguard/internal/testenv"
	"github.com/shellguard/shellguard/sandbox"
)

// hostileToken looks like a GitHub token to the redactor.
const hostileToken = "ghp_sgfake0123456789abcdefghijABCDEFGHIJ"

// hostileNames are names a command can give files and git keys: terminal
// escapes that set the clipboard (OSC 52), the window title, move the
// cursor or clear the screen, in 7-bit, 8-bit and UTF-8 C1 forms, line
// breaks that forge a line of shellguard's own, and a secret.
var hostileNames = []string{
	"a\x1b]52;c;Y2xpcA==\x07b",
	"t\x1b]0;owned\x1b\\t",
	"m\x1b[2J\x1b[H\x1b[3A\x1b[2Km",
	"c1\x9b2J\xc2\x9d0;x\xc2\x9cz",
	"line\rshellguard: all clear\nnext",
	"bell\x07\x08\x7f",
	"key-" + hostileToken,
}

// clean reports what in s must not reach a terminal or a log: a control
// character other than tab, a C1 control (raw or UTF-8) or the token.
func clean(s string) string {
	for i, r := range s {
		switch {
		case r < 0x20 && r != '\t', r >= 0x7f && r <= 0x9f:
			return "control character"
		case r == utf8.RuneError && len(s) > i && s[i] >= 0x80:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return "byte not UTF-8 (a raw C1 control)"
			}
		}
	}
	if strings.Contains(s, hostileToken) {
		return "the secret"
	}
	return ""
}

// Every message shellguard makes of a name goes through the escape filter
// and the redactor: nothing acts on the terminal, nothing secret shows,
// and the readable rest of the name stays.
func TestMessageFiltersNames(t *testing.T) {
	g, err := New(Config{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, n := range hostileNames {
		got := g.message("refused: " + n + " was removed")
		if why := clean(got); why != "" {
			t.Errorf("%q -> %q: %s", n, got, why)
		}
		if !strings.HasPrefix(got, "refused: ") || !strings.HasSuffix(got, " was removed") {
			t.Errorf("%q -> %q: the message itself changed", n, got)
		}
	}
	if got := g.message("refused: plain/name.txt was removed"); got != "refused: plain/name.txt was removed" {
		t.Errorf("a plain message changed: %q", got)
	}
	if got := g.message("key-" + hostileToken); !strings.Contains(got, "[REDACTED") {
		t.Errorf("the token was not redacted: %q", got)
	}
}

// The set of clean texts that spares message the filters keeps only texts
// that came out unchanged, stays bounded, and never lets a text through
// unfiltered: asked again, every hostile name is filtered as the first
// time, clean or not.
func TestMessageCleanTexts(t *testing.T) {
	g, err := New(Config{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	plain := "landlock: ABI 6, 12 rules"
	for range 3 {
		if got := g.message(plain); got != plain {
			t.Fatalf("a plain text changed: %q", got)
		}
	}
	if !g.clean.has(plain) {
		t.Errorf("a plain text filtered unchanged was not kept")
	}
	for range 3 {
		for _, n := range hostileNames {
			s := "refused: " + n
			if got := g.message(s); clean(got) != "" || got == s {
				t.Errorf("%q -> %q: not filtered", s, got)
			}
			if g.clean.has(s) {
				t.Errorf("%q was kept as clean", s)
			}
		}
	}
	long := strings.Repeat("x", maxCleanText+1)
	if g.message(long) != long || g.clean.has(long) {
		t.Errorf("a text longer than maxCleanText was kept")
	}
	for i := range 3 * maxCleanTexts {
		g.message("file " + strings.Repeat("n", i%50) + string(rune('a'+i%26)) + strings.Repeat("m", i/50))
		if n := len(g.clean.m); n > maxCleanTexts {
			t.Fatalf("%d texts kept, more than %d", n, maxCleanTexts)
		}
	}
}

// fillStrings sets every string reachable in v (structs, slices, pointers)
// to hostile text, and counts them.
func fillStrings(v reflect.Value, n *int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(hostileNames[*n%len(hostileNames)] + hostileNames[len(hostileNames)-1])
		*n++
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillStrings(v.Field(i), n)
			}
		}
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		}
		for i := 0; i < v.Len(); i++ {
			fillStrings(v.Index(i), n)
		}
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fillStrings(v.Elem(), n)
	}
}

// Whatever text the sandbox reports (every string field of Applied, now
// and when a field is added) reaches the Result only filtered, and the
// sandbox's own value is not changed in place (a pool shares it).
func TestSandboxReportFiltered(t *testing.T) {
	g, err := New(Config{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var a sandbox.Applied
	n := 0
	fillStrings(reflect.ValueOf(&a).Elem(), &n)
	if n < 10 {
		t.Fatalf("only %d strings filled", n)
	}
	before, _ := json.Marshal(a)
	var res Result
	g.fillSandbox(&res, a)
	after, _ := json.Marshal(a)
	if string(before) != string(after) {
		t.Error("fillSandbox changed the sandbox's own report")
	}
	var texts []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			texts = append(texts, v.String())
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		}
	}
	walk(reflect.ValueOf(res))
	if len(texts) < n {
		t.Fatalf("%d texts in the result, %d filled", len(texts), n)
	}
	for _, s := range texts {
		if why := clean(s); why != "" {
			t.Errorf("%q in the result: %s", s, why)
		}
	}
}

// A command names files and git keys to trigger shellguard's post-run
// messages about them; in auto and strict mode alike the messages reach
// the result filtered.
func TestSandboxMessagesHostileNames(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	for _, mode := range []sandbox.Mode{sandbox.Auto, sandbox.Strict} {
		t.Run(mode.String(), func(t *testing.T) {
			scratch, err := os.MkdirTemp("/var/tmp", "sg-guard-test-")
			if err != nil {
				t.Skip(err)
			}
			defer os.RemoveAll(scratch)
			ws := filepath.Join(scratch, "ws")
			os.Mkdir(ws, 0o755)
			if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
				t.Skipf("git init: %v %s", err, out)
			}
			g, err := New(Config{Workspace: ws, Sandbox: &sandbox.Spec{Mode: mode},
				Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + scratch}})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			// The names are made by printf inside the command: a new file
			// in .git, a hook, and a nested repository, each named with
			// escapes and a token.
			name := `$(printf 'planted\033]52;c;Y2xpcA==\007\033]0;owned\007\033[2J\033[1A-` + hostileToken + `')`
			cmd := `n="` + name + `"; echo x > ".git/$n"; echo x > ".git/hooks/$n"; mkdir -p "$n/.git" && echo x > "$n/.git/config"; echo done`
			res, err := g.Run(context.Background(), Request{Command: cmd})
			if err != nil {
				t.Fatal(err)
			}
			if res.Sandbox == nil || !res.Sandbox.Has(sandbox.LayerMountNS) {
				testenv.SkipOrFail(t, "no mount namespace: %v", res.SandboxWarnings)
			}
			if !strings.Contains(res.Stdout, "done") {
				t.Fatalf("the command did not run: %+v", res)
			}
			named := false
			for _, w := range res.SandboxWarnings {
				if strings.Contains(w, "planted") {
					named = true
				}
			}
			if !named {
				t.Fatalf("no warning names the planted file: %q", res.SandboxWarnings)
			}
			b, _ := json.Marshal(res)
			var back map[string]any
			json.Unmarshal(b, &back)
			// the request as written, and the output (filtered as output,
			// line breaks kept)
			delete(back, "command")
			delete(back, "stdout")
			delete(back, "stderr")
			var walk func(any)
			walk = func(v any) {
				switch x := v.(type) {
				case string:
					if why := clean(x); why != "" {
						t.Errorf("%q in the result: %s", x, why)
					}
				case []any:
					for _, e := range x {
						walk(e)
					}
				case map[string]any:
					for _, e := range x {
						walk(e)
					}
				}
			}
			walk(back)
		})
	}
}
