// Package version says which version of shellguard is running.
package version

import (
	"runtime/debug"
	"strings"
)

// stamped is set by release builds:
//
//	-ldflags "-X github.com/shellguard/shellguard/internal/version.stamped=v1.2.3"
var stamped string

// String returns the version of this build: the stamped release version,
// else the module version the go command recorded (v1.2.3 for
// `go install …@v1.2.3`; a pseudo-version, possibly "+dirty", for a build
// from a checkout), else "(devel)".
func String() string {
	if stamped != "" {
		return stamped
	}
	return fromBuildInfo(debug.ReadBuildInfo())
}

func fromBuildInfo(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "(devel)"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		// A build outside module mode or without version control data:
		// the commit, when known, still identifies it.
		var rev, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if rev != "" {
			return "(devel) " + rev[:min(12, len(rev))] + dirty
		}
		return "(devel)"
	}
	return strings.TrimSpace(v)
}
