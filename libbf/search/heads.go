package search

// The best few matches of one frequent word from its head (libbf/cache, heads.go), for the
// first attempt over the best few matches (topfirst.go), without FTS5 computing BM25 for
// every match. The head's passages are scored here from their counts with today's
// statistics, as heavy.go scores a heavy passage (the score FTS5 returns, bit for bit);
// the passages refreshes touched since the build are scored apart beside them (counted.go).
// Every other match holds the term outside the head, untouched: its BM25 is at most that
// of the best rest pair under today's statistics (BM25 of one term grows with its count
// and falls with the size), the bound attempt then proves the page against. The head is
// read only for the query's own expression, one indexed term, without a scope or within
// a scope read as passage ranges (ranges.go): any other restriction would need the head's
// passages to be the scope's.

import (
	"cmp"
	"database/sql"
	"slices"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/jsontext"
)

// touchedMost is the most touched passages scored beside a head: beyond, FTS5 sorting
// every match costs less.
const touchedMost = 4096

// headRead is the head of the query's one term and the passages touched since the build,
// read once.
type headRead struct {
	entries []cache.HeadEntry
	rest    []cache.RestPair
	touched []int64 // in order
	// usable: the term has a head, and not too many passages were touched.
	usable bool
}

// head returns the head of the query's one term.
func (w *wordSearch) head() (*headRead, error) {
	if w.heads != nil {
		return w.heads, nil
	}
	h := &headRead{}
	if w.indexed == "" {
		w.heads = h
		return h, nil
	}
	entries, rest, found, err := cache.Head(w.ctx, w.p.tx, w.indexed)
	if err != nil {
		return nil, err
	}
	if found {
		if h.touched, err = cache.Touched(w.ctx, w.p.tx); err != nil {
			return nil, err
		}
		slices.Sort(h.touched)
		h.entries, h.rest, h.usable = entries, rest, len(h.touched) <= touchedMost
	}
	w.heads = h
	return h, nil
}

// headScopeSQL lists which of some passages (:ids) are within a scope.
func headScopeSQL(sc scope) string {
	q := `SELECT p.id FROM json_each(:ids) j CROSS JOIN passages p ON p.id = j.value CROSS JOIN items i ON i.id = p.item`
	if sc.period {
		return `WITH ` + cache.DaysCTE + ` ` + q + ` ` + cache.DaysJoin + ` WHERE ` + scopeCondition(sc)
	}
	return q + ` WHERE ` + scopeCondition(sc)
}

// rankHeadFirst is the first attempt of a scoped query of one term with a usable head,
// before the scope's passages are found at all: which of the head's passages and of the
// touched ones are within the scope is asked of them alone, a few hundred lookups, where
// finding a large scope's ranges reads every item of it (29 ms for a source of 30,000
// records on the large bench brain). It reports whether the page is settled; when it is
// not, the search is as new.
func (w *wordSearch) rankHeadFirst() (bool, error) {
	if topFirst <= 0 || len(w.terms) != 1 || w.indexed == "" {
		return false, nil
	}
	h, err := w.head()
	if err != nil || !h.usable {
		return false, err
	}
	ids := make([]int64, 0, len(h.entries)+len(h.touched))
	for _, e := range h.entries {
		ids = append(ids, e.Passage)
	}
	ids = append(ids, h.touched...)
	in, err := w.ids(headScopeSQL(w.sc), append(slices.Clone(w.args), sql.Named("ids", jsontext.Int64s(ids)))...)
	if err != nil {
		return false, err
	}
	w.headScope = make(map[int64]bool, len(in))
	for _, id := range in {
		w.headScope[id] = true
	}
	defer func() { w.headScope = nil }()
	held := int64(0)
	for _, e := range h.entries {
		if w.headScope[e.Passage] {
			held++
		}
	}
	if held < w.limit {
		return false, nil
	}
	return w.rankTopFirst()
}

// inScope reports whether a passage is within the scope: among the head's passages found
// within it (rankHeadFirst), or within the scope's ranges, whose passages are exactly the
// scope's (ranges.go); every passage is, without a scope.
func (w *wordSearch) inScope(id int64) bool {
	if !w.scoped {
		return true
	}
	if w.headScope != nil {
		return w.headScope[id]
	}
	for _, r := range w.ranges {
		if id >= r.lo && id <= r.hi {
			return true
		}
	}
	return false
}

// headWithin reports whether the query's one term has a usable head holding a page of
// passages within the scope's ranges: then the first attempt runs from the head whatever
// the scope's size, since it reads no list.
func (w *wordSearch) headWithin() (bool, error) {
	if !w.ranged || w.indexed == "" {
		return false, nil
	}
	h, err := w.head()
	if err != nil || !h.usable {
		return false, err
	}
	n := int64(0)
	for _, e := range h.entries {
		if w.inScope(e.Passage) {
			n++
		}
	}
	return n >= w.limit, nil
}

// headTop returns what topIDs returns, from the head of the query's one term; false when
// the term has no usable head. Within a scope read as passage ranges (ranges.go), the
// head's passages in the ranges are those of the scope, and the bound of the rest holds
// for any subset of the passages.
func (w *wordSearch) headTop(k int64) (top []scoredRow, last float64, ok bool, err error) {
	if w.indexed == "" || w.scoped && !w.ranged && w.headScope == nil {
		return nil, 0, false, nil
	}
	h, err := w.head()
	if err != nil || !h.usable {
		return nil, 0, false, err
	}
	entries, rest, touched := h.entries, h.rest, h.touched
	st, err := w.statistics()
	if err != nil {
		return nil, 0, false, err
	}
	idf, avgdl := st.idf, st.avgdl
	var all []scoredRow
	for _, e := range entries {
		if !w.inScope(e.Passage) {
			continue
		}
		if _, gone := slices.BinarySearch(touched, e.Passage); !gone {
			all = append(all, scoredRow{id: e.Passage, b: cache.BM25(idf, []float64{e.Freq}, float64(e.Size), avgdl)})
		}
	}
	if in := slices.DeleteFunc(slices.Clone(touched), func(id int64) bool { return !w.inScope(id) }); len(in) > 0 {
		scored, err := w.scoreListed(in)
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
	if w.scoped {
		w.stats.headsWithin++
		if len(w.ranges) > 1 {
			w.stats.headsSplit++
		}
	}
	return all, last, true, nil
}
