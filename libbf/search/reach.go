package search

// The attempt over the passages whose terms can reach the page: MaxScore over the sets of
// terms a passage may hold, for a query of several terms that the first attempt over the
// passages holding every term did not settle (topfirst.go).
//
// A passage holding the terms H scores at most BM25Cap × Σ idf(H) × the largest item
// weight × bonus(|H|): the bound of H. Once the page's last partition is known to score at
// least θ, a passage whose H bounds below θ cannot reach the page. The passages that can
// are those holding, for some set H bounding at or above θ, every term of H; the smallest
// such sets (none holding another) joined by OR are one FTS5 expression. FTS5 then sorts
// only them by BM25 (the query's own expression, restricted to them: see amongRows), and the
// page is settled, scores included, when its last partition scores above both the bound of
// every set left out and the BM25 of the k-th passage kept with the bonus of every term.
//
// θ comes from an attempt that missed: what its ranked page reached, or the limit-th best
// partition of its best few matches with the bonus they hold at least. With none known,
// the first attempt here ranks the passages holding one of the rarest terms, enough of
// them to fill the best few, against the bound of a passage holding none of them; a miss
// then tells θ for a second.

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/bfgo/bf/libbf/cache"
)

const (
	// reachTermsMost is the most terms whose sets are enumerated (2^n of them).
	reachTermsMost = 12
	// reachClausesMost is the most sets the expression of the passages that can reach may
	// join: each is an iterator of FTS5's per term.
	reachClausesMost = 64
	// reachRounds is the most attempts here: the second has the θ the first found.
	reachRounds = 2
)

// termCounts returns the passages holding each term, counted once per search for the
// bounds here and for heavy.go's BM25. The cache keeps the count of every term that has a
// head, the frequent ones, whose whole list FTS5 would read to count it; FTS5 counts the
// others.
func (w *wordSearch) termCounts() ([]uint64, error) {
	if w.counts == nil {
		total, err := w.rowCount()
		if err != nil {
			return nil, err
		}
		counts := make([]uint64, len(w.terms))
		for k, term := range w.terms {
			if t := w.indexedTerms[k]; t != "" {
				n, ok, err := cache.TermDocs(w.ctx, w.p.tx, t)
				if err != nil {
					return nil, err
				}
				if ok {
					counts[k] = n
					w.stats.storedCounts++
					continue
				}
			}
			if err := w.p.tx.QueryRowContext(w.ctx, countSQL, term).Scan(&counts[k]); err != nil {
				return nil, err
			}
		}
		w.total, w.counts = total, counts
	}
	return w.counts, nil
}

// termIDF returns the idf of each term as FTS5 computes it but for the last bit of the
// logarithm (boundMargin covers it); false when FTS5 cannot have those counts, which
// leaves no bound.
func (w *wordSearch) termIDF() ([]float64, bool, error) {
	if _, err := w.termCounts(); err != nil {
		return nil, false, err
	}
	idfs := make([]float64, len(w.counts))
	for k, c := range w.counts {
		v, ok := idf(w.total, c)
		if !ok {
			return nil, false, nil
		}
		idfs[k] = v
	}
	return idfs, true, nil
}

// rankReachable ranks the passages whose terms can reach the page, at most reachRounds
// times, and reports whether the page is settled; when it is not, the search is as new.
func (w *wordSearch) rankReachable() (bool, error) {
	n := len(w.terms)
	if topFirst <= 0 || n < 2 || n > reachTermsMost {
		return false, nil
	}
	idfs, ok, err := w.termIDF()
	if err != nil || !ok {
		return false, err
	}
	theta := w.reached
	for range reachRounds {
		var among string
		var rest float64
		if theta > math.Inf(-1) {
			among, rest = w.reachable(idfs, theta)
		} else {
			among, rest = w.rarest(idfs)
		}
		if among == "" {
			return false, nil
		}
		settled, err := w.attempt(w.match, among, 0, func(last float64) (float64, error) {
			return max(last*w.weight*w.bonus(n), rest), nil
		}, nil)
		if settled || err != nil {
			return settled, err
		}
		// A lower θ widens the sets; a higher one would not have settled the page either:
		// the k-th passage's bound stood in the way.
		if !(w.reached > math.Inf(-1)) || w.reached >= rest*boundMargin {
			return false, nil
		}
		theta = w.reached
	}
	return false, nil
}

// reachable returns the expression of the passages that can score θ or more, the
// smallest sets of terms bounding at or above θ joined by OR, and the bound of every
// other passage; "" when no set reaches θ, when every term alone may (the expression
// would match every passage the query does) or when the sets are too many.
func (w *wordSearch) reachable(idfs []float64, theta float64) (string, float64) {
	n := len(w.terms)
	reaches := func(mask uint64) bool { return w.setBound(idfs, mask)*boundMargin >= theta }
	var clauses []string
	rest, singles := 0.0, 0
	for mask := uint64(1); mask < 1<<n; mask++ {
		if !reaches(mask) {
			rest = max(rest, w.setBound(idfs, mask))
			continue
		}
		smallest := true
		for m := mask; m != 0 && smallest; m &= m - 1 {
			if less := mask &^ (m & -m); less != 0 && reaches(less) {
				smallest = false
			}
		}
		if !smallest {
			continue
		}
		if bits.OnesCount64(mask) == 1 {
			singles++
		}
		clauses = append(clauses, w.conjunction(mask))
	}
	if singles == n || len(clauses) > reachClausesMost {
		return "", 0
	}
	return strings.Join(clauses, " OR "), rest
}

// rarest returns the expression of the passages holding one of the rarest terms, as few
// as hold at least k passages between them but never all the terms, and the bound of a
// passage holding none of them.
func (w *wordSearch) rarest(idfs []float64) (string, float64) {
	n := len(w.terms)
	order := make([]int, n)
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(w.counts[a], w.counts[b]) })
	k := uint64(topFirst + topPerRow*min(w.limit, 1<<20))
	var held uint64
	var some []string
	for _, t := range order[:n-1] {
		held |= 1 << t
		some = append(some, w.terms[t])
		if sumCounts(w.counts, held) >= k {
			break
		}
	}
	every := uint64(1)<<n - 1
	return strings.Join(some, " OR "), w.setBound(idfs, every&^held)
}

// conjunction is the FTS5 expression of the passages holding every term of mask.
func (w *wordSearch) conjunction(mask uint64) string {
	var terms []string
	for m := mask; m != 0; m &= m - 1 {
		terms = append(terms, w.terms[bits.TrailingZeros64(m)])
	}
	if len(terms) == 1 {
		return terms[0]
	}
	return "(" + strings.Join(terms, " AND ") + ")"
}

// sumCounts adds the counts of the terms of mask.
func sumCounts(counts []uint64, mask uint64) uint64 {
	var sum uint64
	for m := mask; m != 0; m &= m - 1 {
		sum += counts[bits.TrailingZeros64(m)]
	}
	return sum
}
