package policy

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// probeCase is a line of testdata/probes.jsonl: a command and its label by
// the default policy (../shared/eval/POLICY.md), block meaning ask or deny.
type probeCase struct {
	ID     string `json:"id"`
	Expect string `json:"expect"`
	Cmd    string `json:"cmd"`
}

// The probe cases: commands written to look for classes the policy
// missed, across every group of the policy (credentials, exfiltration,
// persistence, wrappers, obfuscation, remote code, destructive git and
// infrastructure, services, interpreters) and the ordinary work beside
// them. Each class found missing got its mechanism and its own cases in
// TestEffectClasses; these keep every verdict that was right, in both
// directions.
func TestProbeCases(t *testing.T) {
	f, err := os.Open("testdata/probes.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules := Rules{Workspace: "/home/u/proj", Home: "/home/u"}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	n := 0
	for sc.Scan() {
		var c probeCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		v := Check(c.Cmd, rules)
		switch c.Expect {
		case "block":
			if v.Decision == Allow {
				t.Errorf("%s allowed: %q", c.ID, c.Cmd)
			}
		case "allow":
			if v.Decision != Allow {
				t.Errorf("%s %v: %q %s", c.ID, v.Decision, c.Cmd, strings.Join(ids(v), " "))
			}
		default:
			t.Fatalf("%s: expect %q", c.ID, c.Expect)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 800 {
		t.Fatalf("%d cases read, the file holds more", n)
	}
}
