//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The post-run attack fixtures: what a command can leave in the
// workspace for the code that runs outside the sandbox after it (the
// finishers, finish_linux.go). Each one runs in auto and strict, inside
// the sandbox under test, against a scratch workspace, a sibling
// "outside" directory holding canaries and a fake HOME.

// postSecret is in every canary a finisher could be made to read: it
// must never turn up in the workspace.
const postSecret = "sgPostRunSecret7c1e"

// postCanaryConfig is a git config outside the workspace: a finisher
// made to edit it would drop core.fsmonitor, one made to read it would
// copy the remote (and its credentials) into the workspace.
const postCanaryConfig = "[core]\n\tfsmonitor = touch /nonexistent/pwned\n[remote \"origin\"]\n\turl = https://u:" + postSecret + "@example.com/r.git\n[user]\n\tname = " + postSecret + "\n"

// postFixture adds the canaries of the post-run attacks to a fixture:
// outside/gitconfig, outside/dir/keep (fresh: a time window reaching
// back would take it for the run's), outside/repo (a git dir) and
// HOME/.gitconfig.
type postFixture struct {
	*fixture
	before map[string]string
	// review: the runs are review runs (Spec.Review) whose reviewer
	// applies every change it is shown.
	review bool
}

func newPostFixture(t *testing.T) *postFixture {
	t.Helper()
	f := &postFixture{fixture: newFixture(t)}
	files := map[string]string{
		"outside/gitconfig":        postCanaryConfig,
		"outside/dir/keep":         postSecret + "\n",
		"outside/repo/HEAD":        "ref: refs/heads/main\n",
		"outside/repo/config":      postCanaryConfig,
		"outside/repo/hooks/keep":  postSecret + "\n",
		"home/.gitconfig-canary":   postCanaryConfig,
		"outside/dir/sub/keep-too": postSecret + "\n",
	}
	for p, body := range files {
		full := filepath.Join(f.root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// snapshot records every entry under outside/ and home/: type, mode,
// content or link target.
func (f *postFixture) snapshot() map[string]string {
	m := map[string]string{}
	for _, d := range []string{f.outside, f.home} {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				m[p] = "error " + err.Error()
				return nil
			}
			fi, err := e.Info()
			if err != nil {
				return nil
			}
			s := fi.Mode().String()
			switch {
			case fi.Mode().IsRegular():
				b, _ := os.ReadFile(p)
				s += " " + string(b) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
			case fi.Mode()&fs.ModeSymlink != 0:
				l, _ := os.Readlink(p)
				s += " -> " + l
			}
			m[p] = s
			return nil
		})
	}
	return m
}

// postRun runs script in mode and checks what every post-run attack
// must leave true: it returns (bounded), nothing outside changed, no
// secret from outside was copied into the workspace, no process of the
// run is left.
func (f *postFixture) postRun(t *testing.T, mode Mode, script string) result {
	t.Helper()
	if f.before == nil {
		f.before = f.snapshot()
	}
	done := make(chan result, 1)
	go func() {
		done <- f.run(t, Spec{Mode: mode, Review: f.review}, script, 30*time.Second)
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the run did not return within 60 s (a post-run step hangs)")
	}
	var le *LayerError
	if r.err != nil && !(mode.Requires() && errors.As(r.err, &le)) {
		t.Fatalf("sandbox: %v\n%s", r.err, r.out)
	}
	after := f.snapshot()
	for p, s := range f.before {
		if after[p] != s {
			t.Errorf("outside changed: %s: %q, was %q", p, after[p], s)
		}
	}
	for p := range after {
		if _, ok := f.before[p]; !ok {
			t.Errorf("outside changed: %s was created", p)
		}
	}
	filepath.WalkDir(f.ws, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() || strings.Contains(p, "/objects/") {
			return nil
		}
		if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(postSecret)) {
			t.Errorf("a secret from outside was copied into the workspace: %s", p)
		}
		return nil
	})
	if left := processesUnder(f.root); len(left) > 0 {
		t.Errorf("processes left on the fixture's paths: %v", left)
	}
	return r
}

// processesUnder lists the processes (other than this one) with an
// argument naming a path under root.
func processesUnder(root string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(root)) {
			if st, _ := os.ReadFile("/proc/" + e.Name() + "/stat"); bytes.Contains(st, []byte(") Z ")) {
				continue
			}
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

func warned(r result, s string) bool {
	if r.applied.Post == nil {
		return false
	}
	for _, w := range r.applied.Post.Warnings {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}

// postModes are the modes every fixture runs in.
var postModes = []Mode{Auto, Strict}

func (f *postFixture) sub(s string) string {
	s = strings.ReplaceAll(s, "{outside}", f.outside)
	s = strings.ReplaceAll(s, "{home}", f.home)
	return s
}

// postAttack is one fixture: setup (run by the test, outside the
// sandbox, before the run), the command, and what must hold after it.
type postAttack struct {
	name, class string
	git         bool // the workspace is a git repository
	setup       func(t *testing.T, f *postFixture)
	cmd         string
	// gone must not exist after the run, kept must (workspace paths);
	// warn must be in a warning.
	gone, kept []string
	warn       string
}

// repoFrom makes the workspace a copy of the repository in dir (cheaper
// than running git for every case).
func (f *postFixture) repoFrom(t *testing.T, dir string) {
	t.Helper()
	os.RemoveAll(f.ws)
	if err := os.CopyFS(f.ws, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	// A copy of the view the template's runs left is not a view of this
	// repository.
	views, _ := filepath.Glob(filepath.Join(f.ws, ".git", gitViewPrefix+"*"))
	for _, v := range views {
		os.RemoveAll(v)
	}
}

func gitInitAt(t *testing.T, f *postFixture, dir string, args ...string) {
	t.Helper()
	gitOutside(t, f.fixture, append([]string{"init", "-q"}, append(args, dir)...)...)
}

var postAttacks = []postAttack{
	// 1. Confused deputy through links.
	{name: "nested-config-linked-to-user-config", class: "deputy",
		cmd: `mkdir -p sub/.git/hooks && ln -s {home}/.gitconfig-canary sub/.git/config`, warn: "sub/.git/config"},
	{name: "nested-hooks-linked-outside", class: "deputy",
		cmd: `mkdir -p sub/.git && ln -s {outside}/dir sub/.git/hooks`, warn: "sub/.git/hooks"},
	{name: "view-config-linked-to-hidden-repo", class: "deputy", git: true,
		cmd: `rm -f .git/config && ln -s {outside}/repo/config .git/config`, warn: ".git/config"},
	{name: "view-file-linked-to-hidden-repo", class: "deputy", git: true,
		cmd: `rm -f .git/description && ln -s {outside}/repo/config .git/description`, warn: ".git/description"},
	{name: "protected-file-linked", class: "deputy",
		cmd: `ln -s {outside}/dir .envrc`, gone: []string{".envrc"}, warn: ".envrc"},
	{name: "nested-gitdir-linked-outside", class: "deputy",
		setup: func(t *testing.T, f *postFixture) { gitInitAt(t, f, filepath.Join(f.ws, "sub")) },
		cmd:   `rm -rf sub/.git/hooks && ln -s {outside}/repo/hooks sub/.git/hooks`, warn: "sub/.git/hooks"},
	// 2. Post-run steps that never return.
	{name: "nested-config-fifo", class: "hang",
		cmd: `mkdir -p sub/.git && mkfifo sub/.git/config`, warn: "sub/.git/config"},
	{name: "view-config-fifo", class: "hang", git: true,
		cmd: `rm -f .git/config && mkfifo .git/config`, warn: ".git/config"},
	{name: "view-file-fifo", class: "hang", git: true,
		cmd: `rm -f .git/description && mkfifo .git/description`, warn: ".git/description"},
	{name: "gitfile-fifo", class: "hang",
		setup: func(t *testing.T, f *postFixture) { gitInitAt(t, f, filepath.Join(f.ws, "sub")) },
		cmd:   `mkdir -p sub/.git && mkfifo sub/.git/commondir`, warn: "sub/.git/commondir"},
	// 3. The "changed during the run" window: what the user wrote just
	// before the run is theirs.
	{name: "user-gitfile-before-run", class: "window",
		setup: func(t *testing.T, f *postFixture) {
			os.MkdirAll(filepath.Join(f.ws, "wt"), 0o755)
			os.WriteFile(filepath.Join(f.ws, "wt", ".git"), []byte("gitdir: "+f.outside+"/repo\n"), 0o644)
			time.Sleep(30 * time.Millisecond) // more than a clock tick
		},
		cmd: `true`, kept: []string{"wt/.git"}},
	{name: "user-hook-before-run", class: "window",
		setup: func(t *testing.T, f *postFixture) {
			gitInitAt(t, f, filepath.Join(f.ws, "sub"))
			os.WriteFile(filepath.Join(f.ws, "sub/.git/hooks/pre-commit"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
			time.Sleep(30 * time.Millisecond) // more than a clock tick
		},
		cmd: `true`, kept: []string{"sub/.git/hooks/pre-commit"}},
	// 4. Git layouts beside the one named .git/.
	{name: "separate-git-dir-inside", class: "layout",
		setup: func(t *testing.T, f *postFixture) {
			gitInitAt(t, f, f.ws, "--separate-git-dir="+filepath.Join(f.ws, ".repo"))
		},
		cmd:  `printf '#!/bin/sh\ntouch pwned\n' > .repo/hooks/pre-commit && chmod +x .repo/hooks/pre-commit`,
		gone: []string{".repo/hooks/pre-commit"}, warn: ".repo/hooks/pre-commit"},
	{name: "separate-git-dir-config", class: "layout",
		setup: func(t *testing.T, f *postFixture) {
			gitInitAt(t, f, f.ws, "--separate-git-dir="+filepath.Join(f.ws, ".repo"))
		},
		cmd: `printf '[core]\n\tfsmonitor = touch pwned\n' >> .repo/config`, warn: "core.fsmonitor"},
	{name: "submodule-git-dir-hook", class: "layout",
		setup: func(t *testing.T, f *postFixture) {
			gitInitAt(t, f, filepath.Join(f.ws, "sub"))
			gitInitAt(t, f, filepath.Join(f.ws, "sub/.git/modules/m"), "--bare")
		},
		cmd:  `printf '#!/bin/sh\ntouch pwned\n' > sub/.git/modules/m/hooks/post-checkout`,
		gone: []string{"sub/.git/modules/m/hooks/post-checkout"}, warn: "modules/m/hooks/post-checkout"},
	{name: "worktree-git-dir-hook", class: "layout",
		setup: func(t *testing.T, f *postFixture) {
			gitInitAt(t, f, filepath.Join(f.ws, "sub"))
			os.MkdirAll(filepath.Join(f.ws, "sub/.git/worktrees/w"), 0o755)
		},
		cmd:  `mkdir -p sub/.git/worktrees/w/hooks && printf '#!/bin/sh\ntouch pwned\n' > sub/.git/worktrees/w/hooks/post-checkout; printf '../..\n' > sub/.git/worktrees/w/commondir`,
		gone: []string{"sub/.git/worktrees/w/commondir"}, warn: "worktrees/w/commondir"},
	{name: "new-core-worktree", class: "layout",
		setup: func(t *testing.T, f *postFixture) { gitInitAt(t, f, filepath.Join(f.ws, "sub")) },
		cmd:   `printf '[core]\n\tworktree = {outside}\n' >> sub/.git/config`, warn: "core.worktree"},
	{name: "symlinked-dotgit-inside", class: "layout",
		setup: func(t *testing.T, f *postFixture) {
			gitInitAt(t, f, filepath.Join(f.ws, "store"), "--bare")
			os.MkdirAll(filepath.Join(f.ws, "sub"), 0o755)
			os.Symlink("../store", filepath.Join(f.ws, "sub/.git"))
		},
		cmd:  `printf '#!/bin/sh\ntouch pwned\n' > store/hooks/pre-push`,
		gone: []string{"store/hooks/pre-push"}, warn: "store/hooks/pre-push"},
	// 5. The search steered by markers the command writes.
	{name: "cachedir-tag-planted", class: "search",
		cmd:  `mkdir -p x/y && printf 'Signature: 8a477f597d28d172789f06886806bc55\n' > x/CACHEDIR.TAG && printf 'gitdir: {outside}/repo\n' > x/y/.git`,
		gone: []string{"x/y/.git"}, warn: "x/y/.git"},
	{name: "new-virtualenv", class: "search",
		cmd:  `mkdir -p .venv/src/pkg && printf 'gitdir: {outside}/repo\n' > .venv/src/pkg/.git`,
		gone: []string{".venv/src/pkg/.git"}, warn: ".venv/src/pkg/.git"},
	{name: "new-node-modules-repo", class: "search",
		cmd:  `mkdir -p node_modules/p/.git/hooks && printf '#!/bin/sh\n' > node_modules/p/.git/hooks/pre-commit`,
		gone: []string{"node_modules/p/.git/hooks/pre-commit"}, warn: "node_modules/p/.git/hooks/pre-commit"},
}

// TestPostRunAttacks runs every fixture in auto and strict.
func TestPostRunAttacks(t *testing.T) {
	repo := gitFixture(t)
	for _, mode := range postModes {
		a := repo.assertActive(t, Spec{Mode: mode})
		need(t, a, LayerGit)
		if mode == Strict {
			need(t, a, LayerOverlay)
		}
	}
	for _, a := range postAttacks {
		for _, mode := range postModes {
			t.Run(a.class+"/"+a.name+"/"+mode.String(), func(t *testing.T) {
				f := newPostFixture(t)
				if a.git {
					f.repoFrom(t, repo.ws)
				}
				if a.setup != nil {
					a.setup(t, f)
					pastSetup()
				}
				f.before = nil
				r := f.postRun(t, mode, f.sub(a.cmd))
				if r.err != nil {
					t.Fatalf("the run was refused: %v", r.err)
				}
				for _, p := range a.gone {
					if _, err := os.Lstat(filepath.Join(f.ws, p)); err == nil {
						t.Errorf("%s survived the run", p)
					}
				}
				for _, p := range a.kept {
					if _, err := os.Lstat(filepath.Join(f.ws, p)); err != nil {
						t.Errorf("%s (the user's, from before the run) was removed: %v", p, err)
					}
				}
				if a.warn != "" && !warned(r, a.warn) {
					var ws []string
					if r.applied.Post != nil {
						ws = r.applied.Post.Warnings
					}
					t.Errorf("no warning about %s: %q\n%s", a.warn, ws, r.out)
				}
			})
		}
	}
}

var _ = unix.S_IFIFO

// pastSetup waits until what a test set up before a run is older than the
// run by the documented margin: file times come from the coarse clock
// (or, with fine-grained stamps, up to a tick ahead of it), so a change
// made within a tick or two before the run cannot be told from the run's
// own and is set aside as such (wsGuard.refuse).
func pastSetup() {
	time.Sleep(2*time.Duration(coarseTick()) + time.Millisecond)
}
