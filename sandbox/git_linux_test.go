//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

const gitIdent = `export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@example.com GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@example.com GIT_CONFIG_NOSYSTEM=1; `

// gitOutside runs git on the fixture's repository from the test (never
// inside the sandbox), with a scratch HOME.
func gitOutside(t *testing.T, f *fixture, args ...string) string {
	t.Helper()
	c := exec.Command("git", append([]string{"-C", f.ws}, args...)...)
	c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + f.home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com"}
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func gitFixture(t *testing.T) *fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		skipOrFail(t, "no git: %v", err)
	}
	f := newFixture(t)
	os.Remove(filepath.Join(f.home, ".gitconfig"))
	gitOutside(t, f, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(f.ws, "a.txt"), []byte("a\n"), 0o644)
	gitOutside(t, f, "add", "a.txt")
	gitOutside(t, f, "commit", "-q", "-m", "first")
	return f
}

func TestGitWorkInside(t *testing.T) {
	f := gitFixture(t)
	a := f.assertActive(t, Spec{})
	need(t, a, LayerGit)
	r := f.run(t, Spec{}, gitIdent+`set -e
echo b > b.txt; git add b.txt; git commit -q -m second
git config user.email dev@example.com
git remote add o https://example.com/r.git
git checkout -q -b topic; echo c > c.txt; git add c.txt; git commit -q -m third
git checkout -q main; echo d > d.txt; git add d.txt; git commit -q -m fourth
git checkout -q topic; git rebase -q main
git checkout -q main; git merge -q --no-edit topic
git stash list; echo ok`, 60*time.Second)
	if r.code != 0 || !strings.Contains(r.out, "ok") {
		t.Fatalf("git work failed inside (exit %d):\n%s", r.code, r.out)
	}
	log := gitOutside(t, f, "log", "--format=%s", "main")
	for _, s := range []string{"first", "second", "third", "fourth"} {
		if !strings.Contains(log, s) {
			t.Errorf("commit %q missing outside:\n%s", s, log)
		}
	}
	if got := gitOutside(t, f, "config", "user.email"); strings.TrimSpace(got) != "dev@example.com" {
		t.Errorf("user.email not applied: %q", got)
	}
	if got := gitOutside(t, f, "config", "remote.o.url"); strings.TrimSpace(got) != "https://example.com/r.git" {
		t.Errorf("remote not applied: %q", got)
	}
	gitOutside(t, f, "fsck", "--no-progress")
	if st := gitOutside(t, f, "status", "--porcelain"); st != "" {
		t.Errorf("index out of sync outside: %q", st)
	}
	assertParkedView(t, f)
	// A merge conflict leaves MERGE_HEAD; the next run can abort it.
	r = f.run(t, Spec{}, gitIdent+`git checkout -q -b x HEAD~1 && echo 1 > z && git add z && git commit -q -m z1 && git checkout -q main && echo 2 > z && git add z && git commit -q -m z2 && git merge x; echo merged`, 60*time.Second)
	if _, err := os.Stat(filepath.Join(f.ws, ".git", "MERGE_HEAD")); err != nil {
		t.Fatalf("MERGE_HEAD not kept:\n%s", r.out)
	}
	f.run(t, Spec{}, gitIdent+`git merge --abort`, 60*time.Second)
	if _, err := os.Stat(filepath.Join(f.ws, ".git", "MERGE_HEAD")); err == nil {
		t.Fatalf("MERGE_HEAD not removed by merge --abort")
	}
}

// Class: git metadata redirections. Each must leave the real .git as it was.
func TestGitMetadataRedirectsFail(t *testing.T) {
	f := gitFixture(t)
	f.assertActive(t, Spec{})
	before, _ := os.ReadFile(filepath.Join(f.ws, ".git", "config"))
	r := f.run(t, Spec{}, gitIdent+`
git config core.fsmonitor "touch $TMPDIR/pwned-fsmonitor"
git config core.hooksPath "$TMPDIR"
git config alias.st '!touch pwned'
git config include.path "$TMPDIR/evil"
git config remote.o.url 'ext::sh -c touch% pwned'
echo "$TMPDIR" > .git/commondir
printf 'gitdir: %s\n' "$TMPDIR/evil" > .git/gitdir-planted
mkdir -p .git/worktrees/w && echo x > .git/worktrees/w/commondir
echo 'touch pwned' > .git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
echo done`, 30*time.Second)
	if !strings.Contains(r.out, "done") {
		t.Fatalf("script did not run:\n%s", r.out)
	}
	after, _ := os.ReadFile(filepath.Join(f.ws, ".git", "config"))
	if string(after) != string(before) {
		t.Fatalf(".git/config changed:\n%s", after)
	}
	for _, p := range []string{"commondir", "gitdir-planted", "worktrees", "hooks/pre-commit"} {
		if _, err := os.Lstat(filepath.Join(f.ws, ".git", p)); err == nil {
			t.Errorf(".git/%s exists after the run", p)
		}
	}
	w := strings.Join(r.applied.Warnings(), "\n")
	for _, k := range []string{"core.fsmonitor", "core.hookspath", "alias.st", "include.path", "remote.o.url", ".git/commondir"} {
		if !strings.Contains(w, k) {
			t.Errorf("no warning for %s:\n%s", k, w)
		}
	}
}

func TestGitConfigAllowed(t *testing.T) {
	for k, want := range map[[2]string]bool{
		{"user.email", "a@b"}:                                true,
		{"remote.o.url", "https://h/r"}:                      true,
		{"remote.o.url", "ext::sh -c x"}:                     false,
		{"remote.o.fetch", "+refs/heads/*:refs/remotes/o/*"}: true,
		{"remote.o.fetch", "+refs/heads/*:refs/heads/*"}:     false,
		{"remote.o.mirror", "true"}:                          false,
		{"remote.o.uploadpack", "evil"}:                      false,
		{"branch.main.remote", "o"}:                          true,
		{"core.fsmonitor", "x"}:                              false,
		{"core.hookspath", "/tmp"}:                           false,
		{"alias.x", "!sh"}:                                   false,
		{"diff.x.textconv", "sh"}:                            false,
		{"includeif.gitdir:/.path", "x"}:                     false,
		{"user.name.x", "y"}:                                 false,
	} {
		if got := gitConfigAllowed(k[0], k[1]); got != want {
			t.Errorf("gitConfigAllowed(%q, %q) = %v", k[0], k[1], got)
		}
	}
}

// Gitfiles, nested repositories and protected files that did not exist
// are refused after the run; a nested clone-like repository stays.
func TestWorkspaceGitMetadataRefused(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		skipOrFail(t, "no git: %v", err)
	}
	f := newFixture(t)
	f.assertActive(t, Spec{})
	r := f.run(t, Spec{}, gitIdent+`
mkdir -p src/deep && printf 'gitdir: %s\n' "$TMPDIR/evil" > src/.git
ln -s "$TMPDIR/evil2" src/deep/.git
git init -q sub && git -C sub config core.fsmonitor "touch pwned" && git -C sub config user.email ok@example.com
echo 'touch pwned' > sub/.git/hooks/post-checkout
git init -q . && git config core.hooksPath "$TMPDIR"
echo 'export X=1' > .envrc
echo 'rules: {}' > .shellguard.yaml
echo done`, 30*time.Second)
	if !strings.Contains(r.out, "done") {
		t.Fatalf("script:\n%s", r.out)
	}
	for _, p := range []string{"src/.git", "src/deep/.git", "sub/.git/hooks/post-checkout", ".envrc", ".shellguard.yaml"} {
		if _, err := os.Lstat(filepath.Join(f.ws, p)); err == nil {
			t.Errorf("%s still exists", p)
		}
	}
	sub, _ := os.ReadFile(filepath.Join(f.ws, "sub/.git/config"))
	if strings.Contains(string(sub), "fsmonitor") || !strings.Contains(string(sub), "ok@example.com") {
		t.Errorf("nested config not cleaned:\n%s", sub)
	}
	root, _ := os.ReadFile(filepath.Join(f.ws, ".git/config"))
	if strings.Contains(strings.ToLower(string(root)), "hookspath") || !strings.Contains(string(root), "repositoryformatversion") {
		t.Errorf("new root repo config not cleaned:\n%s", root)
	}
	if w := strings.Join(r.applied.Warnings(), "\n"); !strings.Contains(w, "src/.git") || !strings.Contains(w, ".envrc") {
		t.Errorf("warnings:\n%s", w)
	}
}

// Keys the user set in the workspace's own .git/config survive a run in
// which the broker applies another key.
func TestGitBrokerKeepsUserKeys(t *testing.T) {
	f := gitFixture(t)
	f.assertActive(t, Spec{})
	gitOutside(t, f, "config", "core.hooksPath", ".husky")
	gitOutside(t, f, "config", "alias.co", "checkout")
	r := f.run(t, Spec{}, `git config user.email new@example.com`, 30*time.Second)
	if got := strings.TrimSpace(gitOutside(t, f, "config", "user.email")); got != "new@example.com" {
		t.Fatalf("user.email %q:\n%s", got, r.out)
	}
	if got := strings.TrimSpace(gitOutside(t, f, "config", "core.hooksPath")); got != ".husky" {
		t.Fatalf("the user's core.hooksPath was lost: %q", got)
	}
	if got := strings.TrimSpace(gitOutside(t, f, "config", "alias.co")); got != "checkout" {
		t.Fatalf("the user's alias was lost: %q", got)
	}
}

// A state file the user's own git replaced during the run is not
// overwritten by the sandbox's older version.
func TestGitStateChangedOutsideKept(t *testing.T) {
	f := gitFixture(t)
	f.assertActive(t, Spec{})
	marker := filepath.Join(f.root, "outside-commit-done")
	// Inside: stage a file, then wait until the test has committed outside.
	script := gitIdent + `echo x > inside.txt && git add inside.txt && for i in $(seq 1 100); do [ -e ` + marker + ` ] && break; sleep 0.1; done; echo waited`
	done := make(chan result, 1)
	go func() { done <- f.run(t, Spec{}, script, 60*time.Second) }()
	time.Sleep(1500 * time.Millisecond)
	os.WriteFile(filepath.Join(f.ws, "outside.txt"), []byte("o\n"), 0o644)
	gitOutside(t, f, "add", "outside.txt")
	gitOutside(t, f, "commit", "-q", "-m", "outside")
	os.WriteFile(marker, nil, 0o644)
	r := <-done
	if !strings.Contains(r.out, "waited") {
		t.Fatalf("inside:\n%s", r.out)
	}
	if st := gitOutside(t, f, "status", "--porcelain", "outside.txt"); st != "" {
		t.Fatalf("the outside commit's index was replaced by the sandbox's: %q\n%s\n%v", st, r.out, r.applied.Post)
	}
	if w := strings.Join(r.applied.Warnings(), "\n"); !strings.Contains(w, ".git/index changed outside") {
		t.Fatalf("no warning: %s", w)
	}
}

// assertParkedView checks that the runs left exactly one view in .git,
// unlocked, for the next run to reuse.
func assertParkedView(t *testing.T, f *fixture) {
	t.Helper()
	var views []string
	all, _ := filepath.Glob(filepath.Join(f.ws, ".git", gitViewPrefix+"*"))
	for _, v := range all {
		if !strings.HasSuffix(v, ".lock") {
			views = append(views, v)
		}
	}
	if len(views) != 1 {
		t.Fatalf("want one view left for reuse, got %v", views)
	}
	fd, err := unix.Open(views[0]+".lock", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		t.Fatalf("the view's lock: %v", err)
	}
	defer unix.Close(fd)
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatalf("the view is still locked after the run: %v", err)
	}
}

// The view of a run that was killed before it cleaned up is removed by the
// next run, and the rebase state it had moved in comes back.
func TestGitStaleViewRecovered(t *testing.T) {
	f := gitFixture(t)
	f.assertActive(t, Spec{})
	stale := filepath.Join(f.ws, ".git", gitViewPrefix+"killed")
	if err := os.MkdirAll(filepath.Join(stale, "rebase-merge"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(stale, "rebase-merge", "head-name"), []byte("refs/heads/main\n"), 0o644)
	// Left by a run killed a while ago (a view being created right now
	// is not touched: TestGitYoungViewKept).
	old := time.Now().Add(-2 * staleViewAge)
	os.Chtimes(stale, old, old)
	r := f.run(t, Spec{}, `ls .git; cat .git/rebase-merge/head-name`, 20*time.Second)
	if strings.Contains(r.out, gitViewPrefix) || !strings.Contains(r.out, "refs/heads/main") {
		t.Errorf("inside: a view is visible or the recovered rebase state is not:\n%s", r.out)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Fatalf("stale view left")
	}
	if b, err := os.ReadFile(filepath.Join(f.ws, ".git", "rebase-merge", "head-name")); err != nil || string(b) != "refs/heads/main\n" {
		t.Fatalf("rebase state not recovered: %q %v", b, err)
	}
	assertParkedView(t, f)
}

// A view is reused by the next run. Whatever a command left in it (new
// metadata, a hook, a copied file replaced by a symlink to a file outside
// or by a hard link to a workspace file) is gone before the next command
// starts, and nothing is written through those links.
func TestGitReusedViewIsClean(t *testing.T) {
	f := gitFixture(t)
	f.assertActive(t, Spec{})
	keep := filepath.Join(f.ws, "keep.txt")
	if err := os.WriteFile(keep, []byte("workspace file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := f.run(t, Spec{}, `echo /elsewhere > .git/commondir
echo 'touch pwned' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
ln -sf `+f.canary+` .git/description
ln -f keep.txt .git/info-link 2>/dev/null; ln -f keep.txt .git/COMMIT_EDITMSG
echo planted`, 20*time.Second)
	if !strings.Contains(r.out, "planted") {
		t.Fatalf("first run:\n%s", r.out)
	}
	assertParkedView(t, f)
	r = f.run(t, Spec{}, `for p in commondir hooks/pre-commit info-link; do [ -e .git/$p ] && echo "left: $p"; done
[ -L .git/description ] && echo "left: description symlink"
cat .git/description; echo end`, 20*time.Second)
	if strings.Contains(r.out, "left:") || !strings.Contains(r.out, "end") {
		t.Fatalf("the reused view kept what the last command left:\n%s", r.out)
	}
	if b, _ := os.ReadFile(f.canary); string(b) != canaryText {
		t.Fatalf("the canary outside was written through the view: %q", b)
	}
	if b, _ := os.ReadFile(keep); string(b) != "workspace file\n" {
		t.Fatalf("a workspace file was written through the view: %q", b)
	}
	for _, p := range []string{"commondir", "info-link", "hooks/pre-commit"} {
		if _, err := os.Lstat(filepath.Join(f.ws, ".git", p)); err == nil {
			t.Errorf(".git/%s exists outside", p)
		}
	}
	assertParkedView(t, f)
}

// A view another run has just created and not locked yet (the lock comes
// right after the directory) is not taken for a stale one: removing it
// would leave that run without its view.
func TestGitYoungViewKept(t *testing.T) {
	f := gitFixture(t)
	f.assertActive(t, Spec{})
	young := filepath.Join(f.ws, ".git", gitViewPrefix+"starting")
	if err := os.Mkdir(young, 0o700); err != nil {
		t.Fatal(err)
	}
	f.run(t, Spec{}, `true`, 20*time.Second)
	if _, err := os.Stat(young); err != nil {
		t.Fatalf("a view being created was removed: %v", err)
	}
}

// TestGitFirstCommitInside: in a repository with no commit yet, git
// creates the data directories that did not exist (logs/ with the first
// reflog); they are kept like the existing ones, with no refusal.
func TestGitFirstCommitInside(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		skipOrFail(t, "no git: %v", err)
	}
	f := newFixture(t)
	os.Remove(filepath.Join(f.home, ".gitconfig"))
	gitOutside(t, f, "init", "-q", "-b", "main")
	if _, err := os.Stat(filepath.Join(f.ws, ".git", "logs")); err == nil {
		t.Skip("this git creates .git/logs at init")
	}
	a := f.assertActive(t, Spec{})
	need(t, a, LayerGit)
	r := f.run(t, Spec{}, gitIdent+`set -e; echo a > a.txt; git add a.txt; git commit -q -m first; echo ok`, 60*time.Second)
	if r.code != 0 || !strings.Contains(r.out, "ok") {
		t.Fatalf("first commit failed inside (exit %d):\n%s", r.code, r.out)
	}
	if r.applied.Post != nil {
		for _, w := range r.applied.Post.Warnings {
			t.Errorf("warning: %s", w)
		}
	}
	if _, err := os.Stat(filepath.Join(f.ws, ".git", "logs", "HEAD")); err != nil {
		t.Errorf("the first reflog was not kept: %v", err)
	}
	if log := gitOutside(t, f, "log", "--format=%s"); strings.TrimSpace(log) != "first" {
		t.Errorf("log outside: %q", log)
	}
}

// TestGitStateNamesNoNewProgram: rebase or sequencer state handed back to
// the user's .git may name only the programs it named before the run
// (exec lines of a todo list, a merge strategy that is not built in); a
// todo list the run wrote with a new exec line, a strategy naming a
// program and a todo list that is a symlink are set aside with a warning,
// while an exec line the user had planned before the run stays.
func TestGitStateNamesNoNewProgram(t *testing.T) {
	for _, spec := range []Spec{{}, {Mode: Strict}} {
		t.Run(spec.Mode.String(), func(t *testing.T) {
			f := gitFixture(t)
			f.assertActive(t, spec)
			git := filepath.Join(f.ws, ".git")
			// The user's own interactive rebase, stopped, with a test
			// step they planned.
			os.MkdirAll(filepath.Join(git, "sequencer"), 0o755)
			os.WriteFile(filepath.Join(git, "sequencer", "todo"), []byte("pick 1234567 one\nexec make test\npick 89abcde two\n"), 0o644)
			r := f.run(t, spec, `set -e
printf 'exec make test\npick 89abcde two\n' > .git/sequencer/todo
mkdir -p .git/rebase-merge
echo refs/heads/main > .git/rebase-merge/head-name
printf 'pick 1234567 one\nexec touch ../pwned-exec\n' > .git/rebase-merge/git-rebase-todo
printf '../../pwned-strategy\n' > .git/rebase-merge/strategy
mkdir -p .git/rebase-apply
ln -s ../../planted-todo .git/rebase-apply/strategy
echo done`, 30*time.Second)
			if !strings.Contains(r.out, "done") {
				t.Fatalf("script did not run:\n%s", r.out)
			}
			if b, err := os.ReadFile(filepath.Join(git, "sequencer", "todo")); err != nil || string(b) != "exec make test\npick 89abcde two\n" {
				t.Errorf("the user's own todo list with its exec line was not handed back: %q %v", b, err)
			}
			if b, err := os.ReadFile(filepath.Join(git, "rebase-merge", "head-name")); err != nil || string(b) != "refs/heads/main\n" {
				t.Errorf("the rebase state without programs was not handed back: %q %v", b, err)
			}
			for _, p := range []string{"rebase-merge/git-rebase-todo", "rebase-merge/strategy", "rebase-apply/strategy"} {
				if _, err := os.Lstat(filepath.Join(git, p)); err == nil {
					t.Errorf(".git/%s is in the user's .git", p)
				}
				if _, err := os.Lstat(filepath.Join(git, p+refusedSuffix)); err != nil {
					t.Errorf(".git/%s was not set aside: %v", p, err)
				}
			}
			w := strings.Join(r.applied.Warnings(), "\n")
			for _, k := range []string{"rebase-merge/git-rebase-todo", "touch ../pwned-exec", "rebase-merge/strategy", "rebase-apply/strategy is a symlink"} {
				if !strings.Contains(w, k) {
					t.Errorf("no warning names %q:\n%s", k, w)
				}
			}
			if strings.Contains(w, "sequencer/todo") {
				t.Errorf("the user's own exec line was refused:\n%s", w)
			}
		})
	}
}

func TestTodoExecs(t *testing.T) {
	got := todoExecs([]byte("pick a one\n# exec not-this\nexec make test\r\nx  go vet ./...\n\texec\tls\nexecute x\nbreak\n"))
	want := []string{"make test", "go vet ./...", "ls"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("todoExecs = %q, want %q", got, want)
	}
	if p := optsStrategy([]byte("[options]\n\tstrategy = \"../x\"\n\tgpg-sign = K\n")); len(p) != 1 || p[0] != "../x" {
		t.Errorf("optsStrategy = %q", p)
	}
	if p := strategyProgram("ort\n"); p != nil {
		t.Errorf("a built-in strategy names %q", p)
	}
}
