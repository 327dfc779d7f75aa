//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// gitDirLikeInit lays out ws/.git as `git init` and a first commit leave
// it (written by Go: no git needed).
func gitDirLikeInit(tb testing.TB, ws string) {
	tb.Helper()
	gd := filepath.Join(ws, ".git")
	for _, d := range []string{"objects/info", "objects/pack", "objects/ab", "refs/heads", "refs/tags", "logs/refs/heads", "hooks", "info", "branches"} {
		if err := os.MkdirAll(filepath.Join(gd, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	files := map[string]string{
		"HEAD":                    "ref: refs/heads/main\n",
		"config":                  "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n",
		"description":             "Unnamed repository; edit this file 'description' to name the repository.\n",
		"index":                   "DIRC\x00\x00\x00\x02\x00\x00\x00\x00",
		"COMMIT_EDITMSG":          "first\n",
		"info/exclude":            "# git ls-files --others --exclude-from=.git/info/exclude\n",
		"refs/heads/main":         "0123456789abcdef0123456789abcdef01234567\n",
		"logs/HEAD":               "x\n",
		"hooks/pre-commit.sample": "#!/bin/sh\n",
		"hooks/pre-push.sample":   "#!/bin/sh\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(gd, name), []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkGitView measures the parent's share of the .git view per call:
// preparing it before the run and moving back after it, when the command
// changed nothing in .git (the common case).
func BenchmarkGitView(b *testing.B) {
	ws := b.TempDir()
	gitDirLikeInit(b, ws)
	env := []string{"PATH=/usr/bin:/bin"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, st, err := prepareGit(ws, env)
		if err != nil || g == nil {
			b.Fatal(err)
		}
		if notes, warns := st.finish(nil); len(notes)+len(warns) > 0 {
			b.Fatal(notes, warns)
		}
	}
}

// BenchmarkPoolTake measures what a warm call costs the parent before the
// command is handed over: working out whether the pool's helpers fit the
// call (the resolved spec, the protected paths, the environment, the .git
// fingerprint) and preparing the post-run workspace search. The pool here
// keeps no helper, so every call does that work and finds none.
func BenchmarkPoolTake(b *testing.B) {
	root := b.TempDir()
	ws, home, tmp := filepath.Join(root, "ws"), filepath.Join(root, "home"), filepath.Join(root, "tmp")
	for _, d := range []string{ws, home, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	gitDirLikeInit(b, ws)
	env := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home, "TMPDIR=" + tmp, "LANG=C.UTF-8", "USER=dev", "SHELL=/bin/bash", markerVar + "=x"}
	spec := Spec{Mode: Auto, Workspace: ws, CacheDir: filepath.Join(root, "cache")}
	p := &Pool{size: 0, marker: "pool-bench"}
	longLived.Store(true) // as NewPool does
	defer p.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if w, hs := p.take(spec, env, ws); w != nil || hs == nil && i > 0 {
			b.Fatalf("take: %v %v (%s)", w, hs, p.lastMiss)
		}
		prepareWSGuard(ws, true).close()
	}
}
