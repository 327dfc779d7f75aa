package mcpserver

import (
	"fmt"
	"testing"
	"time"
)

// The timeout range the input schema states is the range the tool
// accepts: every value inside is taken as given, every value outside is
// refused (never clamped).
func TestTimeoutSchemaAgreesWithCheck(t *testing.T) {
	for _, max := range []time.Duration{600 * time.Second, 30 * time.Second, 1800 * time.Second} {
		set := settings{Workspace: t.TempDir(), DefaultTimeout: 10 * time.Second, MaxTimeout: max}
		p := inputSchema(set).Properties["timeout"]
		if p == nil || p.ExclusiveMinimum == nil || p.Maximum == nil || p.Minimum != nil {
			t.Fatalf("timeout schema: %+v", p)
		}
		for _, v := range []float64{-1, 0, 0.001, 1, 29.5, 30, 30.5, 600, 600.5, 1800, 1801, 99999} {
			inSchema := v > *p.ExclusiveMinimum && v <= *p.Maximum
			in, err := parseInput([]byte(fmt.Sprintf(`{"command":"true","timeout":%v}`, v)), set)
			accepted := err == nil
			if accepted != inSchema {
				t.Errorf("max %v, timeout %v: schema says %v, check says %v (%v)", max, v, inSchema, accepted, err)
			}
			if accepted && in.Timeout != time.Duration(v*float64(time.Second)) {
				t.Errorf("timeout %v became %v", v, in.Timeout)
			}
		}
	}
}
