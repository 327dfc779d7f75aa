package e2e

import (
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shellguard/shellguard/approvalpage"
	"github.com/shellguard/shellguard/internal/testenv"
	"github.com/shellguard/shellguard/policy"
	"github.com/shellguard/shellguard/sandbox"
)

// The approval page in a real browser: headless Chromium (Debian's
// package, driven by playwright-core) shows the pending ask with the
// finding's span highlighted, and its "Allow for this session" button
// answers the waiting call. The screenshot is checked for the highlight
// and kept as docs/approval-page.png when SHELLGUARD_UPDATE_SCREENSHOT=1.
func TestApprovalPageInChromium(t *testing.T) {
	chromium := needChromium(t)
	p, err := approvalpage.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ws := t.TempDir()
	rules := policy.Rules{Workspace: ws, Home: t.TempDir()}
	cmd := "npm test && chmod -R 777 build"
	v := policy.Check(cmd, rules)
	if v.Decision != policy.Ask {
		t.Fatalf("%q: %v, want ask", cmd, v.Decision)
	}
	_, answer := p.Post(approvalpage.Ask{Command: cmd, Cwd: ws, Purpose: "open the build directory to the test container",
		Verdict: v, Offer: policy.Grant(cmd, v, rules)})
	p.Record(approvalpage.Entry{Command: "ls -la", Decision: "allow", Outcome: "exit 0"})

	shot := filepath.Join(t.TempDir(), "page.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node := exec.CommandContext(ctx, "node", "page.mjs", p.URL(), shot, "session")
	node.Env = append(os.Environ(), "CHROMIUM="+chromium)
	if out, err := node.CombinedOutput(); err != nil {
		t.Fatalf("page.mjs: %v\n%s", err, out)
	}
	select {
	case a := <-answer:
		if !a.Allow || a.Scope != "session" {
			t.Errorf("the click answered %+v", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the click did not answer the ask")
	}

	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 300 {
		t.Errorf("screenshot of %v", b)
	}
	if n := countColour(img, 0xff, 0xd5, 0xcc); n < 200 {
		t.Errorf("the highlight is not in the screenshot (%d pixels of its colour)", n)
	}
	if os.Getenv("SHELLGUARD_UPDATE_SCREENSHOT") == "1" {
		b, _ := os.ReadFile(shot)
		if err := os.WriteFile("../docs/approval-page.png", b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The review of a command's changes in a real browser: each change with
// its diff and a checkbox; unticking one and clicking "Apply the checked
// ones" answers with the other. The screenshot is checked for the diff and
// kept as docs/approval-page-review.png when SHELLGUARD_UPDATE_SCREENSHOT=1.
func TestReviewPageInChromium(t *testing.T) {
	chromium := needChromium(t)
	p, err := approvalpage.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	changes := []sandbox.Change{
		{Path: "src/config.js", Op: "modify", Kind: "file", Mode: "0644",
			Diff: "--- a/src/config.js\n+++ b/src/config.js\n@@ -1,3 +1,3 @@\n module.exports = {\n-  port: 3000,\n+  port: 8080,\n };\n"},
		{Path: "build/cache.bin", Op: "add", Kind: "file", Mode: "0644", Note: "binary file (12 KiB)"},
	}
	_, answer := p.Post(approvalpage.Ask{Command: "sed -i 's/3000/8080/' src/config.js && npm run build", Cwd: t.TempDir(),
		Purpose: "serve on port 8080", Changes: changes})
	shot := filepath.Join(t.TempDir(), "review.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node := exec.CommandContext(ctx, "node", "page.mjs", p.URL(), shot, "apply", "pre.diff", "build/cache.bin")
	node.Env = append(os.Environ(), "CHROMIUM="+chromium)
	if out, err := node.CombinedOutput(); err != nil {
		t.Fatalf("page.mjs: %v\n%s", err, out)
	}
	select {
	case a := <-answer:
		if !a.Allow || a.All || len(a.Paths) != 1 || a.Paths[0] != "src/config.js" {
			t.Errorf("the click answered %+v, want src/config.js alone", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the click did not answer the review")
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 300 {
		t.Errorf("screenshot of %v", b)
	}
	if os.Getenv("SHELLGUARD_UPDATE_SCREENSHOT") == "1" {
		b, _ := os.ReadFile(shot)
		if err := os.WriteFile("../docs/approval-page-review.png", b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// needChromium returns the browser page.mjs drives, after the e2e setup;
// without it the test is skipped (failed under strict tests).
func needChromium(t *testing.T) string {
	t.Helper()
	setup(t)
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		testenv.SkipOrFail(t, "chromium not found (%v): make test installs Debian's chromium", err)
	}
	if _, err := os.Stat("node_modules/playwright-core/package.json"); err != nil {
		t.Fatalf("playwright-core is not installed in e2e/node_modules: %v", err)
	}
	return chromium
}

// countColour counts the pixels of img close to the colour r, g, b.
func countColour(img image.Image, r, g, b uint8) int {
	n := 0
	bd := img.Bounds()
	near := func(a uint32, x uint8) bool { d := int(a>>8) - int(x); return d > -8 && d < 8 }
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if near(pr, r) && near(pg, g) && near(pb, b) {
				n++
			}
		}
	}
	return n
}

// TestDesktopAskOnPage: the README's Claude Desktop configuration with the
// approval page, followed as that client would (the npm MCP client with no
// elicitation capability): an ask waits on the page, a press of "Allow
// once" runs it, and the page lists the call as approved.
func TestDesktopAskOnPage(t *testing.T) {
	setup(t)
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		}
	}
	block := quickStartBlock(t, string(b), "mcp-desktop")
	if err := json.Unmarshal([]byte(block), &doc); err != nil || len(doc.MCPServers) != 1 {
		t.Fatalf("the Claude Desktop block (%v):\n%s", err, block)
	}
	ws := workspace(t)
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Ask struct{ Command, Stdout string }
	}
	if fb, err := os.ReadFile("fixtures.json"); err != nil || json.Unmarshal(fb, &fx) != nil || fx.Ask.Command == "" {
		t.Fatalf("fixtures.json: %v", err)
	}
	for _, srv := range doc.MCPServers {
		if srv.Command != "shellguard" || !slices.Contains(srv.Args, "--approval-page") {
			t.Fatalf("the Claude Desktop block does not start shellguard with the page: %+v", srv)
		}
		args := slices.Clone(srv.Args)
		for i, a := range args {
			args[i] = strings.ReplaceAll(a, "/path/to/project", ws)
		}
		js, _ := json.Marshal(args)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd := exec.CommandContext(ctx, "node", "desktop.mjs", "--command", srv.Command, "--args", string(js), "--cwd", ws,
			"--ask", fx.Ask.Command, "--stdout", fx.Ask.Stdout)
		cmd.Env = quickStartEnv(home)
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("desktop.mjs: %v\n%s", err, out)
		}
	}
}
