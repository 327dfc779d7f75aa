package grammar

import (
	"reflect"
	"testing"
)

// TestLookupMatchesGrammars: the lazy Lookup, which parses only the
// lines of the program asked for, gives the same grammar as parsing
// every file, for every program, subcommand and alias.
func TestLookupMatchesGrammars(t *testing.T) {
	all := Grammars()
	var cmp func(path string, a, b *Grammar)
	cmp = func(path string, a, b *Grammar) {
		if b == nil {
			t.Errorf("%s: Lookup found nothing", path)
			return
		}
		if a.Name != b.Name || a.Family != b.Family || !reflect.DeepEqual(a.Aliases, b.Aliases) ||
			a.wraps() != b.wraps() || len(a.Subs) != len(b.Subs) ||
			!reflect.DeepEqual(a.Value, b.Value) || !reflect.DeepEqual(a.Opts, b.Opts) ||
			!reflect.DeepEqual(a.Ops, b.Ops) || a.Rep != b.Rep {
			t.Errorf("%s: Lookup and Grammars differ", path)
		}
		for n, s := range a.Subs {
			cmp(path+" "+n, s, b.Subs[n])
		}
	}
	for name, g := range all {
		if g.Opaque || g.Prefix {
			// a line that names no words, or no program, is not
			// Lookup's to give
			if l := Lookup(name); l != nil {
				t.Errorf("Lookup(%q) = %s, want nil for a +opaque or +prefix line", name, l.Name)
			}
			continue
		}
		cmp(name, g, Lookup(name))
	}
	for _, name := range []string{"", "gi", "gitx", "no-such-program", "git status"} {
		if g := Lookup(name); g != nil {
			t.Errorf("Lookup(%q) = %s, want nil", name, g.Name)
		}
	}
}

// TestResolve: a command name is read through the grammar lines alone:
// aliases, NAME.SUFFIX variants of a +variants program, names under a
// +prefix line (the prefix's check added to the program's), and +opaque
// lines, which name a program and its check but are no grammar Lookup
// gives.
func TestResolve(t *testing.T) {
	tests := []struct {
		name   string
		want   Program
		lookup string // Lookup(name).Name, "" for nil
	}{
		{"rm", Program{Name: "rm", Checks: [2]string{"rm"}}, "rm"},
		{"grm", Program{Name: "rm", Checks: [2]string{"rm"}}, "rm"},
		{"python3", Program{Name: "python"}, "python"},
		{"python3.14", Program{Name: "python"}, "python"},
		{"python3.12.1", Program{Name: "python"}, "python"},
		{"mkfs.minix", Program{Name: "mkfs", Checks: [2]string{"disk"}}, "mkfs"},
		{"ls.x", Program{Name: "ls.x"}, ""}, // ls has no +variants
		{"zf_rm", Program{Name: "rm", Checks: [2]string{"rm", "zshmodule"}}, ""},
		{"zf_nosuch", Program{Name: "zf_nosuch", Checks: [2]string{1: "zshmodule"}}, ""},
		{"zf_", Program{Name: "zf_"}, ""}, // a prefix alone is no program
		{"zmodload", Program{Name: "zmodload", Checks: [2]string{"zshmodule"}}, ""},
		{"no-such-program", Program{Name: "no-such-program"}, ""},
	}
	for _, tc := range tests {
		got := Resolve(tc.name)
		if got.Name != tc.want.Name || got.Checks != tc.want.Checks {
			t.Errorf("Resolve(%q) = %+v, want %+v", tc.name, got, tc.want)
		}
		// the line is the program's (+opaque ones too), so that its
		// properties are the name's; a name no line names has none
		wantLine := tc.lookup != "" || tc.name == "zf_rm" || tc.name == "zmodload"
		if line := got.Line; (line != nil) != wantLine || line != nil && line.Name != got.Name {
			t.Errorf("Resolve(%q).Line = %v, want the line of %q: %v", tc.name, line, got.Name, wantLine)
		}
		looked := ""
		if g := Lookup(tc.name); g != nil {
			looked = g.Name
		}
		if looked != tc.lookup {
			t.Errorf("Lookup(%q) = %q, want %q", tc.name, looked, tc.lookup)
		}
	}
}

// TestCheckFieldErrors: check=, +variants, +prefix and +opaque belong on
// a program's line, once.
func TestCheckFieldErrors(t *testing.T) {
	for _, text := range []string{
		"p\np sub check=x",
		"p\np sub +variants",
		"p\np sub +prefix",
		"p\np sub +opaque",
		"p check=x check=y",
	} {
		if err := ParseGrammars(map[string]*Grammar{}, "t", text); err == nil {
			t.Errorf("%q: parsed, want an error", text)
		}
	}
	tab := map[string]*Grammar{}
	if err := ParseGrammars(tab, "t", "p +variants +opaque check=c alias=q\nzz_ +prefix check=d"); err != nil {
		t.Fatal(err)
	}
	if g := tab["q"]; g.Check != "c" || !g.Variants || !g.Opaque || !tab["zz_"].Prefix || tab["zz_"].Check != "d" {
		t.Errorf("fields not read: %+v %+v", tab["q"], tab["zz_"])
	}
}
