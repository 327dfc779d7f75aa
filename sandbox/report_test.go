package sandbox

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// The doctor --json row keeps its keys (name, ok, detail, reason, fix)
// now that it is a Layer with a status; and an applied or missing layer
// writes only the keys it has.
func TestLayerJSONKeys(t *testing.T) {
	keys := func(v any) []string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return slices.Sorted(maps.Keys(m))
	}
	for _, c := range []struct {
		v    any
		want []string
	}{
		{ProbeResult{Layer: Layer{Name: LayerSeccomp, Reason: "r", Fix: "f", Detail: "d"}}, []string{"detail", "fix", "name", "ok", "reason"}},
		{ProbeResult{Layer: Layer{Name: LayerSeccomp}, OK: true}, []string{"name", "ok"}},
		{Layer{Name: LayerSeccomp, Detail: "d"}, []string{"detail", "name"}},
		{Layer{Name: LayerSeccomp, Reason: "r", Fix: "f"}, []string{"fix", "name", "reason"}},
	} {
		if got := keys(c.v); !slices.Equal(got, c.want) {
			t.Errorf("%+v: keys %v, want %v", c.v, got, c.want)
		}
	}
	var back ProbeResult
	if err := json.Unmarshal([]byte(`{"name":"seccomp","ok":false,"reason":"r","fix":"f"}`), &back); err != nil ||
		back != (ProbeResult{Layer: Layer{Name: "seccomp", Reason: "r", Fix: "f"}}) {
		t.Errorf("decoded %+v, %v", back, err)
	}
}

// MapText filters the refused paths as it does every other name the
// command chose, and leaves the original alone.
func TestMapTextFSRefused(t *testing.T) {
	a := Applied{FSRefused: []FSRefusal{{Path: "/srv/\x1b]0;x\x07out", Access: "write", Grantable: true, Why: ""}}}
	b := a.MapText(func(s string) string { return "<" + s + ">" })
	want := FSRefusal{Path: "</srv/\x1b]0;x\x07out>", Access: "<write>", Grantable: true, Why: "<>"}
	if len(b.FSRefused) != 1 || b.FSRefused[0] != want {
		t.Errorf("mapped %+v, want %+v", b.FSRefused, want)
	}
	if a.FSRefused[0].Path != "/srv/\x1b]0;x\x07out" {
		t.Errorf("the original changed: %+v", a.FSRefused)
	}
}

// A layer's name from the layer table is shellguard's own text and is
// left as it is; any other name, and every detail, reason and fix, is
// mapped.
func TestMapTextLayerNames(t *testing.T) {
	a := Applied{
		Layers:      []Layer{{Name: LayerMasks, Detail: "0 masked"}, {Name: "\x1b]52;c;x\x07"}},
		Unavailable: []Layer{{Name: LayerCgroup, Reason: "r", Fix: "f"}},
	}
	b := a.MapText(func(s string) string { return "<" + s + ">" })
	want := []Layer{{Name: LayerMasks, Detail: "<0 masked>", Reason: "<>", Fix: "<>"}, {Name: "<\x1b]52;c;x\x07>", Detail: "<>", Reason: "<>", Fix: "<>"}}
	if !slices.Equal(b.Layers, want) {
		t.Errorf("layers mapped to %q, want %q", b.Layers, want)
	}
	if u := b.Unavailable; len(u) != 1 || u[0] != (Layer{Name: LayerCgroup, Detail: "<>", Reason: "<r>", Fix: "<f>"}) {
		t.Errorf("unavailable mapped to %q", u)
	}
}
