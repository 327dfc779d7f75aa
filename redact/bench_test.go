package redact

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/shellguard/shellguard/internal/testenv"
)

// ordinaryOutput returns n bytes of made-up but typical command output:
// build and test logs, ls listings, git log, JSON log lines, URLs and
// source code lines (which mention tokens, passwords and keys without
// containing any).
func ordinaryOutput(n int) []byte {
	rnd := rand.New(rand.NewPCG(7, 7))
	var b bytes.Buffer
	b.Grow(n + 4096)
	words := []string{"build", "ok", "failed", "cache", "module", "token", "parse", "server", "request",
		"handler", "config", "password", "key", "value", "context", "deadline", "secret", "file", "user", "http"}
	for b.Len() < n {
		switch rnd.IntN(9) {
		case 0:
			fmt.Fprintf(&b, "-rw-r--r--  1 dev dev %7d Nov 22 10:%02d src/%s/%s_%d.go\n", rnd.IntN(1<<20), rnd.IntN(60), words[rnd.IntN(len(words))], words[rnd.IntN(len(words))], rnd.IntN(100))
		case 1:
			fmt.Fprintf(&b, "--- PASS: Test%s%s (0.%02ds)\n", words[rnd.IntN(len(words))], words[rnd.IntN(len(words))], rnd.IntN(100))
		case 2:
			fmt.Fprintf(&b, "commit %016x%016x%08x\nAuthor: Dev %d <dev%d@example.invalid>\n\n    fix %s %s handling\n\n", rnd.Uint64(), rnd.Uint64(), rnd.Uint32(), rnd.IntN(50), rnd.IntN(50), words[rnd.IntN(len(words))], words[rnd.IntN(len(words))])
		case 3:
			fmt.Fprintf(&b, `{"time":"2026-11-22T10:%02d:%02dZ","level":"info","msg":"%s %s","status":%d,"latency_ms":%d,"path":"/api/v1/%s"}`+"\n", rnd.IntN(60), rnd.IntN(60), words[rnd.IntN(len(words))], words[rnd.IntN(len(words))], 200+rnd.IntN(300), rnd.IntN(900), words[rnd.IntN(len(words))])
		case 4:
			fmt.Fprintf(&b, "GET https://example.com/%s/%s?page=%d 200 OK (%d bytes)\n", words[rnd.IntN(len(words))], words[rnd.IntN(len(words))], rnd.IntN(9), rnd.IntN(99999))
		case 5:
			fmt.Fprintf(&b, "\tif err := %s.Validate(%s); err != nil {\n\t\treturn fmt.Errorf(\"%s: %%w\", err)\n\t}\n", words[rnd.IntN(len(words))], words[rnd.IntN(len(words))], words[rnd.IntN(len(words))])
		case 6:
			fmt.Fprintf(&b, "src/%s.c:%d:%d: warning: unused variable '%s_%s' [-Wunused-variable]\n", words[rnd.IntN(len(words))], rnd.IntN(900), rnd.IntN(80), words[rnd.IntN(len(words))], words[rnd.IntN(len(words))])
		case 7:
			fmt.Fprintf(&b, "%s\n", "The quick brown fox jumps over the lazy dog; they keep the monkey's keyboard key.")
		case 8:
			fmt.Fprintf(&b, "  %5.1f%%  %s/%s  %d/%d\n", rnd.Float64()*100, words[rnd.IntN(len(words))], words[rnd.IntN(len(words))], rnd.IntN(999), 999)
		}
	}
	return b.Bytes()[:n]
}

var (
	corpusOnce sync.Once
	corpus100  []byte
)

// benchStream reports MB/s (wall clock) and MB/cpu-s: the CPU time of the
// benchmark's thread, which stays meaningful on a loaded machine.
func benchStream(b *testing.B, data []byte) {
	r := Default()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0 := testenv.ThreadCPU()
	n := 0
	b.ResetTimer()
	for b.Loop() {
		w := r.NewWriter(io.Discard)
		for p := 0; p < len(data); p += 32 << 10 {
			w.Write(data[p:min(p+32<<10, len(data))])
		}
		w.Close()
		n++
	}
	if d := testenv.ThreadCPU() - cpu0; d > 0 {
		b.ReportMetric(float64(n*len(data))/d.Seconds()/1e6, "MB/cpu-s")
	}
}

// BenchmarkRedact100MB streams 100 MB of ordinary output through a
// Writer in 32 KiB writes (a pipe read's size).
func BenchmarkRedact100MB(b *testing.B) {
	corpusOnce.Do(func() { corpus100 = ordinaryOutput(100 << 20) })
	benchStream(b, corpus100)
}

// BenchmarkRedactGoSource streams the Go standard library's net/http
// sources (code full of "token", "auth", "password", "key").
func BenchmarkRedactGoSource(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(goroot(b), "src", "net", "http", "*.go"))
	var data []byte
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err == nil {
			data = append(data, d...)
		}
	}
	if len(data) == 0 {
		b.Skip("no GOROOT sources")
	}
	benchStream(b, data)
}

// BenchmarkRedactDense streams 1 MiB made of one keyword-bearing unit
// repeated: the worst case for the per-keyword regex runs.
func BenchmarkRedactDense(b *testing.B) {
	for _, unit := range []string{"-----BEGIN ", "-----BEGIN RSA PRIVATE KEY-----\n", "token=", "token = 'abcdefgh1234' ",
		"://a:b@", "sk-", "AKIA", "eyJ", "authorization: ", "Bearer ", "twitter", "curl -u ", "hooks.slack.com/"} {
		data := bytes.Repeat([]byte(unit), (1<<20)/len(unit))
		b.Run(fmt.Sprintf("%q", unit), func(b *testing.B) { benchStream(b, data) })
	}
}

// BenchmarkNew is a warm New: the shared rule set is built already.
func BenchmarkNew(b *testing.B) {
	for _, c := range []struct {
		name string
		o    Options
	}{{"default", Options{}}, {"secrets", Options{Secrets: []string{"some-secret-value"}}}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := New(c.o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// goroot is the Go installation the go command in PATH uses.
func goroot(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("no go command:", err)
	}
	return strings.TrimSpace(string(out))
}

// BenchmarkKeywordScan is the keyword scan alone (the skip filter and the
// automaton around the places it lets through), with every row of the
// automaton filled, in 64 KiB pieces (a read of the output path): on
// ordinary output, on log lines dense with keywords, on log text without
// a keyword and on one byte repeated (the flood).
func BenchmarkKeywordScan(b *testing.B) {
	r := Default()
	r.build()
	a := r.ac
	a.finish()
	words := []string{"build", "compile", "module", "cache", "hit", "miss", "request", "handler", "config",
		"value", "scope", "deadline", "file", "user", "ok", "failed", "warning", "unused", "variable", "package"}
	rnd := rand.New(rand.NewPCG(2, 2))
	var clean bytes.Buffer
	for clean.Len() < 8<<20 {
		fmt.Fprintf(&clean, "2026-11-27T10:%02d:%02dZ INFO %s %s latency=%dms code=%d src/%s/%s_%d.go:%d\n", rnd.IntN(60), rnd.IntN(60),
			words[rnd.IntN(len(words))], words[rnd.IntN(len(words))], rnd.IntN(900), 200+rnd.IntN(300),
			words[rnd.IntN(len(words))], words[rnd.IntN(len(words))], rnd.IntN(100), rnd.IntN(900))
	}
	var dense bytes.Buffer
	for dense.Len() < 8<<20 {
		fmt.Fprintf(&dense, "INFO token refresh for session %d; the password policy was checked\n"+
			"task %d: the disk cache holds no api_key; ask for a bearer token first\n", rnd.IntN(1000), rnd.IntN(1000))
	}
	for _, in := range []struct {
		name string
		data []byte
		hits bool
	}{
		{"ordinary", ordinaryOutput(8 << 20), true},
		{"dense-keywords", dense.Bytes(), true},
		{"no-keywords", clean.Bytes(), false},
		{"one-byte", bytes.Repeat([]byte{'x'}, 8<<20), false},
	} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			hits := 0
			cpu0 := testenv.ThreadCPU()
			for b.Loop() {
				var s uint32
				for p := 0; p < len(in.data); p += 64 << 10 {
					s = a.scan(s, in.data[p:min(p+64<<10, len(in.data))], func(int32, int) { hits++ })
				}
			}
			if (hits > 0) != in.hits {
				b.Fatalf("%d keyword hits", hits)
			}
			if d := testenv.ThreadCPU() - cpu0; d > 0 {
				b.ReportMetric(float64(b.N)*float64(len(in.data))/d.Seconds()/1e6, "MB/cpu-s")
			}
		})
	}
}
