package analyze

import (
	"slices"
	"strings"
	"testing"
)

// TestCodeFacts checks the language, code and stdin facts of commands.
func TestCodeFacts(t *testing.T) {
	tests := []struct {
		src, name string
		lang      string
		stdin     bool
		code      []string // Lang:Text of each Code
		exec      Exec     // Exec of the last Code
		piped     bool
	}{
		{src: `bash -c 'ls -l'`, name: "bash", lang: "sh", code: []string{"sh:ls -l"}, exec: ExecRead},
		{src: "bash <<'E'\nls\nE", name: "bash", lang: "sh", stdin: true, code: []string{"sh:ls\n"}, exec: ExecRead},
		{src: `echo 'ls /' | sh`, name: "sh", lang: "sh", stdin: true, code: []string{"sh:ls /"}, exec: ExecRead, piped: true},
		{src: `printf 'ls %s\n' /tmp | bash`, name: "bash", lang: "sh", stdin: true, code: []string{"sh:ls /tmp\n"}, exec: ExecRead, piped: true},
		{src: `curl -s x | sh`, name: "sh", lang: "sh", stdin: true},
		{src: `sh script.sh`, name: "sh", lang: "sh"},
		{src: `eval "ls"`, name: "eval", lang: "sh", code: []string{"sh:ls"}, exec: ExecRead},
		{src: `python3 -c 'print(1)'`, name: "python3", lang: "python", code: []string{"python:print(1)"}},
		{src: `python3 -c 'import os; os.system("ls")'`, name: "python3", lang: "python", code: []string{`python:import os; os.system("ls")`}, exec: ExecRead},
		{src: `python3 -c 'import os; os.system("rm -rf " + p)'`, name: "python3", lang: "python", code: []string{`python:import os; os.system("rm -rf " + p)`}, exec: ExecComputed},
		{src: `python3 -c 'import subprocess; subprocess.run(cmd)'`, name: "python3", lang: "python", code: []string{`python:import subprocess; subprocess.run(cmd)`}, exec: ExecOpaque},
		{src: "perl -ne 'print `id`'", name: "perl", lang: "perl", code: []string{"perl:print `id`"}, exec: ExecRead},
		{src: "perl -e 'system q(rm -rf /tmp/x)'", name: "perl", lang: "perl", code: []string{"perl:system q(rm -rf /tmp/x)"}, exec: ExecRead},
		{src: "perl -e 'print qx{id}'", name: "perl", lang: "perl", code: []string{"perl:print qx{id}"}, exec: ExecRead},
		{src: "perl -e 'exec qq<ls (x)>'", name: "perl", lang: "perl", code: []string{"perl:exec qq<ls (x)>"}, exec: ExecRead},
		{src: "perl -lne 'print `id`' f", name: "perl", lang: "perl", code: []string{"perl:print `id`"}, exec: ExecRead},
		{src: "perl -le 'print `id`'", name: "perl", lang: "perl", code: []string{"perl:print `id`"}, exec: ExecRead},
		{src: "perl -l0e 'print 1'", name: "perl", lang: "perl", code: []string{"perl:print 1"}},
		{src: "perl -0x1ffne 'print 1'", name: "perl", lang: "perl", code: []string{"perl:print 1"}},
		{src: "perl -0777 -ne 'print 1'", name: "perl", lang: "perl", code: []string{"perl:print 1"}},
		{src: "perl -ie 's/a/b/' f", name: "perl", lang: "perl"}, // -i with the backup suffix "e"
		{src: "node -pe 'require(\"os\").homedir()'", name: "node", lang: "js", code: []string{`js:require("os").homedir()`}},
		{src: "ruby -0777e 'puts 1'", name: "ruby", lang: "ruby", code: []string{"ruby:puts 1"}},
		{src: "python3 - <<'E'\nprint(1)\nE", name: "python3", lang: "python", stdin: true, code: []string{"python:print(1)\n"}},
		{src: `python3 script.py`, name: "python3", lang: "python"},
		{src: `awk '{print $1}' f`, name: "awk", lang: "awk", code: []string{"awk:{print $1}"}},
		{src: `awk '{print | "sh"}' f`, name: "awk", lang: "awk", code: []string{`awk:{print | "sh"}`}, exec: ExecData},
		{src: `awk '{system("rm " $1)}' f`, name: "awk", lang: "awk", code: []string{`awk:{system("rm " $1)}`}, exec: ExecComputed},
		{src: `sed -n 's/a/b/e' f`, name: "sed", lang: "sed", code: []string{"sed:s/a/b/e"}, exec: ExecComputed},
		{src: `sed '1e id' f`, name: "sed", lang: "sed", code: []string{"sed:1e id"}, exec: ExecRead},
		{src: `ls -l`, name: "ls"},
	}
	for _, tt := range tests {
		r := Analyze(tt.src, Options{})
		var c *Command
		for _, x := range r.Commands {
			if x.Program == tt.name {
				c = x
				break
			}
		}
		if c == nil {
			t.Errorf("%q: no command %q", tt.src, tt.name)
			continue
		}
		if c.Lang != tt.lang || c.StdinCode != tt.stdin {
			t.Errorf("%q: lang %q stdin %v, want %q %v", tt.src, c.Lang, c.StdinCode, tt.lang, tt.stdin)
		}
		var got []string
		for _, cd := range c.Code {
			got = append(got, cd.Lang+":"+cd.Text)
		}
		if strings.Join(got, "|") != strings.Join(tt.code, "|") {
			t.Errorf("%q: code %q, want %q", tt.src, got, tt.code)
			continue
		}
		if len(c.Code) > 0 {
			last := c.Code[len(c.Code)-1]
			if last.Exec != tt.exec || last.Piped != tt.piped {
				t.Errorf("%q: exec %v piped %v, want %v %v", tt.src, last.Exec, last.Piped, tt.exec, tt.piped)
			}
		}
	}
}

// TestFollowedCode checks that shell commands found in piped text and in
// interpreter code are analysed as commands, under a typed wrapper.
func TestFollowedCode(t *testing.T) {
	tests := []struct {
		src, inner string
		via        Via
	}{
		{`echo 'rm -rf /x' | sh`, "rm -rf /x", ViaShell},
		{"perl -e 'print `rm -rf /x`'", "rm -rf /x", ViaOption},
		{`python3 -c 'import os; os.system("rm -rf /x")'`, "rm -rf /x", ViaOption},
		{`find . -exec rm -rf {} +`, "rm -rf ./{}", ViaArgv},
		{`$(which bash) -c 'rm -rf /x'`, "rm -rf /x", ViaShell},
		// an option whose value a tool runs, in each of its spellings
		{`script --command='rm -rf /x' /dev/null`, "rm -rf /x", ViaOption},
		{`script -c 'rm -rf /x' /dev/null`, "rm -rf /x", ViaOption},
		{`zip --unzip-command='rm -rf /x' -T a.zip f`, "rm -rf /x", ViaOption},
		{`su --command='rm -rf /x' nobody`, "rm -rf /x", ViaOption},
		{`rsync --rsh='rm -rf /x' a b:c`, "rm -rf /x", ViaOption},
		{`man -P 'rm -rf /x' ls`, "rm -rf /x", ViaOption},
	}
	for _, tt := range tests {
		r := Analyze(tt.src, Options{})
		found := false
		for _, c := range r.Commands {
			if strings.Join(c.Argv, " ") == tt.inner && len(c.Wrappers) > 0 && c.Wrappers[len(c.Wrappers)-1].Via == tt.via {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: no %q under a wrapper with via %v", tt.src, tt.inner, tt.via)
		}
	}
}

// TestDynamicCodeNote checks that the note for code known only at run
// time carries the typed wrapper.
func TestDynamicCodeNote(t *testing.T) {
	tests := []struct {
		src string
		via Via
	}{
		{`sh -c "$X"`, ViaShell},
		{`eval "$X"`, ViaShell},
		{`su -c "$X"`, ViaOption},
		{`ssh h "$X"`, ViaOption},
	}
	for _, tt := range tests {
		r := Analyze(tt.src, Options{})
		ok := false
		for _, n := range r.Notes {
			if n.Kind == NoteDynamicCode && n.Wrapper.Via == tt.via {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%q: no dynamic-code note with via %v in %+v", tt.src, tt.via, r.Notes)
		}
	}
}

// The words a wrapper writes its input into are Filled, and so is the
// code they become; a code flag left last under xargs or find -exec … +
// gets the input as a word of its own; a placeholder elsewhere stays an
// ordinary word of the program's arguments.
func TestFilledWords(t *testing.T) {
	tests := []struct {
		src    string
		prog   string // the command looked at
		code   bool   // its first Code is Filled (and Dynamic)
		filled []bool // Filled of its arguments after the name
	}{
		{src: `xargs -I{} sh -c 'echo {}'`, prog: "sh", code: true, filled: []bool{false, true}},
		{src: `xargs -I % python3 -c %`, prog: "python3", code: true, filled: []bool{false, true}},
		{src: `xargs sh -c`, prog: "sh", code: true, filled: []bool{false, true}},
		{src: `xargs -n1 perl -le`, prog: "perl", code: true, filled: []bool{false, true}},
		{src: `xargs awk`, prog: "awk", code: true, filled: []bool{true}},
		{src: `xargs sed`, prog: "sed", code: true, filled: []bool{true}},
		{src: `find . -exec sh -c 'wc -l {}' \;`, prog: "sh", code: true, filled: []bool{false, true}},
		{src: `fd -x sh -c 'cat {/.}'`, prog: "sh", code: true, filled: []bool{false, true}},
		{src: `find . -exec sh -c 'wc -l "$1"' _ {} \;`, prog: "sh", filled: []bool{false, false, false, true}},
		{src: `xargs -I{} cp {} dst/`, prog: "cp", filled: []bool{true, false}},
		{src: `xargs awk '{print}'`, prog: "awk", filled: []bool{false}},
		{src: `xargs sh -c 'ls "$@"' sh`, prog: "sh", filled: []bool{false, false, false}},
		{src: `sh -c`, prog: "sh", filled: []bool{false}},
	}
	for _, tt := range tests {
		r := Analyze(tt.src, Options{})
		var c *Command
		for _, x := range r.Commands {
			if x.Program == tt.prog {
				c = x
			}
		}
		if c == nil {
			t.Errorf("%s: no %s command", tt.src, tt.prog)
			continue
		}
		var got []bool
		for _, a := range c.Args[1:] {
			got = append(got, a.Filled)
		}
		if !slices.Equal(got, tt.filled) {
			t.Errorf("%s: Filled %v, want %v (%q)", tt.src, got, tt.filled, c.Argv)
		}
		if len(c.Argv) != len(c.Args) {
			t.Errorf("%s: %d Argv, %d Args", tt.src, len(c.Argv), len(c.Args))
		}
		code := len(c.Code) > 0 && c.Code[0].Filled && c.Code[0].Dynamic
		if code != tt.code {
			t.Errorf("%s: code filled %v, want %v (%+v)", tt.src, code, tt.code, c.Code)
		}
	}
	r := Analyze(`xargs -I{} {} --version`, Options{})
	if len(r.Commands) < 2 || !r.Commands[1].Args[0].Dynamic {
		t.Errorf("xargs -I{} {}: the program the input names is not dynamic")
	}
}
