package fuse

import (
	"context"
	"database/sql"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/search"
)

// denseOf is a dense strategy ranking the given refs, best first, whatever the query.
func denseOf(refs ...string) DenseFunc {
	return func(ctx context.Context, db *sql.Tx, _ *brain.Brain, _ string, depth int) ([]Scored, string, error) {
		var out []Scored
		for i, r := range refs[:min(depth, len(refs))] {
			var id int64
			if err := db.QueryRowContext(ctx, `SELECT id FROM items WHERE ref = ?`, r).Scan(&id); err != nil {
				return nil, "", err
			}
			out = append(out, Scored{ID: id, Score: 1 - float64(i)/10})
		}
		return out, "", nil
	}
}

// A note holding every word of the query is not buried by notes holding one word whose
// only lead is the graph: links between them once lifted four refund notes above the only
// memory naming the cormorant account.
func TestFullMatchNotBuriedByGraph(t *testing.T) {
	refund := func(n, other string) string {
		return "---\ntype: concept\nupdated: 2026-10-01\n---\n# Refund rule " + n + "\n\nRefunds wait for the ledger; see [" + other + "](" + other + ".md) and [the others](hub.md).\n"
	}
	b := newBrain(t, map[string]string{
		"bf.yaml":                      "version: 8\nname: acme\n",
		"concepts/memory/cormorant.md": "---\ntype: fact\ntitle: Cormorant account\nupdated: 2026-09-01\n---\nThe cormorant account takes refunds by hand.\n",
		"concepts/r1.md":               refund("one", "r2"),
		"concepts/r2.md":               refund("two", "r3"),
		"concepts/r3.md":               refund("three", "r4"),
		"concepts/r4.md":               refund("four", "r1"),
		"concepts/hub.md":              "---\ntype: concept\n---\n# Rules\n\n[one](r1.md) [two](r2.md) [three](r3.md) [four](r4.md)\n",
	})
	words, err := search.Run(context.Background(), search.Request{Query: "cormorant refunds", Brains: []*brain.Brain{b}, Now: now, Location: zone})
	if err != nil {
		t.Fatal(err)
	}
	if got := refs(words.Items); len(got) == 0 || got[0] != "concepts/memory/cormorant.md" {
		t.Fatalf("word search: %v, want the cormorant memory first", got)
	}
	got := fusedSearch(t, b, Request{Search: search.Request{Query: "cormorant refunds"}})
	want := []string{"concepts/memory/cormorant.md", "concepts/r1.md", "concepts/r2.md", "concepts/r3.md", "concepts/r4.md", "concepts/hub.md"}
	if diff := cmp.Diff(want, refs(got.Items)); diff != "" {
		t.Errorf("fused order (-want +got):\n%s", diff)
	}
	for _, it := range got.Items {
		checkSum(t, it)
	}
}

// The note first in lexical, dense and recency stays first though others gain more graph
// evidence: it once came third behind two notes the graph reached from several hits.
func TestFirstEverywhereStaysFirst(t *testing.T) {
	b := newBrain(t, map[string]string{
		"bf.yaml":              "version: 8\nname: acme\n",
		"concepts/bigtable.md": "---\ntype: concept\nupdated: 2026-10-19\n---\n# Bigtable\n\nOne okapi row holds one fact.\n",
		"concepts/rows.md":     "---\ntype: concept\nupdated: 2026-08-01\n---\n# Rows\n\nA row per fact; see [columns](columns.md) and [cells](cells.md).\n",
		"concepts/columns.md":  "---\ntype: concept\nupdated: 2026-07-01\n---\n# Columns\n\nA fact per column; see [rows](rows.md) and [cells](cells.md).\n",
		"concepts/cells.md":    "---\ntype: concept\nupdated: 2026-06-01\n---\n# Cells\n\nA row of cells; see [rows](rows.md) and [columns](columns.md).\n",
	})
	dense := denseOf("concepts/bigtable.md", "concepts/rows.md", "concepts/columns.md", "concepts/cells.md")
	got := fusedSearch(t, b, Request{Search: search.Request{Query: "okapi row fact"}, Dense: dense})
	if r := refs(got.Items); len(r) == 0 || r[0] != "concepts/bigtable.md" {
		t.Fatalf("fused order %v, want concepts/bigtable.md first", r)
	}
	first := got.Items[0].Explain.Strategies
	for _, name := range []string{Lexical, Dense, Recency} {
		if i := slicesIndex(first, name); i < 0 || first[i].Rank != 1 {
			t.Errorf("bigtable.md: %s rank %v, want 1 (the test's premise)", name, first)
		}
	}
	for _, it := range got.Items {
		checkSum(t, it)
	}
}

func slicesIndex(cs []reply.Contribution, name string) int {
	for i, c := range cs {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// checkSum fails unless an item's contributions add up to its score (each is rounded to
// six places). A successor standing at a superseded note's rank (replaces) carries that
// rank's score, not its own contributions.
func checkSum(t *testing.T, it reply.Item) {
	t.Helper()
	if len(it.Explain.Replaces) > 0 {
		return
	}
	var sum float64
	for _, c := range it.Explain.Strategies {
		sum += c.Contribution
	}
	if math.Abs(sum-it.Explain.Score) > 1e-6*float64(len(it.Explain.Strategies)) {
		t.Errorf("%s: contributions %v sum to %v, score %v", it.Ref, it.Explain.Strategies, sum, it.Explain.Score)
	}
}

// A sentence leans dense, and what the words found keeps its lead through its strength:
// the word ranking's items gain weight × (score ÷ best score) / 61, listed as the
// strategy "strength", and every item's contributions still sum to its score.
func TestSentenceLeansDenseWithStrength(t *testing.T) {
	w := WeightsOf(classSentence)
	if w[Dense] <= w[Lexical] {
		t.Fatalf("sentence weights %v: dense must lean above lexical", w)
	}
	b := newBrain(t, fixture)
	dense := denseOf("concepts/cutover.md", "projects/ledger.md")
	got := fusedSearch(t, b, Request{Search: search.Request{Query: "how do we move the invoices to the ledger"}, Dense: dense})
	if got.Fused.Class != classSentence {
		t.Fatalf("class %s, want sentence", got.Fused.Class)
	}
	var ledger *reply.Item
	for i, it := range got.Items {
		checkSum(t, it)
		if it.Ref == "projects/ledger.md" {
			ledger = &got.Items[i]
		}
	}
	if ledger == nil {
		t.Fatalf("projects/ledger.md missing from %v", refs(got.Items))
	}
	want := []reply.Contribution{
		{Name: Lexical, Rank: 1, Score: ledger.Explain.Strategies[0].Score, Weight: 0.6, Contribution: reply.Round6(0.6 / 61)},
		{Name: Strength, Rank: 1, Score: 1, Weight: 0.5, Contribution: reply.Round6(0.5 / 61)},
		{Name: Dense, Rank: 2, Score: 0.9, Weight: 1, Contribution: reply.Round6(1.0 / 62)},
	}
	if diff := cmp.Diff(want, ledger.Explain.Strategies[:3]); diff != "" {
		t.Errorf("ledger.md strategies (-want +got):\n%s", diff)
	}
	// The note the words rank first stays first though the dense list puts cutover.md
	// above it: 0.6/61 + 0.5/61 + 1/62 against cutover.md's 1/61 and its lesser words.
	if got.Items[0].Ref != "projects/ledger.md" {
		t.Errorf("first %s, want projects/ledger.md", got.Items[0].Ref)
	}
}
