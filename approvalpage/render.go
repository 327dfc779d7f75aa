package approvalpage

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// The page is written by hand rather than by html/template: a template
// package in the program makes the linker keep every exported method of
// every type it links (templates call methods by name), about 3 MB of
// the shellguard binary that every start of it maps and pays for. Each
// value on the page is text or a quoted attribute value, and goes
// through esc, which escapes what either could break out of.

// htmlEscaper escapes the characters that end text or a quoted attribute
// value or start markup, and "+" (a UTF-7 sniffer's), as html/template
// does; NUL, which browsers replace, becomes U+FFFD.
var htmlEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;", "\x00", "\uFFFD",
)

// pageWriter writes the page; the first write error ends the writing.
type pageWriter struct {
	w   *bufio.Writer
	err error
}

// raw writes markup of the page itself.
func (p *pageWriter) raw(ss ...string) {
	for _, s := range ss {
		if p.err == nil {
			_, p.err = p.w.WriteString(s)
		}
	}
}

// esc writes a value, escaped.
func (p *pageWriter) esc(s string) {
	if p.err == nil {
		_, p.err = htmlEscaper.WriteString(p.w, s)
	}
}

// in writes v escaped between the markup open and close.
func (p *pageWriter) in(open, v, close string) {
	p.raw(open)
	p.esc(v)
	p.raw(close)
}

// list writes values escaped, each in the markup open … close, separated
// by sep.
func (p *pageWriter) list(vs []string, sep, open, close string) {
	for i, v := range vs {
		if i > 0 {
			p.raw(sep)
		}
		p.in(open, v, close)
	}
}

// writePage writes the page of v to w.
func writePage(w io.Writer, v view) error {
	p := &pageWriter{w: bufio.NewWriter(w)}
	p.raw(pageHead, "<h1>shellguard: commands waiting for your answer</h1>\n")
	if len(v.Pending) == 0 {
		p.raw(`<p class="none" id="none">Nothing is waiting. This page updates by itself.</p>`)
	}
	p.raw("\n")
	for _, x := range v.Pending {
		p.pending(x)
	}
	p.raw("\n<h2>Recent calls and their audit entries</h2>\n")
	if len(v.Recent) == 0 {
		p.raw(`<p class="none">No calls yet.</p>`)
	} else {
		p.raw("<table><tr><th>time</th><th>command</th><th>decision</th><th>outcome</th><th>audit entry</th></tr>\n")
		for _, e := range v.Recent {
			p.entry(e)
		}
		p.raw("\n</table>")
	}
	p.raw("\n", pageTail)
	if p.err != nil {
		return p.err
	}
	return p.w.Flush()
}

// pending writes one ask with its buttons.
func (p *pageWriter) pending(x pendingView) {
	a := x.Ask
	id := strconv.Itoa(x.ID)
	p.raw(`<div class="ask" id="ask-`, id, "\">\n")
	p.in("<div>Asked ", x.Age, " ago")
	if a.Cwd != "" {
		p.in(" in <code>", a.Cwd, "</code>")
	}
	if a.Purpose != "" {
		p.raw(": ")
		p.esc(a.Purpose)
	}
	p.raw("</div>\n<pre>")
	for _, pt := range x.Parts {
		if pt.Marked {
			p.in(`<mark title="`, pt.Title, `">`)
			p.esc(pt.Text)
			p.raw("</mark>")
		} else {
			p.esc(pt.Text)
		}
	}
	p.raw("</pre>\n")
	for _, r := range x.Reasons {
		p.in(`<div class="reason"><span class="id">`, r.ID, " [")
		p.esc(r.Decision.String())
		p.in("]</span> ", r.Message, "</div>")
	}
	p.raw("\n")
	switch {
	case len(a.Changes) > 0:
	case a.Path != "":
		p.raw(`<p class="net">It ran, and the sandbox refused it `)
		if a.PathWrite {
			p.raw("writing")
		} else {
			p.raw("reading")
		}
		p.raw(` <span class="rule">`)
		if a.PathRefused != "" {
			p.esc(a.PathRefused)
		} else {
			p.esc(a.Path)
		}
		p.raw("</span>. Allowing runs it once more with ")
		if a.PathWrite {
			p.in(`<span class="rule">`, a.Path, "</span>")
			if a.PathRefused != "" {
				p.raw(" (its nearest existing directory)")
			}
			p.raw(" and everything under it writable")
		} else {
			p.raw("exactly that path readable (read-only)")
		}
		p.raw(`; "this session" and "always" remember it.</p>`, "\n")
	case a.Host != "":
		p.in(`<p class="net">It is running, and waits while it connects to <span class="rule">`, a.Host, `</span>, which the sandbox's network allowlist does not name. Allowing lets exactly that destination through; "this session" and "always" remember it.</p>`+"\n")
	case x.CanScope:
		p.raw(`<p>"This session" and "always" remember exactly: `)
		p.list(a.Offer, "", `<span class="rule">`, "</span> ")
		p.raw("</p>")
	default:
		p.raw(`<p class="none">This answer can only be given once.</p>`)
	}
	p.raw("\n")
	if len(a.Changes) > 0 {
		p.raw(`<form method="post" action="answer"><input type="hidden" name="id" value="`, id, "\">\n",
			"<p>It ran, and changed the workspace. Nothing of it has landed yet: apply which?</p>\n")
		for _, c := range a.Changes {
			p.in(`<div class="change"><label><input type="checkbox" name="path" value="`, c.Path, `" checked> `)
			p.esc(c.Op)
			p.in(" ", c.Kind, " <code>")
			p.esc(c.Path)
			p.raw("</code>")
			if c.Mode != "" {
				p.in(" (", c.Mode, ")")
			}
			p.raw("</label>\n")
			if c.Diff != "" {
				p.in(`<pre class="diff">`, c.Diff, "</pre>")
			} else if c.Note != "" {
				p.in(`<div class="none">`, c.Note, "</div>")
			}
			p.raw("</div>\n")
		}
		p.raw(`<button class="allow" name="action" value="apply">Apply the checked ones</button>`, "\n",
			`<button class="allow" name="action" value="all">Apply all</button>`, "\n",
			`<button class="deny" name="action" value="deny">Discard all</button>`, "\n</form>")
	} else {
		p.raw("\n", `<form method="post" action="answer"><input type="hidden" name="id" value="`, id, "\">\n",
			`<button class="allow" name="action" value="once">Allow once</button>`, "\n")
		if x.CanScope {
			p.raw(`<button class="allow" name="action" value="session">Allow for this session</button>`)
		}
		p.raw("\n")
		if x.CanAlway {
			p.raw(`<button class="allow" name="action" value="always">Always allow in this workspace</button>`)
		}
		p.raw("\n", `<button class="deny" name="action" value="deny">Deny</button>`, "\n</form>")
	}
	p.raw("</div>")
}

// entry writes one recent call as a table row.
func (p *pageWriter) entry(e Entry) {
	p.raw("<tr><td>", e.Time.Format("15:04:05"))
	p.in(`</td><td class="cmd">`, e.Command, "</td><td>")
	p.esc(e.Decision)
	if e.Approved {
		p.raw(" (approved)")
	}
	p.in("</td><td>", e.Outcome, "</td>\n<td class=\"audit\">")
	if e.AuditSeq != 0 {
		p.raw("line ", strconv.FormatInt(e.AuditSeq, 10))
	} else {
		p.raw(`<span class="none">not logged (no audit log)</span>`)
	}
	if len(e.Rules) > 0 {
		p.raw("; findings ")
		p.list(e.Rules, ", ", `<span class="id">`, "</span>")
	}
	p.raw("; ")
	if len(e.Sandbox) > 0 {
		p.raw("sandbox: ")
		p.list(e.Sandbox, ", ", "", "")
	} else {
		p.raw("no sandbox")
	}
	if len(e.Hosts) > 0 {
		p.raw("; hosts granted: ")
		p.list(e.Hosts, ", ", "", "")
	}
	if e.Redactions != 0 {
		p.raw("; ", strconv.Itoa(e.Redactions), " secret(s) redacted")
	}
	p.raw("</td></tr>")
}
