//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// unprivTests are the attack tests that run a second time as an
// unprivileged uid when the suite runs as root: the post-run code runs
// with the rights of whoever runs shellguard, and a user's rights are not
// root's (no CAP_DAC_OVERRIDE over a planted 000 directory, no mknod, a
// user namespace the user made), so every trap is tried with both.
// The DNS stub's tests too: its port needs a capability only a user's
// helper is given explicitly (root's has every one).
var unprivTests = []string{"TestPostRunAttacks", "TestDeputy", "TestGitStateNamesNoNewProgram", "TestRunsAsUid",
	"TestNetDNSStub", "TestSessionNetDNS"}

// unprivUid is the uid the tests run as (nobody on Debian-like systems).
const unprivUid = 65534

// TestAttacksUnprivileged re-runs unprivTests in a copy of this test
// binary as uid 65534, with a TMPDIR and HOME of its own, and requires
// each of them to pass (not to skip).
func TestAttacksUnprivileged(t *testing.T) {
	if os.Getenv("SGTEST_EXPECT_UID") != "" {
		t.Skip("this is the unprivileged run")
	}
	if os.Geteuid() != 0 {
		t.Logf("uid %d: the attack tests of this run are the unprivileged run", os.Geteuid())
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A directory nobody can enter and write: the binary's copy, its TMPDIR
	// and HOME. The go-build directory holding the binary is root's only.
	base, err := os.MkdirTemp("", "sg-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "sandbox.test")
	if err := copyFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, home := filepath.Join(base, "tmp"), filepath.Join(base, "home")
	for _, d := range []string{tmp, home} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, unprivUid, unprivUid); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	run := "^(" + strings.Join(unprivTests, "|") + ")$"
	cmd := exec.CommandContext(ctx, bin, "-test.run", run, "-test.count=1", "-test.v")
	if testing.Short() {
		cmd.Args = append(cmd.Args, "-test.short")
	}
	cmd.Dir = home
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"TMPDIR=" + tmp,
		"HOME=" + home,
		"SGTEST_EXPECT_UID=" + strconv.Itoa(unprivUid),
		"SHELLGUARD_STRICT_TESTS=" + os.Getenv("SHELLGUARD_STRICT_TESTS"),
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: &syscall.Credential{Uid: unprivUid, Gid: unprivUid, Groups: []uint32{}},
		Setpgid:    true,
	}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	log := out.String()
	if err != nil {
		t.Fatalf("the tests as uid %d failed (%v):\n%s", unprivUid, err, failures(log))
	}
	for _, name := range unprivTests {
		if !regexp.MustCompile(`(?m)^--- PASS: ` + name + ` `).MatchString(log) {
			t.Errorf("%s did not pass as uid %d:\n%s", name, unprivUid, failures(log))
		}
	}
	skips := regexp.MustCompile(`(?m)^\s*--- SKIP: (\S+)`).FindAllStringSubmatch(log, -1)
	for _, s := range skips {
		if !strings.Contains(s[1], "/device/") {
			t.Errorf("%s was skipped as uid %d", s[1], unprivUid)
		}
	}
	t.Logf("as uid %d: %d passed, %d device traps skipped (no CAP_MKNOD)", unprivUid,
		len(regexp.MustCompile(`(?m)^\s*--- PASS: `).FindAllString(log, -1)), len(skips))
}

// TestRunsAsUid proves that the unprivileged run is one: the uid, and no
// way to write where only root may.
func TestRunsAsUid(t *testing.T) {
	want := os.Getenv("SGTEST_EXPECT_UID")
	if want == "" {
		t.Skip("only in the unprivileged run (TestAttacksUnprivileged)")
	}
	if got := strconv.Itoa(os.Geteuid()); got != want {
		t.Fatalf("euid %s, want %s", got, want)
	}
	if f, err := os.CreateTemp(filepath.Dir(os.Getenv("TMPDIR")), "probe"); err == nil {
		f.Close()
		os.Remove(f.Name())
		t.Fatal("wrote into a directory of root's (0755): not unprivileged")
	}
}

// failures keeps the lines of a test log around its failures.
func failures(log string) string {
	var b strings.Builder
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "FAIL") || strings.Contains(l, "_test.go:") || strings.HasPrefix(l, "panic") {
			b.WriteString(l + "\n")
		}
	}
	if b.Len() == 0 {
		return log
	}
	return b.String()
}

func copyFile(from, to string, mode os.FileMode) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
