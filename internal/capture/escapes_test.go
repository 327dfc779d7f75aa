package capture

import (
	"bytes"
	"math/rand/v2"
	"os"
	"regexp"
	"runtime"
	"testing"
	"unicode/utf8"

	"github.com/shellguard/shellguard/internal/testenv"
)

func filterAll(t testing.TB, in []byte, chunk int) (string, int) {
	var out bytes.Buffer
	f := NewEscapeFilter(&out)
	if chunk <= 0 {
		chunk = len(in) + 1
	}
	for len(in) > 0 {
		n := min(chunk, len(in))
		if k, err := f.Write(in[:n]); k != n || err != nil {
			t.Fatalf("Write = %d, %v", k, err)
		}
		in = in[n:]
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String(), f.Removed()
}

func TestEscapeFilter(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain text", "hello\tworld\r\nback\bspace\a", "hello\tworld\r\nback\bspace\a"},
		{"utf-8 text", "héllo ✓ 𝄞 \u00a0nbsp", "héllo ✓ 𝄞 \u00a0nbsp"},
		{"SGR kept", "\x1b[31mred\x1b[0m \x1b[1;38;5;196mx\x1b[m \x1b[38:2::1:2:3my", "\x1b[31mred\x1b[0m \x1b[1;38;5;196mx\x1b[m \x1b[38:2::1:2:3my"},
		{"clear screen and home", "a\x1b[2J\x1b[Hb", "ab"},
		{"cursor moves", "a\x1b[10;20Hb\x1b[3Ac\x1b[2Kd\x1b[1Ge", "abcde"},
		{"private modes", "a\x1b[?25lb\x1b[?1049hc\x1b[>4;1md", "abcd"},
		{"OSC 52 clipboard, BEL", "x\x1b]52;c;cm0gLXJmIH4=\x07y", "xy"},
		{"OSC 52 clipboard, ST", "x\x1b]52;c;cm0gLXJmIH4=\x1b\\y", "xy"},
		{"OSC title", "\x1b]0;pwned\x07ok", "ok"},
		{"OSC 8 hyperlink keeps its text", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"DCS", "a\x1bPq#0;2;0;0;0#0~~@@\x1b\\b", "ab"},
		{"APC and PM", "a\x1b_payload\x1b\\b\x1b^pm\x1b\\c", "abc"},
		{"ESC sequences", "a\x1b7b\x1b8c\x1bcd\x1bMe\x1b(0f\x1b=g", "abcdefg"},
		{"raw 8-bit CSI", "a\x9b2Jb", "ab"},
		{"raw 8-bit OSC", "a\x9d52;c;Zm9v\x07b", "ab"},
		{"UTF-8 encoded CSI", "a\xc2\x9b2Jb", "ab"},
		{"UTF-8 encoded OSC and ST", "a\xc2\x9d0;t\xc2\x9cb", "ab"},
		{"CAN cancels", "a\x1b[12\x18b", "ab"},
		{"newline inside CSI is executed", "a\x1b[1\n;2Hb", "a\nb"},
		{"ESC restarts", "a\x1b[1\x1b[31mb", "a\x1b[31mb"},
		{"ESC ends a string", "a\x1b]0;t\x1b[32mb", "a\x1b[32mb"},
		{"unterminated OSC", "a\x1b]52;c;AAAA", "a"},
		{"trailing ESC", "a\x1b", "a"},
		{"trailing lead byte", "a\xc2", "a\xc2"},
		{"invalid UTF-8 kept", "a\xff\xfe\xc2b", "a\xff\xfe\xc2b"},
		{"long CSI discarded", "a\x1b[" + string(bytes.Repeat([]byte("1;"), 100)) + "mb", "ab"},
	} {
		for _, chunk := range []int{0, 1, 2, 3, 7} {
			got, _ := filterAll(t, []byte(tc.in), chunk)
			if got != tc.want {
				t.Errorf("%s (chunks of %d): got %q, want %q", tc.name, chunk, got, tc.want)
			}
		}
	}
}

var sgrOnly = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// checkNeutral fails unless every ESC in out starts an SGR sequence and
// no C1 control is encoded in it.
func checkNeutral(t *testing.T, in []byte, out string) {
	t.Helper()
	rest := sgrOnly.ReplaceAllString(out, "")
	if i := bytes.IndexByte([]byte(rest), 0x1b); i >= 0 {
		t.Fatalf("ESC left in output %q (input %q)", out, in)
	}
	for s := out; len(s) > 0; {
		r, n := utf8.DecodeRuneInString(s)
		if r >= 0x80 && r <= 0x9f {
			t.Fatalf("C1 control U+%04X left in output %q (input %q)", r, out, in)
		}
		s = s[n:]
	}
}

// byteWise filters in one byte at a time through the state machine
// alone, without the runs Write passes on or discards at once.
func byteWise(t testing.TB, in []byte) string {
	var out bytes.Buffer
	f := NewEscapeFilter(&out)
	for _, c := range in {
		f.byte(c)
	}
	out.Write(f.out)
	f.out = f.out[:0]
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// randomBytes is n bytes of a fixed pseudo-random sequence.
func randomBytes(n int) []byte {
	rnd := rand.New(rand.NewPCG(uint64(n), 9))
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(rnd.Uint32())
	}
	return p
}

// TestRunsAsByteWise: the runs of text and of string bodies Write handles
// at once give what the state machine gives byte by byte, on random
// bytes (C1 controls, UTF-8 lead and continuation bytes everywhere) in
// chunks of any size.
func TestRunsAsByteWise(t *testing.T) {
	for _, n := range []int{1, 7, 64, 1000, 1 << 16} {
		in := randomBytes(n)
		want := byteWise(t, in)
		for _, chunk := range []int{0, 1, 3, 64, 4096} {
			if got, _ := filterAll(t, in, chunk); got != want {
				t.Fatalf("%d random bytes in chunks of %d: differs from the byte-wise filter", n, chunk)
			}
		}
	}
}

func FuzzEscapeFilter(f *testing.F) {
	for _, s := range []string{"\x1b[31mred\x1b[0m", "\x1b]52;c;AAAA\x07", "\xc2\x9b2J", "\x9b1;2H", "a\x1b]0;t\x1b\\b", "é\x1b[?25l✓", "\x1bP\x1b\\",
		"\xe2\x82\xac\x80\x9b2Jx", "\xc3\x9b\xf0\x9f\x98\x80\x9b", "\x9d0;t\xc2\x9cb", "\x90q\xc2x\x9cy", "\x98a\xc2\xc2\x9cb", "\xe2\x9b\x1b[1m\xc2"} {
		f.Add([]byte(s), uint8(1))
	}
	f.Add(randomBytes(600), uint8(37))
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		whole, _ := filterAll(t, in, 0)
		checkNeutral(t, in, whole)
		if bw := byteWise(t, in); bw != whole {
			t.Fatalf("one write gives %q, the byte-wise filter %q (input %q)", whole, bw, in)
		}
		split, _ := filterAll(t, in, int(chunk))
		if split != whole {
			t.Fatalf("chunks of %d give %q, one write %q (input %q)", chunk, split, whole, in)
		}
		if len(whole) > len(in)+1 {
			t.Fatalf("output longer than input: %q from %q", whole, in)
		}
	})
}

// BenchmarkPlain: the check that lets a chunk of plain ASCII pass the
// filter untouched, on a read's worth of log text.
func BenchmarkPlain(b *testing.B) {
	line := []byte("ok   github.com/shellguard/shellguard/internal/capture 0.004s PASS\n")
	buf := bytes.Repeat(line, (64<<10)/len(line))
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		if !plain(buf) {
			b.Fatal("not plain")
		}
	}
}

func BenchmarkEscapeFilterText(b *testing.B) {
	line := []byte("ok   github.com/shellguard/shellguard/internal/capture 0.004s \x1b[32mPASS\x1b[0m\n")
	buf := bytes.Repeat(line, 1<<14)
	f := NewEscapeFilter(ioDiscard{})
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		f.Write(buf)
	}
}

// BenchmarkEscapeFilterBinary: random bytes (C1 controls, UTF-8 lead and
// continuation bytes everywhere) and an executable (runs of zeros and
// ASCII between the rest). MB/cpu-s is the CPU time of the benchmark's
// thread, steadier than MB/s on a busy machine.
func BenchmarkEscapeFilterBinary(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range []struct {
		name string
		data []byte
	}{{"random", randomBytes(4 << 20)}, {"executable", bin[:min(len(bin), 4<<20)]}} {
		b.Run(in.name, func(b *testing.B) {
			f := NewEscapeFilter(ioDiscard{})
			b.SetBytes(int64(len(in.data)))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu0, n := testenv.ThreadCPU(), 0
			for b.Loop() {
				for p := 0; p < len(in.data); p += 64 << 10 {
					f.Write(in.data[p:min(p+64<<10, len(in.data))])
				}
				n++
			}
			if d := testenv.ThreadCPU() - cpu0; d > 0 {
				b.ReportMetric(float64(n*len(in.data))/d.Seconds()/1e6, "MB/cpu-s")
			}
		})
	}
}

type ioDiscard struct{}

func (ioDiscard) Write(p []byte) (int, error) { return len(p), nil }

// TestPlain checks plain (64 bytes a round where the processor has AVX2,
// then eight at a time) against a byte loop, for every length up to 200
// (three vector rounds and every tail) and every place of one byte that
// makes text not plain (and of bytes next to those values that keep it
// plain).
func TestPlain(t *testing.T) {
	naive := func(p []byte) bool {
		for _, c := range p {
			if c >= 0x80 || c == esc {
				return false
			}
		}
		return true
	}
	for n := 0; n <= 200; n++ {
		for at := 0; at < n; at++ {
			for _, c := range []byte{esc, 0x1a, 0x1c, 0x3b, 0x9b, 0x7f, 0x80, 0xff, 0x00, 0x01} {
				p := bytes.Repeat([]byte{'a'}, n)
				p[at] = c
				if got, want := plain(p), naive(p); got != want {
					t.Fatalf("plain(%q) = %v, want %v", p, got, want)
				}
				p[(at+5)%n] = 0x00 // a zero byte beside it (borrows in the subtraction)
				if got, want := plain(p), naive(p); got != want {
					t.Fatalf("plain(%q) = %v, want %v", p, got, want)
				}
			}
		}
	}
}
