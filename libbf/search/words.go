package search

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/fold"
)

// The word ranking (see rankWords) scores a passage by
//
//	-bm25(search, 10.0, 1.0, 0.5, 3.0) × item weight × (0.5 for a low-priority source, else 1)
//	  × (1 + 0.2 × (terms held − 1) / max(terms − 1, 1))
//
// and only the best few partitions (a note, or the records sharing a URL) reach a page.
// Scoring every match costs a BM25 call and two row lookups each, most of a search when a
// word is common; so passages are scored and read best bound first, and the search stops
// as soon as no passage left can reach the page. Each bound is an upper bound of the exact
// score, so the page is the one scoring every match would give, scores included.
//
//   - Before BM25: FTS5 adds, for each phrase a passage holds, idf × f with f < k1 + 1 = 2.2
//     (f = tf(k1+1)/(tf + k1(1 − b + b·len/avglen))), so a passage holding the terms S
//     scores below 2.2 × Σ idf(S) × maxWeight × bonus(|S|). Which terms each passage holds
//     comes from one plain MATCH per term, far cheaper than BM25. Passages are scored by
//     groups holding the same terms, best bound first. BM25 itself runs over the query as
//     typed (restricted by a filter, not a constraint), so its idf and sums are FTS5's own.
//   - After BM25, before reading the item: the score is at most bm25 × maxWeight × bonus,
//     products of non-negative factors each at most the bound's, with rounding monotone.
//   - The page's last partition scores at least θ, the limit-th best of the open (not
//     deprecated) partitions read so far. Once every passage left is bounded below θ, no
//     other partition can reach the page, nor a record that would be listed beside its
//     URL's best one. Deprecated notes rank after every open one, so they never raise θ.
//
// Partitions reaching the page are then completed: a note's other sections and the records
// sharing a URL need not score well to be listed. A scope is read first, through an index
// of items, and only its passages are scored.

// maxWeight bounds items.weight: 2 for entry notes, 1 otherwise, as the cache schema
// documents; recordWeight is the weight of every record. A larger weight met on the way
// turns pruning off for that search.
const (
	maxWeight    = 2
	recordWeight = 1
)

// bm25Cap is k1 + 1, what one phrase's term frequency factor stays below in FTS5's BM25.
const bm25Cap = 2.2

// boundMargin covers rounding in the bounds taken before BM25, including the logarithm.
const boundMargin = 1 + 1e-6

// Pass sizes: the first pass scores about firstPass passages (plus 20 per row of the
// page), and items are read readBatch passages at a time at first. Tests shrink them.
var (
	withSiblings       = true
	firstPass    int64 = 3000
	readBatch    int64 = 64
)

// Statements of the word ranking. {only} restricts a pass to listed passages; {filters} is
// the scope's condition (see scopeFilter).
const (
	only = `{only}`
	// termSQL lists the passages holding a term, in passage order.
	termSQL = `SELECT rowid FROM search WHERE search MATCH ?`
	// heldSQL lists which of some passages (?2) hold a term (?1).
	heldSQL = `SELECT rowid FROM search WHERE search MATCH ?1 AND +rowid IN (SELECT value FROM json_each(?2))`
	// scoreSQL runs BM25 over the passages matching any term. The restriction to listed
	// passages is a filter (+rowid): as a constraint, FTS5 would run the whole query
	// once per passage. The second BM25, weighting only title and text, tells whether a
	// section matches by its heading or its text.
	scoreSQL = `SELECT search.rowid, -bm25(search, 10.0, 1.0, 0.5, 3.0), bm25(search, 10.0, 1.0, 0.0, 0.0) < 0
		FROM search WHERE search MATCH :match` + only
	// joinSQL reads the items of scored passages. Every scored passage is within the scope.
	joinSQL = `SELECT p.id, p.item, p.fragment, i.ref, i.url, i.source, i.status = 'deprecated', i.kind, i.time,
			i.observed, i.weight
		FROM json_each(?) j CROSS JOIN passages p ON p.id = j.value CROSS JOIN items i ON i.id = p.item`
	// siblingsSQL lists the passages of notes.
	siblingsSQL = `SELECT id, item, fragment FROM passages WHERE item IN (SELECT value FROM json_each(:items))`
	// sharedSQL finds the records of URLs (:urls) within the scope. A record's URL is among
	// the identity words of its passage, so every record of a URL is among the passages
	// holding one word of it there (:words, a word per URL); the URL is then compared.
	sharedSQL = `WITH ` + daysCTE + `
		SELECT i.url, p.id, i.ref, i.source
		FROM search s CROSS JOIN passages p ON p.id = s.rowid CROSS JOIN items i ON i.id = p.item
		` + daysJoin + `
		WHERE s.search MATCH :words AND i.url IN (SELECT value FROM json_each(:urls)) AND ` + filters
	// sharedScanSQL finds the records of one URL of other characters by reading every item.
	sharedScanSQL = `WITH ` + daysCTE + `
		SELECT i.url, p.id, i.ref, i.source
		FROM items i CROSS JOIN passages p ON p.item = i.id
		` + daysJoin + `
		WHERE i.url = :url AND ` + filters
	// pageSQL reads what a page shows of its passages and items.
	pageSQL = `SELECT p.id, ` + rowColumns + `, p.title
		FROM json_each(:ids) j CROSS JOIN passages p ON p.id = j.value CROSS JOIN items i ON i.id = p.item`
	// averagesSQL reads FTS5's totals record, which starts with the number of rows BM25
	// uses for idf.
	averagesSQL = `SELECT block FROM search_data WHERE id = 1`
)

// Passage states.
const (
	unscored = iota
	scored   // BM25 known, item not read
	joined   // item read: a match (hit set), or a section matching by neither heading nor text
	rejected // its item is outside the scope
)

// entry is one passage matching the query.
type entry struct {
	id int64
	// mask holds the terms the passage matches (with two terms or more).
	mask uint64
	// b is BM25 negated (so non-negative), tt whether it matches by title or text.
	b     float64
	tt    bool
	state uint8
	// bound is above the passage's score: from its terms before BM25, then from BM25.
	bound float64
	hit   *hit
}

// hit is a scored passage of an item within the scope.
type hit struct {
	e                                *entry
	item                             int64
	fragment, ref, url, source, time string
	closed                           int
	weight                           int64
	score                            float64
}

// partKey names a partition: a note, a record without URL, or the records of a URL.
type partKey struct {
	item int64
	url  string
}

func (h *hit) key() partKey {
	if h.url == "" {
		return partKey{item: h.item}
	}
	return partKey{url: h.url}
}

// partition is the scored passages of one partition.
type partition struct {
	// hits in rank order once sorted; best is the highest score seen (rank order ties
	// do not matter to bounds).
	hits []*hit
	best *hit
}

// byRank orders a partition's passages: open before deprecated, best score, newest,
// then by fragment and ref.
func byRank(a, b *hit) int {
	if c := cmp.Compare(a.closed, b.closed); c != 0 {
		return c
	}
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	if c := strings.Compare(b.time, a.time); c != 0 {
		return c
	}
	if c := strings.Compare(a.fragment, b.fragment); c != 0 {
		return c
	}
	return strings.Compare(a.ref, b.ref)
}

// byPage orders a page: like byRank without the fragment (a page holds one passage of a
// note).
func byPage(a, b *hit) int {
	if c := cmp.Compare(a.closed, b.closed); c != 0 {
		return c
	}
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	if c := strings.Compare(b.time, a.time); c != 0 {
		return c
	}
	return strings.Compare(a.ref, b.ref)
}

// wordSearch ranks the passages of one brain for one query.
type wordSearch struct {
	ctx    context.Context
	p      *part
	sc     scope
	args   []any
	match  string
	terms  []string
	limit  int64
	low    map[string]bool
	scoped bool

	// entries are the matching passages by id: all of them with several terms, the scored
	// ones with one.
	entries []entry
	// idf bounds each term's idf from above.
	idf []float64
	// tiers group the entries by the terms they hold, highest bound first; the first
	// next tiers are scored.
	tiers []*tier
	next  int
	// pending are scored, unread passages, highest bound first.
	pending []*entry
	parts   map[partKey]*partition
	// unbounded turns pruning off: a weight above maxWeight, or no idf bound.
	unbounded bool
	// weight bounds the item weights within the scope: under memories, only records.
	weight float64
	// days maps a note's day to its local midnight; joins reads items.
	days  map[string]string
	joins *sql.Stmt
	// heavy scores the passages whose term counts the cache keeps, or is nil.
	heavy *heavy
	stats rankStats
}

// rankStats counts a ranking's work, for tests and benchmarks.
type rankStats struct {
	passes, scored, read, lists int
	// heavy counts the passages scored from the counts the cache keeps.
	heavy int
	// phases is the time spent listing terms, scoring, reading items and building the page.
	phases [4]time.Duration
}

// traceRank, when set, receives each ranking's counts.
var traceRank func(rankStats)

// timed adds the time until the returned function runs to a phase, when tracing.
func (w *wordSearch) timed(phase int) func() {
	if traceRank == nil {
		return func() {}
	}
	start := time.Now()
	return func() { w.stats.phases[phase] += time.Since(start) }
}

// tier is the passages holding the same terms.
type tier struct {
	bound   float64
	entries []*entry
}

// rankWords runs the word query in one brain, returning at most limit rows: the passages
// matching any term, ranked by BM25 with column weights title 10, text 1, names 0.5 and
// context 3, times the item weight, halved for low-priority sources, with the coverage
// bonus for passages matching several terms. A section counts only when it matches
// through its heading or text. Each note appears once, through its best passage, and each
// URL once per source: the best-ranked source's records, with up to 5 other sources' refs
// as also (by ref); a note's other matching sections, up to 3 and best first, become
// sections. Deprecated notes come last; equal scores list the newest first, then by ref.
func rankWords(ctx context.Context, p *part, terms []fold.Term, sc scope, targets map[string]bool, limit int64) ([]*row, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	w := &wordSearch{ctx: ctx, p: p, sc: sc, args: scopeArgs(p, sc, targets), limit: limit,
		scoped: scopeFilter(sc) != "1", parts: map[partKey]*partition{}, weight: maxWeight}
	if sc.memories() {
		w.weight = recordWeight
	}
	for _, t := range terms {
		w.terms = append(w.terms, t.Match())
	}
	w.match = strings.Join(w.terms, " OR ")
	w.low = map[string]bool{}
	var low []string
	if err := json.Unmarshal([]byte(p.low), &low); err != nil {
		return nil, err
	}
	for _, s := range low {
		w.low[s] = true
	}
	if err := json.Unmarshal([]byte(p.days), &w.days); err != nil {
		return nil, err
	}
	defer func() {
		if w.joins != nil {
			w.joins.Close()
		}
		if w.heavy != nil {
			w.heavy.close()
		}
	}()
	var err error
	if w.heavy, err = newHeavy(ctx, p, terms); err != nil {
		return nil, err
	}
	if err := w.rank(); err != nil {
		return nil, err
	}
	rows, err := w.page()
	if traceRank != nil {
		traceRank(w.stats)
	}
	return rows, err
}

// rank scores and reads passages until the page is settled.
func (w *wordSearch) rank() error {
	if w.scoped || len(w.terms) == 1 {
		// One term: every passage holds the same terms, so nothing is known before BM25.
		// A scope: its passages are found first, and only they are scored.
		if err := w.scoreAll(); err != nil {
			return err
		}
		return w.read()
	}
	if err := w.holdings(); err != nil {
		return err
	}
	// A first pass sized to fill the page with room to spare.
	want := firstPass + 20*min(w.limit, 1<<20)
	for {
		var ids []*entry
		theta := w.theta()
		for w.next < len(w.tiers) {
			t := w.tiers[w.next]
			if theta > math.Inf(-1) && t.bound < theta {
				break
			}
			if theta == math.Inf(-1) && int64(len(ids)) >= want {
				break
			}
			ids = append(ids, t.entries...)
			w.next++
		}
		if len(ids) > 0 {
			if 2*len(ids) > len(w.entries) {
				// Scoring all is then cheaper than listing most.
				ids, w.next = nil, len(w.tiers)
			}
			if err := w.score(ids); err != nil {
				return err
			}
		}
		if err := w.read(); err != nil {
			return err
		}
		if w.next == len(w.tiers) {
			return nil
		}
		theta = w.theta()
		if w.tiers[w.next].bound < theta {
			return nil
		}
		want *= 4
	}
}

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
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			lists[k] = append(lists[k], id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		w.stats.lists += len(lists[k])
	}
	w.entries = mergeLists(lists)

	// idf = ln((N − n + 0.5)/(n + 0.5)), at least 1e-6, with N the row count FTS5 keeps.
	var block []byte
	err = w.p.tx.QueryRowContext(w.ctx, averagesSQL).Scan(&block)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	total, n := varint(block)
	w.idf = make([]float64, len(lists))
	for k, l := range lists {
		if n == 0 || uint64(len(l)) > total {
			// A count FTS5 cannot have leaves no bound: everything is scored.
			w.unbounded = true
			continue
		}
		hits := float64(len(l))
		w.idf[k] = max(math.Log((float64(total)-hits+0.5)/(hits+0.5)), 1e-6)
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

// varint decodes an SQLite varint: big-endian groups of 7 bits, the ninth byte whole. It
// returns the value and its length, 0 when b holds none.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 8 && i < len(b); i++ {
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(b[8]), 9
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
	sum := 0.0
	for m := mask; m != 0; m &= m - 1 {
		sum += w.idf[bits.TrailingZeros64(m)]
	}
	return sum * bm25Cap * w.weight * w.bonus(bits.OnesCount64(mask)) * boundMargin
}

// bonus is the coverage factor of a passage holding n of the terms, computed as SQLite
// would: 1 + 0.2 × (n − 1) / max(terms − 1, 1). The conversions keep each step rounded on
// its own, as SQLite rounds it.
func (w *wordSearch) bonus(n int) float64 {
	if len(w.terms) < 2 {
		n = 1
	}
	share := float64(0.2 * float64(n-1))
	share = float64(share / float64(max(len(w.terms)-1, 1)))
	return float64(1 + share)
}

// scoreOf is a passage's score from its BM25, item weight and source: the products in the
// order SQLite evaluated them.
func (w *wordSearch) scoreOf(e *entry, weight int64, source string) float64 {
	s := float64(e.b * float64(weight))
	if w.low[source] {
		s = float64(s * 0.5)
	}
	return float64(s * w.bonus(bits.OnesCount64(e.mask)))
}

func (w *wordSearch) find(id int64) *entry {
	i, ok := slices.BinarySearchFunc(w.entries, id, func(e entry, id int64) int { return cmp.Compare(e.id, id) })
	if !ok {
		return nil
	}
	return &w.entries[i]
}

// itemInfo is what a passage's item contributes to ranking.
type itemInfo struct {
	item                             int64
	fragment, ref, url, source, time string
	closed                           int
	weight                           int64
}

// timeOf is where an item sits in time, as timeExpr places it: a note's day at local
// midnight (substr(time, 1, 10) looked up in the days), else the record's time, else the
// time it was first observed.
func (w *wordSearch) timeOf(kind, t, observed string) string {
	if kind == "note" {
		return w.days[t[:runeOffset(t, 10)]]
	}
	if t != "" {
		return t
	}
	return observed
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
	restrict, args := "", []any(nil)
	if w.scoped {
		restrict = ` AND +search.rowid IN (` + scopedPassages(w.sc) + `)`
		args = w.args
	}
	results, err := w.scoreRows(restrict, args...)
	if err != nil {
		return err
	}
	w.entries = make([]entry, len(results))
	for i, r := range results {
		w.entries[i] = entry{id: r.id, b: r.b, tt: r.tt, state: scored}
	}
	// FTS5 returns passages by id; find relies on it.
	slices.SortFunc(w.entries, func(a, b entry) int { return cmp.Compare(a.id, b.id) })
	w.stats.scored += len(w.entries)
	w.pending = make([]*entry, len(w.entries))
	for i := range w.entries {
		w.pending[i] = &w.entries[i]
	}
	if len(w.terms) > 1 && len(w.pending) > 0 {
		if err := w.held(w.pending); err != nil {
			return err
		}
	}
	for _, e := range w.pending {
		if e.b < 0 {
			w.unbounded = true
		}
		e.bound = float64(float64(e.b*w.weight) * w.bonus(bits.OnesCount64(e.mask)))
	}
	slices.SortFunc(w.pending, func(a, b *entry) int { return cmp.Compare(b.bound, a.bound) })
	return nil
}

// scopedPassages is a query of the passages of the items within a scope. Besides the
// scope's filter it states a wider condition an index answers (scopeHint), so that the
// items are found through it rather than by reading them all.
func scopedPassages(sc scope) string {
	where := scopeFilter(sc)
	if hint := scopeHint(sc); hint != "" {
		where = hint + " AND " + where
	}
	if !sc.period {
		// Only a period reads times: without the days, an index of paths answers alone.
		return `SELECT p.id FROM items i CROSS JOIN passages p ON p.item = i.id WHERE ` + where
	}
	return `WITH ` + daysCTE + ` SELECT p.id FROM items i CROSS JOIN passages p ON p.item = i.id ` + daysJoin +
		` WHERE ` + where
}

// scopeHint is a condition every item within the scope meets that an index of items
// answers, or "" when the filter itself does: a folder or file as a range of paths, a
// period as ranges of times (a note's day is within two days of its local midnight).
func scopeHint(sc scope) string {
	var hints []string
	if sc.prefix != "" {
		hints = append(hints, `i.path >= :prefix AND i.path < :prefix || '0'`)
	}
	if sc.period && len(sc.since) >= 10 && len(sc.until) >= 10 {
		since, err1 := time.Parse(time.DateOnly, sc.since[:10])
		until, err2 := time.Parse(time.DateOnly, sc.until[:10])
		if err1 == nil && err2 == nil {
			hints = append(hints, `(i.kind = 'record' AND i.time >= :since AND i.time < :until
				OR i.kind = 'record' AND i.time = ''
				OR i.kind = 'note' AND i.time >= '`+since.AddDate(0, 0, -2).Format(time.DateOnly)+`'
					AND i.time < '`+until.AddDate(0, 0, 2).Format(time.DateOnly)+`')`)
		}
	}
	return strings.Join(hints, " AND ")
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
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			if e := w.find(id); e != nil {
				e.mask |= 1 << k
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// accept records the item of a scored passage.
func (w *wordSearch) accept(e *entry, it *itemInfo) {
	e.state = joined
	if float64(it.weight) > w.weight {
		w.unbounded = true
	}
	if it.fragment != "" && !e.tt {
		return
	}
	h := &hit{e: e, item: it.item, fragment: it.fragment, ref: it.ref, url: it.url, source: it.source,
		time: it.time, closed: it.closed, weight: it.weight}
	h.score = w.scoreOf(e, it.weight, it.source)
	e.hit = h
	pt := w.parts[h.key()]
	if pt == nil {
		pt = &partition{}
		w.parts[h.key()] = pt
	}
	pt.hits = append(pt.hits, h)
	if pt.best == nil || h.score > pt.best.score {
		pt.best = h
	}
}

// read reads the items of pending passages, best bound first, while one can still reach
// the page.
func (w *wordSearch) read() error {
	batch := max(2*min(w.limit, 1<<20), readBatch)
	for len(w.pending) > 0 {
		theta := w.theta()
		n := 0
		for n < len(w.pending) && int64(n) < batch && w.pending[n].bound >= theta {
			n++
		}
		if n == 0 {
			return nil
		}
		if err := w.join(w.pending[:n]); err != nil {
			return err
		}
		w.pending = w.pending[n:]
		batch *= 2
	}
	return nil
}

// join reads the items of scored passages.
func (w *wordSearch) join(list []*entry) error {
	defer w.timed(2)()
	w.stats.read += len(list)
	if w.joins == nil {
		st, err := w.p.tx.PrepareContext(w.ctx, joinSQL)
		if err != nil {
			return err
		}
		w.joins = st
	}
	rows, err := w.joins.QueryContext(w.ctx, idList(list))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var it itemInfo
		var kind, t, observed string
		if err := rows.Scan(&id, &it.item, &it.fragment, &it.ref, &it.url, &it.source, &it.closed, &kind, &t,
			&observed, &it.weight); err != nil {
			return err
		}
		it.time = w.timeOf(kind, t, observed)
		if e := w.find(id); e != nil && e.state == scored {
			w.accept(e, &it)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, e := range list {
		if e.state == scored {
			e.state = rejected
		}
	}
	return nil
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

// page builds the rows of the page from the partitions that reach it.
func (w *wordSearch) page() ([]*row, error) {
	defer w.timed(3)()
	var all []*partition
	for _, pt := range w.parts {
		slices.SortFunc(pt.hits, byRank)
		all = append(all, pt)
	}
	// The partitions whose best passage reaches the limit-th best, ties kept.
	slices.SortFunc(all, func(a, b *partition) int {
		if c := cmp.Compare(a.hits[0].closed, b.hits[0].closed); c != 0 {
			return c
		}
		return cmp.Compare(b.hits[0].score, a.hits[0].score)
	})
	chosen := all
	if int64(len(all)) > w.limit {
		cut := all[w.limit-1].hits[0]
		n := int(w.limit)
		for n < len(all) && all[n].hits[0].closed == cut.closed && all[n].hits[0].score >= cut.score {
			n++
		}
		chosen = all[:n]
	}
	// A partition's best passage is listed, and for a URL every record of the best
	// passage's source.
	var top []*hit
	for _, pt := range chosen {
		lead := pt.hits[0]
		for i, h := range pt.hits {
			if i == 0 || (h.url != "" && h.source == lead.source) {
				top = append(top, h)
			}
		}
	}
	slices.SortFunc(top, byPage)
	if int64(len(top)) > w.limit {
		top = top[:w.limit]
	}
	sections, err := w.sections(top)
	if err != nil {
		return nil, err
	}
	also, err := w.also(top)
	if err != nil {
		return nil, err
	}
	return w.rows(top, also, sections)
}

// sections lists, for each note of the page, up to 3 other matching sections, best first.
// Its passages not scored yet are scored first: a section need not score well to be listed.
func (w *wordSearch) sections(top []*hit) (map[int64][]string, error) {
	notes := map[int64]*hit{}
	var items []string
	for _, h := range top {
		if h.url == "" {
			notes[h.item] = h
			items = append(items, strconv.FormatInt(h.item, 10))
		}
	}
	if len(notes) == 0 {
		return nil, nil
	}
	rows, err := w.p.tx.QueryContext(w.ctx, siblingsSQL, sql.Named("items", "["+strings.Join(items, ",")+"]"))
	if err != nil {
		return nil, err
	}
	type sibling struct {
		e        *entry
		item     int64
		fragment string
	}
	var siblings []sibling
	var unscoredList []*entry
	for rows.Next() {
		var s sibling
		var id int64
		if err := rows.Scan(&id, &s.item, &s.fragment); err != nil {
			rows.Close()
			return nil, err
		}
		if s.e = w.find(id); s.e == nil {
			continue // not a match
		}
		siblings = append(siblings, s)
		if s.e.state == unscored {
			unscoredList = append(unscoredList, s.e)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(unscoredList) > 0 {
		if err := w.scoreOnly(unscoredList); err != nil {
			return nil, err
		}
	}
	out := map[int64][]string{}
	for _, s := range siblings {
		if s.e.state != scored {
			continue // read already, or still unscored (not a match by BM25)
		}
		// The note's item is within the scope: its passages are.
		n := notes[s.item]
		w.accept(s.e, &itemInfo{item: n.item, fragment: s.fragment, ref: n.ref, url: n.url, source: n.source,
			time: n.time, closed: n.closed, weight: n.weight})
	}
	for item, n := range notes {
		pt := w.parts[partKey{item: item}]
		slices.SortFunc(pt.hits, byRank)
		var list []string
		for _, h := range pt.hits[1:] {
			if h.fragment != "" && len(list) < 3 {
				list = append(list, n.ref+"#"+h.fragment)
			}
		}
		if len(list) > 0 {
			out[item] = list
		}
	}
	return out, nil
}

// scoreOnly runs BM25 over listed passages whose items are known.
func (w *wordSearch) scoreOnly(list []*entry) error {
	results, err := w.scoreRows(` AND +search.rowid IN (SELECT value FROM json_each(:ids))`, sql.Named("ids", idList(list)))
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

// also lists, for each URL of the page, up to 5 refs of other sources' records sharing
// it, by ref.
func (w *wordSearch) also(top []*hit) (map[string][]string, error) {
	lead := map[string]string{}
	var urls, words, scans []string
	for _, h := range top {
		if h.url == "" || w.parts[h.key()].hits[0] != h {
			continue
		}
		lead[h.url] = h.source
		if word := urlWord(h.url); word != "" {
			urls = append(urls, h.url)
			words = append(words, `"`+word+`"`)
		} else {
			scans = append(scans, h.url)
		}
	}
	if len(lead) == 0 {
		return nil, nil
	}
	found := map[string]map[string]bool{}
	read := func(query string, args ...any) error {
		rows, err := w.p.tx.QueryContext(w.ctx, strings.NewReplacer(filters, scopeFilter(w.sc)).Replace(query),
			append(args, w.args...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var url, ref, source string
			if err := rows.Scan(&url, &id, &ref, &source); err != nil {
				return err
			}
			if source == lead[url] || w.find(id) == nil {
				continue
			}
			if found[url] == nil {
				found[url] = map[string]bool{}
			}
			found[url][ref] = true
		}
		return rows.Err()
	}
	if len(urls) > 0 {
		if err := read(sharedSQL, sql.Named("words", "{names} : ("+strings.Join(words, " OR ")+")"),
			sql.Named("urls", jsonList(urls))); err != nil {
			return nil, err
		}
	}
	for _, url := range scans {
		if err := read(sharedScanSQL, sql.Named("url", url)); err != nil {
			return nil, err
		}
	}
	out := map[string][]string{}
	for url, refs := range found {
		list := make([]string, 0, len(refs))
		for ref := range refs {
			list = append(list, ref)
		}
		slices.Sort(list)
		out[url] = list[:min(len(list), 5)]
	}
	return out, nil
}

// urlWord is a word of an ASCII URL as the index holds it, or "" for a URL of other
// characters or without a word: its last word with a digit, else its last word, which
// usually names few records. The index holds ASCII words exactly as written (NFKC leaves
// ASCII alone); the tokenizer lowercases and stems both sides alike.
func urlWord(url string) string {
	var last, lastDigit string
	for i := 0; i < len(url); {
		if url[i] >= 0x80 {
			return ""
		}
		if !isASCIIWord(url[i]) {
			i++
			continue
		}
		j, digit := i, false
		for j < len(url) && isASCIIWord(url[j]) {
			digit = digit || ('0' <= url[j] && url[j] <= '9')
			j++
		}
		if j < len(url) && url[j] >= 0x80 {
			return ""
		}
		last = url[i:j]
		if digit {
			lastDigit = last
		}
		i = j
	}
	if lastDigit != "" {
		return lastDigit
	}
	return last
}

func isASCIIWord(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// rows reads what the page shows.
func (w *wordSearch) rows(top []*hit, also map[string][]string, sections map[int64][]string) ([]*row, error) {
	if len(top) == 0 {
		return nil, nil
	}
	list := make([]*entry, len(top))
	for i, h := range top {
		list[i] = h.e
	}
	rows, err := w.p.tx.QueryContext(w.ctx, pageSQL, sql.Named("ids", idList(list)))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := map[int64]*row{}
	for rows.Next() {
		r := &row{part: w.p}
		var id int64
		var partial int
		var itemTitle string
		if err := rows.Scan(&id, &r.id, &r.ref, &r.path, &r.kind, &r.source, &r.stored, &r.typ, &r.status, &r.url,
			&r.updated, &r.observed, &partial, &r.fields, &itemTitle, &r.lead, &r.title); err != nil {
			return nil, err
		}
		r.partial = partial != 0
		byID[id] = r
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]*row, 0, len(top))
	for _, h := range top {
		r := byID[h.e.id]
		if r == nil {
			return nil, errors.New("a ranked passage vanished")
		}
		r.time, r.fragment, r.passage, r.score = h.time, h.fragment, h.e.id, h.score
		if h.url != "" && w.parts[h.key()].hits[0] == h {
			r.also = also[h.url]
		}
		if h.url == "" {
			r.sections = sections[h.item]
		}
		out = append(out, r)
	}
	return out, nil
}

// idList is passage ids as a JSON array.
func idList(list []*entry) string {
	var b strings.Builder
	b.Grow(len(list) * 8)
	b.WriteByte('[')
	for i, e := range list {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(e.id, 10))
	}
	b.WriteByte(']')
	return b.String()
}
