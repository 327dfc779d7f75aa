// Package e2e drives the shellguard binary with the real npm MCP client
// (@modelcontextprotocol/sdk) over stdio and streamable HTTP, and with raw
// JSON-RPC for the robustness cases.
//
// The test installs the npm client into e2e/node_modules on first use
// (npm ci, from package-lock.json) and builds the binary into a temporary
// directory. Node and npm are required: without them the tests skip, and
// fail under SHELLGUARD_STRICT_TESTS=1.
package e2e

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shellguard/shellguard/internal/testenv"
)

var (
	setupOnce sync.Once
	setupErr  error
	binPath   string
	binDir    string
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range []string{binDir, lifeDir} {
		if d != "" {
			os.RemoveAll(d)
		}
	}
	os.Exit(code)
}

// buildBinary builds shellguard into a new temporary directory (named
// with prefix) and returns the directory and the binary's path.
func buildBinary(prefix string) (dir, bin string, err error) {
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", err
	}
	bin = filepath.Join(dir, "shellguard")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/shellguard")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return dir, bin, fmt.Errorf("go build: %v\n%s", err, out)
	}
	return dir, bin, nil
}

// setup installs the npm client and builds the binary, once.
func setup(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end tests are skipped with -short")
	}
	setupOnce.Do(func() {
		for _, tool := range []string{"node", "npm"} {
			if _, err := exec.LookPath(tool); err != nil {
				setupErr = fmt.Errorf("%s not found: %w", tool, err)
				return
			}
		}
		_, sdk := os.Stat("node_modules/@modelcontextprotocol/sdk/package.json")
		_, pw := os.Stat("node_modules/playwright-core/package.json")
		if sdk != nil || pw != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
			if out, err := cmd.CombinedOutput(); err != nil {
				setupErr = fmt.Errorf("npm ci: %v\n%s", err, out)
				return
			}
		}
		binDir, binPath, setupErr = buildBinary("shellguard-e2e-bin-")
	})
	if setupErr != nil {
		if strings.Contains(setupErr.Error(), "not found") {
			testenv.SkipOrFail(t, "%v", setupErr)
		}
		t.Fatal(setupErr)
	}
}

// scenario is one scenario of client.mjs.
type scenario struct {
	name string
	http bool // HTTP only
}

var scenarios = []scenario{
	{name: "list"},
	{name: "run"},
	// strings expects dangerously_disable_sandbox to be refused: the e2e
	// servers run without sandbox.allow_unsandboxed.
	{name: "strings"},
	{name: "progress"},
	{name: "cancel"},
	{name: "token", http: true},
	{name: "deny"},
	{name: "approve_accept"},
	{name: "approve_decline"},
	{name: "background"},
	{name: "stream"},
	{name: "session_end"},
}

func runNode(t *testing.T, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{"client.mjs"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node client.mjs %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func workspace(t *testing.T) string {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// noProcessesOf fails t if a process of the test binary is still alive.
func noProcessesOf(t *testing.T, args ...string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		pids := testenv.ProcessesWithArgs(args...)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left behind with args %q: %v", args, pids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestStdio(t *testing.T) {
	setup(t)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			if sc.http {
				t.Skip("HTTP only")
			}
			ws := workspace(t)
			runNode(t, sc.name, "--transport", "stdio", "--bin", binPath, "--workspace", ws)
			noProcessesOf(t, binPath, "mcp")
		})
	}
}

// startServe starts `shellguard serve` on a free loopback port and returns
// its base URL; the server is stopped (SIGINT, by pid) at cleanup.
func startServe(t *testing.T, ws string, extra ...string) string {
	return startServeProc(t, ws, extra...).url
}

type serveProc struct {
	url  string
	pid  int
	once sync.Once
	stop func(sig os.Signal) // signals the server and waits for its exit
}

func startServeProc(t *testing.T, ws string, extra ...string) *serveProc {
	t.Helper()
	return startServeEnv(t, ws, nil, extra...)
}

// startServeEnv is startServeProc with env added to the server's
// environment.
func startServeEnv(t *testing.T, ws string, env []string, extra ...string) *serveProc {
	t.Helper()
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--workspace", ws}, extra...)
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`serving MCP at (http://\S+)/mcp`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
			} else {
				t.Logf("serve: %s", sc.Text())
			}
		}
		done <- cmd.Wait()
	}()
	p := &serveProc{pid: cmd.Process.Pid}
	p.stop = func(sig os.Signal) {
		p.once.Do(func() {
			cmd.Process.Signal(sig)
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Errorf("serve did not stop within 10 s of %v", sig)
			}
		})
	}
	t.Cleanup(func() { p.stop(os.Interrupt) })
	select {
	case p.url = <-urlc:
		return p
	case err := <-done:
		t.Fatalf("serve exited: %v", err)
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not report its address")
	}
	return nil
}

// TestSignalEndsTasks: SIGTERM or SIGINT to `shellguard mcp` or `serve`
// kills the background tasks of its sessions before it exits.
func TestSignalEndsTasks(t *testing.T) {
	setup(t)
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run("mcp/"+sig.String(), func(t *testing.T) {
			c := startRaw(t, workspace(t))
			marker := fmt.Sprintf("46.%06d", rand.IntN(1000000))
			r := c.call(1, map[string]any{"command": "sleep " + marker, "run_in_background": true})
			if r.Result == nil || r.Result.IsError {
				t.Fatalf("start: %+v %+v", r.Result, r.Error)
			}
			waitFor(t, func() bool { return len(testenv.ProcessesWithArgs("sleep", marker)) > 0 }, "the task to start")
			c.cmd.Process.Signal(sig) // stdin stays open: the signal alone ends it
			select {
			case <-c.exited:
			case <-time.After(5 * time.Second):
				t.Fatalf("shellguard mcp did not exit within 5 s of %v", sig)
			}
			noProcessesOf(t, "sleep", marker)
		})
		t.Run("serve/"+sig.String(), func(t *testing.T) {
			ws := workspace(t)
			p := startServeProc(t, ws)
			marker := fmt.Sprintf("47.%06d", rand.IntN(1000000))
			runNode(t, "start_and_leave", "--transport", "http", "--url", p.url+"/mcp", "--workspace", ws, "--marker", marker)
			if len(testenv.ProcessesWithArgs("sleep", marker)) == 0 {
				t.Fatal("the task is not running after its client left")
			}
			p.stop(sig)
			noProcessesOf(t, "sleep", marker)
		})
	}
}

const testToken = "e2e-token-0123456789abcdef"

func TestHTTP(t *testing.T) {
	setup(t)
	ws := workspace(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(testToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := startServe(t, ws, "--token-file", tokenFile)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			runNode(t, sc.name, "--transport", "http", "--url", base+"/mcp", "--token", testToken, "--workspace", ws)
		})
	}
}

func TestServeRefusesPublicBindWithoutToken(t *testing.T) {
	setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// 0.0.0.0 is never bound: the check comes first.
	out, err := exec.CommandContext(ctx, binPath, "serve", "--addr", "0.0.0.0:0").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "needs --token-file") {
		t.Fatalf("serve on 0.0.0.0 without a token: err=%v out=%s", err, out)
	}
}
