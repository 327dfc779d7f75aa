// Package audit keeps a tamper-evident log of every command shellguard was
// asked to run: JSON lines, redacted, appended and synced to disk, each
// line chained to the one before it by hash. A command that runs has two
// lines: "started", written (and synced) before it starts, and "ended"
// after, naming the started line; a call that never started has only its
// "ended" line.
//
// A line is the JSON object of an [Event] plus "seq" (1, 2, 3, …), "prev"
// (the hash of the previous line; [Genesis] for the first), "alg"
// ("hmac-sha256" when keyed) and, last, "hash": SHA-256 — or
// HMAC-SHA-256 when a key is configured — over the line's bytes up to the
// comma before "hash". [VerifyChain] recomputes the chain and reports the
// first line that was edited, deleted, inserted or moved.
//
// A chain alone cannot show that lines were removed from its END. So the
// Logger also keeps a checkpoint beside the log ([CheckpointPath]): the
// line count and head hash, signed like the lines, rewritten after every
// append. [VerifyLog] compares the two, and the Logger refuses to append
// to a log that is shorter than its checkpoint, that ends with a partial
// line, or whose checkpoint does not verify.
//
// What this does not give: without a key, anyone who can write the files
// can rewrite the chain and the checkpoint with fresh hashes; with a key,
// someone who can write them may still put back an older log together
// with its older checkpoint (a copy kept elsewhere, or an external anchor,
// catches that).
//
// Several goroutines and several processes may append to one file: each
// append takes an exclusive flock on the file, reads the last line's hash
// and the checkpoint under the lock and writes its line with a single
// O_APPEND write.
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
	Time    time.Time `json:"time"`
	Session string    `json:"session,omitempty"`
	// Phase is PhaseStarted for the line written before a command starts,
	// PhaseEnded for the one written after it ended or was refused.
	Phase string `json:"phase,omitempty"`
	// StartSeq, on an ended line, is the seq of its started line (0: the
	// command never started).
	StartSeq int64           `json:"start_seq,omitempty"`
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
	// NetGranted are the network destinations (host:port) a person
	// granted beyond the sandbox's allowlist that were allowed to this
	// run; NetGrantScope is set on a run made again after a grant: how
	// long that grant holds (once, session or always).
	NetGranted    []string `json:"net_granted,omitempty"`
	NetGrantScope string   `json:"net_grant_scope,omitempty"`
	// FSGranted are the paths a person granted beyond the sandbox's
	// file-system rules that this run had ("/dir (write)", "/file
	// (read)"); FSGrantScope is set on a run made again after such a
	// grant: how long it holds.
	FSGranted    []string `json:"fs_granted,omitempty"`
	FSGrantScope string   `json:"fs_grant_scope,omitempty"`
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

// The phases of a command.
const (
	PhaseStarted = "started"
	PhaseEnded   = "ended"
)

// algHMAC marks a line or checkpoint signed with a key.
const algHMAC = "hmac-sha256"

// record is the line layout: seq and prev first, hash appended last.
type record struct {
	Seq  int64  `json:"seq"`
	Prev string `json:"prev"`
	Alg  string `json:"alg,omitempty"`
	Event
}

func alg(key []byte) string {
	if key != nil {
		return algHMAC
	}
	return ""
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
	cp   *os.File // the checkpoint
	path string
	opts Options
}

// Open opens (creating if needed, mode 0600) the log at path for
// appending, and its checkpoint at CheckpointPath(path).
func Open(path string, o Options) (*Logger, error) {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	cp, err := os.OpenFile(CheckpointPath(path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("audit: checkpoint: %w", err)
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
	return &Logger{f: f, cp: cp, path: path, opts: o}, nil
}

// Close closes the file.
func (l *Logger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := errors.Join(l.f.Close(), l.cp.Close())
	l.f, l.cp = nil, nil
	return err
}

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("audit: logger closed")

// Append redacts e, chains it to the file's last line, appends it and
// updates the checkpoint. It returns the line's sequence number and hash.
// It fails, writing nothing, when the log ends with a partial line, holds
// fewer lines than its checkpoint records or was rewritten after it.
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
		return 0, "", fmt.Errorf("%w (%s)", err, l.path)
	}
	cp, ok, err := readCheckpoint(l.cp, l.opts.Key, true)
	if err != nil {
		return 0, "", fmt.Errorf("%w (%s)", err, CheckpointPath(l.path))
	}
	if ok {
		if err := cp.check(lastSeq, lastHash); err != nil {
			return 0, "", fmt.Errorf("audit: %s: %w", l.path, err)
		}
	}
	line, sum, err := encode(record{Seq: lastSeq + 1, Prev: lastHash, Alg: alg(l.opts.Key), Event: e}, l.opts.Key)
	if err != nil {
		return 0, "", err
	}
	if _, err := l.f.Write(line); err != nil {
		return 0, "", fmt.Errorf("audit: write %s: %w", l.path, err)
	}
	if !l.opts.NoSync {
		if err := l.f.Sync(); err != nil {
			return 0, "", fmt.Errorf("audit: sync %s: %w", l.path, err)
		}
	}
	if err := writeCheckpoint(l.cp, lastSeq+1, sum, l.opts.Key, !l.opts.NoSync); err != nil {
		return 0, "", fmt.Errorf("audit: checkpoint %s: %w", CheckpointPath(l.path), err)
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
			return 0, "", ErrPartialLine
		}
		body := buf[:len(buf)-1]
		if i := bytes.LastIndexByte(body, '\n'); i >= 0 || off == 0 {
			line := body[i+1:]
			var h struct {
				Seq  int64  `json:"seq"`
				Hash string `json:"hash"`
			}
			if err := json.Unmarshal(line, &h); err != nil || len(h.Hash) != 64 {
				return 0, "", errors.New("audit: the last line is not an audit record (edited); nothing is appended after it")
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
	// Signed: the lines say they were signed with a key. Read without
	// one, their links were checked but not their signatures (ErrNeedKey).
	Signed bool
}

// VerifyError locates the first broken line.
type VerifyError struct {
	Line   int64 // 1-based line number in the file; 0: the checkpoint
	Reason string
}

func (e *VerifyError) Error() string {
	if e.Line == 0 {
		return "audit: checkpoint: " + e.Reason
	}
	return fmt.Sprintf("audit: line %d: %s", e.Line, e.Reason)
}

// ErrBroken is matched by every *VerifyError (errors.Is).
var ErrBroken = errors.New("audit: chain broken")

func (e *VerifyError) Is(target error) bool { return target == ErrBroken }

// ErrNeedKey says that a log signed with a key was read without one: its
// lines are linked in order, but whether they were edited cannot be told.
// It is not ErrBroken.
var ErrNeedKey = errors.New("audit: the log is signed with a key (HMAC-SHA256): give the key to verify it")

// ErrPartialLine is returned by Append when the log ends without a
// newline: a torn write, or an edit. Appending after it would make the
// next line unreadable too, so nothing is appended until it is repaired.
var ErrPartialLine = errors.New("audit: the log ends with a partial line (a torn write or an edit): nothing is appended after it; check it with `shellguard audit verify` and repair it")

// Verify checks an unkeyed log read from r. It returns a *VerifyError
// naming the first line that was edited, removed, inserted or moved. Lines
// removed from the end cannot be detected; see VerifyLog.
func Verify(r io.Reader) error {
	_, err := VerifyChain(r, nil)
	return err
}

// VerifyChain checks a log read from r (key as given to the Logger, or
// nil) and returns its line count and head hash. Lines removed from the end
// leave a valid shorter chain: VerifyLog compares it with the checkpoint.
// A signed log read with a nil key has its links checked and returns
// ErrNeedKey unless they are broken.
func VerifyChain(r io.Reader, key []byte) (Result, error) {
	res, _, err := verifyChain(r, key, 0)
	return res, err
}

// verifyChain is VerifyChain that also returns the hash of line at (when
// at is between 1 and the line count).
func verifyChain(r io.Reader, key []byte, at int64) (Result, string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	res := Result{Head: Genesis}
	var hashAt string
	done := func() (Result, string, error) {
		if res.Signed && key == nil {
			return res, hashAt, ErrNeedKey
		}
		return res, hashAt, nil
	}
	var n int64
	for {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			return done()
		}
		n++
		if err != nil && err != io.EOF {
			return res, hashAt, err
		}
		if line[len(line)-1] != '\n' {
			return res, hashAt, &VerifyError{n, "incomplete last line (no newline)"}
		}
		line = line[:len(line)-1]
		if len(line) < hashSuffixLen || !bytes.HasPrefix(line[len(line)-hashSuffixLen:], []byte(`,"hash":"`)) {
			return res, hashAt, &VerifyError{n, "not an audit record (no trailing hash)"}
		}
		body := line[:len(line)-hashSuffixLen]
		got := string(line[len(line)-hashSuffixLen+len(`,"hash":"`) : len(line)-2])
		var rec struct {
			Seq  *int64  `json:"seq"`
			Prev *string `json:"prev"`
			Alg  string  `json:"alg"`
			Hash string  `json:"hash"`
		}
		if err := json.Unmarshal(line, &rec); err != nil || rec.Seq == nil || rec.Prev == nil {
			return res, hashAt, &VerifyError{n, "not an audit record (invalid JSON or missing seq/prev)"}
		}
		if rec.Hash != got {
			return res, hashAt, &VerifyError{n, "hash mismatch: the line was edited"}
		}
		switch {
		case rec.Alg == algHMAC && key == nil:
			// Only its links can be checked.
			res.Signed = true
		case rec.Alg != "" && rec.Alg != algHMAC:
			return res, hashAt, &VerifyError{n, fmt.Sprintf("unknown alg %q: the line was edited", rec.Alg)}
		default:
			// Keyed, a line is checked with the key whatever its alg
			// says: a signed line relabelled as unsigned fails here.
			h := newHash(key)
			h.Write(body)
			if want := hex.EncodeToString(h.Sum(nil)); got != want {
				return res, hashAt, &VerifyError{n, "hash mismatch: the line was edited"}
			}
		}
		switch {
		case *rec.Seq != res.Lines+1 && *rec.Prev != res.Head:
			if *rec.Seq > res.Lines+1 {
				return res, hashAt, &VerifyError{n, fmt.Sprintf("seq %d follows %d: %d line(s) missing before it, or lines moved", *rec.Seq, res.Lines, *rec.Seq-res.Lines-1)}
			}
			return res, hashAt, &VerifyError{n, fmt.Sprintf("seq %d follows %d: a line repeated, inserted or moved", *rec.Seq, res.Lines)}
		case *rec.Seq != res.Lines+1:
			return res, hashAt, &VerifyError{n, fmt.Sprintf("seq %d follows %d although the hash chain holds: seq edited", *rec.Seq, res.Lines)}
		case *rec.Prev != res.Head:
			return res, hashAt, &VerifyError{n, "prev does not match the previous line's hash: a line before it was replaced"}
		}
		res.Lines, res.Head = *rec.Seq, got
		if res.Lines == at {
			hashAt = got
		}
		if err == io.EOF {
			return done()
		}
	}
}
