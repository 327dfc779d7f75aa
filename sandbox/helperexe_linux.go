//go:build linux

package sandbox

// Which program the helper is. Every program that calls Main can be its
// own helper: Command starts /proc/self/exe again. A whole shellguard
// binary, though, initialises everything it links (the MCP SDK, HTTP,
// YAML, JSON Schema, the policy) before Main runs, and touches its pages:
// about 2.5 ms more per cold start on a small virtual machine than a
// program that links only this package. So a build can ship the helper as
// a program of its own, cmd/shellguard-sandbox, installed beside the main
// binary, and Command starts that one when it is provably the same build:
//
//   - it is named HelperName and lies in the directory of this executable;
//   - it is a regular file owned by this uid or root, not writable by group
//     or others, in a directory not writable by group or others, so that
//     only who could replace this executable could replace it;
//   - its GNU build ID (an ELF note, set with `go build -ldflags=-B 0x…`)
//     equals this executable's: `make build` and the release give both
//     binaries of one build the same random ID; a build without one (plain
//     `go build`, tests) never uses a standalone helper;
//   - for each command, it lies outside every writable root of the command
//     (a sandboxed command must not be able to replace what the next cold
//     start runs outside the sandbox).
//
// Anything else, and any doubt, means /proc/self/exe: the running binary,
// which nothing can rewrite while it runs.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// HelperName is the file name of the standalone sandbox helper.
const HelperName = "shellguard-sandbox"

// selfExe is the helper when no standalone one qualifies.
const selfExe = "/proc/self/exe"

// standaloneHelper is the standalone helper beside this executable that
// belongs to this build, or "" (with the reason).
var standaloneHelper = sync.OnceValues(func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	want, err := gnuBuildID(selfExe)
	if err != nil {
		return "", fmt.Errorf("this executable: %w", err)
	}
	p := filepath.Join(filepath.Dir(exe), HelperName)
	if err := checkHelper(p, want); err != nil {
		return "", err
	}
	return p, nil
})

// helperFor returns the program to start as the helper of a command whose
// writable roots are writable.
func helperFor(writable []string) string {
	p, err := standaloneHelper()
	if err != nil || p == "" {
		return selfExe
	}
	for _, w := range writable {
		if under(p, w) || under(filepath.Dir(p), w) {
			return selfExe
		}
	}
	return p
}

// HelperProgram says which program Command starts as the helper of a
// command whose writable roots are writable: a standalone helper beside
// this executable, or this executable itself, and why not the former.
func HelperProgram(writable []string) (path string, why string) {
	p := helperFor(writable)
	if p != selfExe {
		return p, ""
	}
	if _, err := standaloneHelper(); err != nil {
		return p, err.Error()
	}
	return p, "the standalone helper lies inside a writable root"
}

// checkHelper checks that p may stand in for this executable as the
// helper: owned by this uid or root, writable by nobody else (the file
// and its directory), and built with the GNU build ID want.
func checkHelper(p string, want []byte) error {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	if err := ownedSafely(p, &st); err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := unix.Stat(dir, &st); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if err := ownedSafely(dir, &st); err != nil {
		return err
	}
	got, err := gnuBuildID(p)
	if err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s is from another build", p)
	}
	return nil
}

func ownedSafely(p string, st *unix.Stat_t) error {
	if st.Uid != 0 && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s is owned by uid %d", p, st.Uid)
	}
	if st.Mode&0o022 != 0 {
		return fmt.Errorf("%s is writable by group or others", p)
	}
	return nil
}

// ntGNUBuildID is the note type of a GNU build ID (elf.h).
const ntGNUBuildID = 3

// errNoBuildID: the binary carries no GNU build ID note.
var errNoBuildID = errors.New("no GNU build ID (built without -ldflags=-B)")

// gnuBuildID reads the NT_GNU_BUILD_ID note of the ELF file p: its header,
// its section headers and its note sections, three reads or so instead of
// all that debug/elf parses (a fifth of a millisecond in a fresh CLI).
// TestGNUBuildIDAgreesWithDebugELF checks it against debug/elf.
// Go's linker puts the note in a section of its own, outside the PT_NOTE
// segment (which holds the Go build ID).
func gnuBuildID(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var eh [64]byte
	if _, err := f.ReadAt(eh[:], 0); err != nil {
		return nil, fmt.Errorf("ELF header: %w", err)
	}
	// ELF constants from elf.h (debug/elf would link compress/* and
	// debug/dwarf into the helper, whose initialisation every start pays).
	const eiClass, elfClass64, eiData, elfData2LSB, elfData2MSB, shtNote = 4, 2, 5, 1, 2, 7
	if string(eh[:4]) != "\x7fELF" || eh[eiClass] != elfClass64 {
		return nil, errors.New("not a 64-bit ELF file")
	}
	var bo binary.ByteOrder
	switch eh[eiData] {
	case elfData2LSB:
		bo = binary.LittleEndian
	case elfData2MSB:
		bo = binary.BigEndian
	default:
		return nil, errors.New("ELF file of unknown byte order")
	}
	shoff, shentsize, shnum := bo.Uint64(eh[0x28:]), int(bo.Uint16(eh[0x3a:])), int(bo.Uint16(eh[0x3c:]))
	if shentsize < 64 || shnum == 0 || shnum > 1<<12 || shoff > 1<<40 {
		return nil, errors.New("ELF section headers out of range")
	}
	sh := make([]byte, shnum*shentsize)
	if _, err := f.ReadAt(sh, int64(shoff)); err != nil {
		return nil, fmt.Errorf("ELF section headers: %w", err)
	}
	for i := 0; i < shnum; i++ {
		h := sh[i*shentsize:]
		off, size := bo.Uint64(h[0x18:]), bo.Uint64(h[0x20:])
		if bo.Uint32(h[4:]) != shtNote || size > 1<<16 || off > 1<<40 {
			continue
		}
		b := make([]byte, size)
		if _, err := f.ReadAt(b, int64(off)); err != nil {
			return nil, fmt.Errorf("ELF note: %w", err)
		}
		if id := findGNUBuildID(b, bo); id != nil {
			return id, nil
		}
	}
	return nil, errNoBuildID
}

// findGNUBuildID walks the notes in b (namesz, descsz, type, name and desc
// each padded to 4 bytes).
func findGNUBuildID(b []byte, bo binary.ByteOrder) []byte {
	pad := func(n uint32) int { return int((uint64(n) + 3) &^ 3) }
	for len(b) >= 12 {
		namesz, descsz, typ := bo.Uint32(b), bo.Uint32(b[4:]), bo.Uint32(b[8:])
		b = b[12:]
		nl, dl := pad(namesz), pad(descsz)
		if nl < 0 || dl < 0 || nl > len(b) || dl > len(b)-nl {
			return nil
		}
		name, desc := b[:namesz], b[nl:nl+int(descsz)]
		if typ == ntGNUBuildID && string(name) == "GNU\x00" && len(desc) > 0 {
			return bytes.Clone(desc)
		}
		b = b[nl+dl:]
	}
	return nil
}
