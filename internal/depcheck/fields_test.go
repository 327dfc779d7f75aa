package depcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// One type per concept: no two exported struct types of the module
// declare most of the same fields. A second type that repeats the fields
// of a first is a copy that drifts (a field added to one and not the
// other, a renamed JSON key); it should embed the first, or be it.
//
// Fields are compared by name and type, as declared: an embedded type
// counts as one field (embedding is how a type shares another's fields
// without copying them). Two types overlap when they share at least two
// fields and those are more than half the fields of the smaller one.

// structType is an exported struct type and its exported fields, each
// "Name Type" with the type written as the module would import it
// ("policy.Decision", even inside package policy), or "embedded Type".
type structType struct {
	name   string // "policy.Verdict"
	fields []string
}

// sameFieldsAllowed are the overlapping pairs kept on purpose, each with
// the reason docs/rough_edges.md gives. A pair is written in the order
// overlaps reports it (sorted).
var sameFieldsAllowed = map[[2]string]string{
	// An allowlist entry is a pattern (a "*.example.com" host, port 0 for
	// 80 and 443), a connection record a concrete host and port: the same
	// names, not the same values.
	{"netproxy.Conn", "netproxy.Entry"}: "an allowlist pattern is not a connection",
	// Embedding the verdict would put its Commands (every argv) into
	// every Result and its JSON; Warnings also holds what the run adds.
	{"policy.Verdict", "shellguard.Result"}: "Result carries the verdict's fields, not its Commands",
	// The runner is internal: the root reads its task status and exposes
	// the documented part of it (the runner's also has the output).
	{"runner.TaskStatus", "shellguard.TaskStatus"}: "the runner is internal; the root's type is the API",
}

// sharedSetsAllowed are field sets that are inputs rather than a
// concept: where a command runs. Two types sharing exactly such a set do
// not overlap (every stage takes the workspace and home among its
// options).
var sharedSetsAllowed = [][]string{
	{"Home string", "Workspace string"},
}

// overlaps returns one line per pair of types that share most fields.
func overlaps(types []structType) []string {
	var out []string
	for i, a := range types {
		for _, b := range types[i+1:] {
			x, y := a, b
			if y.name < x.name {
				x, y = y, x
			}
			shared := common(x.fields, y.fields)
			if len(shared) < 2 || 2*len(shared) <= min(len(x.fields), len(y.fields)) ||
				slices.ContainsFunc(sharedSetsAllowed, func(set []string) bool { return slices.Equal(set, shared) }) {
				continue
			}
			if _, ok := sameFieldsAllowed[[2]string{x.name, y.name}]; ok {
				continue
			}
			out = append(out, fmt.Sprintf("%s and %s share %d fields: %s", x.name, y.name, len(shared), strings.Join(shared, ", ")))
		}
	}
	sort.Strings(out)
	return out
}

func common(a, b []string) []string {
	in := map[string]bool{}
	for _, f := range a {
		in[f] = true
	}
	var out []string
	for _, f := range b {
		if in[f] {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// exportedStructs parses the non-test files of a package and returns its
// exported struct types with their exported fields.
func exportedStructs(t *testing.T, pkgName, dir string, files []string) []structType {
	fset := token.NewFileSet()
	var out []structType
	for _, f := range files {
		file, err := parser.ParseFile(fset, filepath.Join(dir, f), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || !ts.Name.IsExported() || ts.Assign.IsValid() {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			s := structType{name: pkgName + "." + ts.Name.Name}
			for _, fl := range st.Fields.List {
				typ := typeString(pkgName, fl.Type)
				if len(fl.Names) == 0 {
					s.fields = append(s.fields, "embedded "+typ)
				}
				for _, n := range fl.Names {
					if n.IsExported() {
						s.fields = append(s.fields, n.Name+" "+typ)
					}
				}
			}
			out = append(out, s)
			return false
		})
	}
	return out
}

// typeString prints a type expression, qualifying the package's own
// exported names ("Decision" in package policy is "policy.Decision").
func typeString(pkgName string, e ast.Expr) string {
	return types.ExprString(qualify(pkgName, e))
}

func qualify(pkgName string, e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.Ident:
		if x.IsExported() {
			return &ast.SelectorExpr{X: ast.NewIdent(pkgName), Sel: x}
		}
	case *ast.StarExpr:
		return &ast.StarExpr{X: qualify(pkgName, x.X)}
	case *ast.ArrayType:
		return &ast.ArrayType{Len: x.Len, Elt: qualify(pkgName, x.Elt)}
	case *ast.MapType:
		return &ast.MapType{Key: qualify(pkgName, x.Key), Value: qualify(pkgName, x.Value)}
	}
	return e
}

func TestNoDuplicateFields(t *testing.T) {
	out, err := exec.Command("go", "list", "-e", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var types []structType
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Name, Dir string
			GoFiles               []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		r, _ := rel(p.ImportPath)
		if p.Name == "main" || strings.HasPrefix(r, "bench") || strings.Contains(r, "testdata") {
			continue
		}
		types = append(types, exportedStructs(t, p.Name, p.Dir, p.GoFiles)...)
	}
	if len(types) < 20 {
		t.Fatalf("found only %d exported struct types", len(types))
	}
	for _, o := range overlaps(types) {
		t.Error(o)
	}
	// Every allowed pair still overlaps: an entry that no longer applies
	// is removed, not kept as a silent exception.
	for pair, why := range sameFieldsAllowed {
		var a, b *structType
		for i := range types {
			switch types[i].name {
			case pair[0]:
				a = &types[i]
			case pair[1]:
				b = &types[i]
			}
		}
		if a == nil || b == nil {
			t.Errorf("allowed pair %v (%s): a type is gone; drop the entry", pair, why)
			continue
		}
		if n := len(common(a.fields, b.fields)); n < 2 || 2*n <= min(len(a.fields), len(b.fields)) {
			t.Errorf("allowed pair %v (%s) no longer overlaps (%d shared fields); drop the entry", pair, why, n)
		}
	}
}

// The check can fail: a copied type is found; an embedding, or sharing
// only an allowed set, is not.
func TestOverlapsFound(t *testing.T) {
	types := []structType{
		{name: "sandbox.Layer", fields: []string{"Name string", "Detail string"}},
		{name: "sandbox.Copy", fields: []string{"Name string", "Detail string", "OK bool"}},
		{name: "sandbox.Embeds", fields: []string{"embedded sandbox.Layer", "OK bool"}},
		{name: "x.One", fields: []string{"Name string", "A int", "B int", "C int"}},
		// Sharing only where a command runs is not a copy.
		{name: "x.Opts", fields: []string{"Home string", "Workspace string"}},
		{name: "y.Opts", fields: []string{"Home string", "Workspace string", "Env []string"}},
	}
	got := overlaps(types)
	want := []string{"sandbox.Copy and sandbox.Layer share 2 fields: Detail string, Name string"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("overlaps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
