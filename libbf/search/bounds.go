package search

// The bounds of the word ranking (words.go): what a passage can score at most before
// BM25, from the terms it holds, and the score the page's last partition reaches.

import (
	"cmp"
	"database/sql"
	"errors"
	"math"
	"math/bits"
	"slices"

	"github.com/bfgo/bf/libbf/cache"
)

// boundMargin covers rounding in the bounds taken before BM25, including the logarithm.
const boundMargin = 1 + 1e-6

// holdings lists the passages holding each term, bounds each term's idf and groups the
// passages by the terms they hold.
func (w *wordSearch) holdings() error {
	defer w.timed(0)()
	// One single-column statement per term: rows cost far less than those of a join.
	st, err := w.p.tx.PrepareContext(w.ctx, termSQL)
	if err != nil {
		return err
	}
	defer st.Close()
	lists := make([][]int64, len(w.terms))
	for k, term := range w.terms {
		rows, err := st.QueryContext(w.ctx, term)
		if lists[k], err = cache.ReadRows(rows, err, cache.ScanInt64); err != nil {
			return err
		}
		w.stats.lists += len(lists[k])
	}
	w.entries = mergeLists(lists)

	total, err := w.rowCount()
	if err != nil {
		return err
	}
	w.idf = make([]float64, len(lists))
	for k, l := range lists {
		var ok bool
		if w.idf[k], ok = idf(total, uint64(len(l))); !ok {
			// A count FTS5 cannot have leaves no bound: everything is scored.
			w.unbounded = true
		}
	}
	byMask := map[uint64]*tier{}
	for i := range w.entries {
		e := &w.entries[i]
		t := byMask[e.mask]
		if t == nil {
			t = &tier{bound: w.termBound(e.mask)}
			if w.unbounded {
				t.bound = math.Inf(1)
			}
			byMask[e.mask] = t
			w.tiers = append(w.tiers, t)
		}
		e.bound = t.bound
		t.entries = append(t.entries, e)
	}
	slices.SortStableFunc(w.tiers, func(a, b *tier) int { return cmp.Compare(b.bound, a.bound) })
	return nil
}

// rowCount returns the number of rows FTS5 keeps for BM25, 0 when it keeps none.
func (w *wordSearch) rowCount() (uint64, error) {
	var block []byte
	err := w.p.tx.QueryRowContext(w.ctx, averagesSQL).Scan(&block)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	total, n := cache.SQLiteVarint(block)
	if n == 0 {
		return 0, nil
	}
	return total, nil
}

// idf is FTS5's idf of a term n of total rows hold, ln((N − n + 0.5)/(n + 0.5)) and at
// least 1e-6; false when FTS5 cannot have those counts, which leaves no bound.
func idf(total, n uint64) (float64, bool) {
	if total == 0 || n > total {
		return 0, false
	}
	hits := float64(n)
	return max(math.Log((float64(total)-hits+0.5)/(hits+0.5)), 1e-6), true
}

// mergeLists merges passage lists in ascending order into entries with the terms they hold.
func mergeLists(lists [][]int64) []entry {
	total := 0
	for _, l := range lists {
		total += len(l)
	}
	out := make([]entry, 0, total)
	pos := make([]int, len(lists))
	for {
		lowest, found := int64(0), false
		for k, l := range lists {
			if pos[k] < len(l) && (!found || l[pos[k]] < lowest) {
				lowest, found = l[pos[k]], true
			}
		}
		if !found {
			return out
		}
		var mask uint64
		for k, l := range lists {
			// FTS5 lists each passage once per term, in order.
			for pos[k] < len(l) && l[pos[k]] == lowest {
				mask |= 1 << k
				pos[k]++
			}
		}
		out = append(out, entry{id: lowest, mask: mask})
	}
}

// termBound bounds the score of a passage holding the terms of mask, before BM25.
func (w *wordSearch) termBound(mask uint64) float64 {
	return w.setBound(w.idf, mask) * boundMargin
}

// setBound bounds the score of a passage holding the terms of mask, given each term's idf,
// before BM25 and without the margin.
func (w *wordSearch) setBound(idfs []float64, mask uint64) float64 {
	sum := 0.0
	for m := mask; m != 0; m &= m - 1 {
		sum += idfs[bits.TrailingZeros64(m)]
	}
	return sum * cache.BM25Cap * w.weight * w.bonus(bits.OnesCount64(mask))
}

// bonus is the coverage factor of a passage holding n of the query's terms, computed as
// SQLite would: 1 + 0.2 × (n − 1) / max(terms − 1, 1), where terms counts the words asked,
// held by the brain or not. The conversions keep each step rounded on its own, as SQLite
// rounds it. With one held term every match holds just it.
func (w *wordSearch) bonus(n int) float64 {
	if len(w.terms) < 2 {
		n = 1
	}
	share := float64(0.2 * float64(n-1))
	share = float64(share / float64(max(w.asked-1, 1)))
	return float64(1 + share)
}

// theta is the score the page's last partition reaches at least: the limit-th best of the
// open partitions read so far, or -Inf while there are fewer (or pruning is off). A
// passage scoring below it reaches the page neither as a best passage nor as another
// record of a URL listed in the page.
func (w *wordSearch) theta() float64 {
	if w.unbounded || int64(len(w.parts)) < w.limit {
		return math.Inf(-1)
	}
	var bests []float64
	for _, pt := range w.parts {
		if pt.best.closed == 0 {
			bests = append(bests, pt.best.score)
		}
	}
	if int64(len(bests)) < w.limit {
		return math.Inf(-1)
	}
	slices.SortFunc(bests, func(a, b float64) int { return cmp.Compare(b, a) })
	return bests[w.limit-1]
}
