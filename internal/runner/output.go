package runner

import (
	"io"
	"sync/atomic"

	"github.com/shellguard/shellguard/internal/capture"
)

// Output is the path of one output stream: from the command's pipe
// through the filter (Options.Filter) to the capture buffer and the tee.
type Output struct {
	Buffer *capture.Buffer
	Tee    io.Writer // nil: none
	// Budget counts the bytes the command wrote, before any filter:
	// output a filter removes (terminal escape sequences) still counts.
	Budget *capture.Budget
	Filter func(io.Writer) io.WriteCloser // nil: none
	Read   *atomic.Int64                  // bytes read so far (nil: not counted)
	// Busy, when set, is raised while a chunk read is on its way to the
	// buffer and the tee: a slow tee is progress, not a stalled pipe.
	Busy *atomic.Int32
}

// ReadSize is the size of Output's reads: a pipe's default capacity, so
// that a flood is read in as few calls as the pipe allows.
const ReadSize = 64 << 10

// Copy reads r to its end (or first error) and passes what it reads
// along the path.
func (o Output) Copy(r io.Reader) {
	var sink io.Writer = sinkWriter{o.Buffer, o.Tee, o.Budget}
	if o.Filter != nil {
		f := o.Filter(sink)
		defer f.Close()
		sink = f
	}
	b := make([]byte, ReadSize)
	for {
		n, err := r.Read(b)
		if n > 0 {
			if o.Read != nil {
				o.Read.Add(int64(n))
			}
			o.Budget.Add(n)
			if o.Busy != nil {
				o.Busy.Add(1)
			}
			sink.Write(b[:n])
			if o.Busy != nil {
				o.Busy.Add(-1)
			}
		}
		if err != nil {
			return
		}
	}
}

// sinkWriter keeps output in the capture buffer and passes it to the tee
// until the output budget is exceeded.
type sinkWriter struct {
	buf    *capture.Buffer
	tee    io.Writer
	budget *capture.Budget
}

func (s sinkWriter) Write(b []byte) (int, error) {
	if s.budget.Exceeded() {
		return len(b), nil // the command is being stopped; keep what came before
	}
	s.buf.Write(b)
	if s.tee != nil {
		s.tee.Write(b)
	}
	return len(b), nil
}
