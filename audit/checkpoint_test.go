package audit

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// Removing lines from the end, or emptying the file, is caught by
// VerifyLog and stops the Logger from appending.
func TestCheckpointCatchesTruncation(t *testing.T) {
	for _, key := range [][]byte{nil, []byte("0123456789abcdef0123")} {
		for _, tc := range []struct {
			name string
			keep func(lines []string) string
			line int64 // the line VerifyLog names
		}{
			{"last line dropped", func(l []string) string { return strings.Join(l[:4], "") }, 5},
			{"last three dropped", func(l []string) string { return strings.Join(l[:2], "") }, 3},
			{"emptied", func([]string) string { return "" }, 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				path, lines := writeLog(t, 5, key)
				if res, err := VerifyLog(path, key); err != nil || res.Lines != 5 {
					t.Fatalf("intact: %+v %v", res, err)
				}
				os.WriteFile(path, []byte(tc.keep(lines)), 0o600)
				_, err := VerifyLog(path, key)
				var ve *VerifyError
				if !errors.As(err, &ve) || ve.Line != tc.line || !strings.Contains(ve.Reason, "checkpoint") {
					t.Fatalf("VerifyLog: %v", err)
				}
				if key == nil {
					// The chain alone still passes: that is the gap.
					f, _ := os.Open(path)
					defer f.Close()
					if err := Verify(f); err != nil {
						t.Fatalf("chain: %v", err)
					}
				}
				l, err := Open(path, Options{Key: key, NoSync: true})
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				if _, _, err := l.Append(event(9)); err == nil || !strings.Contains(err.Error(), "checkpoint") {
					t.Fatalf("appended after truncation: %v", err)
				}
			})
		}
	}
}

// A log rewritten with fresh hashes from some line on no longer matches
// its checkpoint's head; an edited checkpoint no longer matches its MAC.
func TestCheckpointCatchesRewrite(t *testing.T) {
	key := []byte("0123456789abcdef0123")
	path, lines := writeLog(t, 3, key)
	// Rewrite the log as two lines plus a different third one, signed
	// (the writer has the key) but with the old checkpoint put back.
	cp, _ := os.ReadFile(CheckpointPath(path))
	os.WriteFile(path, []byte(strings.Join(lines[:2], "")), 0o600)
	os.Remove(CheckpointPath(path))
	l, _ := Open(path, Options{Key: key, NoSync: true})
	if _, _, err := l.Append(event(7)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	os.WriteFile(CheckpointPath(path), cp, 0o600)
	if _, err := VerifyLog(path, key); !errors.Is(err, ErrBroken) {
		t.Fatalf("rewritten: %v", err)
	}
	path, _ = writeLog(t, 3, key)
	cp, _ = os.ReadFile(CheckpointPath(path))
	os.WriteFile(CheckpointPath(path), []byte(strings.Replace(string(cp), `"lines":3`, `"lines":2`, 1)), 0o600)
	_, err := VerifyLog(path, key)
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Line != 0 || !strings.Contains(ve.Reason, "signature") {
		t.Fatalf("edited checkpoint: %v", err)
	}
	os.WriteFile(CheckpointPath(path), []byte("{"), 0o600)
	if _, err := VerifyLog(path, key); !errors.Is(err, ErrBroken) {
		t.Fatalf("torn checkpoint: %v", err)
	}
	os.Remove(CheckpointPath(path))
	if _, err := VerifyLog(path, key); !errors.Is(err, ErrNoCheckpoint) {
		t.Fatalf("no checkpoint: %v", err)
	}
}

// A writer that stopped between its line and the checkpoint leaves a log
// one line ahead: that is not tampering.
func TestCheckpointBehindIsFine(t *testing.T) {
	path, _ := writeLog(t, 3, nil)
	cp, _ := os.ReadFile(CheckpointPath(path))
	l, _ := Open(path, Options{NoSync: true})
	l.Append(event(4))
	l.Close()
	os.WriteFile(CheckpointPath(path), cp, 0o600)
	if res, err := VerifyLog(path, nil); err != nil || res.Lines != 4 {
		t.Fatalf("%+v %v", res, err)
	}
}

// A signed log read without its key is told apart from a tampered one;
// with the key, tampering is found.
func TestKeyedLogWithoutKey(t *testing.T) {
	key := []byte("0123456789abcdef0123")
	path, lines := writeLog(t, 3, key)
	res, err := VerifyLog(path, nil)
	if !errors.Is(err, ErrNeedKey) || errors.Is(err, ErrBroken) || !res.Signed || res.Lines != 3 {
		t.Fatalf("intact, no key: %+v %v", res, err)
	}
	if _, err := VerifyChain(strings.NewReader(strings.Join(lines, "")), nil); !errors.Is(err, ErrNeedKey) {
		t.Fatalf("chain, no key: %v", err)
	}
	// Edited: without the key only "need key" can be said; with it, broken.
	os.WriteFile(path, []byte(strings.Replace(strings.Join(lines, ""), "echo 2", "echo X", 1)), 0o600)
	if _, err := VerifyLog(path, nil); !errors.Is(err, ErrNeedKey) {
		t.Fatalf("edited, no key: %v", err)
	}
	if _, err := VerifyLog(path, key); !errors.Is(err, ErrBroken) {
		t.Fatalf("edited, key: %v", err)
	}
	// Truncated: found without the key too.
	os.WriteFile(path, []byte(lines[0]), 0o600)
	if _, err := VerifyLog(path, nil); !errors.Is(err, ErrBroken) {
		t.Fatalf("truncated, no key: %v", err)
	}
	// Relabelled as unsigned: the key still checks it.
	path, lines = writeLog(t, 2, key)
	os.WriteFile(path, []byte(strings.ReplaceAll(strings.Join(lines, ""), `"alg":"hmac-sha256",`, "")), 0o600)
	if _, err := VerifyLog(path, key); !errors.Is(err, ErrBroken) {
		t.Fatalf("relabelled: %v", err)
	}
	// A Logger without the key refuses to go on with a signed log.
	l, _ := Open(path, Options{NoSync: true})
	defer l.Close()
	if _, _, err := l.Append(event(3)); err == nil {
		t.Fatal("appended unsigned to a signed log")
	}
}

// A partial last line stops appends; nothing is written after it.
func TestAppendRefusesPartialLine(t *testing.T) {
	path, _ := writeLog(t, 2, nil)
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"seq":3,`)
	f.Close()
	before, _ := os.ReadFile(path)
	l, _ := Open(path, Options{NoSync: true})
	defer l.Close()
	if _, _, err := l.Append(event(3)); !errors.Is(err, ErrPartialLine) {
		t.Fatalf("%v", err)
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(before) {
		t.Fatal("appended after a partial line")
	}
}

// A full disk is an error from Append, not a silent loss.
func TestAppendDiskFull(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/audit.jsonl"
	if err := os.Symlink("/dev/full", path); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, _, err := l.Append(event(1)); err == nil || !strings.Contains(err.Error(), "no space") {
		t.Fatalf("%v", err)
	}
}
