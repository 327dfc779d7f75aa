package depcheck

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// rootBudget is how many exported names (constants, variables,
// functions, types, and methods of exported types) the root package may
// have, so that `go doc` of it fits on two screens. Raise it only with a
// reason in the same change; a new name should first replace an old one.
// 55 -> 57: remembered approvals need a session's own check (its grants
// apply), the remembering itself and the Grant a Result reports, plus
// why "always" cannot be offered (GrantsError); the scope is a string and
// the proposed rule comes from policy.Grant, so no further names.
// 57 -> 58: ErrAuditUnavailable, the refusal of a command whose audit
// line cannot be written ahead, matched with errors.Is.
// 58 -> 59: Change, what a review run shows its reviewer, named here so
// that a face writes a reviewer without importing the sandbox.
// 59 -> 61: PathGrant, one exact grant of a path the sandbox refused
// (Grant.Paths, as Hosts for the network), and PathGrant.Question, the
// words the terminal, the MCP form and the approval page all ask it in.
const rootBudget = 61

// exportedNames lists the exported names of the package at importPath
// (its non-test files for this platform), methods as "Type.Method".
func exportedNames(t *testing.T, importPath string) []string {
	out, err := exec.Command("go", "list", "-json", importPath).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var p struct {
		Dir     string
		GoFiles []string
	}
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	var names []string
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					names = append(names, d.Name.Name)
					continue
				}
				recv := d.Recv.List[0].Type
				if s, ok := recv.(*ast.StarExpr); ok {
					recv = s.X
				}
				if id, ok := recv.(*ast.Ident); ok && id.IsExported() {
					names = append(names, id.Name+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	sort.Strings(names)
	return names
}

func TestRootSurface(t *testing.T) {
	names := exportedNames(t, module)
	if len(names) < 20 {
		t.Fatalf("found only %d exported names: %v", len(names), names)
	}
	if len(names) > rootBudget {
		t.Errorf("the root package exports %d names, over its budget of %d (docs/architecture.md, Invariants):\n%s",
			len(names), rootBudget, strings.Join(names, "\n"))
	}
}

// effectsBudget is how many exported names package effects may have,
// counted as for the root package: the effect model (Effect, Kind, Path,
// Origin, CodeSource, the system kinds) and Extract. What a path or a
// host is lives in internal/world, the program grammars and how a
// program reads its words in internal/grammar; neither is the API of
// effects.
const effectsBudget = 45

func TestEffectsSurface(t *testing.T) {
	names := exportedNames(t, module+"/effects")
	if len(names) < 10 {
		t.Fatalf("found only %d exported names: %v", len(names), names)
	}
	if len(names) > effectsBudget {
		t.Errorf("package effects exports %d names, over its budget of %d (docs/architecture.md, Invariants):\n%s",
			len(names), effectsBudget, strings.Join(names, "\n"))
	}
}
