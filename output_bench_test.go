package shellguard

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shellguard/shellguard/internal/capture"
	"github.com/shellguard/shellguard/internal/runner"
	"github.com/shellguard/shellguard/internal/testenv"
)

// The output path's speed next to a plain copy of the same bytes.
//
// Every round feeds the input through a pipe twice, one copy after the
// other: once read and discarded (io.CopyBuffer with the output path's read
// size, so the copy neither gets a larger buffer nor skips the read), once
// through the output path a command's stdout takes (runner.Output with the
// Guard's filter: terminal escapes, redaction, capture and a tee to
// io.Discard). It reports both in MB/s and the path's share of the copy's
// throughput, measured alternately in one run so that a change of load on
// the machine touches both. The same share in CPU time (of the whole
// process, the writing goroutine included) is steadier on a busy machine.
//
//	go test -run '^$' -bench OutputPath -benchtime 5x .
func BenchmarkOutputPath(b *testing.B) {
	const size = 32 << 20
	g, err := New(Config{Workspace: b.TempDir(), Environ: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	for _, in := range benchInputs(b, size) {
		b.Run(in.name, func(b *testing.B) {
			var tCopy, tPath, cCopy, cPath time.Duration
			var redactions atomic.Int64
			b.SetBytes(size)
			// The first pass of a fresh input through a pipe costs ten
			// times the CPU of the next ones (the kernel's first reads of
			// its pages): it is done before the rounds, for both sides.
			pipeThrough(b, in.data, func(r io.Reader) {
				io.CopyBuffer(writerOnly{io.Discard}, readerOnly{r}, make([]byte, outputReadSize))
			})
			for b.Loop() {
				t0, c0 := time.Now(), testenv.ProcessCPU()
				pipeThrough(b, in.data, func(r io.Reader) {
					io.CopyBuffer(writerOnly{io.Discard}, readerOnly{r}, make([]byte, outputReadSize))
				})
				t1, c1 := time.Now(), testenv.ProcessCPU()
				pipeThrough(b, in.data, func(r io.Reader) {
					buf := capture.New(capture.DefaultMax, nil)
					runner.Output{Buffer: buf, Tee: writerOnly{io.Discard}, Budget: &capture.Budget{}, Filter: g.filter(&redactions)}.Copy(r)
					if buf.Total() == 0 {
						b.Fatal("nothing reached the capture buffer")
					}
				})
				t2, c2 := time.Now(), testenv.ProcessCPU()
				tCopy += t1.Sub(t0)
				tPath += t2.Sub(t1)
				cCopy += c1 - c0
				cPath += c2 - c1
			}
			n := float64(b.N) * size / 1e6
			b.ReportMetric(n/tCopy.Seconds(), "copy-MB/s")
			b.ReportMetric(n/tPath.Seconds(), "path-MB/s")
			b.ReportMetric(100*tCopy.Seconds()/tPath.Seconds(), "%-of-copy")
			if cCopy > 0 && cPath > 0 {
				b.ReportMetric(100*cCopy.Seconds()/cPath.Seconds(), "%-of-copy-cpu")
			}
			b.ReportMetric(float64(redactions.Load())/float64(b.N), "redactions/op")
		})
	}
}

// outputReadSize is the read size of runner.Output.
const outputReadSize = runner.ReadSize

// pipeThrough writes data into a pipe in 64 KiB writes (a command's
// output, as coreutils write it) while read drains the other end.
func pipeThrough(b *testing.B, data []byte, read func(io.Reader)) {
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		for p := 0; p < len(data); p += 64 << 10 {
			if _, err := w.Write(data[p:min(p+64<<10, len(data))]); err != nil {
				break
			}
		}
		w.Close()
	}()
	read(r)
	r.Close()
}

type readerOnly struct{ io.Reader }
type writerOnly struct{ io.Writer }

type benchInput struct {
	name string
	data []byte
}

// benchInputs are the kinds of output the path meets, size bytes each.
func benchInputs(b *testing.B, size int) []benchInput {
	rnd := rand.New(rand.NewPCG(21, 21))
	random := make([]byte, size)
	for i := range random {
		random[i] = byte(rnd.Uint32())
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		b.Fatal(err)
	}
	return []benchInput{
		{"one-byte", bytes.Repeat([]byte{'x'}, size)},
		{"random", random},
		{"text-no-keywords", repeatTo(cleanLog(rnd, 1<<20), size)},
		{"text-dense-keywords", repeatTo(keywordLog(rnd, 1<<20), size)},
		{"secrets-dense", repeatTo(secretLog(rnd, 1<<20), size)},
		{"long-lines", repeatTo(longLines(rnd, 1<<20), size)},
		{"binary", repeatTo(bin, size)},
	}
}

func repeatTo(unit []byte, size int) []byte {
	return bytes.Repeat(unit, size/len(unit)+1)[:size]
}

// cleanWords hold none of the redactor's keywords, alone or joined by
// the separators cleanLog puts between them.
var cleanWords = []string{"build", "compile", "module", "cache", "hit", "miss", "request", "handler", "config",
	"value", "scope", "deadline", "file", "user", "ok", "failed", "warning", "unused", "variable", "package",
	"import", "function", "return", "error", "line", "column", "linker", "object", "archive", "target", "vendor",
	"download", "verify", "checkout", "branch", "merge", "commit", "author", "date", "time", "status", "done"}

// cleanLog is n bytes of build and server log lines without a keyword.
func cleanLog(rnd *rand.Rand, n int) []byte {
	w := func() string { return cleanWords[rnd.IntN(len(cleanWords))] }
	var b bytes.Buffer
	for b.Len() < n {
		switch rnd.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "src/%s/%s_%d.go:%d:%d: %s %s %s\n", w(), w(), rnd.IntN(100), rnd.IntN(900), rnd.IntN(80), w(), w(), w())
		case 1:
			fmt.Fprintf(&b, "2026-11-27T10:%02d:%02dZ INFO %s %s latency=%dms code=%d\n", rnd.IntN(60), rnd.IntN(60), w(), w(), rnd.IntN(900), 200+rnd.IntN(300))
		case 2:
			fmt.Fprintf(&b, "[%3d%%] %s %s %s\n", rnd.IntN(101), w(), w(), w())
		case 3:
			fmt.Fprintf(&b, "    %s(%s, %s) -> %s\n", w(), w(), w(), w())
		}
	}
	return b.Bytes()
}

// keywordLog is n bytes of log and source lines where every line holds
// keywords (token, password, secret, api_key, Authorization, bearer, a
// URL, "sk" in "task" and "disk") and one line in a hundred a secret.
func keywordLog(rnd *rand.Rand, n int) []byte {
	var b bytes.Buffer
	lines := []string{
		"INFO token refresh scheduled for session %d; the password policy was checked\n",
		"\tif cfg.Secret == \"\" || cfg.APIKey == \"\" { return errMissingSecret } // line %d\n",
		"see https://docs.example.com/auth for the authorization header (%d)\n",
		"task %d: the disk cache holds no api_key; ask for a bearer token first\n",
		"DEBUG passwd lookup for user %d skipped: no secret_key configured\n",
	}
	for i := 0; b.Len() < n; i++ {
		if i%100 == 99 {
			fmt.Fprintf(&b, "export GITHUB_TOKEN=ghp_%036d\n", rnd.Int64N(1e17))
			continue
		}
		fmt.Fprintf(&b, lines[rnd.IntN(len(lines))], rnd.IntN(1000))
	}
	return b.Bytes()
}

// secretLog is n bytes of log lines where most lines hold a secret.
func secretLog(rnd *rand.Rand, n int) []byte {
	var b bytes.Buffer
	hex := func(k int) string {
		s := make([]byte, k)
		for i := range s {
			s[i] = "0123456789abcdef"[rnd.IntN(16)]
		}
		return string(s)
	}
	for b.Len() < n {
		switch rnd.IntN(6) {
		case 0:
			fmt.Fprintf(&b, "GET https://api.example.com/v1/users?token=%s 200\n", hex(8))
		case 1:
			fmt.Fprintf(&b, "config: api_key=%s secret=%s password=hunter2\n", hex(4), hex(4))
		case 2:
			fmt.Fprintf(&b, "Authorization: Bearer %s\n", hex(40))
		case 3:
			fmt.Fprintf(&b, "the task asks for the disk key of the session; see docs.\n")
		case 4:
			fmt.Fprintf(&b, "ghp_%s%s\n", hex(18), hex(18))
		case 5:
			fmt.Fprintf(&b, "export AWS_ACCESS_KEY_ID=AKIA%s user=%s\n", "IOSFODNN7EXAMPLE", hex(6))
		}
	}
	return b.Bytes()
}

// longLines is n bytes of text in lines of a quarter MiB, without a
// keyword (minified JSON, a generated file).
func longLines(rnd *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for b.Len() < n {
		for l := 0; l < 256<<10; {
			k, _ := fmt.Fprintf(&b, `{"%s":%d,"%s":"%s"},`, cleanWords[rnd.IntN(len(cleanWords))], rnd.IntN(1000), cleanWords[rnd.IntN(len(cleanWords))], cleanWords[rnd.IntN(len(cleanWords))])
			l += k
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}
