package runner

import (
	"testing"

	"github.com/shellguard/shellguard/internal/safe"
)

// TestTaskGoroutinePanic: a panic in a task's goroutine ends that task
// with an error, wakes whoever waits for it, and leaves the table
// working for the next task.
func TestTaskGoroutinePanic(t *testing.T) {
	safe.SetHook(func(where string) {
		if where == "task" {
			panic("injected")
		}
	})
	tb := newTable(t, TableOptions{})
	task, err := tb.Start(taskOpts(t, "true"))
	if err != nil {
		safe.SetHook(nil)
		t.Fatal(err)
	}
	eventually(t, "the task to end", func() bool {
		select {
		case <-task.Done():
			return true
		default:
			return false
		}
	})
	safe.SetHook(nil)
	st := task.Status(ReadOptions{})
	if st.Running || st.EndedBy != EndedError {
		t.Fatalf("status after the panic: %+v", st)
	}
	if tb.Running() != 0 {
		t.Fatalf("%d tasks counted as running", tb.Running())
	}
	next, err := tb.Start(taskOpts(t, "echo fine"))
	if err != nil {
		t.Fatal(err)
	}
	<-next.Done()
	if st := next.Status(ReadOptions{}); st.Stdout != "fine\n" || st.EndedBy != EndedExit {
		t.Fatalf("the next task: %+v", st)
	}
}
