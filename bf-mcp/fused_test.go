package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFusedMode runs the search tool in fused mode: the items of bf search --fused, each
// explained, and an unknown mode refused as invalid input.
func TestFusedMode(t *testing.T) {
	f := newFixture(t)
	s := f.start(t, "--brain", f.brain)
	res := s.call(t, "search", `{"query":"ledger cutover","mode":"fused","limit":5}`)
	if res.IsError {
		t.Fatalf("error result: %s", text(t, res))
	}
	type page struct {
		Fused struct {
			Class string `json:"class"`
		} `json:"fused"`
		Items []struct {
			Ref     string          `json:"ref"`
			Explain json.RawMessage `json:"explain"`
		} `json:"items"`
	}
	var got, want page
	if err := json.Unmarshal([]byte(text(t, res)), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(f.cli(t, "bf-search", "--fused", "ledger cutover", "--limit", "5"), &want); err != nil {
		t.Fatal(err)
	}
	if got.Fused.Class != "keywords" || len(got.Items) == 0 {
		t.Fatalf("fused reply: %s", text(t, res))
	}
	refs := func(p page) []string {
		var out []string
		for _, it := range p.Items {
			if len(it.Explain) == 0 {
				t.Errorf("%s has no explanation", it.Ref)
			}
			out = append(out, it.Ref)
		}
		return out
	}
	if diff := cmp.Diff(refs(want), refs(got)); diff != "" {
		t.Errorf("items differ from the CLI (-want +got):\n%s", diff)
	}
	wantError(t, s.call(t, "search", `{"query":"ledger","mode":"dense"}`),
		func(m string) bool { return strings.Contains(m, "mode") }, "an unknown mode")
}
