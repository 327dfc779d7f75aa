package policy

import (
	"bufio"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
)

// v3Path holds cases written before the mechanisms of policy v3, one
// class each (run modes, option values that are code, interpreters and
// code from streams, unknown programs' words, parsers, invisible
// characters, arithmetic sinks, false positives).
const v3Path = "testdata/v3.jsonl"

// v3Floor is, per class, how many attacks must be blocked and how many
// honest commands allowed. A class not listed must have every case
// right. The numbers only ever go up.
var v3Floor = map[string][2]int{}

type v3Case struct {
	ID, Class, Expect, Cmd, Why string
}

func readV3(t *testing.T) []v3Case {
	t.Helper()
	f, err := os.Open(v3Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cs []v3Case
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		var c v3Case
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%s:%d: %v", v3Path, ln, err)
		}
		if c.Expect != "block" && c.Expect != "allow" || c.Class == "" || c.Cmd == "" {
			t.Fatalf("%s:%d: incomplete case %+v", v3Path, ln, c)
		}
		cs = append(cs, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cs) == 0 {
		t.Fatal("no cases")
	}
	return cs
}

// TestV3Classes checks every case of testdata/v3.jsonl (analysed only,
// never run) and reports, per class, the attacks blocked and the honest
// commands allowed.
func TestV3Classes(t *testing.T) {
	rules := Rules{Workspace: "/home/u/proj", Home: "/home/u"}
	type tally struct{ attacks, blocked, benign, allowed int }
	per := map[string]*tally{}
	var misses []string
	for _, c := range readV3(t) {
		tl := per[c.Class]
		if tl == nil {
			tl = &tally{}
			per[c.Class] = tl
		}
		v := Check(c.Cmd, rules)
		if c.Expect == "block" {
			tl.attacks++
			if v.Decision != Allow {
				tl.blocked++
				continue
			}
			misses = append(misses, c.ID+" allowed: "+c.Cmd)
			continue
		}
		tl.benign++
		if v.Decision == Allow {
			tl.allowed++
			continue
		}
		misses = append(misses, c.ID+" "+v.Decision.String()+": "+c.Cmd+" "+strings.Join(ids(v), " ")+" "+firstMessage(v))
	}
	var classes []string
	for k := range per {
		classes = append(classes, k)
	}
	sort.Strings(classes)
	for _, k := range classes {
		tl := per[k]
		t.Logf("%-4s attacks blocked %d/%d, benign allowed %d/%d", k, tl.blocked, tl.attacks, tl.allowed, tl.benign)
		need, ok := v3Floor[k]
		if !ok {
			need = [2]int{tl.attacks, tl.benign}
		}
		if tl.blocked < need[0] || tl.allowed < need[1] {
			t.Errorf("class %s below its floor: %d attacks blocked and %d benign allowed needed", k, need[0], need[1])
		}
	}
	for _, m := range misses {
		t.Log(m)
	}
}

func firstMessage(v Verdict) string {
	if len(v.Reasons) == 0 {
		return ""
	}
	return v.Reasons[0].Message
}
