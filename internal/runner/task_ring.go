package runner

import "sort"

// ring keeps the last lines of one output stream within a line and a byte
// bound. Offsets are absolute: the number of bytes the stream had written
// before a given byte, so a reader can ask for what is new since an offset
// it saw before and learn how much of it was dropped meanwhile.
type ring struct {
	maxBytes int
	maxLines int
	buf      []byte  // kept bytes; buf[0] is at offset start
	start    int64   // offset of buf[0]: bytes dropped from the front
	ends     []int64 // offsets just past each kept '\n', oldest first
}

func (r *ring) end() int64 { return r.start + int64(len(r.buf)) }

func (r *ring) write(p []byte) {
	off := r.end()
	for i, c := range p {
		if c == '\n' {
			r.ends = append(r.ends, off+int64(i)+1)
		}
	}
	r.buf = append(r.buf, p...)
	r.trim()
}

func (r *ring) trim() {
	cut := r.start
	if n := len(r.ends); n > r.maxLines {
		cut = r.ends[n-r.maxLines-1]
	}
	if end := r.end(); end-cut > int64(r.maxBytes) {
		need := end - int64(r.maxBytes)
		// Keep whole lines when a line ends within the bound.
		i := sort.Search(len(r.ends), func(i int) bool { return r.ends[i] >= need })
		if i < len(r.ends) && r.ends[i] < end {
			cut = r.ends[i]
		} else {
			cut = need
		}
	}
	if cut <= r.start {
		return
	}
	r.buf = r.buf[cut-r.start:]
	r.start = cut
	i := sort.Search(len(r.ends), func(i int) bool { return r.ends[i] > cut })
	r.ends = r.ends[i:]
	// Re-slicing moves the window forward in the old array; copy once the
	// dead part dominates so the memory stays bounded.
	if cap(r.buf) > 4*max(len(r.buf), 4096) {
		r.buf = append([]byte(nil), r.buf...)
	}
	if cap(r.ends) > 4*max(len(r.ends), 256) {
		r.ends = append([]int64(nil), r.ends...)
	}
}

// since returns the kept bytes from offset from on (all kept bytes when
// from is before them) and how many bytes after from were dropped.
func (r *ring) since(from int64) (data []byte, dropped int64) {
	if from < r.start {
		dropped = r.start - from
		from = r.start
	}
	if from >= r.end() {
		return nil, dropped
	}
	return append([]byte(nil), r.buf[from-r.start:]...), dropped
}

// completeLines returns the kept bytes up to and including the last '\n'.
func (r *ring) completeLines() []byte {
	if len(r.ends) == 0 {
		return nil
	}
	return append([]byte(nil), r.buf[:r.ends[len(r.ends)-1]-r.start]...)
}
