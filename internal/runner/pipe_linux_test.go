package runner

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/shellguard/shellguard/internal/testenv"
	"golang.org/x/sys/unix"
)

// TestPipeReaderReadsEverything writes a pipe in writes of every size,
// some after a pause and some in a flood, and requires the reader to
// hand over the same bytes in order, then EOF.
func TestPipeReaderReadsEverything(t *testing.T) {
	r, w, err := outputPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rnd := rand.New(rand.NewPCG(1, 2))
	want := make([]byte, 8<<20)
	for i := range want {
		want[i] = byte(rnd.Uint32())
	}
	go func() {
		defer w.Close()
		rnd := rand.New(rand.NewPCG(3, 4))
		for p := 0; p < len(want); {
			n := min(1+rnd.IntN(70000), len(want)-p)
			if _, err := w.Write(want[p : p+n]); err != nil {
				return
			}
			p += n
			if rnd.IntN(50) == 0 {
				time.Sleep(time.Duration(rnd.IntN(2000)) * time.Microsecond)
			}
		}
	}()
	var got bytes.Buffer
	b := make([]byte, ReadSize)
	for {
		n, err := r.Read(b)
		got.Write(b[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read after %d bytes: %v", got.Len(), err)
		}
		if n == 0 {
			t.Fatal("a read returned nothing and no error")
		}
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("read %d bytes, not the %d written", got.Len(), len(want))
	}
}

// TestPipeReaderFloodWaitsRarely requires output written in 4 KiB
// pieces (as tr and cat write), each a little after the last and the
// reader faster than the writer, to be read with far fewer waits in the
// poller than writes: while output flows the reader pauses instead of
// waiting, and the writer fills the pipe meanwhile.
func TestPipeReaderFloodWaitsRarely(t *testing.T) {
	// Pauses need a second P (see pause).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	r, w, err := outputPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const writes = 2000
	go func() {
		defer w.Close()
		chunk := bytes.Repeat([]byte{'x'}, 4096)
		for range writes {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			for t0 := time.Now(); time.Since(t0) < 20*time.Microsecond; {
				// as a command works between its writes
			}
		}
	}()
	n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, make([]byte, ReadSize))
	if err != nil || n != writes*4096 {
		t.Fatalf("copied %d bytes (%v), want %d", n, err, writes*4096)
	}
	waits := r.(*pipeReader).waits
	t.Logf("%d writes, %d waits", writes, waits)
	if waits > writes/4 {
		t.Fatalf("%d waits in the poller for %d writes: the flood was not read in pauses", waits, writes)
	}
}

// TestPipeReaderCloseEndsWait: a Read waiting for a pipe whose writer
// stays silent returns once Close is called, and Close leaves no
// descriptor behind, whether it comes while Read waits or before.
func TestPipeReaderCloseEndsWait(t *testing.T) {
	before := testenv.OpenFDs()
	for _, during := range []bool{true, false} {
		r, w, err := outputPipe()
		if err != nil {
			t.Fatal(err)
		}
		if !during {
			r.Close()
		}
		done := make(chan error, 1)
		go func() {
			_, err := r.Read(make([]byte, 16))
			done <- err
		}()
		if during {
			time.Sleep(20 * time.Millisecond)
			r.Close()
		}
		select {
		case err := <-done:
			if !errors.Is(err, errPipeClosed) {
				t.Fatalf("Read after Close: %v, want %v", err, errPipeClosed)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Read still waits 5 s after Close")
		}
		if err := r.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		w.Close()
	}
	if err := testenv.CheckFDs(before); err != nil {
		t.Fatal(err)
	}
}

// TestPipeReaderCloseDuringFlood: Close while a flood is being read ends
// the reading with an error, and no descriptor is left behind.
func TestPipeReaderCloseDuringFlood(t *testing.T) {
	before := testenv.OpenFDs()
	r, w, err := outputPipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer w.Close()
		chunk := bytes.Repeat([]byte{'x'}, 4096)
		for {
			if _, err := w.Write(chunk); err != nil {
				return // the read end is gone: EPIPE
			}
		}
	}()
	done := make(chan error, 1)
	go func() {
		_, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{r}, make([]byte, ReadSize))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	r.Close()
	select {
	case err := <-done:
		if !errors.Is(err, errPipeClosed) {
			t.Fatalf("copy ended with %v, want %v", err, errPipeClosed)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the flood is still read 5 s after Close")
	}
	time.Sleep(20 * time.Millisecond) // the writer's EPIPE and Close
	if err := testenv.CheckFDs(before); err != nil {
		t.Fatal(err)
	}
}

// TestPipeReaderGrowsBounded: a pipe is grown once its output flows, no
// more than maxGrown at a time, and a closed pipe gives its place back.
func TestPipeReaderGrowsBounded(t *testing.T) {
	if n := grown.Load(); n != 0 {
		t.Fatalf("%d pipes counted as grown before the test", n)
	}
	type pipe struct {
		r io.ReadCloser
		w *os.File
	}
	size := func(p pipe) int {
		n, err := unix.FcntlInt(p.w.Fd(), unix.F_GETPIPE_SZ, 0)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// flow writes and reads twice without a wait in between: the second
	// read finds data at once, so the output flows.
	flow := func(p pipe) {
		b := make([]byte, 8192)
		p.w.Write(b)
		p.w.Write(b)
		p.r.Read(b[:4096])
		p.r.Read(b[:4096])
	}
	var pipes []pipe
	defer func() {
		for _, p := range pipes {
			p.r.Close()
			p.w.Close()
		}
	}()
	for i := range maxGrown + 2 {
		r, w, err := outputPipe()
		if err != nil {
			t.Fatal(err)
		}
		p := pipe{r, w}
		pipes = append(pipes, p)
		small := size(p)
		if small >= pipeSize {
			t.Fatalf("a new pipe holds %d bytes already", small)
		}
		flow(p)
		want := pipeSize
		if i >= maxGrown {
			want = small
		}
		if got := size(p); got != want {
			t.Fatalf("pipe %d holds %d bytes after its output flowed, want %d", i, got, want)
		}
	}
	pipes[0].r.Close()
	last := pipes[len(pipes)-1]
	flow(last)
	if got := size(last); got != pipeSize {
		t.Fatalf("a pipe holds %d bytes after one grown pipe closed, want %d", got, pipeSize)
	}
	for _, p := range pipes {
		p.r.Close()
	}
	if n := grown.Load(); n != 0 {
		t.Fatalf("%d pipes counted as grown after all closed", n)
	}
}

// TestNextPause: the pause halves when the reader drained the pipe's
// worth or more since the last one, doubles when it drained less than
// half of it, and stays within its bounds.
func TestNextPause(t *testing.T) {
	const size = 1 << 20
	for _, c := range []struct {
		cur     int64
		drained int
		want    int64
	}{
		{0, 0, firstPause},
		{0, size, firstPause},
		{200_000, 3 * size, 100_000},
		{200_000, size, 100_000},
		{200_000, size - 1, 200_000},
		{200_000, size / 2, 200_000},
		{200_000, size/2 - 1, 400_000},
		{200_000, 0, 400_000},
		{minPause, size, minPause},
		{minPause + 1, size, minPause},
		{maxPause, 0, maxPause},
		{maxPause - 1, 0, maxPause},
	} {
		if got := nextPause(c.cur, c.drained, size); got != c.want {
			t.Errorf("nextPause(%d, %d, %d) = %d, want %d", c.cur, c.drained, size, got, c.want)
		}
	}
}
