package search

import (
	"database/sql"
	"encoding/json"
)

// A folder or a source is a stretch of the cache: a build writes items in path order, and
// passage ids rise with item ids (cache/write.go, writer.add). When the
// items of a scope are runs of consecutive items, their passages are ranges of passage
// ids, and FTS5 reads only those parts of each term's list (a rowid range is a constraint
// it seeks to), where a filter by passage would read the whole list and list every passage
// of the scope first.

// maxRanges bounds the ranges of a scope: past it, the scope is spread over the cache and
// the filter by passage reads less.
const maxRanges = 16

// passageRange is the passages with lo <= id <= hi.
type passageRange struct{ lo, hi int64 }

// Statements of the ranges of a scope.
const (
	// itemBetweenSQL tells whether an item lies strictly between two ids.
	itemBetweenSQL = `SELECT EXISTS (SELECT 1 FROM items WHERE id > ? AND id < ?)`
	// rangeRows restricts scoreSQL to one range (:lo, :hi).
	rangeRows = ` AND search.rowid >= :lo AND search.rowid <= :hi`
	// passageSpanSQL is the first and last passage of the items from ?1 to ?2.
	passageSpanSQL = `SELECT
		(SELECT id FROM passages WHERE item BETWEEN ?1 AND ?2 ORDER BY item, id LIMIT 1),
		(SELECT id FROM passages WHERE item BETWEEN ?1 AND ?2 ORDER BY item DESC, id DESC LIMIT 1)`
)

// spanSQL counts the items meeting cond and bounds their ids.
func spanSQL(cond string) string {
	return `SELECT count(*), coalesce(min(i.id), 0), coalesce(max(i.id), 0) FROM items i WHERE ` + cond
}

// itemIDsSQL lists the items meeting cond in id order, as one JSON array: one row rather
// than one per item.
func itemIDsSQL(cond string) string {
	return `SELECT json_group_array(id) FROM (SELECT i.id AS id FROM items i WHERE ` + cond + ` ORDER BY i.id)`
}

// rangeable reports whether a scope can be read as ranges: a folder, a note or a source,
// with no condition on time or links.
func rangeable(sc scope) bool {
	return sc.prefix != "" && !sc.period && !sc.undated && sc.target == ""
}

// scopeRanges returns the passage ranges that hold exactly the scope's passages, in
// order, or ok false when the scope is not ranged or is spread over more than maxRanges
// runs of items.
func (w *wordSearch) scopeRanges() (ranges []passageRange, ok bool, err error) {
	if !rangeable(w.sc) {
		return nil, false, nil
	}
	cond := scopeCondition(w.sc)
	var n, first, last int64
	if err := w.p.tx.QueryRowContext(w.ctx, spanSQL(cond), w.args...).Scan(&n, &first, &last); err != nil {
		return nil, false, err
	}
	if n == 0 {
		return nil, true, nil
	}
	// n items with ids from first to last fill that span when there are as many ids in it.
	runs := [][2]int64{{first, last}}
	if last-first+1 != n {
		if runs, err = w.itemRuns(cond); err != nil || runs == nil {
			return nil, false, err
		}
	}
	for _, r := range runs {
		var lo, hi sql.NullInt64
		if err := w.p.tx.QueryRowContext(w.ctx, passageSpanSQL, r[0], r[1]).Scan(&lo, &hi); err != nil {
			return nil, false, err
		}
		if lo.Valid && hi.Valid {
			ranges = append(ranges, passageRange{lo.Int64, hi.Int64})
		}
	}
	return ranges, true, nil
}

// itemRuns returns the scope's items as runs of ids with no other item inside, or nil
// when they make more than maxRanges runs. Ids of removed items between two of the scope's
// do not break a run.
func (w *wordSearch) itemRuns(cond string) ([][2]int64, error) {
	var list string
	if err := w.p.tx.QueryRowContext(w.ctx, itemIDsSQL(cond), w.args...).Scan(&list); err != nil {
		return nil, err
	}
	var ids []int64
	if err := json.Unmarshal([]byte(list), &ids); err != nil {
		return nil, err
	}
	// Runs of consecutive ids first; each gap between two runs then costs one probe, so
	// only a few are probed.
	var runs [][2]int64
	for _, id := range ids {
		if k := len(runs) - 1; k >= 0 && runs[k][1]+1 == id {
			runs[k][1] = id
			continue
		}
		if len(runs) == 4*maxRanges {
			return nil, nil
		}
		runs = append(runs, [2]int64{id, id})
	}
	if len(runs) == 0 {
		return nil, nil
	}
	merged := [][2]int64{runs[0]}
	for _, r := range runs[1:] {
		k := len(merged) - 1
		var between bool
		if err := w.p.tx.QueryRowContext(w.ctx, itemBetweenSQL, merged[k][1], r[0]).Scan(&between); err != nil {
			return nil, err
		}
		if !between {
			merged[k][1] = r[1]
			continue
		}
		if len(merged) == maxRanges {
			return nil, nil
		}
		merged = append(merged, r)
	}
	return merged, nil
}

// span is the one range of a scope read as ranges, or nil: without a scope, or for one of
// several ranges, or filtered by passage.
func (w *wordSearch) span() *passageRange {
	if !w.ranged || len(w.ranges) != 1 {
		return nil
	}
	return &w.ranges[0]
}

// within restricts a statement over the matches (restrict, with its args) to the scope's
// one range, whose passages are exactly the scope's, so that FTS5 reads only that part of
// each term's list; restrict is kept as it is without one, or when it is a range already.
func (w *wordSearch) within(restrict string, args ...any) (string, []any) {
	r := w.span()
	if r == nil || restrict == rangeRows {
		return restrict, args
	}
	return restrict + rangeRows, append(args, sql.Named("lo", r.lo), sql.Named("hi", r.hi))
}

// Below these many passages, a scope's one range is scored in one pass, its first attempts
// skipped: they run more statements, each walking every term's whole list for its idf, and
// on the large bench brain cost more than they spared for one word in a folder of 17,000
// passages (9 → 16 ms) and about as much in a source of 30,000. Above them they spare most
// of the work: three common words in a source of 30,000 passages 156 → 53 ms, one word in
// all 100,000 records 97 → 79 ms. Tests shrink them.
var attemptOneTerm, attemptTerms int64 = 40_000, 10_000

// attemptWithin reports whether the first attempts run within the scope's one range.
func (w *wordSearch) attemptWithin() bool {
	r := w.span()
	if r == nil {
		return false
	}
	if len(w.terms) == 1 {
		return r.hi-r.lo+1 >= attemptOneTerm
	}
	return r.hi-r.lo+1 >= attemptTerms
}
