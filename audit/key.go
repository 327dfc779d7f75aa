package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
)

// MinKeyLen is the shortest key ReadKeyFile accepts.
const MinKeyLen = 16

// ReadKeyFile reads an HMAC key from a file: its content without trailing
// whitespace (so a key written by `head -c 32 /dev/urandom | base64 >
// FILE` works), at least MinKeyLen bytes and at most 4 KiB. A file the
// group or others may read or write is refused (except on Windows).
func ReadKeyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("audit key: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("audit key: %s can be read or written by others (mode %04o): run chmod 600 on it", path, st.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(f, 4<<10+1))
	if err != nil {
		return nil, fmt.Errorf("audit key: %w", err)
	}
	if len(b) > 4<<10 {
		return nil, fmt.Errorf("audit key: %s is larger than 4 KiB", path)
	}
	b = bytes.TrimRight(b, " \t\r\n")
	if len(b) < MinKeyLen {
		return nil, errors.New("audit key: " + path + fmt.Sprintf(" holds fewer than %d bytes", MinKeyLen))
	}
	return b, nil
}
