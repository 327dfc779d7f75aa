package sandbox

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLayerTableComplete: every Layer constant of the package has its row
// in the layer table, once, and every row's warning and probe are set: a
// new layer added without its row fails here.
func TestLayerTableComplete(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !strings.HasPrefix(n.Name, "Layer") || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						consts[n.Name] = v
					}
				}
			}
		}
	}
	if len(consts) < 20 {
		t.Fatalf("found only %d Layer constants: the scan is broken", len(consts))
	}
	rows := map[string]int{}
	for _, l := range layers {
		rows[l.name]++
		if l.missing == "" && l.probe != probeNever {
			t.Errorf("layer %s: no warning for when it is missing", l.name)
		}
	}
	for c, v := range consts {
		if rows[v] != 1 {
			t.Errorf("%s (%q) has %d rows in the layer table, want 1", c, v, rows[v])
		}
	}
	if len(rows) != len(consts) {
		t.Errorf("the table has %d layers, the package %d", len(rows), len(consts))
	}
}

// TestWords keeps the description's words and their order.
func TestWords(t *testing.T) {
	var a Applied
	for _, n := range []string{LayerRlimits, LayerUserNS, LayerMountNS, LayerPidNS, LayerNetNS, LayerReadOnlyRoot, LayerMasks,
		LayerLandlockFS, LayerSeccomp, LayerCaps, LayerNoNewPrivs, LayerRootMap, LayerOverlay} {
		a.Layers = append(a.Layers, Layer{Name: n})
	}
	want := "namespaces (user, mount, pid, net)|read-only outside the writable roots|home secrets hidden|landlock|seccomp|no privileges|not root on the host|copy-on-write workspace|rlimits"
	if got := strings.Join(a.Words(), "|"); got != want {
		t.Errorf("Words:\n got %s\nwant %s", got, want)
	}
	a.Layers = []Layer{{Name: LayerNoNewPrivs}, {Name: LayerPidNS}}
	if got := strings.Join(a.Words(), "|"); got != "namespaces (pid)" {
		t.Errorf("no privileges without dropped capabilities: %s", got)
	}
	if describeMissing(LayerSeccomp) == "not applied" || describeMissing("no-such-layer") != "not applied" {
		t.Error("describeMissing does not read the table")
	}
}
