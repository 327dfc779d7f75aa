package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shellguard/shellguard/policy"
)

// FuzzVerify: verifying any file never panics; a file that verifies keeps
// verifying (the answer depends only on the bytes).
func FuzzVerify(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("{\"seq\":1,\"prev\":\"x\",\"hash\":\"y\"}\n"))
	f.Add([]byte("not json\n{}\n"))
	f.Add([]byte("{\"seq\":1}\n{\"seq\":1}\n"))
	// A real log, so mutations start from lines that verify.
	path := filepath.Join(f.TempDir(), "audit.jsonl")
	l, err := Open(path, Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range []string{"ls", "rm -rf build", "echo done"} {
		if _, _, err := l.Append(Event{Time: time.Unix(1, 0), Command: c, Decision: policy.Allow}); err != nil {
			f.Fatal(err)
		}
	}
	l.Close()
	real, _ := os.ReadFile(path)
	if err := Verify(bytes.NewReader(real)); err != nil {
		f.Fatal(err)
	}
	f.Add(real)
	f.Fuzz(func(t *testing.T, data []byte) {
		err1 := Verify(bytes.NewReader(data))
		err2 := Verify(bytes.NewReader(data))
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("not deterministic: %v vs %v", err1, err2)
		}
	})
}
