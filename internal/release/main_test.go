package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestZipArchive(t *testing.T) {
	mt := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b, err := zipArchive("shellguard_1.2.3_windows_amd64", []archFile{{"shellguard.exe", []byte("MZ"), 0o755}, {"README.md", []byte("r"), 0o644}}, mt)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "shellguard_1.2.3_windows_amd64/shellguard.exe,shellguard_1.2.3_windows_amd64/README.md" {
		t.Fatalf("zip holds %v", names)
	}
	again, _ := zipArchive("shellguard_1.2.3_windows_amd64", []archFile{{"shellguard.exe", []byte("MZ"), 0o755}, {"README.md", []byte("r"), 0o644}}, mt)
	if !bytes.Equal(b, again) {
		t.Fatal("the same input gave a different zip")
	}
}

func TestVersionMustBeSemver(t *testing.T) {
	for _, v := range []string{"", "1.2.3", "v1.2", "vX.Y.Z", "v1.2.3 ", "v01.2.3"} {
		if _, err := Build(Options{Version: v, Out: t.TempDir()}, io.Discard); err == nil {
			t.Errorf("version %q accepted", v)
		}
	}
}

// TestMakeRelease tags a clone of this repository and runs `make release`
// for the host platform: the archive must hold a static binary that says
// the tag's version, with the documents, and SHA256SUMS must match.
func TestMakeRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release")
	}
	for _, tool := range []string{"git", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	root, _ := filepath.Abs("../..")
	if err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	clone := filepath.Join(t.TempDir(), "repo")
	run := func(dir string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	// A new repository holding the work tree as it is (committed or not).
	list := run(root, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for _, f := range strings.Split(strings.TrimRight(list, "\x00"), "\x00") {
		src := filepath.Join(root, f)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree, or not a plain file
		}
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(clone, f)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.WriteFile(dst, b, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	run(clone, "git", "init", "-q")
	run(clone, "git", "add", "-A")
	run(clone, "git", "commit", "-q", "-m", "release test")
	target := "linux/" + runtime.GOARCH
	// Without a tag on HEAD it refuses.
	cmd := exec.Command("make", "-s", "release", "RELEASE_TARGETS="+target)
	cmd.Dir = clone
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "no vX.Y.Z tag") {
		t.Fatalf("untagged release: %v\n%s", err, out)
	}
	run(clone, "git", "tag", "v9.8.7")
	run(clone, "make", "-s", "release", "RELEASE_TARGETS="+target)

	name := "shellguard_9.8.7_linux_" + runtime.GOARCH
	archive := filepath.Join(clone, "dist", name+".tar.gz")
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(clone, "dist", "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if string(sums) != hex.EncodeToString(sum[:])+"  "+name+".tar.gz\n" {
		t.Fatalf("SHA256SUMS: %q", sums)
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		files[h.Name] = b
	}
	for _, f := range []string{"shellguard", "shellguard-sandbox", "README.md", "CHANGELOG.md", "LICENSE", "NOTICE", "LICENSE.gitleaks"} {
		if _, ok := files[name+"/"+f]; !ok {
			t.Errorf("%s missing from the archive", f)
		}
	}
	exe := filepath.Join(t.TempDir(), "shellguard")
	os.WriteFile(exe, files[name+"/shellguard"], 0o755)
	ef, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the release binary is dynamically linked")
		}
	}
	ef.Close()
	// The standalone sandbox helper is of the same build: the same GNU
	// build ID (shellguard starts it only then).
	buildID := func(b []byte) []byte {
		ef, err := elf.NewFile(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		sec := ef.Section(".note.gnu.build-id")
		if sec == nil {
			t.Fatal("no GNU build ID note")
		}
		d, err := sec.Data()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if a, b := buildID(files[name+"/shellguard"]), buildID(files[name+"/shellguard-sandbox"]); !bytes.Equal(a, b) {
		t.Errorf("build IDs differ: %x and %x", a, b)
	}
	if out := run(t.TempDir(), exe, "--version"); strings.TrimSpace(out) != "shellguard v9.8.7" {
		t.Errorf("--version says %q", out)
	}
}

// TestLicences holds the licence files together: the project's LICENSE
// and NOTICE exist, every third-party licence in the repository
// (LICENSE.<name>) is named in NOTICE and shipped in every archive, and
// every "Derived from … see LICENSE.<name>" comment names one that exists.
func TestLicences(t *testing.T) {
	root := filepath.Join("..", "..")
	lic, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil || !strings.Contains(string(lic), "Apache License") || !strings.Contains(string(lic), "Version 2.0") {
		t.Fatalf("LICENSE is not the Apache License 2.0 (err %v)", err)
	}
	notice, err := os.ReadFile(filepath.Join(root, "NOTICE"))
	if err != nil {
		t.Fatal(err)
	}
	shipped := map[string]bool{}
	for _, f := range extraFiles {
		shipped[f] = true
	}
	for _, f := range []string{"LICENSE", "NOTICE"} {
		if !shipped[f] {
			t.Errorf("%s is not in the release archives (extraFiles)", f)
		}
	}
	cites := regexp.MustCompile(`see (LICENSE\.[A-Za-z0-9_-]+)`)
	found := 0
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case strings.HasPrefix(d.Name(), "LICENSE."):
			found++
			if !shipped[filepath.ToSlash(rel)] {
				t.Errorf("%s is not in the release archives (extraFiles)", rel)
			}
			if !strings.Contains(string(notice), filepath.ToSlash(rel)) {
				t.Errorf("NOTICE does not name %s", rel)
			}
		case strings.HasSuffix(d.Name(), ".go"):
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range cites.FindAllStringSubmatch(string(b), -1) {
				if _, err := os.Stat(filepath.Join(filepath.Dir(p), m[1])); err != nil {
					t.Errorf("%s cites %s, which is not beside it", rel, m[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Error("no third-party licence found: the walk did not see the repository")
	}
}
