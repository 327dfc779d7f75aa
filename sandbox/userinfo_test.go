package sandbox

import (
	"math/rand"
	"regexp"
	"testing"
)

// userinfoExpr is what stripUserinfo does, as one expression: the
// userinfo of a URL with a password, and any for http, https and ftp.
var userinfoExpr = regexp.MustCompile(`(?i)\b(?:(https?|ftps?)://[^/@\s"]*@|([a-z][a-z0-9+.-]*)://[^/@\s":]*:[^/@\s"]*@)`)

func userinfoOracle(s string) string { return userinfoExpr.ReplaceAllString(s, "${1}${2}://") }

var userinfoCases = []struct{ in, want string }{
	{"https://ghp_TOKEN@github.com/o/r", "https://github.com/o/r"},
	{"HTTP://tok@host", "HTTP://host"},
	{"ftps://user:pw@host/x", "ftps://host/x"},
	{"ssh://git@github.com/o/r", "ssh://git@github.com/o/r"},
	{"ssh://git:hunter2@github.com/o/r", "ssh://github.com/o/r"},
	{"git+https://u:p@h/x", "git+https://h/x"},
	{"x.y+http://tok@h", "x.y+http://h"},
	{"xhttp://tok@h", "xhttp://tok@h"},
	{"proxy = http://a:b@p:3128 and https://c@d", "proxy = http://p:3128 and https://d"},
	{`"https://t@h"`, `"https://h"`},
	{"https://a b@h", "https://a b@h"},
	{"https://a/b@h", "https://a/b@h"},
	{"a://x:y://z@h", "a://x:y://z@h"},
	{"redis://:pw@h:6379", "redis://h:6379"},
	{"1http://t@h", "1http://t@h"},
	{"_http://t@h", "_http://t@h"},
	{"é-http://t@h", "é-http://h"},
	{"éhttp://t@h", "éhttp://h"},
	{"-http://t@h", "-http://h"},
	{"https://@h", "https://h"},
	{"no url @ all", "no url @ all"},
	{"https://t@h https://u@i", "https://h https://i"},
}

func TestStripUserinfo(t *testing.T) {
	for _, c := range userinfoCases {
		if got := stripUserinfo(c.in); got != c.want {
			t.Errorf("stripUserinfo(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := userinfoOracle(c.in); got != c.want {
			t.Errorf("the expression gives %q for %q, the table %q: the table is wrong", got, c.in, c.want)
		}
	}
	// Random texts over the bytes that matter, against the expression.
	const alphabet = "hHtTpPsSfFgiX+.-_:/@\" \t\n1aé\x80"
	rng := rand.New(rand.NewSource(1))
	for n := 0; n < 200000; n++ {
		b := make([]byte, rng.Intn(24))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		// Seed a scheme often enough for matches to happen.
		if len(b) > 8 && rng.Intn(2) == 0 {
			at := rng.Intn(len(b) - 7)
			copy(b[at:], []string{"http://", "https:/", "ftp://", "git+ssh"}[rng.Intn(4)])
		}
		s := string(b)
		if got, want := stripUserinfo(s), userinfoOracle(s); got != want {
			t.Fatalf("stripUserinfo(%q) = %q, the expression gives %q", s, got, want)
		}
	}
}

func FuzzStripUserinfo(f *testing.F) {
	for _, c := range userinfoCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := stripUserinfo(s), userinfoOracle(s); got != want {
			t.Fatalf("stripUserinfo(%q) = %q, the expression gives %q", s, got, want)
		}
	})
}
