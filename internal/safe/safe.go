// Package safe turns a panic at the boundary of a face (an MCP tool call,
// an HTTP request, a library Run, a task's goroutine) into an error that
// is logged and returned, so that one call cannot take the process, its
// sessions and their commands down with it.
package safe

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
)

// PanicError is a panic caught at a boundary.
type PanicError struct {
	Where string // the boundary: "mcp tool call", "Session.Run" …
	Value any    // what was passed to panic
	Stack string // the stack of the panicking goroutine
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error in %s (the call was abandoned; the server goes on): %v", e.Where, e.Value)
}

// Recover, deferred at a boundary, catches a panic, logs it with its
// stack (to log, or slog's default logger when nil) and passes it to
// caught as a *PanicError. It must be deferred directly:
//
//	defer safe.Recover("Guard.Run", nil, func(e error) { err = e })
func Recover(where string, log *slog.Logger, caught func(error)) {
	r := recover()
	if r == nil {
		return
	}
	e := &PanicError{Where: where, Value: r, Stack: string(debug.Stack())}
	if log == nil {
		log = slog.Default()
	}
	log.Error("internal error caught", "where", where, "panic", fmt.Sprint(r), "stack", e.Stack)
	if caught != nil {
		caught(e)
	}
}

var hook atomic.Pointer[func(where string)]

// Point is where a boundary calls the test hook, inside its Recover.
func Point(where string) {
	if h := hook.Load(); h != nil {
		(*h)(where)
	}
}

// SetHook installs fn as the test hook (nil removes it): a test makes a
// boundary panic with it and checks that the process lives on.
func SetHook(fn func(where string)) {
	if fn == nil {
		hook.Store(nil)
		return
	}
	hook.Store(&fn)
}
