package analyze

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestDifferential runs benign scripts under real bash with PATH pointing
// at stub programs that only record their argv, and checks that the
// analyzer predicted exactly the argv of every program that ran. Only
// benign scripts are listed here, and only stubs ever run: no real program
// is reachable through PATH.
func TestDifferential(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh not installed")
	}
	scripts := []string{
		`git status`,
		`go test ./...`,
		`ls -la && git diff --stat`,
		`npm install --save-dev typescript`,
		`a=git; $a log --oneline -n 5`,
		`{git,status}`,
		`$'\x67it' status`,
		`g''it log`,
		`\ls -l`,
		`command ls -a`,
		`env NODE_ENV=test npm test`,
		`sh -c 'git status; ls'`,
		`bash -c "go vet ./..."`,
		`eval 'make build'`,
		`f() { go test "$@"; }; f -run X ./pkg`,
		`retry() { "$@" && return 0; return 1; }; retry npm ci`,
		`x=$(git rev-parse --short HEAD); echo "building $x"`,
		`git commit -m "$(cat <<'EOF'
feat: add retry

Retries requests.
EOF
)"`,
		`cd sub && make -j8`,
		`(cd sub && go build ./...); ls`,
		`timeout 60 go test ./...`,
		`printf '%s\n' a b > out.txt; wc -l out.txt`,
		`grep -rn "func main" --include=*.go .`,
		`rm -rf build/`,
		`echo "rm -rf /"; ls`,
		`PATH_X=1 git status`,
		`nice -n 10 cargo build --release`,
		`x=rm,-f,build.tmp; IFS=,; $x`,
		`c=(git log -n 1); "${c[@]}"`,
		`rm${IFS}-f${IFS}x.tmp`,
		`sh -c 'git "$1"' _ status`,
		`bash <<'EOF'
git status
ls -l
EOF`,
		`trap 'git status' EXIT; ls`,
		`find . -name '*.go' -exec gofmt -l {} +`,
		`echo a | tr a b | sort`,
		`declare -a arr=(a b); ls "${arr[@]}"`,
		`a=1; b=$((a+1)); ls "$b"`,
		`x=hello; ls "${x^^}" "${x:1:2}" "${#x}" "${x/l/L}"`,
		`ls ~/x "$HOME"/y`,
		`ls "$PWD"`,
		`ls {a,b}{1..3}`,
		`echo $'a\tb' | cat -A`,
		`time git status`,
		`exec git status`,
		`git log --format=%H -n 5 | head -n 1`,
		`local_var=1 npm run build -- --mode production`,
		`tar -czf release.tar.gz dist/`,
		`x='a b'; ls $x "$x"`,
		`set -- one two; ls "$@" "$#"`,
		`for f in a.go b.go; do gofmt -l "$f"; done`,
		`for i in 1 2 3; do git log -n "$i"; done`,
		`for d in x y; do (cd "$d" 2>/dev/null; ls); done`,
		// (case and if branches are all predicted on purpose: the
		// analysis over-approximates, so they are not listed here)
		`f() { local x="$1"; shift; git "$x" "$@"; }; f log --oneline -n 2`,
		`sh -c 'for a in "$@"; do ls "$a"; done' sh p q`,
		`bash <<< 'git status'`,
		`x=$(echo build); make "$x"`,
		`make "$(pwd)"`,
		`cd sub; ls "$(pwd)"`,
		`a=( "x y" z ); ls "${a[@]}" ${a[0]}`,
		`v=abc; ls "${v%c}" "${v#a}" "${v:-d}" "${u:-dflt}"`,
		`IFS=:; p="a:b"; ls $p`,
		`ls $'a
b' "$(printf x)"`,
		`{ git status; ls; } > out.txt`,
		`git status && { ls || true; }`,
		`while read -r l; do ls "$l"; done <<< "only"`,
		`n=0; (( n++ )); ls "$n"`,
		`echo *.none | cat`,
		`ls -- -x 2>/dev/null; git --version`,
	}
	ws := t.TempDir()
	stubs := filepath.Join(ws, ".stubs")
	home := filepath.Join(ws, "home")
	for _, d := range []string{stubs, home, filepath.Join(ws, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{Home: home, Workspace: ws}
	// Stubs for every program name the analyzer predicts, plus real
	// shells so that sh -c and heredocs are really interpreted.
	// one write per record, so that concurrent pipeline stages do not
	// interleave their records
	stub := "#!" + sh + "\nus=$(printf '\\037'); rec=\"${0##*/}\"; for a in \"$@\"; do rec=\"$rec$us$a\"; done; printf '%s\\036' \"$rec\" >> \"$SG_LOG\"\n"
	names := map[string]bool{}
	for _, s := range scripts {
		for _, c := range Analyze(s, opts).Commands {
			if n := c.Name(); n != "" && !c.Builtin && !strings.Contains(n, "/") {
				names[n] = true
			}
		}
	}
	for n := range names {
		if n == "bash" || n == "sh" {
			continue
		}
		if err := os.WriteFile(filepath.Join(stubs, n), []byte(stub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"bash", "sh"} {
		real := bash
		if n == "sh" {
			real = sh
		}
		if err := os.Symlink(real, filepath.Join(stubs, n)); err != nil {
			t.Fatal(err)
		}
	}
	transparent := func(w string) bool {
		switch {
		case w == "command", w == "builtin", w == "exec", w == "eval", w == "time", w == "trap",
			w == "bash -c", w == "sh -c", w == "bash <<", w == "sh <<", strings.HasPrefix(w, "function "):
			return true
		}
		return false
	}
	for i, script := range scripts {
		log := filepath.Join(ws, "argv.log")
		os.Remove(log)
		cmd := exec.Command(bash, "-c", script)
		cmd.Dir = ws
		cmd.Env = []string{"PATH=" + stubs, "HOME=" + home, "SG_LOG=" + log, "LC_ALL=C"}
		out, _ := cmd.CombinedOutput()
		raw, _ := os.ReadFile(log)
		var got []string
		for _, rec := range strings.Split(string(raw), "\x1e") {
			if rec != "" {
				got = append(got, strings.ReplaceAll(rec, "\x1f", " | "))
			}
		}
		type pred struct {
			argv []string
			dyn  []bool
		}
		var want []pred
		for _, c := range Analyze(script, opts).Commands {
			if c.FuncDef != "" || c.Builtin || len(c.Args) == 0 {
				continue
			}
			n := c.Name()
			if n == "bash" || n == "sh" {
				continue
			}
			ok := true
			for _, w := range c.Wrappers {
				if !transparent(w.Text) {
					ok = false
				}
			}
			if !ok {
				continue
			}
			p := pred{}
			for _, a := range c.Args {
				p.argv = append(p.argv, a.Value)
				p.dyn = append(p.dyn, a.Dynamic)
			}
			want = append(want, p)
		}
		// match each recorded argv with one prediction
		used := make([]bool, len(want))
		var unmatched []string
		for _, g := range got {
			argv := strings.Split(g, " | ")
			found := false
			for j, p := range want {
				if used[j] || len(p.argv) != len(argv) {
					continue
				}
				eq := true
				for k := range argv {
					if !p.dyn[k] && p.argv[k] != argv[k] {
						eq = false
					}
				}
				if eq {
					used[j] = true
					found = true
					break
				}
			}
			if !found {
				unmatched = append(unmatched, g)
			}
		}
		var missing []string
		for j, p := range want {
			if !used[j] {
				missing = append(missing, strings.Join(p.argv, " | "))
			}
		}
		sort.Strings(unmatched)
		if len(unmatched) > 0 || len(missing) > 0 {
			t.Errorf("script %d %q:\n  ran but not predicted: %q\n  predicted but did not run: %q\n  output: %s", i, script, unmatched, missing, out)
		}
		if len(got) == 0 && !slices.Contains([]string{}, script) {
			t.Errorf("script %d %q: no program ran (output %s)", i, script, out)
		}
	}
}
