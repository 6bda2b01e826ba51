package search

// The best few matches of one frequent word from its head (libbf/cache, heads.go), for the
// first attempt over the best few matches (topfirst.go), without FTS5 computing BM25 for
// every match. The head's passages are scored here from their counts with today's
// statistics, as heavy.go scores a heavy passage (the score FTS5 returns, bit for bit);
// the passages refreshes touched since the build are scored by FTS5 beside them. Every
// other match holds the term outside the head, untouched: its BM25 is at most that of the
// best rest pair under today's statistics (BM25 of one term grows with its count and falls
// with the size), the bound attempt then proves the page against. The head is read only
// for the query's own expression, one indexed term, without a scope: any other restriction
// would need the head's passages to be the scope's.

import (
	"cmp"
	"slices"

	"github.com/bfgo/bf/libbf/cache"
)

// touchedMost is the most touched passages scored beside a head: beyond, FTS5 sorting
// every match costs less.
const touchedMost = 4096

// headTop returns what topIDs returns, from the head of the query's one term; false when
// the term has no head (or too many passages were touched since the build).
func (w *wordSearch) headTop(k int64) (top []scoredRow, last float64, ok bool, err error) {
	if w.indexed == "" || w.scoped {
		return nil, 0, false, nil
	}
	entries, rest, found, err := cache.Head(w.ctx, w.p.tx, w.indexed)
	if err != nil || !found {
		return nil, 0, false, err
	}
	touched, err := cache.Touched(w.ctx, w.p.tx)
	if err != nil || len(touched) > touchedMost {
		return nil, 0, false, err
	}
	hits, err := w.termCounts()
	if err != nil {
		return nil, 0, false, err
	}
	var block []byte
	if err := w.p.tx.QueryRowContext(w.ctx, averagesSQL).Scan(&block); err != nil {
		return nil, 0, false, err
	}
	rows, avgdl, err := cache.AverageSize(block)
	if err != nil {
		return nil, 0, false, err
	}
	idf, err := exactIDF(w.ctx, w.p, rows, hits)
	if err != nil {
		return nil, 0, false, err
	}
	slices.Sort(touched)
	var all []scoredRow
	for _, e := range entries {
		if _, gone := slices.BinarySearch(touched, e.Passage); !gone {
			all = append(all, scoredRow{id: e.Passage, b: cache.BM25(idf, []float64{e.Freq}, float64(e.Size), avgdl)})
		}
	}
	if len(touched) > 0 {
		scored, err := w.scoreListed(touched)
		if err != nil {
			return nil, 0, false, err
		}
		all = append(all, scored...)
	}
	for _, r := range rest {
		last = max(last, cache.BM25(idf, []float64{r.Freq}, float64(r.Size), avgdl))
	}
	slices.SortFunc(all, func(a, b scoredRow) int { return cmp.Or(cmp.Compare(b.b, a.b), cmp.Compare(a.id, b.id)) })
	if int64(len(all)) > k {
		last = max(last, all[k].b)
		all = all[:k]
	}
	w.stats.heads++
	return all, last, true, nil
}
