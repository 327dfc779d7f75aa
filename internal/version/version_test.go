package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{nil, false, "(devel)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "v1.2.3"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "(devel)"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, true, "(devel) 0123456789ab+dirty"},
	} {
		if got := fromBuildInfo(tc.bi, tc.ok); got != tc.want {
			t.Errorf("fromBuildInfo(%+v) = %q, want %q", tc.bi, got, tc.want)
		}
	}
	if String() == "" {
		t.Error("String() is empty")
	}
}

func TestStamped(t *testing.T) {
	old := stamped
	defer func() { stamped = old }()
	stamped = "v9.9.9"
	if got := String(); got != "v9.9.9" {
		t.Errorf("String() = %q with a stamped version", got)
	}
}
