package shellguard

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

//go:generate go test -run TestResultSchemaFile -update-schema .

var updateSchema = flag.Bool("update-schema", false, "rewrite docs/result.schema.json from the Result type")

const schemaFile = "docs/result.schema.json"

// TestResultSchemaFile: the published schema is the one the Result type
// generates (go generate rewrites it).
func TestResultSchemaFile(t *testing.T) {
	b, err := json.MarshalIndent(ResultSchema(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	if *updateSchema {
		if err := os.WriteFile(schemaFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile(schemaFile)
	if err != nil || !bytes.Equal(old, b) {
		t.Fatalf("%s is not up to date (err %v): run go generate . in the module root", schemaFile, err)
	}
}

// validResult fails t unless the JSON document b is valid against the
// Result schema.
func validResult(t *testing.T, what string, b []byte) {
	t.Helper()
	rs, err := ResultSchema().Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := rs.Validate(doc); err != nil {
		t.Errorf("%s does not match the schema: %v\n%s", what, err, b)
	}
}

// Every kind of Result the library returns matches the schema: a run, a
// refusal, a timeout, a sandboxed run, a background task's statuses.
func TestResultsMatchSchema(t *testing.T) {
	g, err := New(Config{Workspace: t.TempDir(), Rules: policy.Rules{Deny: []string{"touch *"}}, Sandbox: &sandbox.Spec{}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx := context.Background()
	check := func(what string, r Result) {
		t.Helper()
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		validResult(t, what, b)
	}
	r, _ := g.Run(ctx, Request{Command: "echo hi; echo e >&2"})
	check("run", r)
	r, _ = g.Run(ctx, Request{Command: "touch x"})
	check("denied", r)
	r, _ = g.Run(ctx, Request{Command: "sleep 5", Timeout: 200 * time.Millisecond})
	check("timeout", r)
	task, err := g.NewSession(SessionOptions{}).Start(ctx, Request{Command: "echo a; sleep 5"}, TaskOptions{})
	if err != nil {
		t.Fatal(err)
	}
	check("task status", task.Status(ReadOptions{}))
	check("killed task", task.Kill())
	var zero Result
	check("zero", zero)

	// The check can fail: a wrong decision, a missing field.
	rs, _ := ResultSchema().Resolve(nil)
	for _, bad := range []string{
		`{"command":"x","cwd":"/","decision":"maybe","reasons":[],"warnings":[],"stdout":"","stderr":"","exit_code":null,"timed_out":false,"duration":0,"stdout_dropped_bytes":0,"stderr_dropped_bytes":0,"output_limit_exceeded":false,"redactions":0}`,
		`{"command":"x"}`,
	} {
		var doc any
		json.Unmarshal([]byte(bad), &doc)
		if rs.Validate(doc) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}
