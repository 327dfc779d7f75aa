package mcpserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellguard/shellguard"
)

// The tool's structured content and the HTTP endpoint's bodies are the one
// Result shape (docs/result.schema.json), for every kind of answer.
func TestFacesMatchSchema(t *testing.T) {
	rs, err := shellguard.ResultSchema().Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	valid := func(what string, v any) {
		t.Helper()
		b, _ := json.Marshal(v)
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if err := rs.Validate(doc); err != nil {
			t.Errorf("%s does not match the schema: %v\n%s", what, err, b)
		}
	}
	g, _ := newGuard(t, testRules)
	srv := New(g, nil)
	cs := connect(t, srv, nil)
	r := callBash(t, cs, map[string]any{"command": "echo hi"})
	valid("run", r.StructuredContent)
	r = callBash(t, cs, map[string]any{"command": "touch forbidden"})
	valid("denied", r.StructuredContent)
	r = callBash(t, cs, map[string]any{"command": "touch needs-ok"})
	valid("ask without elicitation", r.StructuredContent)
	r = callBash(t, cs, map[string]any{"command": "echo a; sleep 9", "run_in_background": true})
	valid("background start", r.StructuredContent)
	id := structured(t, r).Task.ID
	valid("task status", callBash(t, cs, map[string]any{"task_id": id}).StructuredContent)
	valid("task list", callBash(t, cs, map[string]any{"task_id": "*"}).StructuredContent)
	valid("kill", callBash(t, cs, map[string]any{"task_id": id, "kill": true}).StructuredContent)

	ts := httptest.NewServer(srv.Handler(HTTPOptions{}))
	defer ts.Close()
	for _, body := range []string{`{"command":"echo hi"}`, `{"command":"touch forbidden"}`, `{"command":"exit 3"}`} {
		resp, err := http.Post(ts.URL+"/tools/bash/execute", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var doc any
		json.Unmarshal(b, &doc)
		valid("HTTP "+body, doc)
	}
	// The tool advertises the same schema.
	tools, err := cs.ListTools(t.Context(), &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	// ... the Result's schema, with the parts sent only on request or
	// described in words left open: every property, the same required.
	var got map[string]any
	b, _ := json.Marshal(tools.Tools[0].OutputSchema)
	json.Unmarshal(b, &got)
	full := shellguard.ResultSchema()
	props, _ := got["properties"].(map[string]any)
	for name := range full.Properties {
		if props[name] == nil {
			t.Errorf("the tool's output schema lacks %q", name)
		}
	}
	if len(props) != len(full.Properties) {
		t.Errorf("the tool's output schema has %d properties, the Result %d", len(props), len(full.Properties))
	}
	if fmt.Sprint(got["required"]) != fmt.Sprint(full.Required) || got["additionalProperties"] == nil {
		t.Errorf("required %v, want %v; additionalProperties %v", got["required"], full.Required, got["additionalProperties"])
	}
}
