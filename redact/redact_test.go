package redact

import (
	"bytes"
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"testing"
)

// All secrets below are made up: shaped like real tokens, valid nowhere.

const fakePEM = "-----BEGIN OPENSSH PRIVATE KEY-----\n" +
	"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" +
	"sgfakeSSHq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh0Jj2Lk5Pp9Zz3Xx7Cc\n" +
	"QyNTUxOQAAACDfakekeyfakekeyfakekeyfakekeyfakekeyAAAA\n" +
	"-----END OPENSSH PRIVATE KEY-----"

const fakeRSA = "-----BEGIN RSA PRIVATE KEY-----\n" +
	"MIIEowIBAAKCAQEAsgfakeRSAbodyQ2x7Vb9Lm3Np5Kq8Wz1Yt4Rr6Hh0Jj2Ll5\n" +
	"Pp9Zz3Xx7Cc1Dd2Ee3Ff4Gg5Hh6Ii7Jj8Kk9Ll0Mm1Nn2Oo3Pp4Qq5Rr6Ss7Tt8\n" +
	"-----END RSA PRIVATE KEY-----"

// secretCase: text contains the secret; needle is the part that must not
// survive; kind is the expected marker kind.
type secretCase struct {
	name, text, needle, kind string
}

var secretCases = []secretCase{
	{"pem", fakePEM, "sgfakeSSHq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh0Jj2Lk5Pp9Zz3Xx7Cc", "private-key"},
	{"pem-rsa", fakeRSA, "sgfakeRSAbodyQ2x7Vb9Lm3Np5Kq8Wz1Yt4Rr6Hh0Jj2Ll5", "private-key"},
	{"pem-truncated", strings.TrimSuffix(fakeRSA, "-----END RSA PRIVATE KEY-----"), "Pp9Zz3Xx7Cc1Dd2Ee3Ff4Gg5Hh6Ii7Jj8Kk9Ll0Mm1Nn2Oo3Pp4Qq5Rr6Ss7Tt8", "private-key"},
	{"pem-json", `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCsgfakeGCPkeybody\nQ2x7Vb9Lm3Np5Kq8Wz1Yt4Rr6Hh0\n-----END PRIVATE KEY-----\n", "client_email": "x@y.iam.gserviceaccount.com"}`, "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCsgfakeGCPkeybody", "private-key"},
	{"aws-akia", "aws_access_key_id = AKIAQ7SGFAKE3XKZ2MTB\n", "AKIAQ7SGFAKE3XKZ2MTB", "aws-access-key"},
	{"aws-secret", "aws_secret_access_key = sgfakeAWSq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh0J\n", "sgfakeAWSq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh0J", "generic-secret"},
	{"gcp-key", "key=AIzaSyFAKEq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh\n", "AIzaSyFAKEq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh", ""},
	{"azure-conn", "DefaultEndpointsProtocol=https;AccountName=sgfake;AccountKey=c2dmYWtlQXp1cmVLZXlxM1pMOXgwVmIyTnc3VHlQcTRSbThLczE=;EndpointSuffix=core.windows.net", "c2dmYWtlQXp1cmVLZXlxM1pMOXgwVmIyTnc3VHlQcTRSbThLczE=", "azure-storage-key"},
	{"azure-secret", "client secret: abc8Q~sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6G\n", "sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6G", "azure-client-secret"},
	{"github", "export GITHUB_TOKEN=ghp_sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6G\n", "ghp_sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6G", ""},
	{"github-pat", "token github_pat_11SGFAKE0q3ZL9x0Vb2Nw7_TyPq4Rm8Ks1Df6Gh0Jj2Lk5Pp9Zz3Xx7Cc1Dd2Ee3Ff4Gg5Hh6Ii7Jj8Kk9", "github_pat_11SGFAKE0q3ZL9x0Vb2Nw7_TyPq4Rm8Ks1Df6Gh0Jj2Lk5Pp9Zz3Xx7Cc1Dd2Ee3Ff4Gg5Hh6Ii7Jj8Kk9", "github-token"},
	{"gitlab", "glpat-SGfake9x0Vb2Nw7TyPq4R", "glpat-SGfake9x0Vb2Nw7TyPq4R", "gitlab-token"},
	{"slack", "SLACK=xoxb-123456789012-1234567890123-sgfakeq3ZL9x0Vb2Nw7TyPq4R", "xoxb-123456789012-1234567890123-sgfakeq3ZL9x0Vb2Nw7TyPq4R", ""},
	{"stripe", "stripe: sk_live_sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8", "sk_live_sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8", ""},
	{"npm", "//registry.npmjs.org/:_authToken=npm_sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6G", "npm_sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6G", ""},
	{"openai", "OPENAI=sk-proj-sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh0Jj2", "sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh0Jj2", ""},
	{"openai-env", "SG_FAKE_API_KEY=sk-sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh", "sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh", ""},
	{"anthropic", "x sk-ant-api03-sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh0Jj2-AA y", "sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh0Jj2", "anthropic-key"},
	{"jwt", "jwt: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzZ2Zha2UifQ.c2dmYWtlc2lnbmF0dXJlcTNaTDl4MFZiMg", "eyJzdWIiOiJzZ2Zha2UifQ", ""},
	{"authorization", "> Authorization: Bearer sgfakeGITq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh\r\n", "sgfakeGITq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh", "authorization"},
	{"authorization-basic", `curl -H "Authorization: Basic c2dmYWtlOnNlY3JldHB3"`, "c2dmYWtlOnNlY3JldHB3", "authorization"},
	{"gitconfig", "[http]\n\textraHeader = Authorization: Bearer sgfakeGITq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh0\n", "sgfakeGITq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh0", "authorization"},
	{"url-password", "remote: https://deploy:sgfakePW9x0Vb2@git.example.invalid/repo.git", "sgfakePW9x0Vb2", "url-password"},
	{"url-password-pg", "DATABASE_URL=postgres://app:s3cr3t-sgfake@db:5432/app", "s3cr3t-sgfake", ""},
	{"python-dict", `{'SG_FAKE_API_KEY': 'sgfakeAPIq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh', 'HOME': '/root'}`, "sgfakeAPIq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh", "generic-secret"},
	{"json-secret", `{"client_secret": "sgfakeCLIq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh"}`, "sgfakeCLIq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh", "generic-secret"},
	{"yaml-password", "db:\n  password: Tr0ub4dor&3-sgfake\n", "Tr0ub4dor&3-sgfake", "generic-secret"},
	{"password-with-slash", "DB_PASSWORD=Zx8/kq2Lm9Pq7Rt5sgfake\n", "Zx8/kq2Lm9Pq7Rt5sgfake", "generic-secret"},
	{"password-with-colon", "password=/x9Fq2:kLp8Zr7Tq\n", "/x9Fq2:kLp8Zr7Tq", "generic-secret"},
	{"huggingface", "HF hf_sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh", "hf_sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh", ""},
}

func TestRedactsSecrets(t *testing.T) {
	r := Default()
	for _, c := range secretCases {
		t.Run(c.name, func(t *testing.T) {
			got := r.String(c.text)
			if strings.Contains(got, c.needle) {
				t.Fatalf("secret survived:\n in: %q\nout: %q", c.text, got)
			}
			if c.kind != "" && !strings.Contains(got, "[REDACTED:"+c.kind+"]") {
				t.Errorf("want kind %s:\n in: %q\nout: %q", c.kind, c.text, got)
			}
		})
	}
}

func TestKeepsContext(t *testing.T) {
	r := Default()
	for in, want := range map[string]string{
		"Authorization: Bearer sgfakeGITq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6Gh\n": "Authorization: Bearer [REDACTED:authorization]\n",
		"https://deploy:sgfakePW9x0Vb2@git.example.invalid/r":            "https://deploy:[REDACTED:url-password]@git.example.invalid/r",
		"a AKIAQ7SGFAKE3XKZ2MTB b":                                       "a [REDACTED:aws-access-key] b",
		"before\n" + fakePEM + "\nafter\n":                               "before\n[REDACTED:private-key]\nafter\n",
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// Ordinary output must come through unchanged.
var ordinary = []string{
	"total 48\ndrwxr-xr-x  5 user user 4096 Nov 22 10:59 .\n-rw-r--r--  1 user user 1069 Nov 22 10:59 LICENSE\n",
	"--- PASS: TestRedactsSecrets (0.00s)\nPASS\nok  \tgithub.com/shellguard/shellguard/redact\t0.012s\n",
	"commit 18ec11e0a1b2c3d4e5f60718293a4b5c6d7e8f90\nAuthor: Dev <dev@example.invalid>\n\n    Module skeleton: layout, shared policy types\n",
	"func (t *Tokenizer) Next() (token Token, err error) {\n\tpassword := os.Getenv(\"PASSWORD\")\n\tsecret := cfg.Secret\n",
	"token: ${GITHUB_TOKEN}\npassword: changeme\napi_key: <your key here>\nsecret_name: prod\n",
	"https://example.com/path?query=1 and http://localhost:8080/\n",
	"The monkey typed the keyboard key; they said hello. sk-1 is short. Bearer of bad news.\n",
	"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n",
	"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOsgevalfakepublickey user@example.invalid\n",
	// env output: a name with pwd/secret/token whose value is a path
	"PWD=/home/alice/go/src/github.com/shellguard/shellguard\nOLDPWD=/tmp/TestRunText308041909/001\n",
	"SECRETS_DIR=~/.config/app/secrets.d\nTOKEN_CACHE=./build/cache-v2\nPWD=/workspace\n",
	"export KUBE_TOKEN_PATH=/var/run/secrets/kubernetes.io/serviceaccount/token\n",
}

func TestOrdinaryUnchanged(t *testing.T) {
	r := Default()
	for _, s := range ordinary {
		if got := r.String(s); got != s {
			t.Errorf("changed:\n in: %q\nout: %q", s, got)
		}
	}
}

func TestValues(t *testing.T) {
	r, err := New(Options{Values: map[string]string{
		"SG_FAKE_API_KEY":       "Zq9-fake-value-7Hh2",
		"SHORT":                 "abc", // ignored: below MinValueLen
		"AWS_SECRET_ACCESS_KEY": "sgfakeAWSENVq3ZL9x0Vb2Nw7TyPq4",
	}})
	if err != nil {
		t.Fatal(err)
	}
	in := "x=Zq9-fake-value-7Hh2 abc\nsgfakeAWSENVq3ZL9x0Vb2Nw7TyPq4\x00ZQ9-FAKE-VALUE-7HH2\n"
	want := "x=[REDACTED:env:SG_FAKE_API_KEY] abc\n[REDACTED:env:AWS_SECRET_ACCESS_KEY]\x00ZQ9-FAKE-VALUE-7HH2\n"
	if got := r.String(in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestSecrets(t *testing.T) {
	r, err := New(Options{Secrets: []string{"unnamed-fake-9Qx2", "abc", "unnamed-fake-9Qx2"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.String("v=unnamed-fake-9Qx2 abc"); got != "v=[REDACTED:env] abc" {
		t.Errorf("got %q", got)
	}
}

func TestCustomPatterns(t *testing.T) {
	r, err := New(Options{Patterns: []Pattern{
		{Name: "ticket", Regex: `TICKET-[0-9]{6}`},                         // literal prefix → keyword
		{Regex: `internal id ([a-f0-9]{12})`},                              // group 1 only
		{Name: "digits", Regex: `\b[0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{4}\b`}, // no keyword: scans everything
		{Name: "kw", Regex: `(?i)zeta=\w+`, Keywords: []string{"zeta="}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	in := "see TICKET-123456, internal id 0123456789ab, card 1234-5678-9012-3456, ZETA=xyz\n"
	want := "see [REDACTED:ticket], internal id [REDACTED:custom], card [REDACTED:digits], [REDACTED:kw]\n"
	if got := r.String(in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	for _, split := range []int{1, 3, 7} {
		var out bytes.Buffer
		w := r.NewWriter(&out)
		for i := 0; i < len(in); i += split {
			w.Write([]byte(in[i:min(i+split, len(in))]))
		}
		w.Close()
		if out.String() != want {
			t.Errorf("split %d: got %q", split, out.String())
		}
	}
	if _, err := New(Options{Patterns: []Pattern{{Regex: "("}}}); err == nil {
		t.Error("bad pattern accepted")
	}
}

// writeSplit writes s through a Writer in pieces cut at the given offsets.
func writeSplit(r *Redactor, s []byte, cuts []int) string {
	var out bytes.Buffer
	w := r.NewWriter(&out)
	prev := 0
	for _, c := range cuts {
		if c > prev && c < len(s) {
			w.Write(s[prev:c])
			prev = c
		}
	}
	w.Write(s[prev:])
	w.Close()
	return out.String()
}

func TestStraddle(t *testing.T) {
	r := Default()
	for _, c := range secretCases {
		text := []byte("lead-in text\n" + c.text + "\ntrailing text\n")
		whole := r.String(string(text))
		for cut := 1; cut < len(text); cut++ {
			got := writeSplit(r, text, []int{cut})
			if got != whole {
				t.Fatalf("%s: split at %d differs:\n got %q\nwant %q", c.name, cut, got, whole)
			}
		}
		// byte by byte
		var cuts []int
		for i := 1; i < len(text); i++ {
			cuts = append(cuts, i)
		}
		if got := writeSplit(r, text, cuts); got != whole {
			t.Fatalf("%s: byte-wise differs:\n got %q\nwant %q", c.name, got, whole)
		}
	}
}

// TestStraddleSkip is TestStraddle with the keyword automaton complete,
// so that the skip filter runs (it does once a Redactor has scanned
// completeAfter bytes), and with ordinary text around each secret for it
// to skip: every secret split across any two writes is still redacted.
func TestStraddleSkip(t *testing.T) {
	r := Default()
	r.build()
	r.ac.finish()
	if !r.ac.skip {
		t.Fatal("the default rules have no skip filter")
	}
	pad := strings.Repeat("building module cache 1234 ok\n", 4)
	for _, c := range secretCases {
		text := []byte(pad + c.text + "\n" + pad)
		whole := r.String(string(text))
		if strings.Contains(whole, c.needle) {
			t.Fatalf("%s: not redacted in one write: %q", c.name, whole)
		}
		// Every cut through the secret and the bytes a rule may look at
		// before and after it.
		for cut := max(1, len(pad)-maxBefore); cut < min(len(text), len(pad)+len(c.text)+16); cut++ {
			got := writeSplit(r, text, []int{cut})
			if got != whole {
				t.Fatalf("%s: split at %d differs:\n got %q\nwant %q", c.name, cut, got, whole)
			}
		}
	}
}

func TestLargeStream(t *testing.T) {
	r := Default()
	rnd := rand.New(rand.NewPCG(1, 2))
	var in bytes.Buffer
	var needles []string
	for in.Len() < 4<<20 {
		in.WriteString(ordinary[rnd.IntN(len(ordinary))])
		if rnd.IntN(20) == 0 {
			c := secretCases[rnd.IntN(len(secretCases))]
			in.WriteString(c.text + "\n")
			needles = append(needles, c.needle)
		}
	}
	var cuts []int
	for p := 0; p < in.Len(); p += 1 + rnd.IntN(40000) {
		cuts = append(cuts, p)
	}
	got := writeSplit(r, in.Bytes(), cuts)
	seen := map[string]bool{}
	for _, n := range needles {
		if seen[n] {
			continue
		}
		seen[n] = true
		if strings.Contains(got, n) {
			t.Fatalf("secret survived: %q", n)
		}
	}
	if want := r.String(in.String()); got != want {
		t.Fatal("split output differs from one-shot output")
	}
}

func TestWriterHoldsLittle(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	line := "ordinary line of build output 123\n"
	for i := 0; i < 100; i++ {
		w.Write([]byte(line))
	}
	if held := 100*len(line) - out.Len(); held > maxBefore+64 {
		t.Errorf("held back %d bytes of ordinary output", held)
	}
	w.Close()
	if out.Len() != 100*len(line) {
		t.Errorf("lost bytes: %d", out.Len())
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Error("write after close accepted")
	}
}

func TestGitleaksParsed(t *testing.T) {
	rs, err := gitleaksRules()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) < 180 {
		t.Errorf("only %d gitleaks rules", len(rs))
	}
	// A gitleaks-only rule: age secret keys.
	in := "AGE-SECRET-KEY-1QQPZRY9X8GF2TVDW0S3JN54KHCE6MUA7LQPZRY9X8GF2TVDW0S3JN54KHCE6\n"
	if got := Default().String(in); !strings.Contains(got, "[REDACTED:age-secret-key]") {
		t.Errorf("age key not redacted: %q", got)
	}
}

func TestFlush(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Write([]byte("export GITHUB_TOKEN=ghp_sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6G\n"))
	if w.Buffered() == 0 {
		t.Fatal("nothing held back after a keyword")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if w.Buffered() != 0 || strings.Contains(out.String(), "sgfakeq3") || !strings.Contains(out.String(), "[REDACTED:") {
		t.Fatalf("after Flush: %q (%d held)", out.String(), w.Buffered())
	}
	w.Write([]byte("next line AKIAQ7SGFAKE3XKZ2MTB\n"))
	w.Close()
	if strings.Contains(out.String(), "AKIAQ7SGFAKE3XKZ2MTB") {
		t.Fatalf("after Flush and Close: %q", out.String())
	}
}

// Dense keyword hits must not make the Writer hold back without bound.
func TestBoundedHoldBack(t *testing.T) {
	for _, unit := range []string{"jira ", "hvs.", "q~ ", "-----BEGIN RSA PRIVATE KEY-----\n", "token=", "sk-", "://a:b@"} {
		var out bytes.Buffer
		w := NewWriter(&out)
		chunk := bytes.Repeat([]byte(unit), 4096/len(unit))
		most := 0
		for i := 0; i < 256; i++ { // 1 MiB
			w.Write(chunk)
			most = max(most, w.Buffered())
		}
		w.Close()
		if most > chainCap+MaxPEMLen+8192 {
			t.Errorf("%q: held back up to %d bytes", unit, most)
		}
	}
}

// TestBuiltinRepeats: no built-in pattern holds a repetition whose range
// is wider than maxRepeatRange (see builtins), and the rule that used to
// hold the widest still redacts a value longer than that range, whole.
func TestBuiltinRepeats(t *testing.T) {
	var walk func(re *syntax.Regexp) []string
	walk = func(re *syntax.Regexp) (wide []string) {
		if re.Op == syntax.OpRepeat && re.Max >= 0 && re.Max-re.Min > maxRepeatRange {
			wide = append(wide, re.String())
		}
		for _, sub := range re.Sub {
			wide = append(wide, walk(sub)...)
		}
		return wide
	}
	for _, b := range builtins {
		if b.pattern == "" {
			continue
		}
		re, err := syntax.Parse(b.pattern, syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", b.kind, err)
		}
		if wide := walk(re); len(wide) > 0 {
			t.Errorf("%s: repetitions wider than %d: %q", b.kind, maxRepeatRange, wide)
		}
	}
	// 320 bytes: more than the bounds these rules had (256), less than
	// their window (MaxTokenLen). A bound of 256 left the rest of such a
	// password in the output, or (with an "@" to reach) none redacted.
	long := strings.Repeat("Zq9xK2mW7pL4vB8n", 20)
	for _, in := range []string{"API_TOKEN=" + long, "curl -u admin:" + long + " x", "https://bob:" + long + "@example.com/", "gho_" + long} {
		if got := Default().String(in); strings.Contains(got, "Zq9xK2mW7pL4vB8n") {
			t.Errorf("%.40q…: a part of the secret is left: %.80q", in, got)
		}
	}
}
