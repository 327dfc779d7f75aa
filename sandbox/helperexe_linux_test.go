//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFindGNUBuildID reads the build ID out of a note list and refuses
// malformed ones.
func TestFindGNUBuildID(t *testing.T) {
	note := func(name string, typ uint32, desc []byte) []byte {
		var b []byte
		b = binary.LittleEndian.AppendUint32(b, uint32(len(name)))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(desc)))
		b = binary.LittleEndian.AppendUint32(b, typ)
		b = append(b, name...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		b = append(b, desc...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	id := []byte{0xde, 0xad, 0xbe, 0xef, 0x01}
	all := append(note("Go\x00", 4, []byte("go-build-id/of/some/length")), note("GNU\x00", ntGNUBuildID, id)...)
	if got := findGNUBuildID(all, binary.LittleEndian); !bytes.Equal(got, id) {
		t.Fatalf("got %x, want %x", got, id)
	}
	if got := findGNUBuildID(note("Go\x00", ntGNUBuildID, id), binary.LittleEndian); got != nil {
		t.Fatalf("a note of another owner was taken: %x", got)
	}
	bad := note("GNU\x00", ntGNUBuildID, id)
	binary.LittleEndian.PutUint32(bad[4:], 1<<30) // descsz past the end
	if got := findGNUBuildID(bad, binary.LittleEndian); got != nil {
		t.Fatalf("a truncated note was read: %x", got)
	}
	if got := findGNUBuildID(all[:7], binary.LittleEndian); got != nil {
		t.Fatalf("a short buffer was read: %x", got)
	}
}

// buildHelper builds cmd/shellguard-sandbox into dir with the GNU build ID
// id (hex, without 0x).
func buildHelper(t *testing.T, dir, id string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		skipOrFail(t, "no go toolchain to build the helper with: %v", err)
	}
	p := filepath.Join(dir, HelperName)
	cmd := exec.Command(gobin, "build", "-ldflags", "-B 0x"+id, "-o", p, "../cmd/shellguard-sandbox")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the helper: %v\n%s", err, out)
	}
	return p
}

// TestStandaloneHelper: the standalone helper is taken only when it is of
// this build, writable by nobody else and outside the command's writable
// roots; taken, it applies every layer (a cold start and a warm one) and
// reports how the command ended, as the re-executed binary does.
func TestStandaloneHelper(t *testing.T) {
	f := newFixture(t)
	bin := filepath.Join(f.root, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	p := buildHelper(t, bin, "00112233445566778899aabbccddeeff")
	id, err := gnuBuildID(p)
	if err != nil || !bytes.Equal(id, []byte{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}) {
		t.Fatalf("build ID of the helper: %x %v", id, err)
	}
	if err := checkHelper(p, id); err != nil {
		t.Fatalf("the helper of this build was refused: %v", err)
	}
	if err := checkHelper(p, []byte{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "another build") {
		t.Fatalf("a helper of another build was taken: %v", err)
	}
	for _, target := range []string{p, bin} {
		fi, _ := os.Stat(target)
		os.Chmod(target, fi.Mode().Perm()|0o020)
		err := checkHelper(p, id)
		os.Chmod(target, fi.Mode().Perm())
		if err == nil || !strings.Contains(err.Error(), "writable by group or others") {
			t.Fatalf("a helper in reach of others (%s group-writable) was taken: %v", target, err)
		}
	}
	if _, err := gnuBuildID(selfExe); err == nil {
		t.Log("this test binary has a GNU build ID")
	}

	old := standaloneHelper
	standaloneHelper = func() (string, error) { return p, nil }
	t.Cleanup(func() { standaloneHelper = old })
	if got := helperFor([]string{f.ws, bin}); got != selfExe {
		t.Fatalf("a helper inside a writable root was taken: %s", got)
	}
	if got := helperFor([]string{f.ws}); got != p {
		t.Fatalf("helperFor: %s, want %s", got, p)
	}
	cmd, h, err := Command(context.Background(), Spec{Workspace: f.ws, Home: f.home}, "true", f.env(), f.ws)
	if err != nil {
		t.Fatal(err)
	}
	h.Close()
	if cmd.Path != p {
		t.Fatalf("Command starts %s, want the standalone helper %s", cmd.Path, p)
	}
	a := f.assertActive(t, Spec{})
	need(t, a, LayerPidNS)
	var ok bool
	var code int
	f.onEnded = func(c int, o bool) { code, ok = c, o }
	if r := f.run(t, Spec{}, "exit 5", 20*time.Second); r.code != 5 || !ok || code != 5 {
		t.Fatalf("exit %d, reported %v %d", r.code, ok, code)
	}
	warmPool(t, f, Spec{}, 1)
	f.assertActive(t, Spec{})
	if !f.lastWarm {
		t.Fatal("the probe did not run warm")
	}
}

// buildIDByDebugELF is gnuBuildID as debug/elf reads it: the reference.
func buildIDByDebugELF(p string) ([]byte, error) {
	f, err := elf.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	for _, sec := range f.Sections {
		if sec.Type != elf.SHT_NOTE || sec.Size > 1<<16 {
			continue
		}
		b, err := io.ReadAll(sec.Open())
		if err != nil {
			return nil, err
		}
		if id := findGNUBuildID(b, f.ByteOrder); id != nil {
			return id, nil
		}
	}
	return nil, errNoBuildID
}

// TestGNUBuildIDAgreesWithDebugELF: the lean reader finds what debug/elf
// finds, in this test binary and in system programs (built by a C
// toolchain, with a build ID as a rule), and refuses damaged files.
func TestGNUBuildIDAgreesWithDebugELF(t *testing.T) {
	found := 0
	for _, p := range []string{selfExe, "/bin/sh", "/usr/bin/bash", "/bin/ls", "/usr/bin/env"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		want, werr := buildIDByDebugELF(p)
		got, gerr := gnuBuildID(p)
		if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) {
			t.Errorf("%s: got %x (%v), debug/elf %x (%v)", p, got, gerr, want, werr)
		}
		if gerr == nil {
			found++
		}
	}
	if found == 0 {
		t.Log("no program here carries a GNU build ID; the positive case is TestStandaloneHelper's")
	}
	// A file cut short, and one that is not ELF, are refused.
	b, err := os.ReadFile(selfExe)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, data := range map[string][]byte{"cut": b[:4096], "header": b[:40], "text": []byte("#!/bin/sh\n")} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if id, err := gnuBuildID(p); err == nil {
			t.Errorf("%s: build ID %x from a damaged file", name, id)
		}
	}
}
