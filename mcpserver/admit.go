package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Default bounds of the calls a server runs at once (Options.MaxCalls,
// Options.MaxQueued).
func defaultMaxCalls() int { return max(4, 2*runtime.NumCPU()) }

const defaultMaxQueued = 64

// errBusy answers a call that finds every slot taken and the queue full.
var errBusy = errors.New("busy")

// errDrained is the cause given to a call stopped because the client's
// input ended while its command went on running.
var errDrained = errors.New("the client closed its input and the command was still running")

// admission bounds the commands a server runs at once. A call that finds
// every slot taken waits in a bounded queue (in arrival order, as far as
// the channel's waiters are served); past the queue it is refused with a
// clear "busy" error rather than piling up work on a loaded machine.
//
// It also carries the stdio drain: once the client's input has ended,
// every command running, and every one that starts later, gets
// DrainTimeout (Options.DrainTimeout) of its own before it is stopped. A call still waiting for
// a slot is not cut short by the time others took.
type admission struct {
	slots      chan struct{}
	maxQueued  int
	drainAfter time.Duration // Options.DrainTimeout

	mu       sync.Mutex
	queued   int
	draining bool
	running  map[*admitted]struct{}
}

// admitted is one call holding a slot.
type admitted struct {
	a      *admission
	cancel context.CancelCauseFunc
	timer  *time.Timer
}

func newAdmission(maxCalls, maxQueued int, drainAfter time.Duration) *admission {
	if maxCalls <= 0 {
		maxCalls = defaultMaxCalls()
	}
	if maxQueued <= 0 {
		maxQueued = defaultMaxQueued
	}
	if drainAfter <= 0 {
		drainAfter = DrainTimeout
	}
	return &admission{slots: make(chan struct{}, maxCalls), maxQueued: maxQueued, drainAfter: drainAfter, running: map[*admitted]struct{}{}}
}

// acquire waits for a slot. The returned context is ctx, cancelled with
// errDrained when the drain's time for this call runs out; release must
// be called when the call ends.
func (a *admission) acquire(ctx context.Context) (context.Context, *admitted, error) {
	select {
	case a.slots <- struct{}{}:
	default:
		a.mu.Lock()
		if a.queued >= a.maxQueued {
			a.mu.Unlock()
			return nil, nil, fmt.Errorf("%w: %d commands are running and %d waiting to run; wait for one to finish and try again", errBusy, cap(a.slots), a.maxQueued)
		}
		a.queued++
		a.mu.Unlock()
		var err error
		select {
		case a.slots <- struct{}{}:
		case <-ctx.Done():
			err = ctx.Err()
		}
		a.mu.Lock()
		a.queued--
		a.mu.Unlock()
		if err != nil {
			return nil, nil, err
		}
	}
	cctx, cancel := context.WithCancelCause(ctx)
	c := &admitted{a: a, cancel: cancel}
	a.mu.Lock()
	a.running[c] = struct{}{}
	if a.draining {
		c.arm()
	}
	a.mu.Unlock()
	return cctx, c, nil
}

// arm starts the call's drain clock; a.mu is held.
func (c *admitted) arm() {
	if c.timer == nil {
		c.timer = time.AfterFunc(c.a.drainAfter, func() { c.cancel(errDrained) })
	}
}

// release gives the slot back.
func (c *admitted) release() {
	a := c.a
	a.mu.Lock()
	delete(a.running, c)
	if c.timer != nil {
		c.timer.Stop()
	}
	a.mu.Unlock()
	c.cancel(nil)
	<-a.slots
}

// drain starts the clock of every call running now and of every call
// admitted from now on.
func (a *admission) drain() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.draining = true
	for c := range a.running {
		c.arm()
	}
}

// busy reports whether a command runs or waits for a slot.
func (a *admission) busy() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.running) > 0 || a.queued > 0
}
