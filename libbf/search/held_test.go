package search

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A word no passage holds is left out of the ranking: every score stays the one of the
// whole query, and the passages holding every other word can settle the page.
func TestUnheldWordLeftOut(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("projects/p%02d.md", i)] = fmt.Sprintf("# Plan %d\n\nThe ledger migration %d, %s.\n",
			i, i, []string{"ledger migration", "billing", "ledger ledger review migration"}[i%3])
	}
	b := newBrain(t, "work", files)
	parts := openParts(t, b)
	defer func() { traceRank = nil }()
	var st rankStats
	traceRank = func(s rankStats) { st = s }
	ctx := context.Background()
	for _, query := range []string{"ledger zzqx migration", "zzqx ledger", "zzqx"} {
		pq, err := parse(Request{Query: query, Now: now, Location: zone})
		if err != nil {
			t.Fatal(err)
		}
		want, err := plainRankWords(ctx, parts[0], pq.query.Terms, pq.scope, nil, 5)
		if err != nil {
			t.Fatal(err)
		}
		st = rankStats{}
		got, err := rankWords(ctx, parts[0], pq.query.Terms, pq.scope, nil, 5)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(comparable(want), comparable(got)); diff != "" {
			t.Errorf("%q (-plain +got):\n%s", query, diff)
		}
		if query == "ledger zzqx migration" && st.everyBound != 1 {
			t.Errorf("%q: the passages holding ledger and migration did not settle the page: %+v", query, st)
		}
	}
}
