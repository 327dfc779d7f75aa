// Command release builds the release archives of shellguard into a
// directory, offline: for each target a static binary (CGO_ENABLED=0,
// -trimpath, the version stamped into internal/version), packed with the
// README, the CHANGELOG and the licences into
// shellguard_<version>_<os>_<arch>.tar.gz (.zip for windows), plus a
// SHA256SUMS file over the archives. `make release` runs it for the tag on
// HEAD.
//
//	go run ./internal/release -version v1.2.3 -out dist [-targets linux/amd64,...]
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DefaultTargets are the platforms a release is built for.
var DefaultTargets = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}

// helperName is the standalone sandbox helper (sandbox.HelperName), in
// the Linux archives beside the binary.
const helperName = "shellguard-sandbox"

// extraFiles go into every archive beside the binary (paths in the
// repository; they keep their base name).
var extraFiles = []string{"README.md", "CHANGELOG.md", "LICENSE", "NOTICE", "redact/LICENSE.gitleaks"}

const versionVar = "github.com/shellguard/shellguard/internal/version.stamped"

var semver = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)

func main() {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	version := fs.String("version", "", "release `TAG`, vX.Y.Z")
	out := fs.String("out", "dist", "output `DIR` (emptied first)")
	targets := fs.String("targets", strings.Join(DefaultTargets, ","), "comma-separated `OS/ARCH` list")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	opts := Options{Version: *version, Out: *out, Targets: strings.Split(*targets, ","), Root: "."}
	files, err := Build(opts, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
	for _, f := range files {
		fmt.Println(f)
	}
}

// Options describe one release build.
type Options struct {
	Version string   // vX.Y.Z
	Out     string   // output directory
	Targets []string // os/arch
	Root    string   // repository root
	// ModTime is the time recorded in the archives; zero: the time of the
	// HEAD commit (so the same commit gives the same archives).
	ModTime time.Time
}

// Build makes the archives and SHA256SUMS and returns their paths.
func Build(o Options, log io.Writer) ([]string, error) {
	if !semver.MatchString(o.Version) {
		return nil, fmt.Errorf("version %q is not vMAJOR.MINOR.PATCH (tag the commit: git tag v1.2.3)", o.Version)
	}
	if o.ModTime.IsZero() {
		o.ModTime = commitTime(o.Root)
	}
	if err := os.RemoveAll(o.Out); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	bin, err := os.MkdirTemp("", "shellguard-release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(bin)
	extras := map[string][]byte{}
	for _, f := range extraFiles {
		b, err := os.ReadFile(filepath.Join(o.Root, f))
		if err != nil {
			return nil, err
		}
		extras[filepath.Base(f)] = b
	}
	ver := strings.TrimPrefix(o.Version, "v")
	var archives []string
	for _, t := range o.Targets {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(t), "/")
		if !ok || goos == "" || goarch == "" {
			return nil, fmt.Errorf("target %q is not OS/ARCH", t)
		}
		exe := "shellguard"
		if goos == "windows" {
			exe += ".exe"
		}
		fmt.Fprintf(log, "building %s/%s\n", goos, goarch)
		// The binaries of one target share a GNU build ID, derived from
		// the version and the target (the same commit gives the same
		// archives): shellguard starts the standalone sandbox helper
		// only when its build ID is its own (sandbox/helperexe_linux.go).
		id := sha256.Sum256([]byte("shellguard " + o.Version + " " + goos + "/" + goarch))
		ldflags := "-s -w -X " + versionVar + "=" + o.Version + " -B 0x" + hex.EncodeToString(id[:16])
		build := func(name, pkg string) ([]byte, error) {
			binPath := filepath.Join(bin, goos+"_"+goarch, name)
			cmd := exec.Command("go", "build", "-trimpath", "-o", binPath, "-ldflags", ldflags, pkg)
			cmd.Dir = o.Root
			// Offline: the module cache must already hold every dependency.
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch, "GOPROXY=off", "GOFLAGS=-mod=readonly")
			cmd.Stdout, cmd.Stderr = log, log
			if err := cmd.Run(); err != nil {
				return nil, fmt.Errorf("go build %s for %s/%s: %w", pkg, goos, goarch, err)
			}
			return os.ReadFile(binPath)
		}
		exeBytes, err := build(exe, "./cmd/shellguard")
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("shellguard_%s_%s_%s", ver, goos, goarch)
		files := []archFile{{exe, exeBytes, 0o755}}
		if goos == "linux" {
			// The sandbox exists on Linux only.
			hb, err := build(helperName, "./cmd/"+helperName)
			if err != nil {
				return nil, err
			}
			files = append(files, archFile{helperName, hb, 0o755})
		}
		for _, n := range sortedKeys(extras) {
			files = append(files, archFile{n, extras[n], 0o644})
		}
		var data []byte
		if goos == "windows" {
			name += ".zip"
			data, err = zipArchive(strings.TrimSuffix(name, ".zip"), files, o.ModTime)
		} else {
			name += ".tar.gz"
			data, err = tarArchive(strings.TrimSuffix(name, ".tar.gz"), files, o.ModTime)
		}
		if err != nil {
			return nil, err
		}
		p := filepath.Join(o.Out, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		archives = append(archives, p)
	}
	sums, err := checksums(archives)
	if err != nil {
		return nil, err
	}
	sumPath := filepath.Join(o.Out, "SHA256SUMS")
	if err := os.WriteFile(sumPath, sums, 0o644); err != nil {
		return nil, err
	}
	return append(archives, sumPath), nil
}

type archFile struct {
	name string
	data []byte
	mode int64
}

func tarArchive(dir string, files []archFile, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	gz.ModTime = mtime
	tw := tar.NewWriter(gz)
	for _, f := range files {
		h := &tar.Header{Name: dir + "/" + f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: mtime,
			Typeflag: tar.TypeReg, Uname: "root", Gname: "root", Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func zipArchive(dir string, files []archFile, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: dir + "/" + f.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(os.FileMode(f.mode))
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checksums renders SHA256SUMS in the format sha256sum -c reads.
func checksums(paths []string) ([]byte, error) {
	var b strings.Builder
	sorted := append([]string(nil), paths...)
	sort.Strings(sorted)
	for _, p := range sorted {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), filepath.Base(p))
	}
	return []byte(b.String()), nil
}

func commitTime(root string) time.Time {
	out, err := exec.Command("git", "-C", root, "log", "-1", "--format=%ct").Output()
	if err == nil {
		if s, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err == nil {
			return time.Unix(s, 0).UTC()
		}
	}
	return time.Unix(0, 0).UTC()
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
