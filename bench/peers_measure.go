//go:build ignore

// peers_measure runs several commands in turn, round after round, and prints
// a table of each one's wall time and peak RSS (min, median, max) with its
// ratio to a baseline command. bench/peers.sh drives it.
//
//	go run bench/peers_measure.go [-rounds 20] [-warmup 1] [-title T] [-base NAME]
//	    [-require NAME,NAME] [-missing NAME=REASON]... [-note NAME=TEXT]...
//	    -- @NAME ARGV... @NAME ARGV...
//
// Each command starts with a word "@NAME"; the words up to the next "@NAME"
// are its argv, run as they are (no shell is added). A round runs every
// command once, in the order given (A B C A B C ...). Warm-up rounds are run
// the same way and not counted.
//
// What is measured, per run:
//   - wall: from just before fork+exec to the return of wait4, with stdin and
//     stdout on /dev/null and stderr kept in a file (its tail is quoted if the
//     command fails).
//   - peak RSS: ru_maxrss from wait4 on the direct child. Linux reports there
//     the largest resident set of any single process among the child and the
//     descendants that were waited for (a maximum, not a sum: a tool made of
//     a node process and helpers reports its largest process). This program
//     is a child subreaper: descendants left behind or not waited for by
//     their parent come back to it, are waited for before the next run, and
//     their ru_maxrss counts in the maximum too (the wall time still ends
//     when the direct child exits). Linux also counts in ru_maxrss the
//     resident set of the process that forked the child, at the time of the
//     fork, so every figure has a floor: this program's own RSS (about 2 MB).
//     The row "(floor) true" (-floor, on by default) measures /bin/true the
//     same way to show that floor.
//
// The exit status is 1 when a command named in -require fails (any round), 2
// on bad arguments, 0 otherwise. A command that is not required and fails is
// reported in its row and not measured further.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type tool struct {
	name   string
	argv   []string
	note   string
	reason string // why it was not run or stopped; empty while it runs fine
	wallMS []float64
	rssMB  []float64
}

type pairs map[string]string

func (p pairs) String() string { return "" }
func (p pairs) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want NAME=TEXT, got %q", s)
	}
	if p[k] != "" {
		v = p[k] + "; " + v
	}
	p[k] = v
	return nil
}

func main() {
	rounds := flag.Int("rounds", 20, "counted rounds")
	warmup := flag.Int("warmup", 1, "rounds run first and not counted")
	title := flag.String("title", "", "line printed above the table")
	base := flag.String("base", "bash", "command the ratios are taken against")
	require := flag.String("require", "", "comma-separated commands whose failure makes the exit status 1")
	timeout := flag.Duration("timeout", 120*time.Second, "limit for one run (then SIGKILL to its process group)")
	floor := flag.Bool("floor", true, "add a row for /bin/true, the RSS floor of this measurement")
	missing, notes := pairs{}, pairs{}
	flag.Var(missing, "missing", "NAME=REASON: a row for a command that could not be run (repeatable)")
	flag.Var(notes, "note", "NAME=TEXT: note for a row (repeatable)")
	flag.Parse()

	tools, err := parseTools(flag.Args())
	if err != nil || *rounds < 1 || *warmup < 0 {
		if err != nil {
			fmt.Fprintln(os.Stderr, "peers_measure:", err)
		}
		flag.Usage()
		os.Exit(2)
	}
	for _, t := range tools {
		t.note = joinNote(t.note, notes[t.name])
		if r := missing[t.name]; r != "" {
			t.reason = "not run: " + r
		}
	}
	names := make([]string, 0, len(missing))
	for name := range missing {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if find(tools, name) == nil {
			tools = append(tools, &tool{name: name, reason: "not run: " + missing[name], note: notes[name]})
		}
	}
	if *floor {
		if t, err := exec.LookPath("true"); err == nil {
			tools = append(tools, &tool{name: "(floor) true", argv: []string{t},
				note: "a no-op: the RSS here is the measuring process's own, inherited at fork"})
		}
	}

	// PR_SET_CHILD_SUBREAPER: orphaned descendants of a run come back here.
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, 36, 1, 0); e != 0 {
		fatal(fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %v", e))
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fatal(err)
	}
	errf, err := os.CreateTemp("", "peers-stderr-*")
	if err != nil {
		fatal(err)
	}
	defer os.Remove(errf.Name())

	for r := 0; r < *warmup+*rounds; r++ {
		for _, t := range tools {
			if t.reason != "" || t.argv == nil {
				continue
			}
			wall, rss, err := runOnce(t.argv, devnull, errf, *timeout)
			if err != nil {
				round := "warm-up"
				if r >= *warmup {
					round = fmt.Sprintf("round %d", r-*warmup+1)
				}
				t.reason = fmt.Sprintf("failed in %s: %v", round, err)
				continue
			}
			if r >= *warmup {
				t.wallMS = append(t.wallMS, wall)
				t.rssMB = append(t.rssMB, rss)
			}
		}
	}

	if *title != "" {
		fmt.Println(*title)
		fmt.Println()
	}
	b := find(tools, *base)
	var baseWall, baseRSS float64
	if b != nil && b.reason == "" && len(b.wallMS) > 0 {
		baseWall, baseRSS = median(b.wallMS), median(b.rssMB)
	}
	rows := [][]string{{"tool", "runs", "wall min ms", "median", "max", "×" + *base,
		"peak RSS min MB", "median", "max", "×" + *base, "notes"}}
	for _, t := range tools {
		if t.reason != "" {
			rows = append(rows, []string{t.name, fmt.Sprint(len(t.wallMS)), "-", "-", "-", "-", "-", "-", "-", "-", joinNote(t.reason, t.note)})
			continue
		}
		w, m := t.wallMS, t.rssMB
		rows = append(rows, []string{t.name, fmt.Sprint(len(w)),
			f1(minOf(w)), f1(median(w)), f1(maxOf(w)), ratio(median(w), baseWall),
			f1(minOf(m)), f1(median(m)), f1(maxOf(m)), ratio(median(m), baseRSS), t.note})
	}
	printTable(rows)

	failed := false
	for _, name := range strings.Split(*require, ",") {
		if name == "" {
			continue
		}
		t := find(tools, name)
		if t == nil || t.reason != "" {
			fmt.Fprintf(os.Stderr, "peers_measure: required command %q did not run cleanly\n", name)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func parseTools(args []string) ([]*tool, error) {
	var tools []*tool
	for _, a := range args {
		if strings.HasPrefix(a, "@") && len(a) > 1 {
			if find(tools, a[1:]) != nil {
				return nil, fmt.Errorf("command %q given twice", a[1:])
			}
			tools = append(tools, &tool{name: a[1:]})
			continue
		}
		if len(tools) == 0 {
			return nil, fmt.Errorf("argument %q comes before the first @NAME", a)
		}
		t := tools[len(tools)-1]
		t.argv = append(t.argv, a)
	}
	for _, t := range tools {
		if len(t.argv) == 0 {
			return nil, fmt.Errorf("command %q has no argv", t.name)
		}
		p, err := exec.LookPath(t.argv[0])
		if err != nil {
			t.reason = "not run: " + err.Error()
			continue
		}
		t.argv[0] = p
	}
	if len(tools) == 0 {
		return nil, fmt.Errorf("no command given")
	}
	return tools, nil
}

// runOnce fork-execs argv and returns its wall time in ms and ru_maxrss in
// MB. A non-zero exit, a death by signal or a timeout is an error that quotes
// the tail of the command's stderr.
func runOnce(argv []string, devnull, errf *os.File, limit time.Duration) (float64, float64, error) {
	if err := errf.Truncate(0); err != nil {
		return 0, 0, err
	}
	if _, err := errf.Seek(0, io.SeekStart); err != nil {
		return 0, 0, err
	}
	attr := &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{devnull.Fd(), devnull.Fd(), errf.Fd()},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	}
	start := time.Now()
	pid, err := syscall.ForkExec(argv[0], argv, attr)
	if err != nil {
		return 0, 0, err
	}
	timer := time.AfterFunc(limit, func() {
		syscall.Kill(-pid, syscall.SIGKILL)
		killChildren()
	})
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		_, err = syscall.Wait4(pid, &ws, 0, &ru)
		if err != syscall.EINTR {
			break
		}
	}
	wall := time.Since(start)
	if err != nil {
		timer.Stop()
		return 0, 0, err
	}
	// Descendants whose parent exited without waiting for them were
	// re-parented to this process (a child subreaper): wait for them too and
	// count their peak, so that a tool whose helpers outlive it, or that
	// does not wait for them, is not under-reported.
	maxrss := ru.Maxrss
	for {
		var ru2 syscall.Rusage
		var ws2 syscall.WaitStatus
		_, err := syscall.Wait4(-1, &ws2, 0, &ru2)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			break
		}
		maxrss = max(maxrss, ru2.Maxrss)
	}
	timedOut := !timer.Stop()
	switch {
	case timedOut:
		err = fmt.Errorf("timed out after %v", limit)
	case ws.Signaled():
		err = fmt.Errorf("killed by %v", ws.Signal())
	case ws.ExitStatus() != 0:
		err = fmt.Errorf("exit status %d", ws.ExitStatus())
	}
	if err != nil {
		if tail := stderrTail(errf); tail != "" {
			err = fmt.Errorf("%v: %s", err, tail)
		}
		return 0, 0, err
	}
	return float64(wall.Microseconds()) / 1000, float64(maxrss) / 1024, nil
}

// killChildren kills this process's children (the descendants re-parented
// to it), named in /proc/self/task/*/children.
func killChildren() {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, w := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(w); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

func stderrTail(f *os.File) string {
	b, _ := os.ReadFile(f.Name())
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strings.ReplaceAll(s, "|", "/")
}

func find(tools []*tool, name string) *tool {
	for _, t := range tools {
		if t.name == name {
			return t
		}
	}
	return nil
}

func joinNote(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func minOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

func f1(x float64) string { return fmt.Sprintf("%.1f", x) }

func ratio(x, base float64) string {
	if base == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", x/base)
}

// printTable prints rows as a Markdown table with padded columns.
func printTable(rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	line := func(r []string) {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i == 0 || i == len(r)-1 {
				fmt.Fprintf(&b, "| %s%s ", c, pad)
			} else {
				fmt.Fprintf(&b, "| %s%s ", pad, c)
			}
		}
		fmt.Println(b.String() + "|")
	}
	line(rows[0])
	sep := make([]string, len(width))
	for i, w := range width {
		if i == 0 || i == len(width)-1 {
			sep[i] = strings.Repeat("-", w)
		} else {
			sep[i] = strings.Repeat("-", w-1) + ":"
		}
	}
	line(sep)
	for _, r := range rows[1:] {
		line(r)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "peers_measure:", err)
	os.Exit(1)
}
