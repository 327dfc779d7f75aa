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
		cmp(name, g, Lookup(name))
	}
	for _, name := range []string{"", "gi", "gitx", "no-such-program", "git status"} {
		if g := Lookup(name); g != nil {
			t.Errorf("Lookup(%q) = %s, want nil", name, g.Name)
		}
	}
}
