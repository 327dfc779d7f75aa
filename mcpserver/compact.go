package mcpserver

// What the model receives: a compact result by default. Output beyond the
// output budget is cut from the middle, the sandbox's report is said once
// per session (and again when it changes) as one line of text, and the
// full report is in the structured content only when the call asks for
// it (detail: true).

import (
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
	"github.com/shellguard/shellguard/internal/capture"
)

// DefaultOutputBudget is how many bytes of stdout and stderr together a
// result carries by default, about what the common coding agents give a
// model per command.
const DefaultOutputBudget = 30_000

// layersSeen remembers, per MCP session, the sandbox line last sent.
type layersSeen struct {
	mu   sync.Mutex
	last map[*mcp.ServerSession]string
}

// compact shapes a tool result for the model (see the file comment) and
// rewrites its text from the shaped result.
func (s *Server) compact(ss *mcp.ServerSession, r *mcp.CallToolResult, detail bool) *mcp.CallToolResult {
	res, ok := r.StructuredContent.(*shellguard.Result)
	if !ok || res == nil {
		return r
	}
	budgetOutput(res, s.set.OutputBudget)
	prefix := ""
	if res.Sandbox != nil {
		line := sandboxLine(res)
		s.layers.mu.Lock()
		if s.layers.last[ss] != line {
			if s.layers.last == nil {
				s.layers.last = map[*mcp.ServerSession]string{}
			}
			s.layers.last[ss] = line
			prefix = line + "\n"
		}
		s.layers.mu.Unlock()
		if !detail {
			res.Sandbox = nil
		}
	}
	r.Content = []mcp.Content{&mcp.TextContent{Text: prefix + text(res)}}
	return r
}

// forget drops what was remembered of a session that ended.
func (l *layersSeen) forget(ss *mcp.ServerSession) {
	l.mu.Lock()
	delete(l.last, ss)
	l.mu.Unlock()
}

// sandboxLine says in one line what the sandbox enforced.
func sandboxLine(r *shellguard.Result) string {
	a := r.Sandbox
	words := a.Words()
	if len(words) == 0 {
		return "sandbox: none applied"
	}
	line := "sandbox: " + strings.Join(words, ", ") + "; network " + a.Network
	if len(a.Writable) > 0 {
		line += "; writable " + strings.Join(a.Writable, " ")
	}
	return line
}

// budgetOutput cuts stdout and stderr (from the middle, counted in the
// dropped bytes) so that together they fit in budget bytes; a stream
// shorter than half the budget leaves the rest to the other.
func budgetOutput(r *shellguard.Result, budget int) {
	if budget <= 0 || len(r.Stdout)+len(r.Stderr) <= budget {
		return
	}
	outMax, errMax := budget/2, budget-budget/2
	switch {
	case len(r.Stderr) <= errMax:
		outMax = budget - len(r.Stderr)
	case len(r.Stdout) <= outMax:
		errMax = budget - len(r.Stdout)
	}
	r.Stdout, r.StdoutDroppedBytes = cut(r.Stdout, outMax, r.StdoutDroppedBytes)
	r.Stderr, r.StderrDroppedBytes = cut(r.Stderr, errMax, r.StderrDroppedBytes)
}

func cut(text string, max int, dropped int64) (string, int64) {
	if len(text) <= max {
		return text, dropped
	}
	// The marker of the cut counts too: cut again by what it added.
	for keep := max; keep > 0; {
		b := capture.New(keep, nil)
		b.Write([]byte(text))
		out := b.Render()
		if len(out.Text) <= max {
			return out.Text, dropped + out.Dropped
		}
		keep -= len(out.Text) - max
	}
	return "", dropped + int64(len(text))
}

// outputSchema is the Result's schema (docs/result.schema.json) with the
// sandbox report (sent only with detail: true), the reasons, the grants
// and the task status left open, and the audit line undescribed: the tool
// list stays small.
func outputSchema() *jsonschema.Schema {
	full := shellguard.ResultSchema()
	s := *full
	s.Schema, s.Title, s.Description = "", "", ""
	s.Properties = map[string]*jsonschema.Schema{}
	for k, v := range full.Properties {
		s.Properties[k] = v
	}
	s.Properties["sandbox"] = &jsonschema.Schema{Types: []string{"null", "object"},
		Description: "what the kernel sandbox enforced; only with detail: true"}
	s.Properties["reasons"] = &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "object"},
		Description: "the policy's findings: id, decision, message, rule, floor, and start and end (byte offsets in the command)"}
	if s.Properties["grant"] != nil {
		s.Properties["grant"] = &jsonschema.Schema{Types: []string{"null", "object"},
			Description: "what an approval added (rules, or hosts the sandbox refused) and its scope"}
	}
	s.Properties["audit_seq"] = &jsonschema.Schema{Type: "integer"}
	s.Properties["task"] = &jsonschema.Schema{Types: []string{"null", "object"},
		Description: "a background task: id, pid, started_at, running, waiting_for_input, pty, backgrounded, ended_by, stdout_offset, stderr_offset"}
	return &s
}
