//go:build linux

package mcpserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/approvalpage"
	"github.com/shellguard/shellguard/internal/testenv"
	"github.com/shellguard/shellguard/sandbox"
)

const reviewEdit = `printf 'a\nB\n' > edit.txt && printf 'x\n' > new.txt`

// TestReviewOverMCP: a call with review: true runs, shows the user each
// change with its diff in an elicitation form, and lands only what the
// user picks; declined, nothing lands; a client that cannot ask is told
// so and nothing runs; the changes of one call never land on another's
// answer.
func TestReviewOverMCP(t *testing.T) {
	g, ws := newGuard(t)
	edit := filepath.Join(ws, "edit.txt")
	reset := func() {
		os.Remove(filepath.Join(ws, "new.txt"))
		if err := os.WriteFile(edit, []byte("a\nb\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reset()
	var mu sync.Mutex
	var messages []string
	answer := map[string]any{"apply": "select", "paths": "edit.txt"}
	action := "accept"
	cs := connect(t, New(g, nil), &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		messages = append(messages, r.Params.Message)
		return &mcp.ElicitResult{Action: action, Content: answer}, nil
	}})

	r := callBash(t, cs, map[string]any{"command": reviewEdit, "review": true, "detail": true})
	o := structured(t, r)
	if o.Sandbox != nil && !o.Sandbox.Has(sandbox.LayerOverlay) {
		testenv.SkipOrFail(t, "no copy-on-write workspace here")
	}
	if r.IsError || len(messages) != 1 {
		t.Fatalf("asked %d times: %s", len(messages), textOf(r))
	}
	for _, s := range []string{reviewEdit, "modify file edit.txt", "-b\n", "+B\n", "add file new.txt"} {
		if !strings.Contains(messages[0], s) {
			t.Errorf("the form does not show %q:\n%s", s, messages[0])
		}
	}
	if b, _ := os.ReadFile(edit); string(b) != "a\nB\n" {
		t.Errorf("edit.txt = %q: the picked change did not land", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Error("new.txt landed, not picked")
	}
	if !slices.Contains(o.Warnings, "review: 1 of 2 changes applied (edit.txt); discarded: new.txt") {
		t.Errorf("warnings %q", o.Warnings)
	}

	reset()
	action = "decline"
	r = callBash(t, cs, map[string]any{"command": reviewEdit, "review": true})
	if o := structured(t, r); len(messages) != 2 || !strings.Contains(strings.Join(o.Warnings, "\n"), `the user answered "decline"`) {
		t.Errorf("declined: asked %d times, %s", len(messages), textOf(r))
	}
	if b, _ := os.ReadFile(edit); string(b) != "a\nb\n" {
		t.Errorf("edit.txt = %q after a declined review", b)
	}

	// A run that changes nothing asks nobody.
	r = callBash(t, cs, map[string]any{"command": "cat edit.txt", "review": true})
	if r.IsError || len(messages) != 2 || !strings.Contains(textOf(r), "a\nb") {
		t.Errorf("no changes: asked %d times, %s", len(messages), textOf(r))
	}

	r = callBash(t, cs, map[string]any{"command": reviewEdit, "review": true, "run_in_background": true})
	if !r.IsError || !strings.Contains(textOf(r), "foreground") {
		t.Errorf("review in the background: %s", textOf(r))
	}

	// No elicitation: refused, nothing ran.
	plain := connect(t, New(g, nil), nil)
	r = callBash(t, plain, map[string]any{"command": reviewEdit, "review": true})
	if !r.IsError || !strings.Contains(textOf(r), "cannot show a review") {
		t.Errorf("a client that cannot ask: %s", textOf(r))
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Error("the command ran for a client that cannot review it")
	}
}

// TestReviewAnswerForged: an answer to a review that is not pending, or
// signed for another call, lands nothing and says so.
func TestReviewAnswerForged(t *testing.T) {
	g, _ := newGuard(t)
	s := New(g, nil)
	in := &input{Command: "true"}
	state := s.signReview(in, "nosuchid", time.Now())
	r := s.answerRun(context.Background(), in, &mcp.ElicitResult{Action: "accept", Content: map[string]any{"apply": "all"}}, state)
	if !r.IsError || !strings.Contains(textOf(r), "does not match a pending review") {
		t.Errorf("unknown id: %s", textOf(r))
	}
	other := &input{Command: "false"}
	if _, ok := s.verifyReview(other, state); ok {
		t.Error("a state signed for one call verified for another")
	}
	if _, ok := s.verifyReview(in, "r.x.1.y"); ok {
		t.Error("a made-up state verified")
	}
}

// TestReviewUnansweredSessionCloses: a review the client never answers
// (its handler fails) keeps nothing waiting once the session closes, and
// nothing lands.
func TestReviewUnansweredSessionCloses(t *testing.T) {
	g, ws := newGuard(t)
	srv := New(g, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return nil, errors.New("the window was closed")
	}}).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{"command": `printf 'x\n' > new.txt`, "review": true}})
	if err == nil && !r.IsError {
		t.Fatalf("an unanswered review returned a result: %s", textOf(r))
	}
	done := make(chan struct{})
	go func() {
		cs.Close()
		ss.Wait()
		srv.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not close: a review run still waits for its answer")
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Error("an unanswered review landed")
	}
}

// TestReviewOnPage: a client that cannot ask reviews on the approval
// page: answered within the blocking budget, the call returns the result;
// otherwise it says where to answer, nothing lands meanwhile, and the
// same call made again returns the run's result once answered.
func TestReviewOnPage(t *testing.T) {
	g, ws := newGuard(t)
	edit := filepath.Join(ws, "edit.txt")
	reset := func() {
		os.Remove(filepath.Join(ws, "new.txt"))
		if err := os.WriteFile(edit, []byte("a\nb\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reset()
	p, err := approvalpage.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	cs := connect(t, New(g, &Options{Page: p}), nil)
	done := make(chan struct{})
	go func() { defer close(done); pagePost(t, p, "all") }()
	r := callBash(t, cs, map[string]any{"command": reviewEdit, "review": true, "detail": true})
	<-done
	o := structured(t, r)
	if o.Sandbox == nil || !o.Sandbox.Has(sandbox.LayerOverlay) {
		testenv.SkipOrFail(t, "no copy-on-write workspace here")
	}
	if b, _ := os.ReadFile(edit); r.IsError || string(b) != "a\nB\n" {
		t.Fatalf("applied on the page: edit.txt %q: %s", b, textOf(r))
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err != nil {
		t.Errorf("new.txt did not land with all: %v", err)
	}

	reset()
	cs = connect(t, New(g, &Options{Page: p, Sessions: shellguard.SessionOptions{BlockingBudget: 500 * time.Millisecond}}), nil)
	args := map[string]any{"command": reviewEdit, "review": true}
	r = callBash(t, cs, args)
	if txt := textOf(r); !r.IsError || !strings.Contains(txt, "WAITING FOR REVIEW") || !strings.Contains(txt, p.URL()) {
		t.Fatalf("unanswered: %s", txt)
	}
	if b, _ := os.ReadFile(edit); string(b) != "a\nb\n" {
		t.Fatalf("edit.txt = %q before the review was answered", b)
	}
	pagePost(t, p, "deny")
	for i := 0; ; i++ {
		r = callBash(t, cs, args) // the same call: the same run's result
		if !strings.Contains(textOf(r), "WAITING FOR REVIEW") || i == 40 {
			break
		}
	}
	if o := structured(t, r); !strings.Contains(strings.Join(o.Warnings, "\n"), "deny") {
		t.Errorf("the discarded review's result: %s", textOf(r))
	}
	if b, _ := os.ReadFile(edit); string(b) != "a\nb\n" {
		t.Errorf("edit.txt = %q after the review was discarded", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Error("new.txt landed after the review was discarded")
	}
}

// TestWaitingQuestionsBounded: past the bound of questions waiting for an
// answer, a run's question is not put: it is answered no at once (its
// review lands nothing) and the result says why; the waiting one is still
// answerable.
func TestWaitingQuestionsBounded(t *testing.T) {
	g, ws := newGuard(t)
	p, err := approvalpage.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	srv := New(g, &Options{Page: p, Sessions: shellguard.SessionOptions{BlockingBudget: 300 * time.Millisecond}})
	srv.asking.max = 1
	cs := connect(t, srv, nil)
	first := map[string]any{"command": "printf 'x\n' > first.txt", "review": true, "detail": true}
	r := callBash(t, cs, first)
	if o := structured(t, r); !strings.Contains(textOf(r), "WAITING FOR REVIEW") {
		if o.Sandbox == nil || !o.Sandbox.Has(sandbox.LayerOverlay) {
			testenv.SkipOrFail(t, "no copy-on-write workspace here")
		}
		t.Fatalf("the first review: %s", textOf(r))
	}
	// The call returns after the blocking budget, perhaps before its run
	// (slow to start on a loaded machine) has put its question.
	for i := 0; p.Pending() == 0; i++ {
		if i == 2000 {
			t.Fatal("the first review never reached the page")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The second call too may return after its budget, before its run
	// reached its question; the same call made again gets that run.
	second := map[string]any{"command": "printf 'y\n' > second.txt", "review": true}
	r = callBash(t, cs, second)
	for i := 0; i < 40 && strings.Contains(textOf(r), "WAITING FOR REVIEW"); i++ {
		r = callBash(t, cs, second)
	}
	o := structured(t, r)
	if strings.Contains(textOf(r), "WAITING FOR REVIEW") || !strings.Contains(strings.Join(o.Warnings, "\n"), "1 questions already wait") || p.Pending() != 1 {
		t.Fatalf("the second review past the bound: %s", textOf(r))
	}
	if _, err := os.Stat(filepath.Join(ws, "second.txt")); err == nil {
		t.Error("second.txt landed without a review")
	}
	pagePost(t, p, "all")
	r = callBash(t, cs, first)
	for i := 0; i < 40 && strings.Contains(textOf(r), "WAITING FOR REVIEW"); i++ {
		r = callBash(t, cs, first)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "first.txt")); err != nil || string(b) != "x\n" {
		t.Errorf("the waiting review, answered: first.txt %q %v: %s", b, err, textOf(r))
	}
}
