//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// reviewWorkspace writes the files every review case starts from.
func reviewWorkspace(t *testing.T, ws string) {
	t.Helper()
	files := map[string]string{"keep.txt": "one\ntwo\n", "edit.txt": "alpha\nbeta\n", "gone.txt": "bye\n", "mode.sh": "echo hi\n", "old/a.txt": "old\n"}
	for n, c := range files {
		p := filepath.Join(ws, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// reviewScript changes every kind of entry: modify, add, delete a file
// and a directory, change a mode, add nested directories and a symlink,
// and rewrite a file with the same content (not a change).
const reviewScript = `printf 'alpha\nBETA\n' > edit.txt && printf 'new\n' > added.txt && rm gone.txt && chmod 755 mode.sh &&
mkdir -p nd/sub && printf 'x\n' > nd/sub/f.txt && rm -r old && ln -s edit.txt link && printf 'one\ntwo\n' > keep.txt`

func wsSnapshot(t *testing.T, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(ws, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == ws {
			return nil
		}
		rel, _ := filepath.Rel(ws, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			tg, _ := os.Readlink(p)
			out[rel] = "-> " + tg
		case fi.IsDir():
			out[rel] = fmt.Sprintf("dir %o", fi.Mode().Perm())
		default:
			b, _ := os.ReadFile(p)
			out[rel] = fmt.Sprintf("%o %s", fi.Mode().Perm(), b)
		}
		return nil
	})
	return out
}

// TestReviewLists: the reviewer sees each change once, with its kind, a
// diff for text and the mode change; a file written back unchanged is
// not listed; what it picks lands and nothing else does.
func TestReviewLists(t *testing.T) {
	f := newFixture(t)
	need(t, f.assertActive(t, Spec{Mode: Strict}), LayerOverlay)
	reviewWorkspace(t, f.ws)
	before := wsSnapshot(t, f.ws)
	var seen []Change
	f.reviewer = func(cs []Change) ([]string, error) {
		seen = cs
		return []string{"edit.txt", "nd/sub/f.txt", "gone.txt"}, nil
	}
	r := f.run(t, Spec{Mode: Auto, Review: true}, reviewScript, 30*time.Second)
	if r.err != nil || r.code != 0 {
		t.Fatalf("exit %d, %v:\n%s", r.code, r.err, r.out)
	}
	need(t, r.applied, LayerOverlay)
	got := map[string]Change{}
	for _, c := range seen {
		if _, dup := got[c.Path]; dup {
			t.Errorf("%s listed twice", c.Path)
		}
		got[c.Path] = c
	}
	want := map[string]string{
		"edit.txt": "modify file", "added.txt": "add file", "gone.txt": "delete file", "mode.sh": "mode file",
		"nd": "add dir", "nd/sub": "add dir", "nd/sub/f.txt": "add file", "old": "delete dir", "link": "add symlink",
	}
	for p, w := range want {
		if c, ok := got[p]; !ok || c.Op+" "+c.Kind != w {
			t.Errorf("%s: listed as %+v, want %s", p, c, w)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s listed, not changed: %+v", p, got[p])
		}
	}
	if d := got["edit.txt"].Diff; !strings.Contains(d, "-beta\n") || !strings.Contains(d, "+BETA\n") || !strings.Contains(d, "+++ b/edit.txt") {
		t.Errorf("edit.txt diff:\n%s", d)
	}
	if d := got["gone.txt"].Diff; !strings.Contains(d, "-bye\n") || !strings.Contains(d, "+++ /dev/null") {
		t.Errorf("gone.txt diff:\n%s", d)
	}
	if m := got["mode.sh"].Mode; m != "0644 -> 0755" {
		t.Errorf("mode.sh mode %q", m)
	}
	if d := got["link"].Diff; d != "-> edit.txt\n" {
		t.Errorf("link diff %q", d)
	}
	after := wsSnapshot(t, f.ws)
	wantAfter := maps.Clone(before)
	wantAfter["edit.txt"] = "644 alpha\nBETA\n"
	delete(wantAfter, "gone.txt")
	wantAfter["nd"], wantAfter["nd/sub"], wantAfter["nd/sub/f.txt"] = "dir 755", "dir 755", "644 x\n"
	if fmt.Sprint(after) != fmt.Sprint(wantAfter) {
		t.Errorf("workspace after the review:\n got %v\nwant %v", after, wantAfter)
	}
	rv := r.applied.Post.Review
	if rv == nil || len(rv.Changes) != len(want) {
		t.Fatalf("PostRun.Review = %+v", rv)
	}
	for _, c := range rv.Changes {
		if c.Applied != slices.Contains([]string{"edit.txt", "nd/sub/f.txt", "gone.txt"}, c.Path) || c.Diff != "" {
			t.Errorf("reported %+v", c)
		}
	}
}

// TestReviewDiscards: a reviewer that picks nothing, a reviewer that
// names paths the run did not change, and no reviewer at all leave the
// workspace as it was.
func TestReviewDiscards(t *testing.T) {
	f := newFixture(t)
	need(t, f.assertActive(t, Spec{Mode: Strict}), LayerOverlay)
	for _, c := range []struct {
		name     string
		reviewer func([]Change) ([]string, error)
		note     string
	}{
		{"none-picked", func([]Change) ([]string, error) { return nil, nil }, ""},
		{"unknown-paths", func([]Change) ([]string, error) { return []string{"../outside", "/etc/passwd", "old/a.txt"}, nil }, ""},
		{"failed", func([]Change) ([]string, error) { return []string{"edit.txt"}, errors.New("the terminal went away") }, "the review failed: the terminal went away"},
		{"no-reviewer", nil, "no reviewer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(f.ws)
			os.MkdirAll(f.ws, 0o755)
			reviewWorkspace(t, f.ws)
			before := wsSnapshot(t, f.ws)
			f.reviewer = c.reviewer
			r := f.run(t, Spec{Mode: Auto, Review: true}, reviewScript, 30*time.Second)
			if r.err != nil || r.code != 0 {
				t.Fatalf("exit %d, %v:\n%s", r.code, r.err, r.out)
			}
			if after := wsSnapshot(t, f.ws); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("workspace changed:\n got %v\nwant %v", after, before)
			}
			rv := r.applied.Post.Review
			if rv == nil || len(rv.Changes) == 0 || !strings.Contains(rv.Note, c.note) {
				t.Fatalf("PostRun.Review = %+v", rv)
			}
		})
	}
}

// TestReviewLinks: a reviewed commit never writes outside the workspace:
// not through a hard link of a file outside, not through a symlink the
// workspace had where the command made a directory, whichever of the
// changes the reviewer picks.
func TestReviewLinks(t *testing.T) {
	f := newFixture(t)
	need(t, f.assertActive(t, Spec{Mode: Strict}), LayerOverlay)
	all := func(cs []Change) ([]string, error) {
		var p []string
		for _, c := range cs {
			p = append(p, c.Path)
		}
		return p, nil
	}
	for _, c := range []struct {
		name     string
		reviewer func([]Change) ([]string, error)
	}{
		{"all", all},
		{"inner-only", func([]Change) ([]string, error) { return []string{"d/f", "linked.txt"}, nil }},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.RemoveAll(f.ws)
			os.MkdirAll(f.ws, 0o755)
			if err := os.Link(f.canary, filepath.Join(f.ws, "linked.txt")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(f.outside, filepath.Join(f.ws, "d")); err != nil {
				t.Fatal(err)
			}
			f.reviewer = c.reviewer
			r := f.run(t, Spec{Mode: Auto, Review: true}, `echo pwned >> linked.txt; rm d && mkdir d && echo pwned > d/f`, 30*time.Second)
			if r.err != nil {
				t.Fatalf("%v:\n%s", r.err, r.out)
			}
			f.canaryIntact(t)
			if _, err := os.Lstat(filepath.Join(f.outside, "f")); err == nil {
				t.Fatal("the commit wrote through the workspace's symlink")
			}
			fi, err := os.Lstat(filepath.Join(f.ws, "d"))
			if err != nil {
				t.Fatal(err)
			}
			if c.name == "all" && !fi.IsDir() || c.name == "inner-only" && fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("d is %v after %s", fi.Mode(), c.name)
			}
		})
	}
}

// TestReviewTooMany: a run that changed more than a review can list is
// applied not at all.
func TestReviewTooMany(t *testing.T) {
	f := newFixture(t)
	need(t, f.assertActive(t, Spec{Mode: Strict}), LayerOverlay)
	asked := false
	f.reviewer = func(cs []Change) ([]string, error) { asked = true; return []string{"f1"}, nil }
	r := f.run(t, Spec{Mode: Auto, Review: true}, fmt.Sprintf(`for i in $(seq 0 %d); do : > f$i; done`, ReviewMaxChanges), 60*time.Second)
	if r.err != nil || r.code != 0 {
		t.Fatalf("exit %d, %v:\n%s", r.code, r.err, r.out)
	}
	if asked {
		t.Error("the reviewer was asked about a truncated list")
	}
	if rv := r.applied.Post.Review; rv == nil || !strings.Contains(rv.Note, "too many") {
		t.Errorf("PostRun.Review = %+v", rv)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "f1")); err == nil {
		t.Error("a change was applied")
	}
}

// TestReviewMissingFailsClosed: without the overlay a review runs
// nothing (Auto would otherwise run without it).
func TestReviewMissingFailsClosed(t *testing.T) {
	withoutNamespaces(t)
	f := newFixture(t)
	r := f.run(t, Spec{Mode: Auto, Review: true}, `echo RAN > ran.txt`, 20*time.Second)
	if r.err == nil {
		t.Fatalf("a review ran without the overlay: %s", r.out)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "ran.txt")); err == nil {
		t.Fatal("the command ran")
	}
}
