package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shellguard/shellguard/internal/testenv"
)

var (
	lifeOnce sync.Once
	lifeBin  string
	lifeDir  string // removed by TestMain
	lifeErr  error
)

// lifetimeBinary builds shellguard once (no npm needed).
func lifetimeBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end tests are skipped with -short")
	}
	if runtime.GOOS != "linux" {
		t.Skip("walks /proc")
	}
	lifeOnce.Do(func() {
		lifeDir, lifeBin, lifeErr = buildBinary("shellguard-e2e-life-")
	})
	if lifeErr != nil {
		t.Fatal(lifeErr)
	}
	return lifeBin
}

// proc is one process as /proc shows it: pid and start time (so that a
// reused pid is not taken for the same process).
type proc struct {
	pid   int
	start string
	cmd   string
}

// procStat returns the parent pid, state and start time of pid.
func procStat(pid int) (ppid int, state byte, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, "", false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, 0, "", false
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0][0], f[19], true
}

// descendants walks /proc for every process below root.
func descendants(root int) []proc {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, _, ok := procStat(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []proc
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			_, _, start, ok := procStat(c)
			if !ok {
				continue
			}
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(c) + "/cmdline")
			cmd := strings.ReplaceAll(string(b), "\x00", " ")
			if len(cmd) > 80 {
				cmd = cmd[:80] + "…"
			}
			out = append(out, proc{c, start, cmd})
			queue = append(queue, c)
		}
	}
	return out
}

// alive says whether p still runs (a zombie has ended).
func (p proc) alive() bool {
	_, state, start, ok := procStat(p.pid)
	return ok && start == p.start && state != 'Z' && state != 'X'
}

type lifeServer struct {
	cmd   *exec.Cmd
	stdin *os.File
	lines chan []byte
}

func startLifeServer(t *testing.T, bin, ws, tmp string) *lifeServer {
	t.Helper()
	cmd := exec.Command(bin, "mcp", "--workspace", ws)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	s := &lifeServer{cmd: cmd, stdin: inW, lines: make(chan []byte, 1024)}
	go func() {
		br := bufio.NewReader(outR)
		for {
			l, err := br.ReadBytes('\n')
			if len(l) > 0 {
				s.lines <- l
			}
			if err != nil {
				close(s.lines)
				outR.Close()
				return
			}
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	s.send(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"life","version":"1"}}}`)
	s.recv(t, `"init"`)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *lifeServer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := s.stdin.WriteString(line + "\n"); err != nil {
		t.Fatalf("write: %v", err)
	}
}

func (s *lifeServer) recv(t *testing.T, id string) []byte {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatalf("server closed stdout while waiting for id %s", id)
			}
			var r struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(l, &r) == nil && string(r.ID) == id {
				return l
			}
		case <-timeout:
			t.Fatalf("no response with id %s", id)
		}
	}
}

func (s *lifeServer) callAsync(t *testing.T, id int, args map[string]any) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "bash", "arguments": args}})
	s.send(t, string(b))
}

func sessionDirs(tmp string) []string {
	d, _ := filepath.Glob(filepath.Join(tmp, "shellguard-sessions-"+strconv.Itoa(os.Getuid()), "s-*"))
	return d
}

// A SIGKILL of the server ends every command it started, foreground and
// background, sandboxed or not; the next start removes the session
// directories it left.
func TestKilledServerLeavesNothing(t *testing.T) {
	bin := lifetimeBinary(t)
	ws := workspace(t)
	tmp := t.TempDir()
	s := startLifeServer(t, bin, ws, tmp)
	fg := fmt.Sprintf("48.%06d", rand.IntN(1000000))
	bg := fmt.Sprintf("49.%06d", rand.IntN(1000000))
	// A second command makes the session use its private /tmp and pool.
	s.callAsync(t, 1, map[string]any{"command": "echo warm"})
	s.recv(t, "1")
	s.callAsync(t, 2, map[string]any{"command": "sleep " + bg + " & sleep " + bg + "; wait", "run_in_background": true})
	s.recv(t, "2")
	s.callAsync(t, 3, map[string]any{"command": "sleep " + fg})
	waitFor(t, func() bool {
		return len(testenv.ProcessesWithArgs("sleep", fg)) > 0 && len(testenv.ProcessesWithArgs("sleep", bg)) >= 2
	}, "the commands to start")
	procs := descendants(s.cmd.Process.Pid)
	var sleeps int
	for _, p := range procs {
		if strings.HasPrefix(p.cmd, "sleep ") {
			sleeps++
		}
	}
	if sleeps < 3 {
		t.Fatalf("the sleeps are not below the server: %+v", procs)
	}
	if len(sessionDirs(tmp)) == 0 {
		t.Fatal("no session directory was made")
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	noneLeft(t, procs)
	stale := sessionDirs(tmp)
	if len(stale) == 0 {
		t.Fatal("the killed server left no session directory: nothing to clean up")
	}
	startLifeServer(t, bin, ws, tmp)
	for _, d := range stale {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("stale session directory %s survived the next start", d)
		}
	}
}

// noneLeft waits up to 10 s (a hang, not a slow kill) for every process
// of procs to end, and fails for those that do not (killing them).
func noneLeft(t *testing.T, procs []proc) {
	t.Helper()
	var left []proc
	for i := 0; i < 200; i++ {
		left = left[:0]
		for _, p := range procs {
			if p.alive() {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, p := range left {
		syscall.Kill(p.pid, syscall.SIGKILL) // clean up what the test found
	}
	if len(left) > 0 {
		t.Fatalf("%d of %d processes outlived the server: %+v", len(left), len(procs), left)
	}
}

// TestKilledServeLeavesNothing: as TestKilledServerLeavesNothing, for
// `serve`: a SIGKILL mid-call ends the background task an MCP session
// left and the foreground command of a call in flight; the next start
// removes the session directories.
func TestKilledServeLeavesNothing(t *testing.T) {
	setup(t)
	ws := workspace(t)
	tmp := t.TempDir()
	env := []string{"TMPDIR=" + tmp}
	p := startServeEnv(t, ws, env)
	bg := fmt.Sprintf("50.%06d", rand.IntN(1000000))
	fg := fmt.Sprintf("51.%06d", rand.IntN(1000000))
	runNode(t, "start_and_leave", "--transport", "http", "--url", p.url+"/mcp", "--workspace", ws, "--marker", bg)
	body := fmt.Sprintf(`{"command":"sleep %s","timeout":"60"}`, fg)
	go func() {
		resp, err := http.Post(p.url+"/tools/bash/execute", "application/json", strings.NewReader(body))
		if err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, func() bool {
		return len(testenv.ProcessesWithArgs("sleep", fg)) > 0 && len(testenv.ProcessesWithArgs("sleep", bg)) > 0
	}, "the commands to start")
	procs := descendants(p.pid)
	var sleeps int
	for _, q := range procs {
		if strings.HasPrefix(q.cmd, "sleep ") {
			sleeps++
		}
	}
	if sleeps < 2 {
		t.Fatalf("the sleeps are not below the server: %+v", procs)
	}
	stale := sessionDirs(tmp)
	if len(stale) == 0 {
		t.Fatal("no session directory was made")
	}
	p.stop(syscall.SIGKILL)
	noneLeft(t, procs)
	startServeEnv(t, ws, env)
	for _, d := range stale {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("stale session directory %s survived the next start", d)
		}
	}
}
