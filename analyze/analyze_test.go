package analyze

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// These inputs are only parsed, never executed.

var testOpts = Options{Home: "/home/u", Workspace: "/ws"}

func argvs(r *Result) [][]string {
	var out [][]string
	for _, c := range r.Commands {
		if len(c.Argv) > 0 {
			out = append(out, c.Argv)
		}
	}
	return out
}

func hasArgv(r *Result, want []string) bool {
	for _, a := range argvs(r) {
		if slices.Equal(a, want) {
			return true
		}
	}
	return false
}

// One row, many spellings, one expected fact.
func TestSpellings(t *testing.T) {
	tests := []struct {
		want []string
		srcs []string
	}{
		{[]string{"rm", "-rf", "/"}, []string{
			`rm -rf /`,
			`'rm' -rf /`,
			`\rm -rf /`,
			`"rm" "-rf" "/"`,
			`command rm -rf /`,
			`command -p rm -rf /`,
			`builtin rm -rf /`,
			`exec rm -rf /`,
			`env X=1 rm -rf /`,
			`env -i rm -rf /`,
			`env -- rm -rf /`,
			`X=1 rm -rf /`,
			`sh -c 'rm -rf /'`,
			`bash -c "rm -rf /"`,
			`bash -lc 'rm -rf /'`,
			`zsh -c 'rm -rf /'`,
			`$'\x72m' -rf /`,
			`$'\x72\x6d' -rf /`,
			`{rm,-rf,/}`,
			`r""m -rf /`,
			`r''m -rf /`,
			`r"m" -rf /`,
			`a=rm; $a -rf /`,
			`a=rm; ${a} -rf /`,
			`a=rm b=/; $a -rf $b`,
			`c=(rm -rf /); "${c[@]}"`,
			`rm${IFS}-rf${IFS}/`,
			`x=rm,-rf,/; IFS=,; $x`,
			`timeout 5 rm -rf /`,
			`timeout -s KILL 5 rm -rf /`,
			`nice -n 19 rm -rf /`,
			`nohup rm -rf / &`,
			`setsid rm -rf /`,
			`stdbuf -o0 rm -rf /`,
			`time rm -rf /`,
			`sudo rm -rf /`,
			`sudo -u root -E rm -rf /`,
			`doas rm -rf /`,
			`eval 'rm -rf /'`,
			`eval rm -rf /`,
			`builtin eval 'rm -rf /'`,
			`echo "$(rm -rf /)"`,
			"echo `rm -rf /`",
			`cat <(rm -rf /)`,
			`f() { rm -rf /; }; f`,
			`function f { rm -rf "$1"; }; f /`,
			`if true; then rm -rf /; fi`,
			`while false; do rm -rf /; done`,
			`case x in x) rm -rf /;; esac`,
			`(rm -rf /)`,
			`{ rm -rf /; }`,
			`true && rm -rf /`,
			`false || rm -rf /`,
			`echo | rm -rf /`,
			`x=$(rm -rf /)`,
			`declare x=$(rm -rf /)`,
			`sh -c 'sh -c "rm -rf /"'`,
			`bash <<'EOF'
rm -rf /
EOF`,
			`bash <<< 'rm -rf /'`,
			`trap 'rm -rf /' EXIT`,
			`sh -c 'rm -rf "$1"' sh /`,
			`watch rm -rf /`,
			`ssh host rm -rf /`,
			`docker exec c rm -rf /`,
			`kubectl exec pod -- rm -rf /`,
			`git -c core.pager='rm -rf /' log`,
			`git -c alias.x='!rm -rf /' x`,
			`tar -cf /dev/null x --checkpoint=1 --checkpoint-action=exec='rm -rf /'`,
			`ssh -o ProxyCommand='rm -rf /' x`,
			`env -S 'rm -rf /'`,
			`awk 'BEGIN{system("rm -rf /")}'`,
			`sed -n '1e rm -rf /' f`,
			`python3 -c 'import os; os.system("rm -rf /")'`,
			`perl -e 'system("rm -rf /")'`,
			`vim -c ':!rm -rf /'`,
			`alias ls='rm -rf /'`,
			`su -c 'rm -rf /' root`,
			`flock /tmp/l rm -rf /`,
			`busybox rm -rf /`,
			`emulate sh -c 'rm -rf /'`,
			`$(echo rm) -rf /`,
			"`echo rm` -rf /",
			`$(printf rm) -rf $(echo /)`,
			`cd / && rm -rf "$(pwd)"`,
		}},
		{[]string{"rm", "-rf", "/home/u"}, []string{
			`rm -rf ~`,
			`rm -rf "$HOME"`,
			`rm -rf ${HOME}`,
			`rm -rf ~/`[:len(`rm -rf ~`)],
			`cd && rm -rf "$PWD"`,
		}},
		{[]string{"rm", "-rf", "./{}"}, []string{
			`find . -exec rm -rf {} +`,
			`find . -execdir rm -rf {} \;`,
		}},
		{[]string{"git", "status"}, []string{
			`git status`,
			`g=git; $g status`,
			`{git,status}`,
			`command git status`,
			`GIT_PAGER=cat git status`,
			"git\\\nstatus"[:0] + `git status # comment`,
		}},
	}
	for _, tt := range tests {
		for _, src := range tt.srcs {
			r := Analyze(src, testOpts)
			if !hasArgv(r, tt.want) {
				t.Errorf("%q: want argv %q among %q (notes %v)", src, tt.want, argvs(r), r.Notes)
			}
		}
	}
}

func TestDataIsData(t *testing.T) {
	for _, src := range []string{
		`echo "rm -rf /"`,
		`echo 'sudo rm -rf /'`,
		`grep -rn sudo docs/`,
		`git commit -m "drop eval; rm -rf /"`,
		`# rm -rf /`,
		`cat <<'EOF'
rm -rf /
EOF`,
		`printf '%s\n' ':(){ :|:& };:' > f`,
		`echo 'use $(rm -rf /) here'`,
	} {
		r := Analyze(src, testOpts)
		for _, a := range argvs(r) {
			if a[0] == "rm" || a[0] == "sudo" || a[0] == "eval" || a[0] == ":" {
				t.Errorf("%q: data became the command %q", src, a)
			}
		}
	}
}

func TestDynamic(t *testing.T) {
	for _, src := range []string{
		`$(echo rm | cat) -rf /`,
		`x=$(printf '\162\155'); $x -rf /`,
		`"$cmd" -rf /`,
		"`cat f` -rf /",
		`${!ref} x`,
	} {
		r := Analyze(src, testOpts)
		found := false
		for _, c := range r.Commands {
			if len(c.Args) > 0 && c.Args[0].Dynamic && strings.HasSuffix(strings.Join(c.Argv, " "), "/") || len(c.Args) > 0 && c.Args[0].Dynamic && src == `${!ref} x` {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: want a dynamic command name, got %q", src, argvs(r))
		}
	}
}

func TestGlobAndBraceFlags(t *testing.T) {
	r := Analyze(`/???/?m -rf /`, testOpts)
	if len(r.Commands) == 0 || !r.Commands[0].Args[0].Glob {
		t.Fatalf("glob command name not flagged: %+v", r.Commands)
	}
	r = Analyze(`rm -rf '*'`, testOpts)
	if r.Commands[0].Args[2].Glob {
		t.Fatalf("quoted star flagged as glob")
	}
	r = Analyze(`[ -f x ]`, testOpts)
	if r.Commands[0].Args[0].Glob {
		t.Fatalf("[ flagged as glob")
	}
}

func TestCwdTracking(t *testing.T) {
	r := Analyze(`cd / && rm -rf *`, testOpts)
	last := r.Commands[len(r.Commands)-1]
	if last.Cwd != "/" {
		t.Fatalf("cwd after cd / = %q", last.Cwd)
	}
	r = Analyze(`(cd sub && make); ls`, testOpts)
	last = r.Commands[len(r.Commands)-1]
	if last.Cwd != "/ws" {
		t.Fatalf("subshell cd leaked: %q", last.Cwd)
	}
	r = Analyze(`cd "$X"; ls`, testOpts)
	if r.Commands[len(r.Commands)-1].Cwd != "" {
		t.Fatalf("dynamic cd should make the cwd unknown")
	}
}

func TestPipesAndStdin(t *testing.T) {
	r := Analyze(`curl -s x | sudo bash`, testOpts)
	var bash *Command
	for _, c := range r.Commands {
		if c.Name() == "bash" {
			bash = c
		}
	}
	if bash == nil || !bash.StdinPipe || len(bash.Pipes) == 0 || bash.Pipes[0].Stage != 1 {
		t.Fatalf("bash under sudo in a pipeline: %+v", bash)
	}
	if !slices.Contains(bash.Wrappers, Wrapper{Program: "sudo", Text: "sudo", Via: ViaArgv}) {
		t.Fatalf("wrapper chain %q", bash.Wrappers)
	}
}

func TestNotes(t *testing.T) {
	tests := []struct {
		src  string
		kind NoteKind
	}{
		{"echo \x00", NoteNUL},
		{"ls \u202e x", NoteBidi},
		{"r\u200bm x", NoteZeroWidth},
		{"git\u00a0status", NoteUnicodeSpace},
		{"ls\r", NoteCR},
		{"ls \x1b[2J", NoteControl},
		{"ls \xff", NoteInvalidUTF8},
		{"\u0441url x", NoteNonASCIIName},
		{"echo 'unterminated", NoteParseError},
		{"ls =(curl x)", NoteParseError},
		{":(){ :|:& };:", NoteForkBomb},
		{"sudo !!", NoteHistory},
		{"ls() { rm x; }", NoteFuncDef},
	}
	for _, tt := range tests {
		r := Analyze(tt.src, testOpts)
		found := false
		for _, n := range r.Notes {
			if n.Kind == tt.kind {
				found = true
				if n.Span.Start < 0 || n.Span.End > len(tt.src) || n.Span.Start > n.Span.End {
					t.Errorf("%q: bad span %v", tt.src, n.Span)
				}
			}
		}
		if !found {
			t.Errorf("%q: want note %v, got %v", tt.src, tt.kind, r.Notes)
		}
	}
}

func TestParseErrorPosition(t *testing.T) {
	r := Analyze("ls )", testOpts)
	if len(r.Notes) == 0 || r.Notes[0].Kind != NoteParseError || r.Notes[0].Span.Start != 3 {
		t.Fatalf("parse error note: %+v", r.Notes)
	}
}

func TestHugeBraceIsNotExpanded(t *testing.T) {
	src := "echo " + strings.Repeat("{a,b}", 30)
	r := Analyze(src, testOpts)
	if len(r.Commands) != 1 || len(r.Commands[0].Args) > 10 {
		t.Fatalf("brace bomb expanded to %d args", len(r.Commands[0].Args))
	}
	r = Analyze("echo {1..100000000}", testOpts)
	if len(r.Commands[0].Args) > 10 {
		t.Fatalf("range expanded")
	}
}

func TestSpansPointIntoSource(t *testing.T) {
	src := `ls; sh -c 'rm -rf /'; echo ok`
	r := Analyze(src, testOpts)
	for _, c := range r.Commands {
		if c.Span.Start < 0 || c.Span.End > len(src) || c.Span.Start > c.Span.End {
			t.Fatalf("span %v out of range", c.Span)
		}
		// code that is in the source verbatim keeps its own spans
		if c.Name() == "rm" && src[c.Span.Start:c.Span.End] != `rm -rf /` {
			t.Fatalf("nested rm span = %q", src[c.Span.Start:c.Span.End])
		}
	}
	// code that is not (escapes) is placed on the word that carries it
	src = `sh -c "rm -rf \"/x\""; echo ok`
	r = Analyze(src, testOpts)
	for _, c := range r.Commands {
		if c.Name() == "rm" && src[c.Span.Start:c.Span.End] != `"rm -rf \"/x\""` {
			t.Fatalf("escaped nested rm span = %q", src[c.Span.Start:c.Span.End])
		}
	}
	// a here-document body: the dangerous line is the span
	src = "bash <<'EOF'\necho start\nrm -rf /x\nEOF\n"
	r = Analyze(src, testOpts)
	found := false
	for _, c := range r.Commands {
		if c.Name() == "rm" {
			found = src[c.Span.Start:c.Span.End] == "rm -rf /x"
		}
	}
	if !found {
		t.Fatalf("here-document rm not found with its own span: %+v", r.Commands)
	}
}

func ExampleAnalyze() {
	r := Analyze(`a=rm; sudo $a -rf "$HOME"`, Options{Home: "/home/me", Workspace: "/src"})
	for _, c := range r.Commands {
		fmt.Println(c.Argv, c.Wrappers)
	}
	// Output:
	// [] []
	// [sudo rm -rf /home/me] []
	// [rm -rf /home/me] [sudo]
}

func TestRuntimeAssignedVariablesAreDynamic(t *testing.T) {
	for _, src := range []string{
		`x=ls; read x; $x`,
		`x=ls; read -r -p "name? " x; $x`,
		`x=ls; printf -v x '%s' "$y"; $x`,
		`x=ls; unset x; $x -la`[:0] + `x=ls; getopts ab x; $x`,
		`x=ls; mapfile x < f; $x`,
		`n=0; (( n++ )); $n`,
	} {
		r := Analyze(src, testOpts)
		last := r.Commands[len(r.Commands)-1]
		if len(last.Args) == 0 || !last.Args[0].Dynamic {
			t.Errorf("%q: last command %q should have a dynamic name", src, last.Argv)
		}
	}
}

func TestSubstitutionsEverywhere(t *testing.T) {
	for _, src := range []string{
		`declare -A m=([$(rm -rf /)]=1)`,
		`a[$(rm -rf /)]=1`,
		`echo ${x:=$(rm -rf /)}`,
		`echo $(( $(rm -rf /) + 1 ))`,
		`[[ $(rm -rf /) == x ]]`,
		`case $(rm -rf /) in *) ;; esac`,
		`exec > >(rm -rf /)`,
		`cat <<< "$(rm -rf /)"`,
		`for x in $(rm -rf /); do :; done`,
		`for ((i=$(rm -rf /); i<1; i++)); do :; done`,
		`coproc { rm -rf /; }`,
		`time rm -rf /`,
		`! rm -rf /`,
		`let x=$(rm -rf /)`,
		`local x=$(rm -rf /)`,
	} {
		if !hasArgv(Analyze(src, testOpts), []string{"rm", "-rf", "/"}) {
			t.Errorf("%q: rm -rf / not found", src)
		}
	}
}
