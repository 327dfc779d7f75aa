package mcpserver

import (
	"context"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard/internal/safe"
)

// recovered wraps a tool handler: a panic in one call becomes that
// call's error result and a log entry, and the server and its other
// sessions go on.
func (s *Server) recovered(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer safe.Recover("mcp tool call", s.logger, func(e error) { res, err = toolError(e.Error()), nil })
		safe.Point("mcp tool call")
		return h(ctx, req)
	}
}

// recoverHTTP wraps an HTTP handler: a panic in one request is logged and
// answered with a JSON 500 (when nothing was written yet), and the server
// goes on. http.ErrAbortHandler keeps its meaning.
func (s *Server) recoverHTTP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer safe.Recover("HTTP request", s.logger, func(e error) {
			var pe *safe.PanicError
			if errors.As(e, &pe) && pe.Value == http.ErrAbortHandler {
				panic(http.ErrAbortHandler)
			}
			writeJSONError(w, http.StatusInternalServerError, e.Error())
		})
		safe.Point("HTTP request")
		h.ServeHTTP(w, r)
	})
}
