// Package depcheck holds the test that keeps the import arrows of
// docs/architecture.md: each package of the module may import only the
// packages of the stages below it. It has no code of its own.
package depcheck

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/shellguard/shellguard"

// allowed lists, for each package of the module (path relative to the
// module; "" is the root package), the packages of the module it may
// import. "internal/*" stands for every internal package that is not a
// command. A package missing from the table fails the test: a new
// package gets its place in the layering (and in docs/architecture.md)
// when it is added. Commands (package main) may import anything.
var allowed = map[string][]string{
	// Leaves and helpers.
	"internal/capture":    {},
	"internal/lazyre":     {},
	"internal/progs":      {},
	"internal/world":      {},
	"internal/seccompbpf": {},
	"internal/steptime":   {},
	"internal/version":    {},
	"internal/safe":       {},
	"internal/hostile":    {},
	"internal/testenv":    {},
	"internal/runner":     {"internal/*"},
	"internal/depcheck":   {},

	// Stages, bottom up.
	"analyze": {"internal/*"},
	// The program grammars read argv words, so they sit above analyze.
	"internal/grammar": {"analyze"},
	"effects":          {"analyze", "internal/*"},
	"policy":           {"analyze", "effects", "internal/*"},
	"redact":           {"internal/*"},
	"sandbox/netproxy": {"internal/*"},
	"sandbox":          {"sandbox/netproxy", "internal/*"},
	"audit":            {"policy", "redact", "internal/*"},

	// The library: the pipeline over the stages.
	"": {"analyze", "effects", "policy", "redact", "sandbox", "audit", "internal/*"},

	// Faces over the library.
	"config":       {"", "policy", "sandbox", "sandbox/netproxy", "redact", "audit", "internal/*"},
	"approvalpage": {"policy", "sandbox"},     // sandbox: a review's Change values
	"terminal":     {"", "policy", "sandbox"}, // sandbox: a review's Change values
	"mcpserver":    {"", "policy", "approvalpage", "internal/capture", "internal/steptime", "internal/safe"},
	"e2e":          {"approvalpage", "policy", "sandbox", "internal/*"},
}

// pkg is what go list says of a package.
type pkg struct {
	ImportPath string
	Name       string
	Imports    []string
}

func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

func isInternal(p string) bool { return strings.HasPrefix(p, "internal/") }

// violations returns one line per import against the table.
func violations(pkgs []pkg) []string {
	commands := map[string]bool{}
	for _, p := range pkgs {
		if r, ok := rel(p.ImportPath); ok && p.Name == "main" {
			commands[r] = true
		}
	}
	var out []string
	for _, p := range pkgs {
		from, ok := rel(p.ImportPath)
		if !ok || commands[from] || strings.HasPrefix(from, "bench") || strings.Contains(from, "testdata") {
			continue
		}
		rules, known := allowed[from]
		if !known {
			out = append(out, fmt.Sprintf("%q is not in the layering table (internal/depcheck and docs/architecture.md)", from))
			continue
		}
		for _, imp := range p.Imports {
			to, ok := rel(imp)
			if !ok {
				continue // outside the module
			}
			if slices.Contains(rules, to) || (isInternal(to) && !commands[to] && slices.Contains(rules, "internal/*")) {
				continue
			}
			out = append(out, fmt.Sprintf("%q imports %q, against the arrows", from, to))
		}
	}
	sort.Strings(out)
	return out
}

func TestImportArrows(t *testing.T) {
	cmd := exec.Command("go", "list", "-e", "-json", module+"/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// The check can fail: a face importing the sandbox, a stage importing
// the library, an unknown package.
func TestViolationsFound(t *testing.T) {
	pkgs := []pkg{
		{ImportPath: module + "/mcpserver", Name: "mcpserver", Imports: []string{module, module + "/sandbox", "fmt"}},
		{ImportPath: module + "/policy", Name: "policy", Imports: []string{module, module + "/internal/lazyre"}},
		{ImportPath: module + "/newthing", Name: "newthing"},
		{ImportPath: module + "/cmd/shellguard", Name: "main", Imports: []string{module + "/sandbox"}},
	}
	got := violations(pkgs)
	want := []string{
		`"mcpserver" imports "sandbox", against the arrows`,
		`"newthing" is not in the layering table (internal/depcheck and docs/architecture.md)`,
		`"policy" imports "", against the arrows`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// helperNever are standard packages the sandbox helper (which every
// sandboxed launch starts) must not link: each brings package inits and
// megabytes of code the helper never runs. The proxy reads its requests
// with net/textproto for this reason.
var helperNever = []string{"net/http", "crypto/tls", "crypto/x509", "mime/multipart"}

func TestHelperStaysSmall(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/cmd/shellguard-sandbox").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"/sandbox") {
		t.Fatalf("the helper's dependencies do not hold the sandbox: %d packages", len(deps))
	}
	for _, p := range helperNever {
		if slices.Contains(deps, p) {
			t.Errorf("cmd/shellguard-sandbox links %s (see go list -deps ./cmd/shellguard-sandbox)", p)
		}
	}
}
