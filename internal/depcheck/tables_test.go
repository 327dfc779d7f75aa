package depcheck

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// One table per fact: a list of names written as string literals (system
// directories, safe devices, credential stores) lives in one package, and
// every stage that needs it reads it there (internal/world,
// internal/progs). Two copies drift: one gains an entry, the other does
// not, and two stages answer differently about the same path.
//
// A table is a slice, array or map composite literal with at least
// minTable distinct string-literal elements (for a map, string-literal
// keys) and nothing else in those positions. Two tables are the same when
// their element sets are equal, whatever their order or names. Test files
// are left out: a fixture may repeat what it checks.

// minTable is the least number of distinct strings that makes a literal a
// table rather than a short list of options.
const minTable = 4

// table is one string-literal table found in the source.
type table struct {
	pkg string // package path relative to the module
	pos string // file:line
	set []string
}

// tablesOf returns the string-literal tables of one parsed file.
func tablesOf(fset *token.FileSet, f *ast.File, pkg string) []table {
	var out []table
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok || len(lit.Elts) < minTable {
			return true
		}
		if _, isMap := lit.Type.(*ast.MapType); !isMap && !isList(lit.Type) {
			return true
		}
		seen := map[string]bool{}
		for _, e := range lit.Elts {
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				e = kv.Key
			}
			s, ok := stringLit(e)
			if !ok {
				return true // not a table of names
			}
			seen[s] = true
		}
		if len(seen) < minTable {
			return true
		}
		set := make([]string, 0, len(seen))
		for s := range seen {
			set = append(set, s)
		}
		sort.Strings(set)
		p := fset.Position(lit.Pos())
		out = append(out, table{pkg: pkg, pos: fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line), set: set})
		return true
	})
	return out
}

// isList reports a slice or array type ([]string, [...]string, [4]string);
// a composite literal without a type (an element of an outer literal) is
// a list too.
func isList(t ast.Expr) bool {
	if t == nil {
		return true
	}
	_, ok := t.(*ast.ArrayType)
	return ok
}

func stringLit(e ast.Expr) (string, bool) {
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(b.Value)
	return s, err == nil
}

// duplicates returns one line per element set that appears in more than
// one package.
func duplicates(tables []table) []string {
	byset := map[string][]table{}
	for _, t := range tables {
		k := strings.Join(t.set, "\x00")
		byset[k] = append(byset[k], t)
	}
	var out []string
	for _, ts := range byset {
		pkgs := map[string]bool{}
		for _, t := range ts {
			pkgs[t.pkg] = true
		}
		if len(pkgs) < 2 {
			continue
		}
		var where []string
		for _, t := range ts {
			name := t.pkg
			if name == "" {
				name = "(root)"
			}
			where = append(where, name+" "+t.pos)
		}
		sort.Strings(where)
		set := ts[0].set
		head := set
		if len(head) > 4 {
			head = append(head[:4:4], "…")
		}
		out = append(out, fmt.Sprintf("the table {%s} (%d strings) is written in %s", strings.Join(head, ", "), len(set), strings.Join(where, " and ")))
	}
	sort.Strings(out)
	return out
}

func TestNoTableTwice(t *testing.T) {
	out, err := exec.Command("go", "list", "-e", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var tables []table
	dec := json.NewDecoder(strings.NewReader(string(out)))
	npkg := 0
	for {
		var p struct {
			ImportPath string
			Dir        string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		r, ok := rel(p.ImportPath)
		if !ok || strings.Contains(r, "testdata") {
			continue
		}
		npkg++
		// every file of the package whatever its build tags: a table in
		// a linux-only file is as much a copy
		entries, err := os.ReadDir(p.Dir)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, n), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			tables = append(tables, tablesOf(fset, f, r)...)
		}
	}
	if npkg < 10 || len(tables) < 20 {
		t.Fatalf("found only %d tables in %d packages", len(tables), npkg)
	}
	for _, d := range duplicates(tables) {
		t.Error(d)
	}
}

// The check can fail: the same names in another order, under another
// name, as map keys, are found; a shorter list, a list with a computed
// element and a copy inside one package are not.
func TestDuplicatesFound(t *testing.T) {
	parse := func(pkg, src string) []table {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, pkg+".go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		return tablesOf(fset, f, pkg)
	}
	var tables []table
	tables = append(tables, parse("a", `package a
var dirs = []string{"/etc", "/usr", "/bin", "/var"}
var few = []string{"x", "y", "z"}
var mixed = []string{"p", "q", "r", s}
var twice = []string{"1", "2", "3", "4"}
var again = [...]string{"4", "3", "2", "1"}
`)...)
	tables = append(tables, parse("b", `package b
var system = map[string]bool{"/var": true, "/bin": true, "/usr": false, "/etc": true}
var few = []string{"z", "y", "x"}
var mixed = []string{"p", "q", "r", t}
func f() { g([]string{"9", "8", "7", "6"}) }
`)...)
	tables = append(tables, parse("c", `package c
var inline = [][]string{{"6", "7", "8", "9"}}
`)...)
	got := duplicates(tables)
	want := []string{
		"the table {/bin, /etc, /usr, /var} (4 strings) is written in a a.go:2 and b b.go:2",
		"the table {6, 7, 8, 9} (4 strings) is written in b b.go:5 and c c.go:2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("duplicates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
