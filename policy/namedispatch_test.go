package policy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// All inputs here are only analysed, never executed.

// shellLanguage are the names policy may still compare a command's name
// with: builtins and reserved words of the shell language itself, whose
// meaning is bash's (what eval runs, what source reads, which variables
// export and declare set), not a program's that a grammar line could
// describe.
var shellLanguage = map[string]bool{
	"eval": true, "source": true, ".": true, // run their arguments as shell code in this shell
	"export": true, "declare": true, "typeset": true, "local": true, "readonly": true, // set shell variables
	"mapfile": true, "readarray": true, "read": true, "printf": true, "echo": true, // builtins whose words are variable names or printed text
	"trap": true, "test": true, "[": true, // builtins that evaluate their words (trap's code, test -v's subscript)
	"set": true, // lists the shell's variables
}

// notYetNameDispatch are the names policy still compares itself; each
// is to become grammar data and none may be added.
var notYetNameDispatch = map[string]bool{
	// strings.HasPrefix(k.name, …): Docker's credential helpers are a
	// family named by a prefix, but +prefix says PREFIXprog is prog
	// (zf_rm is rm), which docker-credential-pass is not
	"docker-credential-": true,
}

// TestNoProgramNameDispatch: what a program does is read from its
// grammar line (check=, ro=, prints=, targets=, a flag …), never from
// its name: a comparison of a command's name with a string literal in
// policy (k.name == "rsync", switch k.name { case "chmod": … },
// c.Name() == "curl") would judge an alias, a variant or a new program
// of the same kind differently. Names of the shell language itself
// (shellLanguage) are the exception.
func TestNoProgramNameDispatch(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range nameDispatch(f) {
			t.Errorf("%s: the command's name is compared with %q: say it on the program's grammar line", fset.Position(at.pos), at.lit)
		}
	}
}

type dispatchSite struct {
	pos token.Pos
	lit string
}

// nameDispatch returns the comparisons of a command's name (X.name,
// X.Name(), a variable called name) with a string literal outside
// shellLanguage: ==, != and the cases of a switch on it.
func nameDispatch(f *ast.File) []dispatchSite {
	var out []dispatchSite
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			out = append(out, nameDispatchIn(fd.Body)...)
		}
	}
	return out
}

// nameDispatchIn is nameDispatch in one function's body.
func nameDispatchIn(body *ast.BlockStmt) []dispatchSite {
	var out []dispatchSite
	// variables of the function given a name (n := c.Name()) hold one
	// too
	held := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			for i, l := range as.Lhs {
				if id, ok := l.(*ast.Ident); ok && isNameExpr(as.Rhs[i], held) {
					held[id.Name] = true
				}
			}
		}
		return true
	})
	lit := func(e ast.Expr) (string, bool) {
		b, ok := e.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(b.Value)
		return s, err == nil
	}
	report := func(pos token.Pos, s string) {
		if s != "" && !shellLanguage[s] && !notYetNameDispatch[s] { // "": no name (known only at run time)
			out = append(out, dispatchSite{pos, s})
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			// strings.HasPrefix(name, "lit") and its kin
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && len(n.Args) == 2 && isNameExpr(n.Args[0], held) {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "strings" {
					if s, ok := lit(n.Args[1]); ok {
						report(n.Pos(), s)
					}
				}
			}
		case *ast.BinaryExpr:
			if n.Op != token.EQL && n.Op != token.NEQ {
				return true
			}
			if s, ok := lit(n.Y); ok && isNameExpr(n.X, held) {
				report(n.Pos(), s)
			} else if s, ok := lit(n.X); ok && isNameExpr(n.Y, held) {
				report(n.Pos(), s)
			}
		case *ast.SwitchStmt:
			if n.Tag == nil || !isNameExpr(n.Tag, held) {
				return true
			}
			for _, st := range n.Body.List {
				for _, e := range st.(*ast.CaseClause).List {
					if s, ok := lit(e); ok {
						report(e.Pos(), s)
					}
				}
			}
		}
		return true
	})
	return out
}

// isNameExpr reports an expression that holds a command's name: a
// variable called name, one in held, X.name or X.Name().
func isNameExpr(e ast.Expr, held map[string]bool) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "name" || held[e.Name]
	case *ast.SelectorExpr:
		return e.Sel.Name == "name"
	case *ast.CallExpr:
		s, ok := e.Fun.(*ast.SelectorExpr)
		return ok && s.Sel.Name == "Name" && len(e.Args) == 0
	}
	return false
}

// TestNameDispatchFound: the test above finds each spelling of a name
// comparison, and lets the shell's own builtins and other comparisons
// pass.
func TestNameDispatchFound(t *testing.T) {
	src := `package p
func f() {
	_ = k.name == "rsync"
	_ = "gpg" != k.name
	_ = k.c.Name() == "docker-compose"
	switch k.name {
	case "chmod", "eval":
	}
	switch name {
	case "curl":
	}
	_ = k.name == "eval" || k.name == "."
	_ = sub == "list"
	_ = strings.HasPrefix(k.name, "kafka-")
	_ = strings.HasPrefix(v, "-")
	if n := u.Name(); n == "cat" {
	}
	switch a.Value {
	case "-h":
	}
}`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range nameDispatch(f) {
		got = append(got, s.lit)
	}
	if want := "rsync gpg docker-compose chmod curl kafka- cat"; strings.Join(got, " ") != want {
		t.Errorf("found %q, want %q", strings.Join(got, " "), want)
	}
}
