//go:build ignore

// nl2bash_run passes every line of a command list (such as NL2Bash's
// data/bash/all.cm) to `shellguard check --json -- LINE` and writes one JSON
// object per line: {"line","cmd","decision","ids"} and, when check failed,
// "error". Commands are only ever handed to `check` as a single argv element;
// nothing here runs them or hands them to a shell.
//
//	go run bench/nl2bash_run.go -bin ./shellguard -in all.cm -out result.jsonl [-j 4]
//
// A decision other than allow/ask/deny is an error: a crash (panic, signal),
// a timeout, output that is not the JSON verdict, or a failure to start.
// Errors are listed on stderr and counted apart from the distribution; the
// exit status is then 1 (the result file is still complete).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"
)

type result struct {
	Line     int      `json:"line"`
	Cmd      string   `json:"cmd"`
	Decision string   `json:"decision"`
	IDs      []string `json:"ids"`
	Error    string   `json:"error,omitempty"`
}

func main() {
	bin := flag.String("bin", "", "shellguard binary (required)")
	in := flag.String("in", "", "command list, one command per line (required)")
	out := flag.String("out", "", "result file, one JSON object per command (required)")
	jobs := flag.Int("j", runtime.NumCPU(), "checks run at once")
	timeout := flag.Duration("timeout", 10*time.Second, "limit for one check")
	flag.Parse()
	if *bin == "" || *in == "" || *out == "" || *jobs < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*bin, *in, *out, *jobs, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "nl2bash_run:", err)
		os.Exit(2)
	}
}

func run(bin, in, out string, jobs int, timeout time.Duration) error {
	lines, err := readLines(in)
	if err != nil {
		return err
	}
	// check judges paths against its working directory and reads the
	// user's config from HOME: give it an empty project directory inside
	// an empty home, as on a developer's machine (the workspace is not
	// HOME itself, where every rc file would be a workspace file), so two
	// binaries are compared under the same conditions.
	scratch, err := os.MkdirTemp("", "nl2bash-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	home := filepath.Join(scratch, "home")
	if err := os.MkdirAll(filepath.Join(home, "project"), 0o755); err != nil {
		return err
	}
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home+"/.config")

	results := make([]result, len(lines))
	next := make(chan int)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = checkOne(bin, filepath.Join(home, "project"), env, timeout, i+1, lines[i])
			}
		}()
	}
	for i := range lines {
		next <- i
	}
	close(next)
	wg.Wait()

	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	counts := map[string]int{}
	var errs []result
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
		counts[r.Decision]++
		if r.Error != "" {
			errs = append(errs, r)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}

	n := len(results)
	fmt.Printf("%d commands from %s, checked by %s\n", n, in, bin)
	for _, d := range []string{"allow", "ask", "deny", "error"} {
		fmt.Printf("  %-6s %6d  %5.1f%%\n", d, counts[d], pct(counts[d], n))
	}
	if len(errs) > 0 {
		fmt.Fprintf(os.Stderr, "%d check errors or crashes:\n", len(errs))
		for _, r := range errs {
			fmt.Fprintf(os.Stderr, "  line %d: %s\n    cmd: %s\n", r.Line, r.Error, r.Cmd)
		}
	}
	fmt.Printf("results: %s\n", out)
	if len(errs) > 0 {
		os.Exit(1)
	}
	return nil
}

func pct(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(a) / float64(n)
}

// readLines returns the lines of path byte for byte, without their "\n".
func readLines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil, fmt.Errorf("%s: no commands", path)
	}
	return strings.Split(s, "\n"), nil
}

// checkOne runs `bin check --json -- cmd` and reads its verdict.
func checkOne(bin, dir string, env []string, timeout time.Duration, line int, cmd string) result {
	r := result{Line: line, Cmd: cmd, IDs: []string{}}
	fail := func(format string, a ...any) result {
		r.Decision = "error"
		r.Error = fmt.Sprintf(format, a...)
		return r
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c := exec.CommandContext(ctx, bin, "check", "--json", "--", cmd)
	c.Dir = dir
	c.Env = env
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	if ctx.Err() != nil {
		return fail("timeout after %v", timeout)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return fail("cannot run check: %v", err)
	}
	if ee != nil && !ee.Exited() {
		return fail("check killed: %v; stderr: %s", ee, firstLine(stderr.String()))
	}
	if crashRE.Match(stderr.Bytes()) {
		return fail("check crashed (exit %d): %s", c.ProcessState.ExitCode(), firstLine(stderr.String()))
	}
	var v struct {
		Decision *string `json:"decision"`
		Reasons  []struct {
			ID string `json:"id"`
		} `json:"reasons"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &v); err != nil || v.Decision == nil {
		return fail("no JSON verdict (exit %d): %s", c.ProcessState.ExitCode(), firstLine(stdout.String()+stderr.String()))
	}
	switch *v.Decision {
	case "allow", "ask", "deny":
	default:
		return fail("unknown decision %q", *v.Decision)
	}
	r.Decision = *v.Decision
	for _, x := range v.Reasons {
		r.IDs = append(r.IDs, x.ID)
	}
	return r
}

// crashRE matches what the Go runtime prints when a program dies.
var crashRE = regexp.MustCompile(`(?m)^(panic: |fatal error: )`)

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
