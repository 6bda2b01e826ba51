package search

// Scoring passages of the word ranking (words.go): BM25 as FTS5 computes it, the item
// weight, the low-priority halving and the coverage bonus.

import (
	"cmp"
	"database/sql"
	"math/bits"
	"slices"

	"github.com/bfgo/bf/libbf/cache"
)

// scoreOf is a passage's score from its BM25, item weight and source: the products in the
// order SQLite evaluated them.
func (w *wordSearch) scoreOf(e *entry, weight int64, source string) float64 {
	s := float64(e.b * float64(weight))
	if w.low[source] {
		s = float64(s * 0.5)
	}
	return float64(s * w.bonus(bits.OnesCount64(e.mask)))
}

// score runs BM25 over the listed passages and the other passages of their notes, or over
// every match when ids is nil; the entries are known.
func (w *wordSearch) score(ids []*entry) error {
	defer w.timed(1)()
	restrict := ""
	args := slices.Clip(w.args)
	if ids != nil {
		// With the other passages of their notes: a note reaching the page lists its other
		// matching sections, which then need no pass of their own.
		restrict = ` AND +search.rowid IN (SELECT value FROM json_each(:ids) UNION
			SELECT s.id FROM json_each(:ids) j CROSS JOIN passages p ON p.id = j.value CROSS JOIN passages s ON s.item = p.item)`
		args = append(args, sql.Named("ids", idList(ids)))
	}
	results, err := w.scoreRows(restrict, args...)
	if err != nil {
		return err
	}
	for _, r := range results {
		e := w.find(r.id)
		if e == nil || e.state != unscored {
			continue
		}
		e.b, e.tt, e.state = r.b, r.tt, scored
		w.stats.scored++
		if e.b < 0 {
			w.unbounded = true
		}
		e.bound = float64(float64(e.b*w.weight) * w.bonus(bits.OnesCount64(e.mask)))
		w.pending = append(w.pending, e)
	}
	slices.SortFunc(w.pending, func(a, b *entry) int { return cmp.Compare(b.bound, a.bound) })
	return nil
}

// scoreAll runs BM25 over every match, within the scope if any, and finds the entries.
func (w *wordSearch) scoreAll() error {
	defer w.timed(1)()
	if w.ranged {
		w.stats.ranges += len(w.ranges)
		var results []scoredRow
		for _, r := range w.ranges {
			some, err := w.scoreRows(rangeRows, sql.Named("lo", r.lo), sql.Named("hi", r.hi))
			if err != nil {
				return err
			}
			results = append(results, some...)
		}
		return w.pend(results)
	}
	restrict, args := "", []any(nil)
	if w.scoped {
		w.stats.filtered++
		restrict = ` AND +search.rowid IN (` + scopedPassages(w.sc) + `)`
		args = w.args
	}
	results, err := w.scoreRows(restrict, args...)
	if err != nil {
		return err
	}
	return w.pend(results)
}

// pend makes scored passages the entries, all of them pending, with the terms they hold:
// those the statement that scored them told (scoredRow.mask), else read.
func (w *wordSearch) pend(results []scoredRow) error {
	w.entries = make([]entry, len(results))
	for i, r := range results {
		w.entries[i] = entry{id: r.id, b: r.b, tt: r.tt, state: scored, mask: r.mask}
	}
	// FTS5 returns passages by id; find relies on it.
	slices.SortFunc(w.entries, func(a, b entry) int { return cmp.Compare(a.id, b.id) })
	w.stats.scored += len(w.entries)
	w.pending = make([]*entry, len(w.entries))
	var unknown []*entry
	for i := range w.entries {
		e := &w.entries[i]
		w.pending[i] = e
		if e.mask == 0 {
			unknown = append(unknown, e)
		}
	}
	if len(w.terms) > 1 && len(unknown) > 0 {
		if err := w.held(unknown); err != nil {
			return err
		}
	}
	w.boundPending()
	return nil
}

// boundPending bounds the pending passages by their scores before the item weight is known, and
// orders them highest first.
func (w *wordSearch) boundPending() {
	for _, e := range w.pending {
		if e.b < 0 {
			w.unbounded = true
		}
		e.bound = float64(float64(e.b*w.weight) * w.bonus(bits.OnesCount64(e.mask)))
	}
	slices.SortFunc(w.pending, func(a, b *entry) int { return cmp.Compare(b.bound, a.bound) })
}

// held sets which terms each listed passage holds.
func (w *wordSearch) held(list []*entry) error {
	st, err := w.p.tx.PrepareContext(w.ctx, heldSQL)
	if err != nil {
		return err
	}
	defer st.Close()
	ids := idList(list)
	for k, term := range w.terms {
		rows, err := st.QueryContext(w.ctx, term, ids)
		found, err := cache.ReadRows(rows, err, cache.ScanInt64)
		if err != nil {
			return err
		}
		for _, id := range found {
			if e := w.find(id); e != nil {
				e.mask |= 1 << k
			}
		}
	}
	return nil
}

// scoreOnly runs BM25 over listed passages whose items are known.
func (w *wordSearch) scoreOnly(list []*entry) error {
	ids := make([]int64, len(list))
	for i, e := range list {
		ids[i] = e.id
	}
	results, err := w.scoreListed(ids)
	if err != nil {
		return err
	}
	for _, r := range results {
		if e := w.find(r.id); e != nil && e.state == unscored {
			e.b, e.tt, e.state = r.b, r.tt, scored
			w.stats.scored++
		}
	}
	return nil
}
