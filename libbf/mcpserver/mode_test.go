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
		{`{}`, modeWords, false},
		{`{"mode":"words"}`, modeWords, false},
		{`{"mode":"fused"}`, modeFused, false},
		{`{"mode":"dense"}`, "", true},
		{`{"mode":3}`, "", true},
	} {
		a := args{}
		if err := json.Unmarshal([]byte(tc.raw), &a); err != nil {
			t.Fatal(err)
		}
		got, err := searchMode(a)
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
