package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/bfgo/bf/libbf/reply"
)

func TestSearchMode(t *testing.T) {
	for _, tc := range []struct {
		raw, want string
		bad       bool
	}{
		{`{"query":"x"}`, modeWords, false},
		{`{"query":"x","mode":"words"}`, modeWords, false},
		{`{"query":"x","mode":"fused"}`, modeFused, false},
		{`{"query":"x","mode":"dense"}`, "", true},
		{`{"query":"x","mode":3}`, "", true},
	} {
		got, err := "", error(nil)
		a, err := searchInput.check(json.RawMessage(tc.raw))
		if err == nil {
			got, err = searchMode(a.str("mode"))
		}
		if tc.bad {
			if !reply.IsInput(err) {
				t.Errorf("%s: got %q, %v; want invalid input", tc.raw, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.raw, got, err, tc.want)
		}
	}
}
