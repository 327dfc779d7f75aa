// Package audit keeps a tamper-evident log of every command shellguard was
// asked to run: one JSON line per call, redacted, appended and synced to
// disk, each line chained to the one before it by hash.
//
// A line is the JSON object of an [Event] plus three fields: "seq" (1, 2,
// 3, …), "prev" (the hash of the previous line; [Genesis] for the first) and,
// last, "hash": SHA-256 — or HMAC-SHA-256 when a key is configured — over
// the line's bytes up to the comma before "hash". [Verify] recomputes the
// chain and reports the first line that was edited, deleted, inserted or
// moved ([VerifyChain] also returns the line count and head hash).
//
// What the chain does not give: anyone who can write the file can rewrite
// it from the edited line onwards with fresh hashes unless a key is used
// (and kept away from them), and removing lines at the END of the file
// leaves a valid shorter chain. To detect truncation, compare the line count
// and head hash that [VerifyChain] returns (and that [Logger.Append] returns for
// each line) with a copy kept elsewhere.
//
// Several goroutines and several processes may append to one file: each
// append takes an exclusive flock on the file, reads the last line's hash
// under the lock and writes its line with a single O_APPEND write.
package audit

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/redact"
)

// Genesis is the "prev" of the first line.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// Event is one call.
type Event struct {
	Time     time.Time       `json:"time"`
	Session  string          `json:"session,omitempty"`
	Command  string          `json:"command"`
	Cwd      string          `json:"cwd,omitempty"`
	Decision policy.Decision `json:"decision"` // allow, ask or deny
	Reasons  []policy.Reason `json:"reasons,omitempty"`
	// Approved is set when an ask was put to an approver: its answer.
	Approved *bool `json:"approved,omitempty"`
	// SandboxMode is the configured mode ("auto", "required", "strict", "off");
	// SandboxApplied names the layers that were in force;
	// Unsandboxed marks a run outside the sandbox (excluded command or
	// dangerously_disable_sandbox).
	SandboxMode    string   `json:"sandbox_mode,omitempty"`
	SandboxApplied []string `json:"sandbox_applied,omitempty"`
	Unsandboxed    bool     `json:"unsandboxed,omitempty"`
	// ExitCode is nil when the command did not run (denied, failed to
	// start); -1 when it was killed on timeout.
	ExitCode     *int   `json:"exit_code"`
	DurationMS   int64  `json:"duration_ms"`
	TimedOut     bool   `json:"timed_out,omitempty"`
	BytesDropped int64  `json:"bytes_dropped,omitempty"`
	TaskID       string `json:"task_id,omitempty"`
	Redactions   int    `json:"redactions,omitempty"` // secrets redacted from the output
	Error        string `json:"error,omitempty"`
}

// record is the line layout: seq and prev first, hash appended last.
type record struct {
	Seq  int64  `json:"seq"`
	Prev string `json:"prev"`
	Event
}

// Options configure a Logger. The zero value: default redaction, no key.
type Options struct {
	// Redactor redacts the event's text fields; nil means redact.Default().
	Redactor *redact.Redactor
	// Key, if set, makes the line hash an HMAC-SHA-256 with this key, so
	// that whoever lacks the key cannot re-forge the chain after an edit.
	Key []byte
	// NoSync skips fsync after each line (tests only).
	NoSync bool
}

// Logger appends events to one file.
type Logger struct {
	mu   sync.Mutex
	f    *os.File
	opts Options
}

// Open opens (creating if needed, mode 0600) the log at path for appending.
func Open(path string, o Options) (*Logger, error) {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if errors.Is(statErr, os.ErrNotExist) && !o.NoSync {
		// A new file: make its directory entry durable too.
		if d, err := os.Open(filepath.Dir(path)); err == nil {
			d.Sync()
			d.Close()
		}
	}
	if o.Redactor == nil {
		o.Redactor = redact.Default()
	}
	return &Logger{f: f, opts: o}, nil
}

// Close closes the file.
func (l *Logger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("audit: logger closed")

// Append redacts e, chains it to the file's last line and appends it. It
// returns the line's sequence number and hash.
func (l *Logger) Append(e Event) (seq int64, sum string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, "", ErrClosed
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Time = e.Time.UTC()
	l.redactEvent(&e)
	if err := lockFile(l.f); err != nil {
		return 0, "", fmt.Errorf("audit: lock: %w", err)
	}
	defer unlockFile(l.f)
	lastSeq, lastHash, err := lastLine(l.f)
	if err != nil {
		return 0, "", err
	}
	line, sum, err := encode(record{Seq: lastSeq + 1, Prev: lastHash, Event: e}, l.opts.Key)
	if err != nil {
		return 0, "", err
	}
	if _, err := l.f.Write(line); err != nil {
		return 0, "", fmt.Errorf("audit: write: %w", err)
	}
	if !l.opts.NoSync {
		if err := l.f.Sync(); err != nil {
			return 0, "", fmt.Errorf("audit: sync: %w", err)
		}
	}
	return lastSeq + 1, sum, nil
}

func (l *Logger) redactEvent(e *Event) {
	r := l.opts.Redactor
	e.Command = r.String(e.Command)
	e.Cwd = r.String(e.Cwd)
	e.Error = r.String(e.Error)
	if len(e.Reasons) > 0 {
		rs := make([]policy.Reason, len(e.Reasons))
		for i, x := range e.Reasons {
			x.Message = r.String(x.Message)
			x.Rule = r.String(x.Rule)
			rs[i] = x
		}
		e.Reasons = rs
	}
}

func newHash(key []byte) hash.Hash {
	if key != nil {
		return hmac.New(sha256.New, key)
	}
	return sha256.New()
}

const hashSuffixLen = len(`,"hash":"`) + 64 + len(`"}`)

// encode renders a record as a line (with '\n') and returns its hash.
func encode(r record, key []byte) ([]byte, string, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return nil, "", fmt.Errorf("audit: %w", err)
	}
	body = body[:len(body)-1] // drop '}'
	h := newHash(key)
	h.Write(body)
	sum := hex.EncodeToString(h.Sum(nil))
	line := make([]byte, 0, len(body)+hashSuffixLen+1)
	line = append(line, body...)
	line = append(line, `,"hash":"`...)
	line = append(line, sum...)
	line = append(line, "\"}\n"...)
	return line, sum, nil
}

// lastLine reads the seq and hash of the file's last line (0, Genesis for
// an empty file). The caller holds the lock.
func lastLine(f *os.File) (int64, string, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, "", fmt.Errorf("audit: %w", err)
	}
	size := st.Size()
	if size == 0 {
		return 0, Genesis, nil
	}
	// Read backwards in growing chunks until the line start is found.
	chunk := int64(4096)
	for {
		off := max(size-chunk, 0)
		buf := make([]byte, size-off)
		if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
			return 0, "", fmt.Errorf("audit: %w", err)
		}
		if buf[len(buf)-1] != '\n' {
			return 0, "", fmt.Errorf("audit: log does not end with a newline (torn or edited last line)")
		}
		body := buf[:len(buf)-1]
		if i := bytes.LastIndexByte(body, '\n'); i >= 0 || off == 0 {
			line := body[i+1:]
			var h struct {
				Seq  int64  `json:"seq"`
				Hash string `json:"hash"`
			}
			if err := json.Unmarshal(line, &h); err != nil || len(h.Hash) != 64 {
				return 0, "", fmt.Errorf("audit: last line is not an audit record")
			}
			return h.Seq, h.Hash, nil
		}
		chunk *= 4
	}
}

// Result is what Verify found in an intact log.
type Result struct {
	Lines int64  // number of lines (= last seq)
	Head  string // hash of the last line (Genesis if empty)
}

// VerifyError locates the first broken line.
type VerifyError struct {
	Line   int64 // 1-based line number in the file
	Reason string
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("audit: line %d: %s", e.Line, e.Reason)
}

// ErrBroken is matched by every *VerifyError (errors.Is).
var ErrBroken = errors.New("audit: chain broken")

func (e *VerifyError) Is(target error) bool { return target == ErrBroken }

// Verify checks an unkeyed log read from r. It returns a *VerifyError
// naming the first line that was edited, removed, inserted or moved. Lines
// removed from the end cannot be detected; see VerifyChain.
func Verify(r io.Reader) error {
	_, err := VerifyChain(r, nil)
	return err
}

// VerifyChain checks a log read from r (key as given to the Logger, or
// nil) and returns its line count and head hash. Lines removed from the end
// leave a valid shorter chain: compare Result with a copy kept elsewhere.
func VerifyChain(r io.Reader, key []byte) (Result, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	res := Result{Head: Genesis}
	var n int64
	for {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			return res, nil
		}
		n++
		if err != nil && err != io.EOF {
			return res, err
		}
		if line[len(line)-1] != '\n' {
			return res, &VerifyError{n, "incomplete last line (no newline)"}
		}
		line = line[:len(line)-1]
		if len(line) < hashSuffixLen || !bytes.HasPrefix(line[len(line)-hashSuffixLen:], []byte(`,"hash":"`)) {
			return res, &VerifyError{n, "not an audit record (no trailing hash)"}
		}
		body := line[:len(line)-hashSuffixLen]
		got := string(line[len(line)-hashSuffixLen+len(`,"hash":"`) : len(line)-2])
		var rec struct {
			Seq  *int64  `json:"seq"`
			Prev *string `json:"prev"`
			Hash string  `json:"hash"`
		}
		if err := json.Unmarshal(line, &rec); err != nil || rec.Seq == nil || rec.Prev == nil {
			return res, &VerifyError{n, "not an audit record (invalid JSON or missing seq/prev)"}
		}
		h := newHash(key)
		h.Write(body)
		if want := hex.EncodeToString(h.Sum(nil)); got != want || rec.Hash != got {
			return res, &VerifyError{n, "hash mismatch: the line was edited"}
		}
		switch {
		case *rec.Seq != res.Lines+1 && *rec.Prev != res.Head:
			if *rec.Seq > res.Lines+1 {
				return res, &VerifyError{n, fmt.Sprintf("seq %d follows %d: %d line(s) missing before it, or lines moved", *rec.Seq, res.Lines, *rec.Seq-res.Lines-1)}
			}
			return res, &VerifyError{n, fmt.Sprintf("seq %d follows %d: a line repeated, inserted or moved", *rec.Seq, res.Lines)}
		case *rec.Seq != res.Lines+1:
			return res, &VerifyError{n, fmt.Sprintf("seq %d follows %d although the hash chain holds: seq edited", *rec.Seq, res.Lines)}
		case *rec.Prev != res.Head:
			return res, &VerifyError{n, "prev does not match the previous line's hash: a line before it was replaced"}
		}
		res.Lines, res.Head = *rec.Seq, got
		if err == io.EOF {
			return res, nil
		}
	}
}
