package approvalpage

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// postAnswer posts a button of the page, as the browser does.
func postAnswer(t *testing.T, p *Page, id, action, origin string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", p.URL()+"answer", strings.NewReader(url.Values{"id": {id}, "action": {action}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func origin(p *Page) string {
	u, _ := url.Parse(p.URL())
	return "http://" + u.Host
}

func TestPage(t *testing.T) {
	p, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	u, _ := url.Parse(p.URL())
	if code, _ := get(t, "http://"+u.Host+"/"); code != http.StatusNotFound {
		t.Errorf("without the secret: %d", code)
	}
	if code, _ := get(t, "http://"+u.Host+"/wrong-secret/"); code != http.StatusNotFound {
		t.Errorf("with a wrong secret: %d", code)
	}
	if code, body := get(t, p.URL()); code != 200 || !strings.Contains(body, "Nothing is waiting") {
		t.Errorf("empty page: %d\n%s", code, body)
	}

	cmd := `echo <b>hi</b> && chmod -R 777 sub`
	v := policy.Verdict{Decision: policy.Ask, Reasons: []policy.Reason{{ID: "SG4021", Decision: policy.Ask, Message: "changes the mode", Span: policy.Span{Start: strings.Index(cmd, "chmod"), End: len(cmd)}}}}
	got := make(chan Answer, 1)
	go func() {
		a, err := p.Ask(context.Background(), Ask{Command: cmd, Verdict: v, Offer: []string{"chmod -R 777 sub"}})
		if err != nil {
			t.Error(err)
		}
		got <- a
	}()
	for p.Pending() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	_, body := get(t, p.URL())
	for _, want := range []string{`<mark title="SG4021: changes the mode">chmod -R 777 sub</mark>`, "echo &lt;b&gt;hi&lt;/b&gt;", `value="session"`, `value="always"`, `<span class="rule">chmod -R 777 sub</span>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
	if code := postAnswer(t, p, "1", "session", ""); code != http.StatusForbidden {
		t.Errorf("an answer without Origin: %d", code)
	}
	if code := postAnswer(t, p, "1", "session", "http://evil.example"); code != http.StatusForbidden {
		t.Errorf("an answer from another origin: %d", code)
	}
	if code := postAnswer(t, p, "1", "session", origin(p)); code != http.StatusSeeOther {
		t.Errorf("the answer: %d", code)
	}
	select {
	case a := <-got:
		if !a.Allow || a.Scope != "session" {
			t.Errorf("answer %+v", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answer did not arrive")
	}
	p.Record(Entry{Command: "ls", Decision: "allow", Outcome: "exit 0"})
	if _, body := get(t, p.URL()); !strings.Contains(body, "exit 0") || strings.Contains(body, "<mark") {
		t.Errorf("after the answer:\n%s", body)
	}
}

// The recent calls show what the audit log recorded of each: its line,
// the findings, the approval, the sandbox layers, the hosts granted and
// the secrets redacted; a call no log recorded says so.
func TestPageAuditEntries(t *testing.T) {
	p, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.Record(Entry{Command: "curl -sf https://pkg.example/x", Decision: "ask", Outcome: "exit 0", AuditSeq: 41,
		Rules: []string{"SG9001", "SG9002"}, Approved: true, Sandbox: []string{"landlock", "seccomp"},
		Hosts: []string{"pkg.example:443"}, Redactions: 2})
	p.Record(Entry{Command: "ls", Decision: "allow", Outcome: "exit 0"})
	_, body := get(t, p.URL())
	for _, want := range []string{"line 41", "SG9001</span>, <span class=\"id\">SG9002", "ask (approved)",
		"sandbox: landlock, seccomp", "hosts granted: pkg.example:443", "2 secret(s) redacted", "not logged (no audit log)", "no sandbox"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
	// Newest first.
	if strings.Index(body, ">ls<") > strings.Index(body, "curl -sf") {
		t.Errorf("the recent calls are not newest first:\n%s", body)
	}
}

// An ask that may only be answered once offers no remembering button,
// and a forged one is refused.
func TestPageOnceOnly(t *testing.T) {
	p, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	id, ch := p.Post(Ask{Command: "x", Verdict: policy.Verdict{Decision: policy.Ask}})
	_, body := get(t, p.URL())
	if strings.Contains(body, `value="session"`) || strings.Contains(body, `value="always"`) {
		t.Errorf("a once-only ask offers more:\n%s", body)
	}
	if code := postAnswer(t, p, "1", "always", origin(p)); code != http.StatusBadRequest {
		t.Errorf("a forged always: %d", code)
	}
	if code := postAnswer(t, p, "1", "deny", origin(p)); code != http.StatusSeeOther {
		t.Errorf("deny: %d", code)
	}
	if a := <-ch; a.Allow {
		t.Errorf("denied, got %+v", a)
	}
	p.Withdraw(id)
}

func TestHighlight(t *testing.T) {
	parts := highlight("abcdef", []policy.Reason{{ID: "A", Decision: policy.Ask, Span: policy.Span{Start: 1, End: 3}}, {ID: "N", Decision: policy.Allow, Span: policy.Span{Start: 4, End: 5}}, {ID: "X", Decision: policy.Deny, Span: policy.Span{Start: 5, End: 99}}})
	var b strings.Builder
	for _, p := range parts {
		if p.Marked {
			b.WriteString("[" + p.Text + "]")
		} else {
			b.WriteString(p.Text)
		}
	}
	if b.String() != "a[bc]de[f]" {
		t.Errorf("highlight: %s", b.String())
	}
}

// A network question names the destination, offers every scope (there is
// no rule to show: the destination is what is remembered) unless always
// cannot be kept, and its answer arrives as given.
func TestPageNetworkQuestion(t *testing.T) {
	p, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got := make(chan Answer, 1)
	go func() {
		a, _ := p.Ask(context.Background(), Ask{Command: "npm view left-pad", Host: "registry.example:443"})
		got <- a
	}()
	for p.Pending() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	_, body := get(t, p.URL())
	for _, want := range []string{`<span class="rule">registry.example:443</span>`, "npm view left-pad", `value="once"`, `value="session"`, `value="always"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
	if code := postAnswer(t, p, "1", "always", origin(p)); code != http.StatusSeeOther {
		t.Errorf("the answer: %d", code)
	}
	if a := <-got; !a.Allow || a.Scope != "always" {
		t.Errorf("answer %+v", a)
	}

	go func() {
		a, _ := p.Ask(context.Background(), Ask{Command: "npm view left-pad", Host: "registry.example:443", NoAlways: true})
		got <- a
	}()
	for p.Pending() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if _, body := get(t, p.URL()); strings.Contains(body, `value="always"`) || !strings.Contains(body, `value="session"`) {
		t.Errorf("always offered where it cannot be kept:\n%s", body)
	}
	if code := postAnswer(t, p, "2", "always", origin(p)); code != http.StatusBadRequest {
		t.Errorf("always where it cannot be kept: %d", code)
	}
	if code := postAnswer(t, p, "2", "deny", origin(p)); code != http.StatusSeeOther {
		t.Errorf("deny: %d", code)
	}
	if a := <-got; a.Allow {
		t.Errorf("denied, answer %+v", a)
	}
}

// A path question names the refused path, the directory a write grant
// would open and the scopes; its answer arrives as given.
func TestPagePathQuestion(t *testing.T) {
	p, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got := make(chan Answer, 1)
	go func() {
		a, _ := p.Ask(context.Background(), Ask{Command: "make dist", Path: "/srv/out", PathWrite: true, PathRefused: "/srv/out/new/f"})
		got <- a
	}()
	for p.Pending() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	_, body := get(t, p.URL())
	for _, want := range []string{"make dist", `refused it writing <span class="rule">/srv/out/new/f</span>`, `<span class="rule">/srv/out</span> (its nearest existing directory)`,
		`value="once"`, `value="session"`, `value="always"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
	if code := postAnswer(t, p, "1", "session", origin(p)); code != http.StatusSeeOther {
		t.Errorf("the answer: %d", code)
	}
	if a := <-got; !a.Allow || a.Scope != "session" {
		t.Errorf("answer %+v", a)
	}
	go func() {
		a, _ := p.Ask(context.Background(), Ask{Command: "cat notes", Path: "/home/u/notes.txt"})
		got <- a
	}()
	for p.Pending() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if _, body := get(t, p.URL()); !strings.Contains(body, `refused it reading <span class="rule">/home/u/notes.txt</span>`) || !strings.Contains(body, "(read-only)") {
		t.Errorf("the read question:\n%s", body)
	}
	if code := postAnswer(t, p, "2", "deny", origin(p)); code != http.StatusSeeOther {
		t.Errorf("deny: %d", code)
	}
	if a := <-got; a.Allow {
		t.Errorf("denied, answer %+v", a)
	}
}

// A review lists each change with its diff and a checkbox; the answer is
// every change, the checked ones, or none; the buttons of other asks do
// not answer it.
func TestPageReview(t *testing.T) {
	p, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	changes := []sandbox.Change{{Path: "a.txt", Op: "modify", Kind: "file", Diff: "-old <x>\n+new\n"}, {Path: "bin/tool", Op: "add", Kind: "file", Mode: "0755", Note: "binary"}}
	ask := func() chan Answer {
		got := make(chan Answer, 1)
		go func() {
			a, _ := p.Ask(context.Background(), Ask{Command: "sed -i s/old/new/ a.txt", Changes: changes})
			got <- a
		}()
		for p.Pending() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		return got
	}
	got := ask()
	_, body := get(t, p.URL())
	for _, want := range []string{`value="a.txt" checked`, `value="bin/tool" checked`, "-old &lt;x&gt;\n&#43;new", "binary", "(0755)", `value="apply"`, `value="all"`, `value="deny"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, `value="session"`) {
		t.Errorf("a review offers remembering:\n%s", body)
	}
	if code := postAnswer(t, p, "1", "session", origin(p)); code != http.StatusBadRequest {
		t.Errorf("a review answered with session: %d", code)
	}
	// The checked paths: a.txt only.
	req, _ := http.NewRequest("POST", p.URL()+"answer", strings.NewReader(url.Values{"id": {"1"}, "action": {"apply"}, "path": {"a.txt"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin(p))
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if a := <-got; !a.Allow || a.All || len(a.Paths) != 1 || a.Paths[0] != "a.txt" {
		t.Errorf("apply the checked ones: %+v", a)
	}
	got = ask()
	postAnswer(t, p, "2", "all", origin(p))
	if a := <-got; !a.Allow || !a.All {
		t.Errorf("apply all: %+v", a)
	}
	got = ask()
	postAnswer(t, p, "3", "deny", origin(p))
	if a := <-got; a.Allow {
		t.Errorf("discard: %+v", a)
	}
}
