package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// With MergeStderr both streams share one pipe: the output holds them in
// exactly the order the command wrote them.
func TestMergeStderrKeepsOrder(t *testing.T) {
	var want strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&want, "out %d\nerr %d\n", i, i)
	}
	r, err := Run(context.Background(), Options{
		Script:      `for i in $(seq 0 199); do echo "out $i"; echo "err $i" >&2; done`,
		Dir:         t.TempDir(),
		Env:         testEnv(t),
		MergeStderr: true,
		MaxOutput:   1 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stdout.Text != want.String() || r.Stderr.Text != "" {
		t.Fatalf("stdout %q…, stderr %q", r.Stdout.Text[:min(200, len(r.Stdout.Text))], r.Stderr.Text)
	}
}
