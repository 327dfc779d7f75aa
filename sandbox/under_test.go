package sandbox

import "testing"

func TestUnder(t *testing.T) {
	for _, c := range []struct {
		p, root string
		want    bool
	}{
		{"/home/u", "/home/u", true}, {"/home/u/x", "/home/u", true}, {"/home/ux", "/home/u", false},
		{"/home", "/home/u", false}, {"/x", "/", true}, {"/", "/", true}, {"x", "/", false},
		{"/home/u/", "/home/u", true}, {"/a/b/c", "/a", true}, {"/ab", "/a", false},
	} {
		if got := under(c.p, c.root); got != c.want {
			t.Errorf("under(%q, %q) = %v", c.p, c.root, got)
		}
	}
}
