package policy

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellguard/shellguard/internal/testenv"
)

// generalisePath holds the cases written to measure how the policy
// generalises beyond the spellings it was tuned on.
const generalisePath = "testdata/generalise.jsonl"

// readCaseCmds returns the cmd field of every case of a corpus JSONL file.
func readCaseCmds(tb testing.TB, path string) ([]string, error) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cmds []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "#") {
			continue
		}
		var c struct {
			Cmd *string `json:"cmd"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil || c.Cmd == nil {
			tb.Fatalf("%s:%d: not a case with a cmd: %v", path, ln, err)
		}
		cmds = append(cmds, *c.Cmd)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(cmds) == 0 {
		tb.Fatalf("%s: no cases", path)
	}
	return cmds, nil
}

// BenchmarkCheckCorpora checks every command of the public static corpus
// and of the generalisation cases once per iteration (ns/op is per pass
// over both), then reports the median and p99 latency of one command,
// analysis included.
func BenchmarkCheckCorpora(b *testing.B) {
	public, err := readCaseCmds(b, filepath.Join("..", corpusPath))
	if errors.Is(err, fs.ErrNotExist) {
		testenv.SkipOrFail(b, "public corpus absent (%v): the shared/ tree is not checked out next to policy/", err)
	} else if err != nil {
		b.Fatal(err)
	}
	own, err := readCaseCmds(b, generalisePath)
	if err != nil {
		b.Fatal(err)
	}
	per := benchCommands(b, append(public, own...))
	b.ReportMetric(float64(per[len(per)/2].Nanoseconds()), "median-ns/cmd")
	b.ReportMetric(float64(per[len(per)*99/100].Nanoseconds()), "p99-ns/cmd")
	b.ReportMetric(float64(len(per)), "cmds/op")
}
