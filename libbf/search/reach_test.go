package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestReachProperty ranks random brains with queries of two to seven words, common and
// rare, unscoped, where the attempt over the passages whose terms can reach the page runs
// after the one over the passages holding every term: every page must be the one scoring
// every match gives, and the attempt must both settle pages from a missed attempt's θ and
// from its probe of the rarest terms, and miss.
func TestReachProperty(t *testing.T) {
	var st rankStats
	var probed int
	defer func() { traceRank = nil }()
	traceRank = func(s rankStats) {
		st.reachBound += s.reachBound
		st.reachMissed += s.reachMissed
		st.everyMissed += s.everyMissed
		if s.reachBound > 0 && s.everyMissed == 0 {
			probed++
		}
	}
	for _, seed := range []uint64{2, 3} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 31))
			b, vocab := randomBrain(t, r)
			parts := openParts(t, b)
			for range 60 {
				// Words of middling frequency, so that the sets of terms that can reach the
				// page are of several sizes.
				ws := make([]string, 2+r.IntN(6))
				for i := range ws {
					switch r.IntN(4) {
					case 0:
						ws[i] = vocab[r.IntN(4)]
					case 1:
						ws[i] = vocab[r.IntN(len(vocab))]
					default:
						ws[i] = vocab[3+r.IntN(12)]
					}
				}
				limit := []int64{1, 3, 5, 10}[r.IntN(4)]
				checkSameRanking(t, parts[0], parts, strings.Join(ws, " "), "", []int64{limit})
			}
		})
	}
	if st.reachBound == 0 || st.reachMissed == 0 || probed == 0 || st.reachBound == probed {
		t.Errorf("the attempt over the passages whose terms can reach the page settled %d pages (%d from its probe) and missed %d: each must happen",
			st.reachBound, probed, st.reachMissed)
	}
}

// TestReachableSets checks the sets of terms that can reach a page and the bound of the
// others, for idf 3, 2 and 1 (BM25Cap 2.2, weight 1, bonus 1, 1.1 and 1.2): a alone bounds
// 6.6, b 4.4, c 2.2, a and b 12.1, a and c 9.68, b and c 7.26, all three 15.84.
func TestReachableSets(t *testing.T) {
	w := &wordSearch{terms: []string{`"a"`, `"b"`, `"c"`}, asked: 3, weight: 1}
	idfs := []float64{3, 2, 1}
	for _, c := range []struct {
		theta float64
		among string
		rest  float64
	}{
		{7, `("a" AND "b") OR ("a" AND "c") OR ("b" AND "c")`, 6.6},
		{10, `("a" AND "b")`, 9.68},
		{5, `"a" OR ("b" AND "c")`, 4.4},
		{15.84, `("a" AND "b" AND "c")`, 12.1},
		{2, "", 0}, // every term alone can reach: the expression would be the query's
		{20, "", 15.84},
	} {
		among, rest := w.reachable(idfs, c.theta)
		if among != c.among || math.Abs(rest-c.rest) > 1e-9 {
			t.Errorf("θ %v: %q, rest %v; want %q, rest %v", c.theta, among, rest, c.among, c.rest)
		}
	}
	for _, c := range []struct {
		counts []uint64
		among  string
		rest   float64
	}{
		// The rarest terms until they hold k = 300 passages, never all of them.
		{[]uint64{5, 1000, 20}, `"a" OR "c"`, 4.4},
		{[]uint64{500, 1000, 20}, `"c" OR "a"`, 4.4},
		{[]uint64{400, 1000, 2000}, `"a"`, 3 * 2.2 * 1.1},
	} {
		w.counts, w.limit = c.counts, 10
		among, rest := w.rarest(idfs)
		if among != c.among || math.Abs(rest-c.rest) > 1e-9 {
			t.Errorf("counts %v: %q, rest %v; want %q, rest %v", c.counts, among, rest, c.among, c.rest)
		}
	}
}
