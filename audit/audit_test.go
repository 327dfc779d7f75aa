package audit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellguard/shellguard/policy"
)

func intp(i int) *int { return &i }

func event(i int) Event {
	return Event{
		Time:     time.Date(2026, 11, 22, 10, 0, i, 0, time.UTC),
		Session:  "s1",
		Command:  fmt.Sprintf("echo %d", i),
		Cwd:      "/work",
		Decision: policy.Allow,
		Reasons: []policy.Reason{{ID: "SG1001", Decision: policy.Ask, Message: "example",
			Span: policy.Span{Start: 0, End: 4}}},
		SandboxMode:    "auto",
		SandboxApplied: []string{"landlock", "seccomp"},
		ExitCode:       intp(0),
		DurationMS:     12,
		BytesDropped:   3,
	}
}

func writeLog(t *testing.T, n int, key []byte) (string, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path, Options{Key: key, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		seq, _, err := l.Append(event(i))
		if err != nil {
			t.Fatal(err)
		}
		if seq != int64(i) {
			t.Fatalf("seq %d, want %d", seq, i)
		}
	}
	l.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	return path, lines[:len(lines)-1]
}

func verifyLines(lines []string, key []byte) (Result, error) {
	s := strings.Join(lines, "")
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return VerifyChain(strings.NewReader(s), key)
}

func wantBroken(t *testing.T, err error, line int64) {
	t.Helper()
	var ve *VerifyError
	if !errors.As(err, &ve) || !errors.Is(err, ErrBroken) {
		t.Fatalf("want VerifyError at line %d, got %v", line, err)
	}
	if ve.Line != line {
		t.Fatalf("reported line %d (%s), want %d", ve.Line, ve.Reason, line)
	}
}

func TestVerifyIntact(t *testing.T) {
	_, lines := writeLog(t, 10, nil)
	res, err := verifyLines(lines, nil)
	if err != nil || res.Lines != 10 || len(res.Head) != 64 {
		t.Fatalf("res %+v err %v", res, err)
	}
	if !strings.Contains(lines[0], `"prev":"`+Genesis+`"`) {
		t.Errorf("first line not chained to genesis: %s", lines[0])
	}
	for _, f := range []string{`"time":"2026-11-22T10:00:01Z"`, `"session":"s1"`, `"command":"echo 1"`, `"cwd":"/work"`,
		`"decision":"allow"`, `"id":"SG1001"`, `"sandbox_applied":["landlock","seccomp"]`, `"exit_code":0`,
		`"duration_ms":12`, `"bytes_dropped":3`, `"seq":1`} {
		if !strings.Contains(lines[0], f) {
			t.Errorf("line lacks %s: %s", f, lines[0])
		}
	}
	if res, err := VerifyChain(strings.NewReader(""), nil); err != nil || res.Lines != 0 || res.Head != Genesis {
		t.Errorf("empty log: %+v %v", res, err)
	}
}

func TestVerifyDetectsTampering(t *testing.T) {
	_, lines := writeLog(t, 10, nil)
	cp := func() []string { return append([]string(nil), lines...) }
	for i := range lines { // edit each line, including the first and the last
		l := cp()
		l[i] = strings.Replace(l[i], "echo", "ECHO", 1)
		_, err := verifyLines(l, nil)
		wantBroken(t, err, int64(i+1))
	}
	for i := 0; i < len(lines)-1; i++ { // delete each line but the last
		l := cp()
		l = append(l[:i], l[i+1:]...)
		_, err := verifyLines(l, nil)
		wantBroken(t, err, int64(i+1))
	}
	for i := 0; i < len(lines)-1; i++ { // swap neighbours
		l := cp()
		l[i], l[i+1] = l[i+1], l[i]
		_, err := verifyLines(l, nil)
		wantBroken(t, err, int64(i+1))
	}
	{ // duplicate a line
		l := cp()
		l = append(l[:4], append([]string{l[3]}, l[4:]...)...)
		_, err := verifyLines(l, nil)
		wantBroken(t, err, 5)
	}
	{ // move the first line to the end
		l := append(cp()[1:], lines[0])
		_, err := verifyLines(l, nil)
		wantBroken(t, err, 1)
	}
	{ // forge seq and prev consistently but keep the old hash
		l := cp()
		l[2] = strings.Replace(l[2], `"seq":3`, `"seq":4`, 1)
		_, err := verifyLines(l, nil)
		wantBroken(t, err, 3)
	}
	{ // garbage line
		l := cp()
		l[6] = "not json\n"
		_, err := verifyLines(l, nil)
		wantBroken(t, err, 7)
	}
	{ // torn last line
		_, err := VerifyChain(strings.NewReader(strings.Join(lines, "")+`{"seq":11`), nil)
		wantBroken(t, err, 11)
	}
	// Deleting the LAST line leaves a valid, shorter chain: Verify cannot
	// see it, but the count and head it returns differ from the recorded
	// ones.
	full, _ := verifyLines(lines, nil)
	short, err := verifyLines(lines[:len(lines)-1], nil)
	if err != nil || short.Lines != 9 || short.Head == full.Head {
		t.Fatalf("truncated log: %+v %v", short, err)
	}
}

func TestKeyedChain(t *testing.T) {
	key := []byte("fake-test-key")
	_, lines := writeLog(t, 5, key)
	if _, err := verifyLines(lines, key); err != nil {
		t.Fatal(err)
	}
	// Without the key (or with another) the hashes do not verify: a forger
	// without the key cannot recompute them either.
	_, err := verifyLines(lines, []byte("other"))
	wantBroken(t, err, 1)
	// Without any key, the log is told to be signed, not broken.
	_, err = verifyLines(lines, nil)
	if !errors.Is(err, ErrNeedKey) || errors.Is(err, ErrBroken) {
		t.Fatalf("no key: %v", err)
	}
}

func TestRedacted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	l, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	secret := "ghp_sgfakeq3ZL9x0Vb2Nw7TyPq4Rm8Ks1Df6G"
	e := event(1)
	e.Command = "curl -H 'Authorization: token " + secret + "' https://api.example.invalid"
	e.Error = "exit: " + secret
	e.Reasons[0].Message = "mentions " + secret
	if _, _, err := l.Append(e); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte(secret)) || !bytes.Contains(data, []byte("[REDACTED:")) {
		t.Fatalf("secret in audit log: %s", data)
	}
	if e.Command == "" || !strings.Contains(e.Command, secret) {
		t.Fatal("caller's event was modified")
	}
	if _, err := VerifyChain(bytes.NewReader(data), nil); err != nil {
		t.Fatal(err)
	}
}

func TestAppendAfterTornLine(t *testing.T) {
	path, _ := writeLog(t, 2, nil)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":3`)
	f.Close()
	l, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, _, err := l.Append(event(3)); err == nil {
		t.Fatal("appended after a torn line")
	}
	l.Close()
	if _, _, err := l.Append(event(3)); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after close: %v", err)
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	// Two loggers on one file stand in for two processes (separate open
	// file descriptions, so the flock is what serialises them).
	var ls []*Logger
	for i := 0; i < 2; i++ {
		l, err := Open(path, Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ls = append(ls, l)
	}
	const G, N = 32, 25
	var wg sync.WaitGroup
	for g := 0; g < G; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < N; i++ {
				e := event(i)
				e.Command = strings.Repeat(fmt.Sprintf("g%d-%d ", g, i), 200) // ~2 KB lines
				if _, _, err := ls[g%2].Append(e); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	f, _ := os.Open(path)
	defer f.Close()
	res, err := VerifyChain(f, nil)
	if err != nil || res.Lines != G*N {
		t.Fatalf("res %+v, err %v", res, err)
	}
}

// TestConcurrentProcesses appends from several processes (this test binary
// re-executed as a helper) at once.
func TestConcurrentProcesses(t *testing.T) {
	if p := os.Getenv("SG_AUDIT_HELPER"); p != "" {
		l, err := Open(p, Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		n, _ := strconv.Atoi(os.Getenv("SG_AUDIT_N"))
		for i := 0; i < n; i++ {
			e := event(i)
			e.Session = os.Getenv("SG_AUDIT_ID")
			e.Command = strings.Repeat("x", 5000)
			if _, _, err := l.Append(e); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "a.jsonl")
	const P, N = 4, 40
	var cmds []*exec.Cmd
	for p := 0; p < P; p++ {
		c := exec.Command(os.Args[0], "-test.run=^TestConcurrentProcesses$")
		c.Env = append(os.Environ(), "SG_AUDIT_HELPER="+path, "SG_AUDIT_N="+strconv.Itoa(N), "SG_AUDIT_ID=p"+strconv.Itoa(p))
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := os.Open(path)
	defer f.Close()
	res, err := VerifyChain(f, nil)
	if err != nil || res.Lines != P*N {
		t.Fatalf("res %+v, err %v", res, err)
	}
}

func TestVerifySimple(t *testing.T) {
	_, lines := writeLog(t, 3, nil)
	if err := Verify(strings.NewReader(strings.Join(lines, ""))); err != nil {
		t.Fatal(err)
	}
	if err := Verify(strings.NewReader(lines[0] + lines[2])); !errors.Is(err, ErrBroken) {
		t.Fatalf("deleted line not reported: %v", err)
	}
}
