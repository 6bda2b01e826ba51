package search

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/jsontext"
	"github.com/google/go-cmp/cmp"
)

// TestCountedScores scores random lists of passages of random brains, some of them
// heavy, in Go (counted.go) and by FTS5's bm25(): the same passages, scores bit for bit and
// title-or-text flags, for queries of one to four words and phrases, within a scope's
// range or not.
func TestCountedScores(t *testing.T) {
	ctx := context.Background()
	for _, seed := range []uint64{3, 4, 10} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 41))
			b, vocab := randomBrain(t, r)
			p := openParts(t, b)[0]
			var last int64
			if err := p.tx.QueryRow(`SELECT max(rowid) FROM search`).Scan(&last); err != nil {
				t.Fatal(err)
			}
			counted, phrases := 0, 0
			for q := range 90 {
				words := make([]string, 1+r.IntN(4))
				for i := range words {
					words[i] = vocab[int(float64(len(vocab))*r.Float64()*r.Float64())]
					if r.IntN(3) == 0 {
						// A phrase of two or three common words, a word repeated in some.
						ws := []string{words[i], vocab[r.IntN(3)], vocab[r.IntN(3)]}
						words[i] = `"` + strings.Join(ws[:2+r.IntN(2)], " ") + `"`
					}
				}
				scope := []string{"", "", "memories/mail", "projects"}[q%4]
				pq, err := parse(Request{Query: strings.Join(words, " "), Scope: scope, Now: now, Location: zone})
				if err != nil {
					t.Fatal(err)
				}
				w := &wordSearch{ctx: ctx, p: p, sc: pq.scope, args: scopeArgs(p, pq.scope, nil, noDays),
					scoped: scopeFilter(pq.scope) != "1", parts: map[partKey]*partition{}, weight: maxWeight}
				var indexed []string
				for _, term := range pq.query.Terms {
					w.terms = append(w.terms, term.Match())
					it, ok := indexedTerm(term)
					if !ok && !term.Phrase {
						t.Fatalf("%q: neither one indexed term nor a phrase", term.Text)
					}
					indexed = append(indexed, it)
					if term.Phrase {
						phrases++
					}
				}
				w.match = strings.Join(w.terms, " OR ")
				if w.scoped {
					if w.ranges, w.ranged, err = w.scopeRanges(); err != nil {
						t.Fatal(err)
					}
				}
				if w.heavy, err = newHeavy(ctx, p, pq.query.Terms); err != nil {
					t.Fatal(err)
				}
				w.indexedTerms = indexed
				w.counting = newCounting(pq.query.Terms, indexed)
				ids := make([]int64, 1+r.IntN(300))
				for i := range ids {
					ids[i] = 1 + r.Int64N(last)
				}
				want, err := w.scoreMatch(w.match, listedRows, sql.Named("ids", jsontext.Int64s(ids)))
				if err != nil {
					t.Fatal(err)
				}
				got, err := w.scoreListed(ids)
				if err != nil {
					t.Fatal(err)
				}
				counted += len(got)
				if diff := cmp.Diff(want, got, cmp.AllowUnexported(scoredRow{})); diff != "" {
					t.Fatalf("%q in %q (-FTS5 +counted):\n%s", words, scope, diff)
				}
			}
			if counted == 0 || phrases == 0 {
				t.Errorf("%d passages counted for %d phrases: both must happen", counted, phrases)
			}
		})
	}
}
