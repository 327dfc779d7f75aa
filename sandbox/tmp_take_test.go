//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkTmpTakeReal(b *testing.B) {
	ws := "/var/tmp/mcpws"
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=/root", "LOGNAME=root", "SHELL=/bin/bash", "TERM=xterm", "USER=root", markerVar + "=x"}
	spec := Spec{Mode: Auto, Workspace: ws, CacheDir: filepath.Join("/tmp", "shellguard-cache-0")}
	p := &Pool{size: 0, marker: "pool-bench"}
	longLived.Store(true)
	defer p.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if w, hs := p.take(spec, env, ws); w != nil || hs == nil && i > 0 {
			b.Fatalf("take: %v %v (%s)", w, hs, p.lastMiss)
		}
	}
}
