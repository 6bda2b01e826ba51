package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bfgo/bf/libbf/fold"
)

// TestExcerptMatchesIndexSnippet checks that the excerpt computed over a one-row copy of a
// passage is the snippet the cache's own index gives for it (every passage short enough to
// be excerpted whole), over random brains and
// queries (words, phrases, prefixes, OR and NOT, column filters), with the same original
// text and lead. The index's snippets of the second brain take most of a minute, so
// go test -short compares over the first alone (make test runs both).
func TestExcerptMatchesIndexSnippet(t *testing.T) {
	ctx := context.Background()
	compared := 0
	brains := uint64(2)
	if testing.Short() {
		brains = 1
	}
	for seed := range brains {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 31))
			b, vocab := randomBrain(t, r)
			p := openParts(t, b)[0]
			index, err := p.tx.PrepareContext(ctx, `SELECT search.rowid, search.text, snippet(search, 1, '', '', ?, 48), p.original,
				CASE WHEN p.fragment = '' THEN i.lead ELSE '' END
			FROM search JOIN passages p ON p.id = search.rowid JOIN items i ON i.id = p.item
			WHERE search MATCH ? ORDER BY search.rowid LIMIT 40`)
			if err != nil {
				t.Fatal(err)
			}
			defer index.Close()
			queries := []string{"title: ledger", "{names context}: plan", "ledger NOT plan", "plan OR zebra"}
			for range 30 {
				queries = append(queries, randomQuery(r, vocab))
			}
			for _, q := range queries {
				match := q
				if fq, err := fold.Parse(q); err == nil && fq.Match() != "" && r.IntN(4) > 0 {
					match = fq.Match()
				}
				rows, err := index.QueryContext(ctx, ellipsis, match)
				if err != nil {
					continue // not valid FTS5 syntax as written
				}
				type want struct {
					passage int64
					text    string
				}
				var wants []want
				for rows.Next() {
					var w want
					var text, snip, original, lead string
					if err := rows.Scan(&w.passage, &text, &snip, &original, &lead); err != nil {
						t.Fatal(err)
					}
					if !cheap(shape(text)) {
						continue // read in chunks instead (TestHostileNotes)
					}
					w.text = present(snip, original, lead)
					wants = append(wants, w)
				}
				if err := rows.Close(); err != nil {
					t.Fatal(err)
				}
				for _, w := range wants {
					got, err := excerpt(ctx, p, match, w.passage)
					if err != nil {
						t.Fatal(err)
					}
					if got != w.text {
						t.Errorf("query %q, passage %d: excerpt %q, the index's snippet %q", match, w.passage, got, w.text)
					}
					compared++
				}
			}
		})
	}
	if compared < 100 {
		t.Errorf("only %d excerpts compared", compared)
	}
}
