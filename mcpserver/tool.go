package mcpserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
)

// Tool is the bash tool for a program that calls an LLM API itself,
// without MCP: Name, Description and InputSchema declare it to the model
// (they are what the MCP server lists), and Call runs what the model asks
// for in one session (foreground commands and background tasks alike).
// Commands whose verdict is ask are decided by the Guard's Approver (none:
// refused). It is safe for concurrent use.
type Tool struct {
	Name        string
	Description string
	// InputSchema is a JSON Schema (draft 2020-12) object.
	InputSchema json.RawMessage

	s    *Server
	sess *shellguard.Session
}

// ToolResult is the outcome of one Call: Text for the model (what
// FormatResult writes), IsError when the call failed or the command was
// refused, and Result (nil for input errors) for the program.
type ToolResult struct {
	Text    string
	IsError bool
	Result  *shellguard.Result
}

// NewTool returns the bash tool over g, with a session of its own
// (closed by Close; its background tasks with it). Like New, it runs one
// command in g's sandbox to learn what the sandbox enforces, for the
// description.
func NewTool(g *shellguard.Guard, opts *Options) *Tool {
	s := New(g, opts)
	schema, err := json.Marshal(inputSchema(s.set))
	if err != nil {
		panic(err) // a bug in the hand-written schema, caught by its test
	}
	return &Tool{Name: ToolName, Description: describe(s.set), InputSchema: schema, s: s, sess: g.NewSession(s.opts.Sessions)}
}

// Call runs one call of the tool: args is the JSON object the model sent.
// It never returns an error: what went wrong is said in Text for the
// model.
func (t *Tool) Call(ctx context.Context, args json.RawMessage) ToolResult {
	in, err := parseInput(args, t.s.set)
	if err != nil {
		return ToolResult{Text: err.Error(), IsError: true}
	}
	var r *mcp.CallToolResult
	switch {
	case in.TaskID != "":
		r = t.s.taskOp(ctx, t.sess, in, &progress{})
	case in.DisableSandbox && !t.s.set.DisableSandbox:
		r = toolError(disableSandboxRefused)
	default:
		rctx, slot, err := t.s.admit.acquire(ctx)
		if err != nil {
			if errors.Is(err, errBusy) {
				return ToolResult{Text: err.Error(), IsError: true}
			}
			res := t.s.cancelled(in, err)
			return ToolResult{Text: text(res), IsError: true, Result: res}
		}
		res, err := t.s.run(rctx, t.sess, in, nil, &progress{}, nil, nil)
		slot.release()
		r = result(res, err != nil)
	}
	out := ToolResult{IsError: r.IsError}
	if len(r.Content) > 0 {
		out.Text = r.Content[0].(*mcp.TextContent).Text
	}
	out.Result, _ = r.StructuredContent.(*shellguard.Result)
	return out
}

// Close ends the tool's session: its background tasks are killed.
func (t *Tool) Close() { t.sess.Close() }

// FormatResult renders a result as text for a model, as the MCP server
// does: exit code, warnings, then stdout and stderr, or why the command
// did not run.
func FormatResult(r *shellguard.Result) string { return text(r) }
