package fuse

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/search"
)

// A word inside a run of Chinese, Japanese, Korean or Thai letters is found by fused
// search; word search keeps matching whole runs.
func TestBigrams(t *testing.T) {
	b := newBrain(t, map[string]string{
		"bf.yaml":             "version: 8\nname: acme\n",
		"projects/orchard.md": "---\ntype: project\n---\n# 果樹園の記録\n\nりんごの収穫。\n",
		"projects/thai.md":    "---\ntype: project\n---\n# บันทึกสวนผลไม้\n\nเก็บเกี่ยวแอปเปิ้ล\n",
		"projects/other.md":   "---\ntype: project\n---\n# 記録\n\nA note titled with the word alone.\n",
	})
	for _, tc := range []struct {
		query       string
		plain, fuse []string
		// terms are each fused item's explain.terms: a run held inside a longer one is named.
		terms [][]string
	}{
		{"記録", []string{"projects/other.md"}, []string{"projects/other.md", "projects/orchard.md"}, [][]string{{"記録"}, {"記録"}}},
		{"果樹園", []string{}, []string{"projects/orchard.md"}, [][]string{{"果樹園"}}},
		{"สวน", []string{}, []string{"projects/thai.md"}, [][]string{{"สวน"}}},
		{"harvest 果樹園", []string{}, []string{"projects/orchard.md"}, [][]string{{"果樹園"}}},
	} {
		plain, err := search.Run(context.Background(), search.Request{Query: tc.query, Brains: []*brain.Brain{b}, Now: now, Location: zone})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.plain, refs(plain.Items)); diff != "" {
			t.Errorf("word search %s (-want +got):\n%s", tc.query, diff)
		}
		out := fusedSearch(t, b, Request{Search: search.Request{Query: tc.query}})
		if diff := cmp.Diff(tc.fuse, refs(out.Items)); diff != "" {
			t.Errorf("fused search %s (-want +got):\n%s", tc.query, diff)
		}
		var terms [][]string
		for _, it := range out.Items {
			terms = append(terms, it.Explain.Terms)
		}
		if diff := cmp.Diff(tc.terms, terms); diff != "" {
			t.Errorf("fused search %s terms (-want +got):\n%s", tc.query, diff)
		}
	}
}
