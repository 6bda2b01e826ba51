package search

// The first attempts of a word ranking without a scope, or within a large scope that is
// one range of passages (words.go, ranges.go): FTS5 sorts the matches by BM25 and hands
// over only the best k, which are then ranked as usual. A query of several terms first
// tries the passages holding every term (rankEveryTermFirst), then those whose terms can
// reach the page (reach.go), then all.
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
// Over all matches this spares rows, not BM25: FTS5 still computes BM25 for every match
// inside SQLite, as the raw query does, but the matches are not listed term by term nor
// handed over one by one. Keeping per-term lists of the best passages in the cache would
// spare BM25 too, but building them costs a BM25 (or a count of every instance) for each
// posting of every common term: more than a full build of the bench brain
// (bench/README.md). The attempt over the passages holding every term spares BM25: FTS5
// computes it only for them.
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
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/jsontext"
)

// k is topFirst plus topPerRow per row of the page; topFirst 0 turns the first attempt
// off. Tests shrink them.
var topFirst, topPerRow int64 = 200, 10

// everyTermsMost is the most terms a query may have for the attempt over the passages
// holding every term. With more, the bound of a passage lacking one keeps most of the
// sum, so the attempt rarely settles the page, and FTS5 walks more lists to intersect
// them (on the large bench brain, five and seven common terms never settled, and the
// seven of a ticket's URL cost 20 % more than the attempt over all matches alone).
const everyTermsMost = 4

const (
	// topSQL lists the matches of the best BM25, at most :k, the heavy passages first (their
	// BM25 is left NULL: FTS5's bm25() is slow on them). {only} restricts them to a range.
	topSQL = `SELECT rowid, CASE WHEN rowid IN (` + heavySQL + `) THEN NULL ELSE -` + cache.RankBM25 + ` END AS b
		FROM search WHERE search MATCH :match` + only + ` ORDER BY b DESC NULLS FIRST LIMIT :k`
	// topLightSQL is topSQL for a brain without heavy passages.
	topLightSQL = `SELECT rowid, -` + cache.RankBM25 + ` AS b FROM search WHERE search MATCH :match` + only + ` ORDER BY b DESC LIMIT :k`
	// topItemsSQL lists the items, URLs, weights and sources of some passages, each with
	// its place in the list.
	topItemsSQL = `SELECT j.key, p.item, i.url, i.weight, i.source FROM json_each(:ids) j
		CROSS JOIN passages p ON p.id = j.value CROSS JOIN items i ON i.id = p.item`
	// notePassagesSQL lists the passages of the items of some passages, themselves included,
	// with their fragments.
	notePassagesSQL = `SELECT s.id, s.fragment FROM json_each(:ids) j CROSS JOIN passages p ON p.id = j.value
		CROSS JOIN passages s ON s.item = p.item`
	// matchingSQL lists which of some passages match the query.
	matchingSQL = `SELECT rowid FROM search WHERE search MATCH :match AND +rowid IN (SELECT value FROM json_each(:ids))`
)

// rankTopFirst ranks the best few matches and reports whether the page is settled; when
// it is not, the search is as new.
func (w *wordSearch) rankTopFirst() (bool, error) {
	if topFirst <= 0 {
		return false, nil
	}
	return w.attempt(w.match, "", 0, func(last float64) (float64, error) {
		return last * w.weight * w.bonus(len(w.terms)), nil
	}, nil)
}

// bestOf is the best few passages matching an expression of the query's terms, best
// first, and the terms they hold (0 when the expression is the query's own, whose
// passages hold some of them).
type bestOf struct {
	mask uint64
	top  []scoredRow
}

// attempt ranks the matches of match of the best BM25, at most k of them, and reports
// whether the page is settled: whether the page's last partition scores above the bound
// of every passage left out, which bound gives from the BM25 of the k-th (0 when there
// were fewer than k; +Inf when none is known). among, when set, is an expression the
// passages must match too (reach.go). mask 0 and no among say match is the query's: fewer
// than k then settle the page at once. Otherwise match holds exactly the terms of mask (0:
// some of them), and widen, given what the page's last partition can score at most, may
// add the best of other expressions with the bound of what they all leave out. When the
// page is not settled, the search is as new but for w.reached, what the page's last
// partition was found to score at least (reach.go).
//
// The BM25 FTS5 sorted them by is kept: only the passages it does not settle are scored
// again, the other passages of their notes (which may not match) and those with a
// fragment (a section counts only when it matches through its heading or text, which a
// second BM25 tells) or left to heavy.go. When the best few are records, no second pass
// over the matches is needed.
func (w *wordSearch) attempt(match, among string, mask uint64, bound func(last float64) (float64, error),
	widen func(ceiling float64) ([]bestOf, float64, error)) (bool, error) {
	whole := mask == 0 && among == ""
	w.reached = math.Inf(-1)
	top, last, complete, err := w.topIDs(match, among)
	if err != nil {
		return false, err
	}
	missed := func() (bool, error) {
		w.stats.missed(whole, among != "")
		w.reset()
		return false, nil
	}
	// earlyMiss gives up before ranking, keeping what the best few tell of the page.
	earlyMiss := func() (bool, error) {
		if !whole && int64(len(top)) >= w.limit {
			// Each passage holds the terms of mask, or one at least.
			scores, err := w.partitionScores(top, w.bonus(max(bits.OnesCount64(mask), 1)))
			if err != nil {
				return false, err
			}
			if int64(len(scores)) >= w.limit {
				w.reached = scores[w.limit-1]
			}
		}
		return missed()
	}
	lists := []bestOf{{mask: mask, top: top}}
	rest := 0.0
	if !(complete && whole) {
		if int64(len(top)) < w.limit {
			// The page's last partition would need a passage of its own among top.
			return earlyMiss()
		}
		if rest, err = bound(last); err != nil {
			return false, err
		}
		ceiling, err := w.ceiling(top, rest, !whole)
		if err != nil {
			return false, err
		}
		if ceiling <= rest*boundMargin {
			if widen == nil {
				return earlyMiss()
			}
			more, wider, err := widen(ceiling)
			if err != nil {
				return false, err
			}
			if more == nil {
				return earlyMiss()
			}
			lists, rest = append(lists, more...), wider
			w.stats.widened++
		}
	}
	var ids []int64
	for _, l := range lists {
		for _, r := range l.top {
			ids = append(ids, r.id)
		}
		slices.SortFunc(l.top, func(a, b scoredRow) int { return cmp.Compare(a.id, b.id) })
	}
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
		kept := false
		for _, l := range lists {
			i, found := slices.BinarySearchFunc(l.top, p.id, func(r scoredRow, id int64) int { return cmp.Compare(r.id, id) })
			if found && p.fragment == "" && !math.IsNaN(l.top[i].b) {
				r := l.top[i]
				r.mask = l.mask
				results, kept = append(results, r), true
				break
			}
		}
		if !kept {
			again = append(again, p.id)
		}
	}
	// The others are scored once, by the query itself: those matching it hold some of its
	// terms, and a passage of a list scores the same by the query as by the list's
	// expression (the same phrases in the same order, a lacking one adding exactly 0). Their
	// notes' sections are then known when the page is settled.
	if len(again) > 0 {
		scored, err := w.scoreListed(again)
		if err != nil {
			return false, err
		}
		results = append(results, scored...)
	}
	w.partial = !complete || !whole
	// A list's expression tells the terms of its own passages, not of the others.
	if err := w.pend(results); err != nil {
		return false, err
	}
	if err := w.read(); err != nil {
		return false, err
	}
	if complete && whole || w.theta() > rest*boundMargin {
		w.stats.settled(whole, among != "")
		if len(lists) > 1 {
			w.stats.widenedBound++
		}
		return true, nil
	}
	w.reached = w.theta()
	return missed()
}

// reset forgets what a ranking found.
func (w *wordSearch) reset() {
	w.entries, w.pending, w.tiers, w.next, w.unbounded, w.partial = nil, nil, nil, 0, false, false
	w.parts = map[partKey]*partition{}
}

// rankEveryTermFirst is a first attempt over the passages holding every term of a query
// of several, where FTS5 computes BM25 only for them: for three common words of the large
// bench brain, 3,882 passages instead of 86,081. A passage left out either holds every
// term, and its BM25 is at most the k-th's, or lacks one. Each term t adds at most
// idf(t) × BM25Cap to BM25, so a passage lacking t scores at most BM25Cap × the sum of
// the idf of the other terms (cap), times the largest item weight and the bonus of one
// term fewer. The BM25 of a passage holding every term is the same for the terms joined
// by AND as by OR: the same phrases, in the same order.
//
// When one term's cap alone keeps the page from settling (a common term beside rarer
// ones), the best passages lacking just that term are ranked too (widen): their BM25
// is the query's as well, a lacking phrase adding exactly 0. What is left out then
// lacks that term and has BM25 at most their k-th's, lacks another term (its cap), or
// lacks two (the sum of all idf but the two least, with the bonus of two terms fewer).
func (w *wordSearch) rankEveryTermFirst() (bool, error) {
	n := len(w.terms)
	if topFirst <= 0 || n < 2 || n > everyTermsMost {
		return false, nil
	}
	every := uint64(1)<<n - 1
	// Set by bound: caps[k] bounds the score of a passage lacking term k only, two that of
	// a passage lacking two terms or more, allLast that of a passage holding every term
	// left out.
	var caps []float64
	var two, allLast float64
	bound := func(last float64) (float64, error) {
		idfs, ok, err := w.termIDF()
		if err != nil || !ok {
			return math.Inf(1), err
		}
		sum := 0.0
		for _, v := range idfs {
			sum += v
		}
		caps = make([]float64, n)
		for k, v := range idfs {
			caps[k] = (sum - v) * cache.BM25Cap * w.weight * w.bonus(n-1)
		}
		if n > 2 {
			// Without a term, a passage holding none of the others does not match.
			least := slices.Sorted(slices.Values(idfs))
			two = (sum - least[0] - least[1]) * cache.BM25Cap * w.weight * w.bonus(n-2)
		}
		allLast = last * w.weight * w.bonus(n)
		return max(allLast, slices.Max(caps)), nil
	}
	widen := func(ceiling float64) ([]bestOf, float64, error) {
		if caps == nil || allLast*boundMargin >= ceiling {
			return nil, 0, nil
		}
		lacking := -1
		rest := 0.0
		for k, c := range caps {
			if c*boundMargin < ceiling {
				rest = max(rest, c)
			} else if lacking >= 0 {
				return nil, 0, nil // two terms would need ranking
			} else {
				lacking = k
			}
		}
		if lacking < 0 || two*boundMargin >= ceiling {
			return nil, 0, nil
		}
		var held []string
		for k, term := range w.terms {
			if k != lacking {
				held = append(held, term)
			}
		}
		match := strings.Join(held, " AND ") + " NOT " + w.terms[lacking]
		top, last, _, err := w.topIDs(match, "")
		if err != nil {
			return nil, 0, err
		}
		rest = max(rest, two, allLast, last*w.weight*w.bonus(n-1))
		return []bestOf{{mask: every &^ (1 << lacking), top: top}}, rest, nil
	}
	return w.attempt(strings.Join(w.terms, " AND "), "", every, bound, widen)
}

// ceiling bounds what the page's last partition can score from the best few matches
// top, best first and at least a page of them, when every other passage scores at most
// rest. Scoring above rest, each of the page's partitions needs a passage of its own
// among top: so the page's last partition scores at most the limit-th of top with the
// largest weight and the bonus of every term; when items is set, at most the limit-th
// best of their partitions (a note, or the records of a URL), each with its own weight.
// A heavy passage, its BM25 not known yet, leaves no ceiling (+Inf).
func (w *wordSearch) ceiling(top []scoredRow, rest float64, items bool) (float64, error) {
	most := w.bonus(len(w.terms))
	b := top[w.limit-1].b
	if math.IsNaN(b) {
		return math.Inf(1), nil
	}
	if c := b * w.weight * most; !items || c <= rest*boundMargin {
		return c, nil
	}
	for _, r := range top {
		if math.IsNaN(r.b) {
			return math.Inf(1), nil
		}
	}
	scores, err := w.partitionScores(top, most)
	if err != nil {
		return 0, err
	}
	if int64(len(scores)) < w.limit {
		// An item weighs more than the bound allows (pruning is off), or fewer partitions
		// than a page: nothing settles the page.
		return math.Inf(-1), nil
	}
	return scores[w.limit-1], nil
}

// partitionScores scores the best passage of each partition (a note, or the records of a
// URL) among top, each with its own item weight and the given bonus, best first. It
// returns none when a passage's BM25 is not known yet (heavy.go) or an item weighs more
// than the scope's largest weight.
func (w *wordSearch) partitionScores(top []scoredRow, bonus float64) ([]float64, error) {
	ids := make([]int64, len(top))
	for i, r := range top {
		if math.IsNaN(r.b) {
			return nil, nil
		}
		ids[i] = r.id
	}
	type topItem struct {
		i, item, weight int64
		url, source     string
	}
	found, err := cache.Collect(w.ctx, w.p.tx, topItemsSQL, []any{sql.Named("ids", jsontext.Int64s(ids))},
		func(rows *sql.Rows) (t topItem, err error) {
			return t, rows.Scan(&t.i, &t.item, &t.url, &t.weight, &t.source)
		})
	if err != nil {
		return nil, err
	}
	best := map[partKey]float64{}
	for _, t := range found {
		if float64(t.weight) > w.weight {
			return nil, nil
		}
		s := top[t.i].b * float64(t.weight) * bonus
		if w.low[t.source] {
			s *= 0.5
		}
		h := hit{item: t.item, url: t.url}
		best[h.key()] = max(best[h.key()], s)
	}
	return slices.SortedFunc(maps.Values(best), func(a, b float64) int { return cmp.Compare(b, a) }), nil
}

// amongRows restricts a statement to the passages matching :among. As a filter, not a
// constraint FTS5 would take once per passage (see scoreSQL).
const amongRows = ` AND +rowid IN (SELECT rowid FROM search WHERE search MATCH :among)`

// listedRows restricts a scoring statement to the passages listed in :ids.
const listedRows = ` AND +search.rowid IN (SELECT value FROM json_each(:ids))`

// notePassage is a passage of a note (or record) among the best few matches.
type notePassage struct {
	id       int64
	fragment string
}

// topIDs returns the at most k matches of match of the best BM25 (k: topFirst plus
// topPerRow per row of the page) that also match among when set, best first, with their BM25 (NaN for a heavy passage,
// left to heavy.go), and the BM25 every other match stays at or below: the last one, 0
// when there were fewer than k (complete), +Inf when none is known.
func (w *wordSearch) topIDs(match, among string) (top []scoredRow, last float64, complete bool, err error) {
	defer w.timed(1)()
	k := topFirst + topPerRow*min(w.limit, 1<<20)
	if among == "" && match == w.match {
		if top, last, ok, err := w.headTop(k); err != nil || ok {
			return top, last, false, err
		}
	}
	var some bool
	if err := w.p.tx.QueryRowContext(w.ctx, `SELECT EXISTS(`+heavySQL+`)`).Scan(&some); err != nil {
		return nil, 0, false, err
	}
	query := topLightSQL
	if some {
		query = topSQL
	}
	restrict, args := w.within("", sql.Named("match", match), sql.Named("k", k))
	if among != "" {
		restrict += amongRows
		args = append(args, sql.Named("among", among))
	}
	rows, err := w.p.tx.QueryContext(w.ctx, strings.NewReplacer(only, restrict).Replace(query), args...)
	if err != nil {
		return nil, 0, false, err
	}
	defer rows.Close()
	last = math.Inf(1)
	for rows.Next() {
		r := scoredRow{b: math.NaN()}
		var b sql.NullFloat64
		if err := rows.Scan(&r.id, &b); err != nil {
			return nil, 0, false, err
		}
		if b.Valid {
			r.b, last = b.Float64, b.Float64
		}
		top = append(top, r)
	}
	if complete = int64(len(top)) < k; complete {
		last = 0
	}
	return top, last, complete, rows.Err()
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
