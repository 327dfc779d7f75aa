package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/sandbox"
)

var reviewChanges = []sandbox.Change{
	{Path: "edit.txt", Op: "modify", Kind: "file", Mode: "0644", Diff: "--- a/edit.txt\n+++ b/edit.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\x1b]0;pwned\x07\n"},
	{Path: "new\u202etxt.sh", Op: "add", Kind: "file", Mode: "0755", Note: "binary"},
	{Path: "old", Op: "delete", Kind: "dir"},
}

// TestChangeReviewer: the person sees every change with its diff, with
// what the command wrote unable to act on the terminal; all, select and
// anything else give all, the picked, and nothing.
func TestChangeReviewer(t *testing.T) {
	req := shellguard.Request{Command: "sed -i s/b/B/ edit.txt"}
	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"a\n", []string{"edit.txt", "new\u202etxt.sh", "old"}},
		{"all\n", []string{"edit.txt", "new\u202etxt.sh", "old"}},
		{"s\ny\nn\nyes\n", []string{"edit.txt", "old"}},
		{"s\n", nil}, // the terminal ends: the rest is no
		{"\n", nil},
		{"n\n", nil},
		{"whatever\n", nil},
		{strings.Repeat("a", 1000) + "\n", nil},
	} {
		tty := &fakeTTY{Reader: strings.NewReader(tc.typed)}
		var asking []bool
		got, err := ChangeReviewer(&Options{Open: func() (io.ReadWriteCloser, error) { return tty, nil }, OnAsk: func(a bool) { asking = append(asking, a) }})(context.Background(), req, reviewChanges)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("typed %.20q: apply %q, %v; want %q", tc.typed, got, err, tc.want)
		}
		out := tty.out.String()
		for _, s := range []string{req.Command, "modify file edit.txt (0644)", "-b", `+B\x1b]0;pwned\x07`, `add file new\u202etxt.sh (0755)`, "(binary)", "delete dir old", "[a]ll, [s]elect, [N]one"} {
			if !strings.Contains(out, s) {
				t.Errorf("typed %.20q: the terminal did not show %q:\n%s", tc.typed, s, out)
			}
		}
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("a control character reached the terminal:\n%q", out)
		}
		if !tty.closed || fmt.Sprint(asking) != "[true false]" {
			t.Errorf("closed %v, OnAsk %v", tty.closed, asking)
		}
	}
	_, err := ChangeReviewer(&Options{Open: func() (io.ReadWriteCloser, error) { return nil, errors.New("no tty") }})(context.Background(), req, reviewChanges)
	if err == nil {
		t.Error("no terminal, no error: the changes would be judged by nobody")
	}
}
