package grammar

import (
	"strings"
	"testing"

	"github.com/shellguard/shellguard/analyze"
)

func TestGrammarTable(t *testing.T) {
	tab := Grammars()
	programs := 0
	for name, g := range tab {
		if g.Name != name {
			continue // alias
		}
		programs++
		checkGrammar(t, g)
	}
	if programs < 300 {
		t.Errorf("grammars cover %d programs, want at least 300", programs)
	}
	t.Logf("%d programs, %d names with aliases", programs, len(tab))
}

func checkGrammar(t *testing.T, g *Grammar) {
	t.Helper()
	if g.Name == "" || g.Family == "" {
		t.Errorf("grammar without name or family: %+v", g)
	}
	if g.Rep >= len(g.Ops) {
		t.Errorf("%s: repeated role index %d out of range", g.Name, g.Rep)
	}
	for o := range g.Value {
		if !strings.HasPrefix(o, "-") {
			t.Errorf("%s: option %q", g.Name, o)
		}
	}
	for o, r := range g.Opts {
		if r >= roleCount || !g.Value[o] {
			t.Errorf("%s: option %q has role %d but takes no value", g.Name, o, r)
		}
	}
	if g.Tree && len(g.Subs) > 0 {
		// allowed, but the subs must be well formed too
	}
	for name, s := range g.Subs {
		if s.Parent != g || !strings.HasSuffix(s.Name, " "+name) {
			t.Errorf("%s: subcommand %q is not linked to its parent", g.Name, name)
		}
		checkGrammar(t, s)
	}
}

func TestGrammarFormatErrors(t *testing.T) {
	bad := []string{
		"x ops=nosuchrole",
		"x v=nodash",
		"x read=nodash",
		"x +nosuchflag",
		"x bogus=1",
		"x ops=read...,write...",
		"y sub",
		"x\nx",
		"x alias=y\ny",
		"x malformed",
		"x env=NAME",
		"x env=NAME:nosuchrole",
		"x env=:cmd",
	}
	for _, b := range bad {
		if err := ParseGrammars(map[string]*Grammar{}, "test", b); err == nil {
			t.Errorf("%q: no error", b)
		}
	}
	tab := map[string]*Grammar{}
	if err := ParseGrammars(tab, "test", "p +mutating v=-n\np del +ro ops=delete... recur=-r\n# comment\n"); err != nil {
		t.Fatal(err)
	}
	if !tab["p"].Mutating || tab["p"].Subs["del"] == nil || !tab["p"].Subs["del"].ReadOnly {
		t.Errorf("parsed table: %+v", tab["p"])
	}
}

// TestGlobalFlagsWithValues: a global option's value is not taken for
// the subcommand (effects: TestGlobalFlagsNotUnknown).
func TestGlobalFlagsWithValues(t *testing.T) {
	cases := map[string]string{
		"kubectl -n prod delete pod x":      "kubectl delete",
		"helm --kube-context x uninstall r": "helm uninstall",
		"docker -H tcp://h rm -f c":         "docker rm",
		"git -C /w -c a.b=c push --force":   "git push",
	}
	for src, want := range cases {
		g := Lookup(strings.Fields(src)[0])
		p := Parse(g, argsOf(src))
		if got := strings.Join(p.Path, " "); got != want {
			t.Errorf("%s: path %q, want %q", src, got, want)
		}
	}
}

func argsOf(src string) []analyze.Arg {
	var out []analyze.Arg
	for _, f := range strings.Fields(src)[1:] {
		out = append(out, analyze.Arg{Value: f})
	}
	return out
}

// TestEnvReader: a variable a grammar line declares (env=, envopts=) is
// found from its name alone, with its role, whatever program is run.
func TestEnvReader(t *testing.T) {
	for _, c := range []struct {
		name, prog string
		role       Role
		opts       bool
	}{
		{"GIT_SSH_COMMAND", "git", RoleCmd, false},
		{"CC", "make", RoleProg, false},
		{"PYTHONSTARTUP", "python", RoleExec, false},
		{"NODE_OPTIONS", "node", 0, true},
		{"MAKEFLAGS", "make", 0, true},
	} {
		g := EnvReader(c.name)
		if g == nil || g.Name != c.prog {
			t.Errorf("%s: reader %v, want %s", c.name, g, c.prog)
			continue
		}
		if g.EnvOpts[c.name] != c.opts || !c.opts && g.Env[c.name] != c.role {
			t.Errorf("%s: role %v opts %v", c.name, g.Env[c.name], g.EnvOpts[c.name])
		}
	}
	for _, n := range []string{"HOME", "LD_LIBRARY_PATH", "PYTHONDONTWRITEBYTECODE", ""} {
		if g := EnvReader(n); g != nil {
			t.Errorf("%s: read by %s", n, g.Name)
		}
	}
}

// TestSubcommandParsing: a subcommand line parses its options as its
// program does (+dashlong, +meta of either line), and a line named by an
// option word is chosen when that word comes before any operand.
func TestSubcommandParsing(t *testing.T) {
	tab := map[string]*Grammar{}
	text := "tf +dashlong\ntf plan write=-out\n" +
		"pm +mutating\npm --prefix +ro\npm hash +meta ops=read...\n"
	if err := ParseGrammars(tab, "test", text); err != nil {
		t.Fatal(err)
	}
	p := Parse(tab["tf"], argsOf("tf plan -out=plan.bin"))
	if len(p.Opts) != 1 || p.Opts[0].Name != "-out" || p.Opts[0].Val.Value != "plan.bin" {
		var names []string
		for _, o := range p.Opts {
			names = append(names, o.Name)
		}
		t.Errorf("tf plan -out=plan.bin: options %q, want -out with plan.bin", names)
	}
	for src, want := range map[string]string{
		"pm --prefix openssl":     "pm --prefix", // the option word names the line
		"pm hash --prefix x":      "pm hash",     // not once a subcommand is chosen…
		"pm install x --prefix y": "pm",          // …nor after an operand
	} {
		if got := strings.Join(Parse(tab["pm"], argsOf(src)).Path, " "); got != want {
			t.Errorf("%s: path %q, want %q", src, got, want)
		}
	}
	if h := tab["pm"].Subs["hash"]; !h.IsMeta() || tab["pm"].IsMeta() {
		t.Errorf("+meta of a subcommand line: sub %v, program %v", h.IsMeta(), tab["pm"].IsMeta())
	}
}
