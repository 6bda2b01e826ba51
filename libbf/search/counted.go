package search

// The BM25 of a few listed passages, counted in Go. Asked for the BM25 of some passages
// (listedRows), FTS5 walks every match of the query's terms to find the listed ones, and
// its bm25() walks each term's list once more to count the rows holding it: for a common
// word, most of a search that the heads (heads.go) otherwise settle from a few hundred
// passages. When every query term is one indexed term, the listed passages' text is read
// from the search table's content instead and cut as its tokenizer cuts it (package
// terms), and BM25 is computed from the counts with FTS5's own arithmetic (cache.BM25) and
// statistics: the score FTS5 returns, bit for bit (TestCountedScores compares them).

import (
	"cmp"
	"database/sql"
	"slices"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/jsontext"
	"github.com/bfgo/bf/libbf/terms"
)

// countedMost is the most passages counted in Go at once: reading and cutting each costs
// about 15 µs, so beyond a few thousand FTS5's walk of the lists costs less.
const countedMost = 2048

// countedScoring turns the counting on; tests turn it off to compare with FTS5.
var countedScoring = true

const (
	// contentSQL reads the columns of listed passages from the search table's content.
	contentSQL = `SELECT c.id, c.c0, c.c1, c.c2, c.c3 FROM json_each(:ids) j CROSS JOIN search_content c ON c.id = j.value`
	// heavyAmongSQL lists which of some passages are heavy (heavy.go).
	heavyAmongSQL = `SELECT DISTINCT passage FROM heavy WHERE passage IN (SELECT value FROM json_each(:ids))`
)

// counting is what counting BM25 in Go needs of a query: its indexed terms, the rows
// holding each, and the statistics of the search index.
type counting struct {
	terms []string
	// first marks the first bytes of the terms: others are never stemmed (EachStarting).
	first [256]bool
	ready bool
	idf   []float64
	avgdl float64
	hits  []uint64
}

// newCounting returns the counting of a query's terms, or nil when one is not a single
// indexed term (a prefix, a phrase, several words): FTS5 then scores them.
func newCounting(ts []string) *counting {
	if !countedScoring {
		return nil
	}
	c := &counting{terms: ts}
	for _, t := range ts {
		c.first[t[0]] = true
	}
	return c
}

// scoreListed returns what scoreMatch(w.match, listedRows, ids) returns: the listed
// passages matching the query (within the scope's range), in passage order, with their
// BM25 and whether they match by title or text. It counts them in Go when it can.
func (w *wordSearch) scoreListed(ids []int64) ([]scoredRow, error) {
	if w.counting == nil || len(ids) > countedMost {
		return w.scoreMatch(w.match, listedRows, sql.Named("ids", jsontext.Int64s(ids)))
	}
	c := w.counting
	if !c.ready {
		hits, err := w.termCounts()
		if err != nil {
			return nil, err
		}
		var block []byte
		if err := w.p.tx.QueryRowContext(w.ctx, averagesSQL).Scan(&block); err != nil {
			return nil, err
		}
		rows, avgdl, err := cache.AverageSize(block)
		if err != nil {
			return nil, err
		}
		if c.idf, err = exactIDF(w.ctx, w.p, rows, hits); err != nil {
			return nil, err
		}
		c.hits, c.avgdl, c.ready = hits, avgdl, true
	}
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if r := w.span(); r != nil {
		ids = slices.DeleteFunc(ids, func(id int64) bool { return id < r.lo || id > r.hi })
	}
	if len(ids) == 0 {
		return nil, nil
	}
	w.stats.passes++
	var out []scoredRow
	if w.heavy != nil {
		heavy, err := w.ids(heavyAmongSQL, sql.Named("ids", jsontext.Int64s(ids)))
		if err != nil {
			return nil, err
		}
		for _, id := range heavy {
			b, tt, err := w.heavy.score(w.ctx, w.p, c.hits, id)
			if err != nil {
				return nil, err
			}
			if b > 0 {
				out = append(out, scoredRow{id: id, b: b, tt: tt})
			}
		}
		w.stats.heavy += len(heavy)
		ids = slices.DeleteFunc(ids, func(id int64) bool { return slices.Contains(heavy, id) })
	}
	rows, err := w.p.tx.QueryContext(w.ctx, contentSQL, sql.Named("ids", jsontext.Int64s(ids)))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cut terms.Cutter
	freq := make([]float64, len(c.terms))
	tfreq := make([]float64, len(c.terms))
	for rows.Next() {
		var id int64
		var cols [4]sql.RawBytes
		if err := rows.Scan(&id, &cols[0], &cols[1], &cols[2], &cols[3]); err != nil {
			return nil, err
		}
		clear(freq)
		clear(tfreq)
		size := 0
		held := false
		for col, s := range cols {
			rank, title := cache.RankWeights[col], cache.TitleTextWeights[col]
			size += cut.EachStarting(string(s), &c.first, func(term []byte) {
				for k, t := range c.terms {
					if string(term) == t {
						freq[k] += rank
						tfreq[k] += title
						held = true
					}
				}
			})
		}
		if !held {
			continue
		}
		out = append(out, scoredRow{id: id,
			b:  cache.BM25(c.idf, freq, float64(size), c.avgdl),
			tt: cache.BM25(c.idf, tfreq, float64(size), c.avgdl) > 0})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b scoredRow) int { return cmp.Compare(a.id, b.id) })
	return out, nil
}
