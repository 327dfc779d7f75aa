package approvalpage

import (
	"html/template"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// TestWritePageAsTemplate checks writePage against the html/template
// the page was written with before (referenceBody, the same markup), on
// views that take every branch, with values holding every character
// either escapes.
func TestWritePageAsTemplate(t *testing.T) {
	ref := template.Must(template.New("page").Parse(pageHead + referenceBody + pageTail))
	odd := "a<b>&c\"d'e+f\x00g \u00e9\u202e\x1b[31m"
	when := time.Date(2026, 11, 29, 3, 4, 5, 0, time.UTC)
	reasons := []policy.Reason{{ID: "SG1" + odd, Decision: policy.Ask, Message: "m" + odd}, {ID: "SG2", Decision: policy.Deny, Message: "x"}}
	parts := []part{{Text: "rm " + odd}, {Text: "-rf", Marked: true, Title: "SG1: " + odd}}
	asks := []pendingView{
		{ID: 1, Ask: Ask{Command: odd, Cwd: odd, Purpose: odd, Offer: []string{"r1" + odd, "r2"}}, Parts: parts, Reasons: reasons, Age: "3s", CanOnce: true, CanScope: true, CanAlway: true},
		{ID: 2, Ask: Ask{Command: "x"}, Age: "1m0s", CanOnce: true},
		{ID: 3, Ask: Ask{Host: "h" + odd + ":443"}, CanOnce: true, CanScope: true},
		{ID: 4, Ask: Ask{Path: "/p" + odd, PathWrite: true, PathRefused: "/p/q" + odd}, CanOnce: true, CanScope: true, CanAlway: true},
		{ID: 5, Ask: Ask{Path: "/p" + odd, PathWrite: true}, CanScope: true},
		{ID: 6, Ask: Ask{Path: "/r" + odd, PathRefused: "/r/s"}, CanScope: true},
		{ID: 7, Ask: Ask{Path: "/r"}},
		{ID: 8, Ask: Ask{Changes: []sandbox.Change{
			{Path: "a" + odd, Op: "modify", Kind: "file", Mode: "0644 -> 0755", Diff: "-old <x>\n+new" + odd},
			{Path: "b", Op: "add", Kind: "file", Note: "binary" + odd},
			{Path: "c", Op: "delete", Kind: "dir"},
		}}, Parts: parts, Reasons: reasons, CanScope: true},
	}
	recent := []Entry{
		{Time: when, Command: odd, Decision: "ask" + odd, Outcome: "exit 0" + odd, AuditSeq: 12, Rules: []string{"SG1", odd}, Approved: true,
			Sandbox: []string{"landlock", odd}, Hosts: []string{"a:1", odd}, Redactions: 3},
		{Time: when, Command: "ls", Decision: "allow", Outcome: "exit 1"},
		{Time: when, Command: "ls", Decision: "allow", Rules: []string{"SG3"}, Sandbox: []string{"x"}},
	}
	views := map[string]view{"empty": {}, "pending": {Pending: asks}, "recent": {Recent: recent}, "both": {Pending: asks, Recent: recent}}
	for _, a := range asks {
		views["one "+a.Age+string(rune('0'+a.ID))] = view{Pending: []pendingView{a}}
	}
	for name, v := range views {
		var want, got strings.Builder
		if err := ref.Execute(&want, v); err != nil {
			t.Fatal(err)
		}
		if err := writePage(&got, v); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			w, g := want.String(), got.String()
			i := 0
			for i < len(w) && i < len(g) && w[i] == g[i] {
				i++
			}
			t.Errorf("%s: differs at byte %d:\n got  %q\n want %q", name, i, g[max(0, i-80):min(len(g), i+80)], w[max(0, i-80):min(len(w), i+80)])
		}
	}
}

// referenceBody is the template the page was written with before, from
// its first heading to its script (pageHead and pageTail around it are
// the same).
const referenceBody = `<h1>shellguard: commands waiting for your answer</h1>
{{if not .Pending}}<p class="none" id="none">Nothing is waiting. This page updates by itself.</p>{{end}}
{{range .Pending}}<div class="ask" id="ask-{{.ID}}">
<div>Asked {{.Age}} ago{{if .Ask.Cwd}} in <code>{{.Ask.Cwd}}</code>{{end}}{{if .Ask.Purpose}}: {{.Ask.Purpose}}{{end}}</div>
<pre>{{range .Parts}}{{if .Marked}}<mark title="{{.Title}}">{{.Text}}</mark>{{else}}{{.Text}}{{end}}{{end}}</pre>
{{range .Reasons}}<div class="reason"><span class="id">{{.ID}} [{{.Decision}}]</span> {{.Message}}</div>{{end}}
{{if .Ask.Changes}}{{else if .Ask.Path}}<p class="net">It ran, and the sandbox refused it {{if .Ask.PathWrite}}writing{{else}}reading{{end}} <span class="rule">{{if .Ask.PathRefused}}{{.Ask.PathRefused}}{{else}}{{.Ask.Path}}{{end}}</span>. Allowing runs it once more with {{if .Ask.PathWrite}}<span class="rule">{{.Ask.Path}}</span>{{if .Ask.PathRefused}} (its nearest existing directory){{end}} and everything under it writable{{else}}exactly that path readable (read-only){{end}}; "this session" and "always" remember it.</p>
{{else if .Ask.Host}}<p class="net">It is running, and waits while it connects to <span class="rule">{{.Ask.Host}}</span>, which the sandbox's network allowlist does not name. Allowing lets exactly that destination through; "this session" and "always" remember it.</p>
{{else if .CanScope}}<p>"This session" and "always" remember exactly: {{range .Ask.Offer}}<span class="rule">{{.}}</span> {{end}}</p>{{else}}<p class="none">This answer can only be given once.</p>{{end}}
{{if .Ask.Changes}}<form method="post" action="answer"><input type="hidden" name="id" value="{{.ID}}">
<p>It ran, and changed the workspace. Nothing of it has landed yet: apply which?</p>
{{range .Ask.Changes}}<div class="change"><label><input type="checkbox" name="path" value="{{.Path}}" checked> {{.Op}} {{.Kind}} <code>{{.Path}}</code>{{if .Mode}} ({{.Mode}}){{end}}</label>
{{if .Diff}}<pre class="diff">{{.Diff}}</pre>{{else if .Note}}<div class="none">{{.Note}}</div>{{end}}</div>
{{end}}<button class="allow" name="action" value="apply">Apply the checked ones</button>
<button class="allow" name="action" value="all">Apply all</button>
<button class="deny" name="action" value="deny">Discard all</button>
</form>{{else}}
<form method="post" action="answer"><input type="hidden" name="id" value="{{.ID}}">
<button class="allow" name="action" value="once">Allow once</button>
{{if .CanScope}}<button class="allow" name="action" value="session">Allow for this session</button>{{end}}
{{if .CanAlway}}<button class="allow" name="action" value="always">Always allow in this workspace</button>{{end}}
<button class="deny" name="action" value="deny">Deny</button>
</form>{{end}}</div>{{end}}
<h2>Recent calls and their audit entries</h2>
{{if .Recent}}<table><tr><th>time</th><th>command</th><th>decision</th><th>outcome</th><th>audit entry</th></tr>
{{range .Recent}}<tr><td>{{.Time.Format "15:04:05"}}</td><td class="cmd">{{.Command}}</td><td>{{.Decision}}{{if .Approved}} (approved){{end}}</td><td>{{.Outcome}}</td>
<td class="audit">{{if .AuditSeq}}line {{.AuditSeq}}{{else}}<span class="none">not logged (no audit log)</span>{{end}}{{if .Rules}}; findings {{range $i, $r := .Rules}}{{if $i}}, {{end}}<span class="id">{{$r}}</span>{{end}}{{end}}; {{if .Sandbox}}sandbox: {{range $i, $l := .Sandbox}}{{if $i}}, {{end}}{{$l}}{{end}}{{else}}no sandbox{{end}}{{if .Hosts}}; hosts granted: {{range $i, $h := .Hosts}}{{if $i}}, {{end}}{{$h}}{{end}}{{end}}{{if .Redactions}}; {{.Redactions}} secret(s) redacted{{end}}</td></tr>{{end}}
</table>{{else}}<p class="none">No calls yet.</p>{{end}}
`
