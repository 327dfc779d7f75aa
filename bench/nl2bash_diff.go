//go:build ignore

// nl2bash_diff compares two result files of bench/nl2bash.sh (one JSON
// object per command) and prints the commands whose decision changed,
// grouped by before→after with counts, and a random sample of each group
// (the same sample for the same files: the seed is fixed).
//
//	go run bench/nl2bash_diff.go [-n 50] [-seed 1] BEFORE.jsonl AFTER.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
)

type result struct {
	Line     int      `json:"line"`
	Cmd      string   `json:"cmd"`
	Decision string   `json:"decision"`
	IDs      []string `json:"ids"`
	Error    string   `json:"error,omitempty"`
}

var order = []string{"allow", "ask", "deny", "error"}

func main() {
	n := flag.Int("n", 50, "sample size per moved group")
	seed := flag.Uint64("seed", 1, "seed of the sample")
	flag.Parse()
	if flag.NArg() != 2 || *n < 0 {
		fmt.Fprintln(os.Stderr, "usage: go run bench/nl2bash_diff.go [-n 50] [-seed 1] BEFORE.jsonl AFTER.jsonl")
		os.Exit(2)
	}
	before, err := load(flag.Arg(0))
	if err == nil {
		var after []result
		after, err = load(flag.Arg(1))
		if err == nil {
			err = diff(before, after, *n, *seed)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "nl2bash_diff:", err)
		os.Exit(2)
	}
}

func load(path string) ([]result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rs []result
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for ln := 1; sc.Scan(); ln++ {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, ln, err)
		}
		rs = append(rs, r)
	}
	return rs, sc.Err()
}

type move struct{ from, to string }

func diff(before, after []result, n int, seed uint64) error {
	if len(before) != len(after) {
		return fmt.Errorf("the files hold %d and %d commands: not runs over the same list", len(before), len(after))
	}
	groups := map[move][]int{}
	distB, distA := map[string]int{}, map[string]int{}
	for i := range before {
		b, a := before[i], after[i]
		if b.Line != a.Line || b.Cmd != a.Cmd {
			return fmt.Errorf("entry %d differs in line or command (%d %q vs %d %q)", i+1, b.Line, b.Cmd, a.Line, a.Cmd)
		}
		distB[b.Decision]++
		distA[a.Decision]++
		if b.Decision != a.Decision {
			m := move{b.Decision, a.Decision}
			groups[m] = append(groups[m], i)
		}
	}

	total := len(before)
	fmt.Printf("%d commands\n%-8s %14s %14s\n", total, "", "before", "after")
	for _, d := range order {
		fmt.Printf("%-8s %7d %5.1f%% %7d %5.1f%%\n", d, distB[d], pct(distB[d], total), distA[d], pct(distA[d], total))
	}

	moves := make([]move, 0, len(groups))
	changed := 0
	for m, idx := range groups {
		moves = append(moves, m)
		changed += len(idx)
	}
	sort.Slice(moves, func(i, j int) bool {
		if len(groups[moves[i]]) != len(groups[moves[j]]) {
			return len(groups[moves[i]]) > len(groups[moves[j]])
		}
		return moves[i].from+moves[i].to < moves[j].from+moves[j].to
	})
	fmt.Printf("\n%d decisions changed\n", changed)
	for _, m := range moves {
		fmt.Printf("  %s → %s: %d\n", m.from, m.to, len(groups[m]))
	}

	for _, m := range moves {
		idx := append([]int(nil), groups[m]...)
		rng := rand.New(rand.NewPCG(seed, 0x6e6c3262))
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		k := min(n, len(idx))
		idx = idx[:k]
		sort.Ints(idx)
		fmt.Printf("\n== %s → %s (%d; sample of %d)\n", m.from, m.to, len(groups[m]), k)
		for _, i := range idx {
			fmt.Printf("%6d  [%s → %s]  %s\n", after[i].Line, reason(before[i]), reason(after[i]), after[i].Cmd)
		}
	}
	return nil
}

// reason names the rule IDs of a verdict, or the error of a failed check.
func reason(r result) string {
	if r.Error != "" {
		return "error: " + r.Error
	}
	if len(r.IDs) == 0 {
		return "-"
	}
	return strings.Join(r.IDs, ",")
}

func pct(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(a) / float64(n)
}
