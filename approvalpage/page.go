// Package approvalpage serves a local web page where a person answers the
// commands shellguard asks about, for MCP clients that cannot ask
// (no elicitation) and for people who prefer a window.
//
// The page listens on 127.0.0.1 on a random port, under a secret path: a
// request without the secret gets 404, and an answer must come from the
// page itself (its Origin). It lists the pending asks (the command with
// the spans of each finding highlighted, the reasons, the exact rule that
// "session" or "always" would remember) with buttons for once, session,
// always and deny; the network destinations a running command waits for;
// the reviews of what a command changed, each change with its diff, to
// apply all, some or none of; and the recent calls with what the audit log
// recorded of each (its line, the findings, the approval, the sandbox
// layers, the hosts granted, the secrets redacted). It is server-rendered HTML with
// no script beyond a reload.
package approvalpage

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// Ask is one command put to the person.
type Ask struct {
	Command string
	Cwd     string
	Purpose string         // what the agent said the command is for
	Verdict policy.Verdict // the findings, with their spans
	Offer   []string       // the rules "session"/"always" would add; nil: once only
	// Host, when set, makes the ask a network question: the command runs
	// and its connection to Host (host:port), which the sandbox refused,
	// waits; the answer allows exactly that destination, and "session"
	// and "always" remember it (Offer is not used).
	Host string
	// Path, when set, makes the ask a sandbox path question: the command
	// ran and the sandbox refused it writing (PathWrite) or reading a
	// path; the answer runs it once more with exactly Path writable (a
	// directory: PathRefused's nearest existing one when PathRefused is
	// set) or readable, and "session" and "always" remember it.
	Path        string
	PathWrite   bool
	PathRefused string
	// Changes, when set, make the ask a review: the command ran, and
	// these changes of the workspace wait to land; the answer applies
	// all of them, the chosen ones, or none (deny).
	Changes   []sandbox.Change
	NoAlways  bool   // "always" cannot be remembered here
	Session   string // which agent session asks
	CreatedAt time.Time
}

// Answer is the person's answer.
type Answer struct {
	Allow bool
	Scope string // "once", "session" or "always"
	// A review's answer (Allow set): every change, or the paths chosen.
	All   bool
	Paths []string
}

// Entry is a recent call shown on the page, with what the audit log
// recorded of it.
type Entry struct {
	Time     time.Time
	Command  string
	Decision string
	Outcome  string // "exit 0", "denied", …

	// AuditSeq is the seq of the call's line in the audit log (0: none
	// was written, as without an audit log).
	AuditSeq int64
	// Rules are the IDs of the policy's findings.
	Rules []string
	// Approved: a person let the ask through.
	Approved bool
	// Sandbox names the sandbox layers in force (none: unsandboxed).
	Sandbox []string
	// Hosts are the network destinations a person granted to the run.
	Hosts []string
	// Redactions counts the secrets redacted from the output.
	Redactions int
}

// Page is a running approval page.
type Page struct {
	url    string
	secret string
	srv    *http.Server
	ln     net.Listener

	mu      sync.Mutex
	next    int
	pending map[int]*pending
	recent  []Entry
	changed chan struct{} // closed and replaced at every change
}

type pending struct {
	id     int
	ask    Ask
	answer chan Answer
}

// maxRecent bounds the recent calls kept for the page.
const maxRecent = 50

// Start listens on 127.0.0.1 (a random port) and serves the page.
func Start() (*Page, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := make([]byte, 24)
	rand.Read(b)
	p := &Page{secret: base64.RawURLEncoding.EncodeToString(b), ln: ln, pending: map[int]*pending{}, changed: make(chan struct{})}
	p.url = fmt.Sprintf("http://%s/%s/", ln.Addr(), p.secret)
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second}
	go p.srv.Serve(ln)
	return p, nil
}

// URL is the page's address, secret included: whoever has it can answer.
func (p *Page) URL() string { return p.url }

// Close stops the page; pending asks are answered "deny".
func (p *Page) Close() error {
	p.mu.Lock()
	for id, x := range p.pending {
		select {
		case x.answer <- Answer{}:
		default:
		}
		delete(p.pending, id)
	}
	p.mu.Unlock()
	return p.srv.Close()
}

// Ask puts a to the person and waits for the answer until ctx is done
// (then it returns ctx's error, and the ask is withdrawn from the page).
func (p *Page) Ask(ctx context.Context, a Ask) (Answer, error) {
	id, ch := p.Post(a)
	defer p.Withdraw(id)
	select {
	case ans := <-ch:
		return ans, nil
	case <-ctx.Done():
		return Answer{}, ctx.Err()
	}
}

// Post puts a on the page without waiting: the answer arrives on the
// channel (once). The ask stays until it is answered or withdrawn.
func (p *Page) Post(a Ask) (id int, answer <-chan Answer) {
	if a.CreatedAt.IsZero() {
		a.CreatedAt = time.Now()
	}
	x := &pending{ask: a, answer: make(chan Answer, 1)}
	p.mu.Lock()
	p.next++
	x.id = p.next
	p.pending[x.id] = x
	p.notify()
	p.mu.Unlock()
	return x.id, x.answer
}

// Withdraw takes an ask off the page (an answer already given stays on
// its channel).
func (p *Page) Withdraw(id int) {
	p.mu.Lock()
	if _, ok := p.pending[id]; ok {
		delete(p.pending, id)
		p.notify()
	}
	p.mu.Unlock()
}

// Record adds a call to the page's list of recent calls.
func (p *Page) Record(e Entry) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	p.mu.Lock()
	p.recent = append(p.recent, e)
	if len(p.recent) > maxRecent {
		p.recent = p.recent[len(p.recent)-maxRecent:]
	}
	p.notify()
	p.mu.Unlock()
}

// Pending returns the number of asks waiting.
func (p *Page) Pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.pending)
}

// notify wakes the page's long polls; p.mu is held.
func (p *Page) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/"+p.secret+"/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; form-action 'self'; connect-src 'self'")
	w.Header().Set("Referrer-Policy", "same-origin") // "no-referrer" makes browsers send Origin: null with the form
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case rest == "" && r.Method == http.MethodGet:
		p.render(w)
	case rest == "wait" && r.Method == http.MethodGet:
		// A long poll: returns when something changed (or after 25 s).
		p.mu.Lock()
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(25 * time.Second):
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusNoContent)
	case rest == "answer" && r.Method == http.MethodPost:
		p.answer(w, r)
	default:
		http.NotFound(w, r)
	}
}

// answer takes a button's form: id and action (once, session, always,
// deny). It must come from the page: its Origin is the page's own.
func (p *Page) answer(w http.ResponseWriter, r *http.Request) {
	origin := "http://" + p.ln.Addr().String()
	if o := r.Header.Get("Origin"); o != origin {
		http.Error(w, "forbidden: answers come from the page itself", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	id, _ := strconv.Atoi(r.PostForm.Get("id"))
	action := r.PostForm.Get("action")
	p.mu.Lock()
	x := p.pending[id]
	if x != nil {
		var ans Answer
		review := x.ask.Changes != nil
		switch {
		case review && action == "all":
			ans = Answer{Allow: true, All: true}
		case review && action == "apply":
			ans = Answer{Allow: true, Paths: r.PostForm["path"]}
		case review && action != "deny":
			p.mu.Unlock()
			http.Error(w, "a review is answered with all, apply or deny", http.StatusBadRequest)
			return
		}
		switch {
		case review:
		case action == "once":
			ans = Answer{Allow: true, Scope: "once"}
		case action == "session" || action == "always":
			if !x.ask.remembers() || action == "always" && x.ask.NoAlways {
				p.mu.Unlock()
				http.Error(w, "this answer cannot be remembered", http.StatusBadRequest)
				return
			}
			ans = Answer{Allow: true, Scope: action}
		case action == "deny":
		default:
			p.mu.Unlock()
			http.Error(w, "unknown action", http.StatusBadRequest)
			return
		}
		select {
		case x.answer <- ans:
		default:
		}
		delete(p.pending, id)
		p.notify()
	}
	p.mu.Unlock()
	http.Redirect(w, r, "/"+p.secret+"/", http.StatusSeeOther)
}

// remembers reports whether an answer to a may hold beyond once.
func (a Ask) remembers() bool { return a.Offer != nil || a.Host != "" || a.Path != "" }

// view is what writePage renders.
type view struct {
	Pending []pendingView
	Recent  []Entry
}

type pendingView struct {
	ID       int
	Ask      Ask
	Parts    []part
	Reasons  []policy.Reason
	Age      string
	CanOnce  bool
	CanScope bool
	CanAlway bool
}

// part is a piece of the command, marked when a finding is about it.
type part struct {
	Text   string
	Marked bool
	Title  string
}

func (p *Page) render(w http.ResponseWriter) {
	p.mu.Lock()
	var v view
	for _, x := range p.pending {
		v.Pending = append(v.Pending, pendingView{ID: x.id, Ask: x.ask, Parts: highlight(x.ask.Command, x.ask.Verdict.Reasons),
			Reasons: x.ask.Verdict.Reasons, Age: time.Since(x.ask.CreatedAt).Round(time.Second).String(),
			CanOnce: true, CanScope: x.ask.remembers(), CanAlway: x.ask.remembers() && !x.ask.NoAlways})
	}
	for i := len(p.recent) - 1; i >= 0; i-- {
		v.Recent = append(v.Recent, p.recent[i])
	}
	p.mu.Unlock()
	sort.Slice(v.Pending, func(i, j int) bool { return v.Pending[i].ID < v.Pending[j].ID })
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	writePage(w, v)
}

// highlight splits command at the spans of the reasons that ask or deny.
func highlight(command string, reasons []policy.Reason) []part {
	marks := make([]string, len(command))
	for _, r := range reasons {
		if r.Decision < policy.Ask {
			continue
		}
		for i := max(r.Start, 0); i < min(r.End, len(command)); i++ {
			if marks[i] == "" {
				marks[i] = r.ID + ": " + r.Message
			}
		}
	}
	var out []part
	for i := 0; i < len(command); {
		j := i
		for j < len(command) && (marks[j] != "") == (marks[i] != "") && marks[j] == marks[i] {
			j++
		}
		out = append(out, part{Text: command[i:j], Marked: marks[i] != "", Title: marks[i]})
		i = j
	}
	return out
}

// pageHead and pageTail are the page around what writePage writes.
const pageHead = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>shellguard approvals</title>
<style>
body{font:15px system-ui,sans-serif;margin:2em auto;max-width:60em;color:#222}
h1{font-size:1.3em} h2{font-size:1.1em;margin-top:2em}
.ask{border:1px solid #ccc;border-radius:6px;padding:1em;margin:1em 0;background:#fafafa}
pre{white-space:pre-wrap;word-break:break-all;background:#fff;border:1px solid #ddd;padding:.6em;font-size:14px}
mark{background:#ffd5cc;border-bottom:2px solid #d33}
.reason{margin:.2em 0} .id{font-family:monospace;color:#555}
.rule{font-family:monospace;background:#eef}
button{font-size:14px;margin-right:.5em;padding:.4em .9em;border-radius:4px;border:1px solid #888;cursor:pointer}
button.allow{background:#e6f4ea} button.deny{background:#fde8e8}
table{border-collapse:collapse;width:100%} td,th{border-bottom:1px solid #eee;padding:.3em;text-align:left;font-size:13px}
td.cmd{font-family:monospace}
.none{color:#777}
.change{margin:.6em 0} pre.diff{font-size:12px;max-height:30em;overflow:auto}
</style></head><body>
`

const pageTail = `<script>
(async function(){for(;;){try{await fetch("wait",{cache:"no-store"});location.reload();return}catch(e){await new Promise(r=>setTimeout(r,2000))}}})();
</script>
</body></html>
`
