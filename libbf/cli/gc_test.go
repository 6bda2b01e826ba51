package cli

import (
	"runtime/debug"
	"testing"
)

func TestDeferCollection(t *testing.T) {
	limit, percent := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	t.Cleanup(func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) })

	restore := deferCollection(func(string) string { return "" })
	if restore == nil {
		t.Fatal("deferCollection changed nothing with neither GOGC nor GOMEMLIMIT set")
	}
	if got := debug.SetMemoryLimit(-1); got != quickLimit {
		t.Errorf("memory limit while deferred %d, want %d", got, quickLimit)
	}
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GC percent while deferred %d, want -1 (off)", got)
	}
	restore()
	if got := debug.SetGCPercent(percent); got != percent {
		t.Errorf("GC percent after restore %d, want %d", got, percent)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("memory limit after restore %d, want %d", got, limit)
	}

	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		env := func(k string) string {
			if k == name {
				return "200"
			}
			return ""
		}
		if deferCollection(env) != nil {
			t.Errorf("with %s set, deferCollection changed the collector", name)
		}
		if got := debug.SetGCPercent(percent); got != percent {
			t.Errorf("with %s set: GC percent %d, want %d", name, got, percent)
		}
	}
}
