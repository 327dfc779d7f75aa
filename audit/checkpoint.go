package audit

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// The checkpoint is one JSON line beside the log: the log's line count
// and head hash when it was last appended to, and a MAC over both (SHA-256,
// or HMAC-SHA256 under the log's key). It turns the chain's blind spot —
// lines removed from the end, an emptied file — into a mismatch.

// CheckpointPath is the checkpoint of the log at log.
func CheckpointPath(log string) string { return log + ".head" }

type checkpoint struct {
	Lines int64  `json:"lines"`
	Head  string `json:"head"`
	Alg   string `json:"alg,omitempty"`
	MAC   string `json:"mac"`
}

func (c checkpoint) mac(key []byte) string {
	h := newHash(key)
	fmt.Fprintf(h, "shellguard audit checkpoint\n%d\n%s\n", c.Lines, c.Head)
	return hex.EncodeToString(h.Sum(nil))
}

// check compares a log whose last line is (seq, head) with c. A log
// longer than c passes: the writer stopped between its line and the
// checkpoint, which VerifyLog checks further.
func (c checkpoint) check(seq int64, head string) error {
	switch {
	case seq < c.Lines && seq == 0:
		return fmt.Errorf("the log is empty but its checkpoint records %d lines: the file was emptied or replaced", c.Lines)
	case seq < c.Lines:
		return fmt.Errorf("the log ends at line %d but its checkpoint records %d lines: lines were removed from the end", seq, c.Lines)
	case seq == c.Lines && head != c.Head:
		return fmt.Errorf("line %d is not the one the checkpoint records: the log was rewritten", seq)
	}
	return nil
}

// readCheckpoint reads the checkpoint in f; ok is false when there is
// none yet (an empty file). With checkMAC, the MAC is checked with key
// (and a checkpoint signed with a key is refused without one).
func readCheckpoint(f io.ReaderAt, key []byte, checkMAC bool) (c checkpoint, ok bool, err error) {
	buf := make([]byte, 1024)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return c, false, fmt.Errorf("audit: checkpoint: %w", err)
	}
	if n == 0 {
		return c, false, nil
	}
	if n == len(buf) || buf[n-1] != '\n' || json.Unmarshal(buf[:n-1], &c) != nil || len(c.Head) != 64 || c.Lines < 0 {
		return c, false, errors.New("audit: the checkpoint is unreadable (a torn write or an edit)")
	}
	if !checkMAC {
		return c, true, nil
	}
	switch {
	case c.Alg != alg(key) && key == nil:
		return c, false, errors.New("audit: the checkpoint is signed with a key, and no key is configured")
	case c.Alg != alg(key):
		return c, false, errors.New("audit: the checkpoint is not signed with the configured key: the log was written without one (start a new log when adding a key)")
	case c.MAC != c.mac(key):
		return c, false, errors.New("audit: the checkpoint's signature does not match: it was edited")
	}
	return c, true, nil
}

// writeCheckpoint replaces the checkpoint in f with (lines, head).
func writeCheckpoint(f *os.File, lines int64, head string, key []byte, sync bool) error {
	c := checkpoint{Lines: lines, Head: head, Alg: alg(key)}
	c.MAC = c.mac(key)
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := f.WriteAt(b, 0); err != nil {
		return err
	}
	if err := f.Truncate(int64(len(b))); err != nil {
		return err
	}
	if sync {
		return f.Sync()
	}
	return nil
}

// ErrNoCheckpoint is returned by VerifyLog for a log without a checkpoint:
// its chain was checked, but lines removed from its end cannot be told.
var ErrNoCheckpoint = errors.New("audit: no checkpoint beside the log: lines removed from its end cannot be detected")

// VerifyLog checks the log at path like VerifyChain and then against its
// checkpoint (CheckpointPath): a log shorter than the checkpoint records,
// emptied, or rewritten after it is a *VerifyError, as is a checkpoint
// whose signature does not match. A signed log read without its key is
// checked for links, length and head, and returns ErrNeedKey if those
// hold; a log without a checkpoint returns ErrNoCheckpoint if its chain
// holds.
func VerifyLog(path string, key []byte) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	var cp checkpoint
	var haveCP bool
	cf, err := os.Open(CheckpointPath(path))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return Result{}, fmt.Errorf("audit: %w", err)
	default:
		defer cf.Close()
		cp, haveCP, err = readCheckpoint(cf, key, false)
		if err != nil {
			return Result{}, &VerifyError{0, "unreadable (a torn write or an edit)"}
		}
	}
	res, hashAt, err := verifyChain(f, key, cp.Lines)
	if err != nil && !errors.Is(err, ErrNeedKey) {
		return res, err
	}
	needKey := err
	if !haveCP {
		if needKey != nil {
			return res, needKey
		}
		return res, ErrNoCheckpoint
	}
	switch {
	case cp.Alg == algHMAC && key == nil:
		needKey = ErrNeedKey // its signature waits for the key
	case cp.Alg != alg(key):
		return res, &VerifyError{0, "signed differently from the key given"}
	case cp.MAC != cp.mac(key):
		return res, &VerifyError{0, "its signature does not match: it was edited"}
	}
	if err := cp.check(res.Lines, res.Head); err != nil {
		return res, &VerifyError{res.Lines + 1, err.Error()}
	}
	if res.Lines > cp.Lines && cp.Lines > 0 && hashAt != cp.Head {
		return res, &VerifyError{cp.Lines, "not the line the checkpoint records: the log was rewritten"}
	}
	return res, needKey
}
