//go:build linux

package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/shellguard/shellguard/internal/testenv"
)

// At the terminal, "[a]lways" runs the command and writes one exact rule
// to grants.json beside the user's config file: the same command then
// runs without a terminal to ask on, in the same workspace only, and a
// neighbour of it is still asked about.
func TestTTYApproveAlways(t *testing.T) {
	bin, err := exec.LookPath("shellguard")
	if err != nil {
		t.Fatal(err)
	}
	home, ws, other := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{ws, other} {
		if err := os.Mkdir(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=")
	const cmd = "chmod -R 777 sub"
	run := func(dir string, c string) (string, error) {
		x := exec.Command(bin, "run", "--workspace", dir, "--", c)
		x.Env = env
		out, err := x.CombinedOutput() // stdin: /dev/null, no terminal
		return string(out), err
	}
	if out, err := run(ws, cmd); err == nil {
		t.Fatalf("without a terminal and a grant the command ran: %s", out)
	}

	x := exec.Command(bin, "run", "--workspace", ws, "--", cmd)
	x.Env = env
	f, err := pty.Start(x)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	timer := time.AfterFunc(60*time.Second, func() { x.Process.Kill() })
	defer timer.Stop()
	r := bufio.NewReader(f)
	var seen strings.Builder
	for !strings.Contains(seen.String(), "[a]lways, [N]o:") {
		b, err := r.ReadByte()
		if err != nil {
			t.Fatalf("no prompt with [a]lways: %v\n%s", err, seen.String())
		}
		seen.WriteByte(b)
	}
	if !strings.Contains(seen.String(), "allows exactly: "+cmd) {
		t.Errorf("the prompt does not show the exact rule:\n%s", seen.String())
	}
	f.Write([]byte("a\n"))
	// An approved ask is reviewed before its changes land (sub's mode).
	for !strings.Contains(seen.String(), "[a]ll, [s]elect, [N]one: ") {
		b, err := r.ReadByte()
		if err != nil {
			t.Fatalf("no review of the approved command's changes: %v\n%s", err, seen.String())
		}
		seen.WriteByte(b)
	}
	if !strings.Contains(seen.String(), "mode dir sub (0755 -> 0777)") {
		t.Errorf("the review does not show the mode change:\n%s", seen.String())
	}
	f.Write([]byte("a\n"))
	go func() { // drain the rest, so the command never blocks on the terminal
		for {
			if _, err := r.ReadByte(); err != nil {
				return
			}
		}
	}()
	if err := x.Wait(); err != nil {
		t.Fatalf("approved always: %v\n%s", err, seen.String())
	}
	if fi, err := os.Stat(filepath.Join(ws, "sub")); err != nil || fi.Mode().Perm() != 0o777 {
		t.Errorf("sub after the reviewed run: %v %v", fi.Mode(), err)
	}
	b, err := os.ReadFile(filepath.Join(home, ".config", "shellguard", "grants.json"))
	if err != nil || !strings.Contains(string(b), `"`+cmd+`"`) || !strings.Contains(string(b), ws) {
		t.Fatalf("grants.json: %v\n%s", err, b)
	}

	if out, err := run(ws, cmd); err != nil {
		t.Errorf("the remembered command did not run: %v\n%s", err, out)
	}
	if out, err := run(ws, "chmod -R 777 ."); err == nil {
		t.Errorf("a neighbour ran without approval: %s", out)
	}
	if out, err := run(other, cmd); err == nil {
		t.Errorf("the grant held in another workspace: %s", out)
	}
}

// With --review at the terminal the person sees each change with its
// diff before anything lands, picks edit.txt and not new.txt, and only
// edit.txt changes; without a terminal --review is refused and nothing
// runs.
func TestTTYReview(t *testing.T) {
	bin, err := exec.LookPath("shellguard")
	if err != nil {
		t.Fatal(err)
	}
	home, ws := t.TempDir(), t.TempDir()
	edit := filepath.Join(ws, "edit.txt")
	if err := os.WriteFile(edit, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=")
	const cmd = `printf 'a\nB\n' > edit.txt && printf 'x\n' > new.txt`

	x := exec.Command(bin, "run", "--review", "--workspace", ws, "--", cmd)
	x.Env = env
	if out, err := x.CombinedOutput(); err == nil || !strings.Contains(string(out), "stdin is not a terminal") {
		t.Fatalf("--review without a terminal: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Fatal("--review without a terminal ran the command")
	}

	x = exec.Command(bin, "run", "--review", "--workspace", ws, "--", cmd)
	x.Env = env
	f, err := pty.Start(x)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	timer := time.AfterFunc(60*time.Second, func() { x.Process.Kill() })
	defer timer.Stop()
	r := bufio.NewReader(f)
	var seen strings.Builder
	until := func(s string) string {
		start := seen.Len()
		for !strings.HasSuffix(seen.String(), s) {
			b, err := r.ReadByte()
			if err != nil {
				t.Fatalf("no %q: %v\n%s", s, err, seen.String())
			}
			seen.WriteByte(b)
		}
		return seen.String()[start:]
	}
	until("[a]ll, [s]elect, [N]one: ")
	if !strings.Contains(seen.String(), "-b") || !strings.Contains(seen.String(), "+B") || !strings.Contains(seen.String(), "add file new.txt") {
		t.Errorf("the review did not show the diff and the new file:\n%s", seen.String())
	}
	f.Write([]byte("s\n"))
	for range 2 {
		if strings.Contains(until("[y/N] "), "edit.txt") {
			f.Write([]byte("y\n"))
		} else {
			f.Write([]byte("n\n"))
		}
	}
	done := make(chan struct{})
	go func() { // drain the rest, so the command never blocks on the terminal
		defer close(done)
		for {
			b, err := r.ReadByte()
			if err != nil {
				return
			}
			seen.WriteByte(b)
		}
	}()
	werr := x.Wait()
	f.Close()
	<-done
	if werr != nil {
		t.Fatalf("reviewed run: %v\n%s", werr, seen.String())
	}
	if b, _ := os.ReadFile(edit); string(b) != "a\nB\n" {
		t.Errorf("edit.txt = %q: the picked change did not land", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Error("new.txt landed, not picked")
	}
	if !strings.Contains(seen.String(), "review: 1 of 2 changes applied (edit.txt); discarded: new.txt") {
		t.Errorf("no summary:\n%s", seen.String())
	}
}

// At the terminal, a connection the network allowlist refuses waits while
// the person is asked about its destination; "y" lets it through in the
// same run, and the command runs once.
func TestTTYNetworkAskLive(t *testing.T) {
	bin, err := exec.LookPath("shellguard")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl not installed")
	}
	// On 127.0.0.2: 127.0.0.1 is the command's own loopback (NO_PROXY),
	// any other address goes through the proxy.
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skip("no 127.0.0.2 here:", err)
	}
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "upstream-ok "+r.URL.Path)
	}))
	up.Listener.Close()
	up.Listener = l
	up.Start()
	defer up.Close()
	home, ws := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=")
	hp := strings.TrimPrefix(up.URL, "http://")
	cmd := "echo x >> runs; curl -sS -m 30 http://" + hp + "/live"
	x := exec.Command(bin, "run", "--network", "allowlist", "--workspace", ws, "--", cmd)
	x.Env = env
	f, err := pty.Start(x)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	timer := time.AfterFunc(60*time.Second, func() { x.Process.Kill() })
	defer timer.Stop()
	r := bufio.NewReader(f)
	var seen strings.Builder
	for !strings.Contains(seen.String(), "[N]o: ") {
		b, err := r.ReadByte()
		if err != nil {
			t.Fatalf("no question about %s: %v\n%s", hp, err, seen.String())
		}
		seen.WriteByte(b)
	}
	if !strings.Contains(seen.String(), hp) || !strings.Contains(seen.String(), "the connection waits") {
		t.Errorf("the question does not name the waiting destination:\n%s", seen.String())
	}
	f.Write([]byte("y\n"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			b, err := r.ReadByte()
			if err != nil {
				return
			}
			seen.WriteByte(b)
		}
	}()
	werr := x.Wait()
	f.Close()
	<-done
	if werr != nil || !strings.Contains(seen.String(), "upstream-ok /live") {
		t.Fatalf("allowed at the terminal, the connection did not go through: %v\n%s", werr, seen.String())
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "runs")); string(b) != "x\n" {
		t.Errorf("the command ran %q times", b)
	}
}

// At the terminal, a path the sandbox refused is asked about after the
// command failed ("[y]es for this run"), and the command runs once more
// with exactly that directory writable: the canary outside the workspace
// gets one line, and nothing is remembered.
func TestTTYPathAsk(t *testing.T) {
	bin, err := exec.LookPath("shellguard")
	if err != nil {
		t.Fatal(err)
	}
	// Not under /tmp: a sandboxed command has a /tmp of its own.
	scratch, err := os.MkdirTemp("/var/tmp", "sg-ttypath-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(scratch) })
	ws, outside, home := filepath.Join(scratch, "ws"), filepath.Join(scratch, "outside"), filepath.Join(scratch, "home")
	for _, d := range []string{ws, outside, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	canary := filepath.Join(outside, "canary")
	if err := os.WriteFile(filepath.Join(ws, "w.sh"), []byte("echo written >> "+canary+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	x := exec.Command(bin, "run", "--workspace", ws, "--", "bash ./w.sh")
	x.Dir = ws
	x.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=")
	f, err := pty.Start(x)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	timer := time.AfterFunc(60*time.Second, func() { x.Process.Kill() })
	defer timer.Stop()
	r := bufio.NewReader(f)
	var seen strings.Builder
	for !strings.Contains(seen.String(), "[N]o: ") {
		b, err := r.ReadByte()
		if err != nil {
			if b, _ := os.ReadFile(canary); len(b) != 0 {
				testenv.SkipOrFail(t, "no file-system sandbox here: the write outside went through")
			}
			t.Fatalf("no path question: %v\n%s", err, seen.String())
		}
		seen.WriteByte(b)
	}
	if !strings.Contains(seen.String(), outside) {
		t.Errorf("the question does not name the directory a grant opens:\n%s", seen.String())
	}
	if b, _ := os.ReadFile(canary); len(b) != 0 {
		t.Fatalf("the first run wrote outside the workspace: %q", b)
	}
	f.Write([]byte("y\n"))
	var rest strings.Builder
	done := make(chan struct{})
	go func() { // drain the rest, so the command never blocks on the terminal
		defer close(done)
		io.Copy(&rest, r)
	}()
	if err := x.Wait(); err != nil {
		t.Fatalf("granted once: %v\n%s", err, seen.String())
	}
	f.Close()
	<-done
	if b, err := os.ReadFile(canary); err != nil || string(b) != "written\n" {
		t.Errorf("canary after the run made again: %q %v\n%s%s", b, err, seen.String(), rest.String())
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "shellguard", "grants.json")); err == nil {
		t.Error("a grant for this run only was written to grants.json")
	}
}
