package fuse

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/search"
)

// TestGraphEdges: the graph strategy reaches a note declaring a relation to a hit and a
// note sharing an identity with it, and each path names its edge.
func TestGraphEdges(t *testing.T) {
	b := newBrain(t, map[string]string{
		"bf.yaml":              "version: 8\nname: acme\nfields:\n  depends-on:\n    description: What the subject needs.\n    type: identity\n    cardinality: many\n    relation: true\n",
		"projects/bus.md":      "---\ntype: project\naliases: [\"repo:github.com/acme/bus\"]\n---\n# Event bus\n\nThe dead-letter topic holds failed events.\n",
		"projects/ledger.md":   "---\ntype: project\nfields:\n  depends-on: [\"bf://acme/projects/bus.md\"]\n---\n# Ledger\n\nPostings that sum to zero.\n",
		"concepts/bus-repo.md": "---\ntype: concept\naliases: [\"repo:github.com/acme/bus\"]\n---\n# Bus repository\n\nWhere the code lives.\n",
		"concepts/other.md":    "---\ntype: concept\n---\n# Other\n\nUnrelated.\n",
	})
	out := fusedSearch(t, b, Request{Search: search.Request{Query: "dead-letter"}})
	got := map[string][]reply.Step{}
	for _, it := range out.Items {
		got[it.Ref] = it.Explain.Path
	}
	want := map[string][]reply.Step{
		"projects/bus.md":      nil,
		"concepts/bus-repo.md": {{From: "projects/bus.md", Relation: "same-identity", To: "concepts/bus-repo.md"}},
		"projects/ledger.md":   {{From: "projects/ledger.md", Relation: "depends-on", To: "projects/bus.md"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"projects/bus.md", "concepts/bus-repo.md", "projects/ledger.md"}, refs(out.Items)); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}
