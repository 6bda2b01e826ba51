package search

// The BM25 of a few listed passages, counted in Go. Asked for the BM25 of some passages
// (listedRows), FTS5 walks every match of the query's terms to find the listed ones, and
// its bm25() walks each term's list once more to count the rows holding it: for a common
// word, most of a search that the heads (heads.go) otherwise settle from a few hundred
// passages. When every query term is one indexed term or a phrase of them, the listed
// passages' text is read from the search table's content instead and cut as its tokenizer
// cuts it (package terms), a phrase found as FTS5 finds it (its words at consecutive places
// of one column), and BM25 is computed from the counts with FTS5's own arithmetic
// (cache.BM25) and statistics: the score FTS5 returns, bit for bit (TestCountedScores
// compares them).

import (
	"cmp"
	"database/sql"
	"slices"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fold"
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

// counting is what counting BM25 in Go needs of a query beyond its statistics: the
// indexed terms of each query term (one for a word, those of a phrase in order).
type counting struct {
	phrases [][]string
	// words numbers the distinct indexed terms; phraseWords are each phrase's as numbers.
	words       map[string]int
	phraseWords [][]int
	// first marks the first bytes of the words: others are never stemmed (EachStarting).
	first [256]bool
}

// newCounting returns the counting of a query's terms, given the one indexed term each
// stands for ("" for none), or nil when a term is a prefix: FTS5 then scores them.
func newCounting(ts []fold.Term, indexed []string) *counting {
	if !countedScoring {
		return nil
	}
	c := &counting{words: map[string]int{}}
	for k, t := range ts {
		phrase := []string{indexed[k]}
		if indexed[k] == "" {
			if t.Prefix || !t.Phrase {
				return nil
			}
			if phrase = terms.Terms(t.Text); len(phrase) == 0 {
				return nil
			}
		}
		var ws []int
		for _, word := range phrase {
			n, ok := c.words[word]
			if !ok {
				n = len(c.words)
				c.words[word] = n
				c.first[word[0]] = true
			}
			ws = append(ws, n)
		}
		c.phrases, c.phraseWords = append(c.phrases, phrase), append(c.phraseWords, ws)
	}
	return c
}

// wordAt is a word of the query at its place among a column's terms.
type wordAt struct{ at, word int }

// count adds to freq and tfreq each query term's instances in a column, as FTS5 finds a
// phrase: its words at consecutive places. found are the column's query words in order.
func (c *counting) count(found []wordAt, rank, title float64, freq, tfreq []float64) {
	for k, ws := range c.phraseWords {
		for i, f := range found {
			if f.word != ws[0] || i+len(ws) > len(found) {
				continue
			}
			whole := true
			for j := 1; j < len(ws); j++ {
				if g := found[i+j]; g.at != f.at+j || g.word != ws[j] {
					whole = false
					break
				}
			}
			if whole {
				freq[k] += rank
				tfreq[k] += title
			}
		}
	}
}

// scoreListed returns what scoreMatch(w.match, listedRows, ids) returns: the listed
// passages matching the query (within the scope's range), in passage order, with their
// BM25 and whether they match by title or text. It counts them in Go when it can.
func (w *wordSearch) scoreListed(ids []int64) ([]scoredRow, error) {
	if w.counting == nil || len(ids) > countedMost {
		return w.scoreMatch(w.match, listedRows, sql.Named("ids", jsontext.Int64s(ids)))
	}
	c := w.counting
	st, err := w.statistics()
	if err != nil {
		return nil, err
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
			b, tt, err := w.heavy.score(w.ctx, w.p, st, id)
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
	freq := make([]float64, len(c.phrases))
	tfreq := make([]float64, len(c.phrases))
	var found []wordAt
	for rows.Next() {
		var id int64
		var cols [4]sql.RawBytes
		if err := rows.Scan(&id, &cols[0], &cols[1], &cols[2], &cols[3]); err != nil {
			return nil, err
		}
		clear(freq)
		clear(tfreq)
		size := 0
		for col, s := range cols {
			found = found[:0]
			size += cut.EachStartingAt(string(s), &c.first, func(term []byte, at int) {
				if n, ok := c.words[string(term)]; ok {
					found = append(found, wordAt{at, n})
				}
			})
			if len(found) > 0 {
				c.count(found, cache.RankWeights[col], cache.TitleTextWeights[col], freq, tfreq)
			}
		}
		if !slices.ContainsFunc(freq, func(f float64) bool { return f > 0 }) {
			continue
		}
		out = append(out, scoredRow{id: id,
			b:  cache.BM25(st.idf, freq, float64(size), st.avgdl),
			tt: cache.BM25(st.idf, tfreq, float64(size), st.avgdl) > 0})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b scoredRow) int { return cmp.Compare(a.id, b.id) })
	return out, nil
}
