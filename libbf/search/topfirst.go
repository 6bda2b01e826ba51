package search

// The first attempt of an unscoped word ranking (words.go): FTS5 sorts the matches by
// BM25 and hands over only the best k, which are then ranked as usual.
//
// Every match outside those k has BM25 at most v, the k-th value, so its score is at most
// v × the largest item weight × bonus(all terms): the halving of low-priority sources only
// lowers it. When the page's last partition scores above that (θ, taken from the k as in
// words.go), no other passage can reach the page, nor be listed beside a URL's best
// record, and the page is the one scoring every match would give, scores included.
// Otherwise the ranking starts again the ordinary way. With fewer than k matches, the k
// are all of them.
//
// With the k come the other passages of their notes, so that a note's sections are
// complete; the heavy passages come first, their BM25 left to heavy.go (FTS5's bm25() is
// slow on them). Records sharing a URL that are not among them are checked against the
// query apart (also).
//
// This spares rows, not BM25: FTS5 still computes BM25 for every match inside SQLite, as
// the raw query does, but the matches are not listed term by term nor handed over one by
// one. Keeping per-term lists of the best passages in the cache would spare BM25 too, but
// building them costs a BM25 (or a count of every instance) for each posting of every
// common term: more than a full build of the bench brain (bench/README.md).
//
// One term gains too, though its ordinary ranking is one pass: that pass computes two
// BM25 per match (the second tells a section matching by its heading or text) and hands
// every match over, where this one computes one inside FTS5's sort and hands over k; on
// the large bench brain it halves the ranking of one word, common or not, of a phrase
// and of a prefix (bench/README.md). Ordering the k by BM25 × the item weight instead
// would make the bound tight, but reading every match's item inside the sort cost more
// than all it spared.

import (
	"cmp"
	"database/sql"
	"math"
	"slices"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/jsontext"
)

// k is topFirst plus topPerRow per row of the page; topFirst 0 turns the first attempt
// off. Tests shrink them.
var topFirst, topPerRow int64 = 200, 10

const (
	// topSQL lists the matches of the best BM25, at most :k, the heavy passages first (their
	// BM25 is left NULL: FTS5's bm25() is slow on them).
	topSQL = `SELECT rowid, CASE WHEN rowid IN (` + heavySQL + `) THEN NULL ELSE -` + cache.RankBM25 + ` END AS b
		FROM search WHERE search MATCH :match ORDER BY b DESC NULLS FIRST LIMIT :k`
	// topLightSQL is topSQL for a brain without heavy passages.
	topLightSQL = `SELECT rowid, -` + cache.RankBM25 + ` AS b FROM search WHERE search MATCH :match ORDER BY b DESC LIMIT :k`
	// notePassagesSQL lists the passages of the items of some passages, themselves included,
	// with their fragments.
	notePassagesSQL = `SELECT s.id, s.fragment FROM json_each(:ids) j CROSS JOIN passages p ON p.id = j.value
		CROSS JOIN passages s ON s.item = p.item`
	// matchingSQL lists which of some passages match the query.
	matchingSQL = `SELECT rowid FROM search WHERE search MATCH :match AND +rowid IN (SELECT value FROM json_each(:ids))`
)

// rankTopFirst ranks the best few matches and reports whether the page is settled; when
// it is not, the search is as new.
//
// The BM25 FTS5 sorted them by is kept: only the passages it does not settle are scored
// again, the other passages of their notes (which may not match) and those with a
// fragment (a section counts only when it matches through its heading or text, which a
// second BM25 tells) or left to heavy.go. When the best few are records, no second pass
// over the matches is needed.
func (w *wordSearch) rankTopFirst() (bool, error) {
	k := topFirst + topPerRow*min(w.limit, 1<<20)
	if topFirst <= 0 {
		return false, nil
	}
	top, last, err := w.topIDs(k)
	if err != nil {
		return false, err
	}
	complete := int64(len(top)) < k
	ids := make([]int64, len(top))
	for i, r := range top {
		ids[i] = r.id
	}
	slices.SortFunc(top, func(a, b scoredRow) int { return cmp.Compare(a.id, b.id) })
	all, err := cache.Collect(w.ctx, w.p.tx, notePassagesSQL, []any{sql.Named("ids", jsontext.Int64s(ids))},
		func(rows *sql.Rows) (p notePassage, err error) { return p, rows.Scan(&p.id, &p.fragment) })
	if err != nil {
		return false, err
	}
	slices.SortFunc(all, func(a, b notePassage) int { return cmp.Compare(a.id, b.id) })
	all = slices.CompactFunc(all, func(a, b notePassage) bool { return a.id == b.id })
	var results []scoredRow
	var again []int64
	for _, p := range all {
		i, found := slices.BinarySearchFunc(top, p.id, func(r scoredRow, id int64) int { return cmp.Compare(r.id, id) })
		if found && p.fragment == "" && !math.IsNaN(top[i].b) {
			results = append(results, top[i])
		} else {
			again = append(again, p.id)
		}
	}
	if len(again) > 0 {
		// Scoring them keeps the matching ones.
		scored, err := w.scoreRows(` AND +search.rowid IN (SELECT value FROM json_each(:ids))`, sql.Named("ids", jsontext.Int64s(again)))
		if err != nil {
			return false, err
		}
		results = append(results, scored...)
	}
	w.partial = !complete
	if err := w.pend(results); err != nil {
		return false, err
	}
	if err := w.read(); err != nil {
		return false, err
	}
	w.stats.top++
	if complete {
		return true, nil
	}
	theta := w.theta()
	if theta > last*w.weight*w.bonus(len(w.terms))*boundMargin {
		w.stats.topBound++
		return true, nil
	}
	w.stats.topMissed++
	w.entries, w.pending, w.tiers, w.next, w.unbounded, w.partial = nil, nil, nil, 0, false, false
	w.parts = map[partKey]*partition{}
	return false, nil
}

// notePassage is a passage of a note (or record) among the best few matches.
type notePassage struct {
	id       int64
	fragment string
}

// topIDs returns the at most k matches of the best BM25, best first, with their BM25
// (NaN for a heavy passage, left to heavy.go), and the last BM25 (+Inf when none is
// known).
func (w *wordSearch) topIDs(k int64) ([]scoredRow, float64, error) {
	defer w.timed(1)()
	var some bool
	if err := w.p.tx.QueryRowContext(w.ctx, `SELECT EXISTS(`+heavySQL+`)`).Scan(&some); err != nil {
		return nil, 0, err
	}
	query := topLightSQL
	if some {
		query = topSQL
	}
	rows, err := w.p.tx.QueryContext(w.ctx, query, sql.Named("match", w.match), sql.Named("k", k))
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var top []scoredRow
	last := math.Inf(1)
	for rows.Next() {
		r := scoredRow{b: math.NaN()}
		var b sql.NullFloat64
		if err := rows.Scan(&r.id, &b); err != nil {
			return nil, 0, err
		}
		if b.Valid {
			r.b, last = b.Float64, b.Float64
		}
		top = append(top, r)
	}
	return top, last, rows.Err()
}

// ids runs a query of passage ids.
func (w *wordSearch) ids(query string, args ...any) ([]int64, error) {
	return cache.Collect(w.ctx, w.p.tx, query, args, cache.ScanInt64)
}

// matching returns which of some passages, none of them an entry, match the query: none
// when the entries are all the matches.
func (w *wordSearch) matching(ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if !w.partial || len(ids) == 0 {
		return out, nil
	}
	found, err := w.ids(matchingSQL, sql.Named("match", w.match), sql.Named("ids", jsontext.Int64s(ids)))
	for _, id := range found {
		out[id] = true
	}
	return out, err
}
