package release

import (
	"runtime/debug"
	"testing"
)

func TestFromBuild(t *testing.T) {
	tests := []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{nil, false, "dev"},
		{&debug.BuildInfo{}, true, "dev"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true, "dev"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "v1.2.3"},
	}
	for _, tt := range tests {
		if got := fromBuild(tt.bi, tt.ok); got != tt.want {
			t.Errorf("fromBuild(%+v, %v) = %q, want %q", tt.bi, tt.ok, got, tt.want)
		}
	}
}

func TestVersionUnstamped(t *testing.T) {
	// A test binary has no stamp and no module version.
	if got := Version(); got != "dev" {
		t.Errorf("Version() = %q, want dev", got)
	}
}
