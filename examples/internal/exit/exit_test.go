package exit

import (
	"slices"
	"testing"
)

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		argv             []string
		positional, vals []string
		err              string
	}{
		{argv: []string{"a", "--skip", "x", "b", "--skip=y"}, positional: []string{"a", "b"}, vals: []string{"x", "y"}},
		{argv: []string{"a", "--", "--skip", "-z"}, positional: []string{"a", "--skip", "-z"}},
		{argv: []string{"-", "a"}, positional: []string{"-", "a"}},
		{argv: []string{"a", "--skip"}, err: "--skip needs a value"},
		{argv: []string{"a", "-z"}, err: "unknown option -z"},
	}
	for _, tt := range tests {
		pos, vals, err := SplitArgs(tt.argv, "--skip", "a value")
		if tt.err != "" {
			if _, ok := err.(Usage); !ok || err.Error() != tt.err {
				t.Errorf("%q: error %v, want usage %q", tt.argv, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(pos, tt.positional) || !slices.Equal(vals, tt.vals) {
			t.Errorf("%q: %q %q %v", tt.argv, pos, vals, err)
		}
	}
}
