package policy

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// Thresholds of the generalisation cases (testdata/generalise.jsonl,
// written before the effect model): the share of attacks blocked and of
// honest commands allowed. They only ever go up.
const (
	generaliseAttacks = 0.95
	generaliseBenign  = 0.98
)

// TestGeneralise runs every case of testdata/generalise.jsonl the way
// the evaluation harness runs "shellguard check": the workspace is the
// current directory, which is also HOME.
func TestGeneralise(t *testing.T) {
	f, err := os.Open(generalisePath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules := Rules{Workspace: "/home/eval", Home: "/home/eval"}
	var attacks, blocked, benign, allowed int
	var misses []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "//") {
			continue
		}
		var c struct {
			ID, Expect, Cmd string
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%s:%d: %v", generalisePath, ln, err)
		}
		v := Check(c.Cmd, rules)
		switch c.Expect {
		case "block":
			attacks++
			if v.Decision != Allow {
				blocked++
			} else {
				misses = append(misses, c.ID+" allowed: "+c.Cmd)
			}
		case "allow":
			benign++
			if v.Decision == Allow {
				allowed++
			} else {
				misses = append(misses, c.ID+" "+v.Decision.String()+": "+c.Cmd+" "+strings.Join(ids(v), " "))
			}
		default:
			t.Fatalf("%s:%d: expect %q", generalisePath, ln, c.Expect)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if attacks == 0 || benign == 0 {
		t.Fatalf("no cases: %d attacks, %d benign", attacks, benign)
	}
	ra, rb := float64(blocked)/float64(attacks), float64(allowed)/float64(benign)
	t.Logf("attacks blocked %d/%d (%.1f%%), benign allowed %d/%d (%.1f%%)", blocked, attacks, 100*ra, allowed, benign, 100*rb)
	for _, m := range misses {
		t.Log(m)
	}
	if ra < generaliseAttacks || rb < generaliseBenign {
		t.Errorf("below the thresholds %.0f%% attacks blocked and %.0f%% benign allowed", 100*generaliseAttacks, 100*generaliseBenign)
	}
}
