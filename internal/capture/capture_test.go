package capture

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestSmallOutputIsKept(t *testing.T) {
	b := New(64, nil)
	b.Write([]byte("hello "))
	b.Write([]byte("world\n"))
	r := b.Render()
	if r.Text != "hello world\n" || r.Dropped != 0 {
		t.Fatalf("got %q dropped %d", r.Text, r.Dropped)
	}
}

func TestExactlyFullBufferHasNoMarker(t *testing.T) {
	b := New(16, nil)
	b.Write([]byte("0123456789abcdef"))
	r := b.Render()
	if r.Text != "0123456789abcdef" || r.Dropped != 0 {
		t.Fatalf("got %q dropped %d", r.Text, r.Dropped)
	}
}

func TestHeadTailAndMarker(t *testing.T) {
	for _, chunk := range []int{1, 3, 7, 100, 10000} {
		t.Run(fmt.Sprint(chunk), func(t *testing.T) {
			b := New(20, nil)
			var all []byte
			for i := 0; i < 1000; i++ {
				all = append(all, byte('a'+i%26))
			}
			for p := all; len(p) > 0; {
				n := min(chunk, len(p))
				b.Write(p[:n])
				p = p[n:]
			}
			r := b.Render()
			head, tail := string(all[:10]), string(all[990:])
			want := head + "\n[... 980 bytes dropped ...]\n" + tail
			if r.Text != want {
				t.Fatalf("got %q\nwant %q", r.Text, want)
			}
			if r.Dropped != 980 {
				t.Fatalf("dropped %d, want 980", r.Dropped)
			}
		})
	}
}

// Every cut point through multi-byte characters yields valid UTF-8, and
// kept + dropped always adds up to what was written.
func TestUTF8CutPoints(t *testing.T) {
	chars := []string{"é", "€", "𝄞", "a"}
	for _, c := range chars {
		for max := 8; max <= 24; max++ {
			for prefix := 0; prefix < 4; prefix++ {
				b := New(max, nil)
				s := strings.Repeat("x", prefix) + strings.Repeat(c, 50)
				b.Write([]byte(s))
				r := b.Render()
				if !utf8.ValidString(r.Text) {
					t.Fatalf("max=%d prefix=%d char=%q: invalid UTF-8 %q", max, prefix, c, r.Text)
				}
				if strings.ContainsRune(r.Text, utf8.RuneError) {
					t.Fatalf("max=%d prefix=%d char=%q: a cut split a character: %q", max, prefix, c, r.Text)
				}
				kept := strings.ReplaceAll(r.Text, fmt.Sprintf("\n[... %d bytes dropped ...]\n", r.Dropped), "")
				if int64(len(kept))+r.Dropped != int64(len(s)) {
					t.Fatalf("max=%d prefix=%d char=%q: kept %d + dropped %d != %d (%q)", max, prefix, c, len(kept), r.Dropped, len(s), r.Text)
				}
			}
		}
	}
}

func TestInvalidUTF8IsReplaced(t *testing.T) {
	b := New(0, nil)
	b.Write([]byte("ok \xff\xfe bad \xc3"))
	r := b.Render()
	if !utf8.ValidString(r.Text) {
		t.Fatalf("invalid UTF-8 survived: %q", r.Text)
	}
	if !strings.HasPrefix(r.Text, "ok \uFFFD") || !strings.Contains(r.Text, " bad ") {
		t.Fatalf("got %q", r.Text)
	}
}

func TestBinaryIsSummarised(t *testing.T) {
	bin := make([]byte, 5000)
	for i := range bin {
		bin[i] = byte(i * 7)
	}
	b := New(0, nil)
	b.Write(bin)
	r := b.Render()
	if !r.Binary || !strings.Contains(r.Text, "binary output: 5000 bytes") {
		t.Fatalf("got %+v", r)
	}
	// NUL-separated text (find -print0) stays text.
	b = New(0, nil)
	b.Write([]byte("./a/file-one.go\x00./b/file-two.go\x00./c/file-three.go\x00"))
	if r := b.Render(); r.Binary {
		t.Fatalf("NUL-separated paths treated as binary: %+v", r)
	}
}

func TestBudgetTriggersOnce(t *testing.T) {
	calls := 0
	bud := &Budget{Max: 100, OnExceed: func() { calls++ }}
	out, errb := New(10, bud), New(10, bud)
	for i := 0; i < 30; i++ {
		out.Write([]byte("12345"))
		errb.Write([]byte("12345"))
	}
	if calls != 1 || !bud.Exceeded() {
		t.Fatalf("OnExceed called %d times, exceeded=%v", calls, bud.Exceeded())
	}
	if out.Total()+errb.Total() != 300 {
		t.Fatalf("totals %d+%d", out.Total(), errb.Total())
	}
}

func TestConcurrentWrites(t *testing.T) {
	b := New(1024, nil)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				b.Write([]byte("line of output\n"))
			}
		}()
	}
	wg.Wait()
	if b.Total() != 8*1000*15 {
		t.Fatalf("total %d", b.Total())
	}
	h, tl, d := b.Bytes()
	if int64(len(h)+len(tl))+d != b.Total() {
		t.Fatal("accounting broken")
	}
	if !bytes.HasPrefix(h, []byte("line of output\n")) {
		t.Fatalf("head %q", h[:20])
	}
}

// Memory stays flat: writing far more than the capacity allocates only the
// buffer itself.
func TestMemoryIsBounded(t *testing.T) {
	b := New(DefaultMax, nil)
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	allocs := testing.AllocsPerRun(100, func() { b.Write(chunk) })
	if allocs > 0 {
		t.Fatalf("%v allocations per write after warm-up", allocs)
	}
}

func BenchmarkWrite(b *testing.B) {
	buf := New(DefaultMax, nil)
	chunk := bytes.Repeat([]byte("some typical line of output\n"), 1200)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		buf.Write(chunk)
	}
}

// FuzzRender: whatever bytes arrive in whatever chunks, rendering never
// panics, is valid UTF-8, and kept plus dropped bytes add up.
func FuzzRender(f *testing.F) {
	f.Add([]byte("hello\nworld\n"), uint8(7), uint8(16))
	f.Add([]byte("é€𝄞\xff\xfe\x00binary\x00"), uint8(1), uint8(9))
	f.Add(bytes.Repeat([]byte("𝄞"), 100), uint8(3), uint8(10))
	f.Fuzz(func(t *testing.T, data []byte, chunk, size uint8) {
		b := New(int(size), nil)
		step := int(chunk)%64 + 1
		for p := data; len(p) > 0; {
			n := min(step, len(p))
			b.Write(p[:n])
			p = p[n:]
		}
		r := b.Render()
		if !utf8.ValidString(r.Text) {
			t.Fatalf("invalid UTF-8: %q", r.Text)
		}
		if r.Dropped < 0 || r.Dropped > int64(len(data)) {
			t.Fatalf("dropped %d of %d", r.Dropped, len(data))
		}
		if b.Total() != int64(len(data)) {
			t.Fatalf("total %d != %d", b.Total(), len(data))
		}
	})
}
