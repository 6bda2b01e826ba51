package search

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"math"
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
// Without a scope, first attempts ask FTS5 for only the best few matches by BM25, among
// the passages holding every term (with several terms), then among all, and stop there
// when the page is settled (topfirst.go); the steps above run when neither settles it.
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

// Pass sizes: the first pass scores about firstPass passages (plus 20 per row of the
// page), and items are read readBatch passages at a time at first. Tests shrink them.
var (
	firstPass int64 = 3000
	readBatch int64 = 64
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

// byRank orders a partition's passages: byStanding, then by fragment and ref.
func byRank(a, b *hit) int {
	if c := byStanding(a, b); c != 0 {
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
	if c := byStanding(a, b); c != 0 {
		return c
	}
	return strings.Compare(a.ref, b.ref)
}

// byStanding puts open passages before deprecated ones, then the best score, then the
// newest.
func byStanding(a, b *hit) int {
	if c := cmp.Compare(a.closed, b.closed); c != 0 {
		return c
	}
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return strings.Compare(b.time, a.time)
}

// wordSearch ranks the passages of one brain for one query.
type wordSearch struct {
	ctx   context.Context
	p     *part
	sc    scope
	args  []any
	match string
	terms []string
	// asked counts the query's terms, held by the brain or not; terms are the held ones.
	asked  int
	limit  int64
	low    map[string]bool
	scoped bool
	// ranges are the passages of a ranged scope (ranges.go), when ranged.
	ranges []passageRange
	ranged bool

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
	// partial is set while the entries are only some of the matches (topfirst.go).
	partial bool
	// reached is what the page's last partition scores at least, as a missed first
	// attempt found it; -Inf when unknown (reach.go).
	reached float64
	// counts are the passages holding each term, once counted, of total (reach.go).
	counts []uint64
	total  uint64
	// weight bounds the item weights within the scope: under memories, only records.
	weight float64
	// joins reads items.
	joins *sql.Stmt
	// heavy scores the passages whose term counts the cache keeps, or is nil.
	heavy *heavy
	// counting scores listed passages in Go (counted.go), or is nil.
	counting *counting
	// stats25 are the query's BM25 statistics, once read (heavy.go).
	stats25 *statistics
	// indexedTerms are the one indexed term each term stands for, "" for a prefix, a
	// phrase or several words; indexed is that of a query of one, which may have a head
	// (heads.go).
	indexedTerms []string
	indexed      string
	// heads is its head, once read.
	heads *headRead
	// headScope holds which of the head's passages and of the touched ones are within the
	// scope, during rankHeadFirst.
	headScope map[int64]bool
	stats     rankStats
}

// rankStats counts a ranking's work, for tests and benchmarks.
type rankStats struct {
	passes, scored, read, lists int
	// heavy counts the passages scored from the counts the cache keeps.
	heavy int
	// heads counts the best few matches read from a term's head (heads.go), headsWithin
	// those read within a scope's passage ranges, headsSplit those within several.
	heads, headsWithin, headsSplit int
	// storedCounts counts the terms whose rows the cache keeps counted (reach.go).
	storedCounts int
	// topBound counts the first attempts over the best few matches that settled the page,
	// topMissed those that did not; everyBound and everyMissed the same for the attempts
	// over the passages holding every term (topfirst.go), reachBound and reachMissed for
	// those over the passages whose terms can reach the page (reach.go).
	topBound, topMissed, everyBound, everyMissed, reachBound, reachMissed int
	// widened counts the attempts that also ranked the passages lacking one term,
	// widenedBound those of them that settled the page.
	widened, widenedBound int
	// ranges counts the passage ranges a scoped ranking read (ranges.go), filtered the
	// scoped rankings that read every match instead.
	ranges, filtered int
	// spanBound counts the scoped rankings a first attempt within the scope's one range
	// settled.
	spanBound int
	// terms is the number of query terms.
	terms int
	// phases is the time spent listing terms, scoring, reading items and building the page.
	phases [4]time.Duration
}

// settled counts a first attempt that settled the page; whole and among tell which
// (attempt).
func (s *rankStats) settled(whole, among bool) {
	switch {
	case whole:
		s.topBound++
	case among:
		s.reachBound++
	default:
		s.everyBound++
	}
}

// missed counts a first attempt that did not settle the page.
func (s *rankStats) missed(whole, among bool) {
	switch {
	case whole:
		s.topMissed++
	case among:
		s.reachMissed++
	default:
		s.everyMissed++
	}
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
	// A term no passage of the brain holds adds exactly 0 to every BM25 and is never held:
	// leaving it out changes no score (the bonus still counts it among the terms asked) and
	// lets the first attempt over the passages holding every other term settle the page.
	asked := len(terms)
	terms, err := heldTerms(ctx, p, terms)
	if err != nil || len(terms) == 0 {
		return nil, err
	}
	// Only a period's filter places items in time inside a statement; the rows read are
	// placed by the part's days (timeOf).
	days := noDays
	if sc.period {
		if days, err = p.days.JSON(ctx); err != nil {
			return nil, err
		}
	}
	w := &wordSearch{ctx: ctx, p: p, sc: sc, args: scopeArgs(p, sc, targets, days), limit: limit, asked: asked,
		scoped: scopeFilter(sc) != "1", parts: map[partKey]*partition{}, weight: maxWeight,
		reached: math.Inf(-1)}
	if sc.memories() {
		w.weight = recordWeight
	}
	w.indexedTerms = make([]string, len(terms))
	for k, t := range terms {
		w.terms = append(w.terms, t.Match())
		w.indexedTerms[k], _ = indexedTerm(t)
	}
	w.match = strings.Join(w.terms, " OR ")
	if len(terms) == 1 {
		w.indexed = w.indexedTerms[0]
	}
	w.counting = newCounting(terms, w.indexedTerms)
	w.low = map[string]bool{}
	var low []string
	if err := json.Unmarshal([]byte(p.low), &low); err != nil {
		return nil, err
	}
	for _, s := range low {
		w.low[s] = true
	}
	defer func() {
		if w.joins != nil {
			w.joins.Close()
		}
		if w.heavy != nil {
			w.heavy.close()
		}
	}()
	if w.heavy, err = newHeavy(ctx, p, terms); err != nil {
		return nil, err
	}
	w.stats.terms = len(w.terms)
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
	if w.scoped {
		if settled, err := w.rankHeadFirst(); settled || err != nil {
			return err
		}
	}
	if w.scoped {
		var err error
		if w.ranges, w.ranged, err = w.scopeRanges(); err != nil {
			return err
		}
	}
	// A large scope that is one range of passages is searched as the whole index is, within
	// it (ranges.go).
	within := w.scoped && w.attemptWithin()
	if w.scoped && !within {
		var err error
		if within, err = w.headWithin(); err != nil {
			return err
		}
	}
	if !w.scoped || within {
		for _, first := range []func() (bool, error){w.rankEveryTermFirst, w.rankReachable, w.rankTopFirst} {
			if settled, err := first(); settled || err != nil {
				if settled && w.scoped {
					w.stats.spanBound++
				}
				return err
			}
		}
	}
	if w.scoped || len(w.terms) == 1 {
		// One term: every passage holds the same terms, so nothing is known before BM25.
		// Another scope: its passages are found first, and only they are scored.
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
