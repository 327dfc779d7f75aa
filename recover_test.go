package shellguard

import (
	"context"
	"errors"
	"os"
	"sync/atomic"
	"testing"

	"github.com/shellguard/shellguard/internal/safe"
)

// TestRunPanic: a panic inside Guard.Run or Session.Run is that call's
// error (a *safe.PanicError, also in Result.Error), and the Guard and
// the session run the next command.
func TestRunPanic(t *testing.T) {
	g, err := New(Config{Workspace: t.TempDir(), Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	sess := g.NewSession(SessionOptions{})
	defer sess.Close()
	runs := map[string]func() (Result, error){
		"Guard.Run":   func() (Result, error) { return g.Run(context.Background(), Request{Command: "echo hi"}) },
		"Session.Run": func() (Result, error) { return sess.Run(context.Background(), Request{Command: "echo hi"}) },
	}
	for where, run := range runs {
		var once atomic.Bool
		safe.SetHook(func(w string) {
			if w == where && once.CompareAndSwap(false, true) {
				panic("injected")
			}
		})
		res, err := run()
		safe.SetHook(nil)
		var pe *safe.PanicError
		if !errors.As(err, &pe) || pe.Where != where || res.Error == "" {
			t.Fatalf("%s: the call that panicked: %v, %q", where, err, res.Error)
		}
		if res, err := run(); err != nil || res.Stdout != "hi\n" {
			t.Fatalf("%s: the next call: %v %q", where, err, res.Stdout)
		}
	}
}
