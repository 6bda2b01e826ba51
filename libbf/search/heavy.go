package search

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fold"
)

// FTS5's bm25() lists every instance of every query term in a row before summing them,
// so a passage of one word repeated 650,000 times costs more than the rest of a search.
// The cache keeps the term counts of such passages (the heavy table), and their BM25 is
// computed here from those counts: with the same statistics (rows, tokens, the row's size,
// the rows holding each term) and the same floating-point steps as FTS5's bm25, so the
// score is the one FTS5 returns, bit for bit (TestHeavyScores compares them).

// heavyScoring turns the scorer on; tests turn it off to compare with FTS5.
var heavyScoring = true

// heavySQL lists the passages whose counts the cache keeps.
const heavySQL = `SELECT passage FROM heavy`

// heavy scores the passages of the heavy table for one query.
type heavy struct {
	// terms are the indexed term of each query term.
	terms []string
	// ready once the statements are prepared, when a heavy passage is first scored.
	ready bool
	size  *sql.Stmt
	count *sql.Stmt
}

// newHeavy returns the scorer of a query's heavy passages, or nil when the brain has none or
// a term is not one indexed term (a prefix or several words: FTS5 then scores every passage).
func newHeavy(ctx context.Context, p *part, terms []fold.Term) (*heavy, error) {
	if !heavyScoring {
		return nil, nil
	}
	var some bool
	if err := p.tx.QueryRowContext(ctx, `SELECT EXISTS(`+heavySQL+`)`).Scan(&some); err != nil || !some {
		return nil, err
	}
	h := &heavy{}
	for _, t := range terms {
		term, ok := indexedTerm(t)
		if !ok {
			return nil, nil
		}
		h.terms = append(h.terms, term)
	}
	return h, nil
}

// indexedTerm is the one indexed term a query term stands for; false for a prefix, a
// phrase or several words.
func indexedTerm(t fold.Term) (string, bool) {
	if t.Prefix || t.Phrase {
		return "", false
	}
	counts := cache.TermCounts([4]string{1: t.Text})
	if len(counts) != 1 || counts[0].Count != 1 {
		return "", false
	}
	return counts[0].Term, true
}

// exactIDF is each term's idf as FTS5's bm25 computes it, from the row count and the rows
// holding each term.
func exactIDF(ctx context.Context, p *part, rows uint64, hits []uint64) ([]float64, error) {
	var out []float64
	for _, n := range hits {
		// The logarithm is SQLite's, the C library's that FTS5 calls: Go's math.Log differs
		// from it in the last bit for some values.
		var idf float64
		ratio := (float64(int64(rows)-int64(n)) + 0.5) / (float64(int64(n)) + 0.5)
		if err := p.tx.QueryRowContext(ctx, `SELECT ln(?)`, ratio).Scan(&idf); err != nil {
			return nil, err
		}
		if idf <= 0 {
			idf = 1e-6
		}
		out = append(out, idf)
	}
	return out, nil
}

func (h *heavy) close() {
	for _, st := range []*sql.Stmt{h.size, h.count} {
		if st != nil {
			st.Close()
		}
	}
}

// statistics are what FTS5's bm25 starts from for one query: the average row size in
// tokens (from the averages record) and each term's idf from the rows holding it.
type statistics struct {
	avgdl float64
	idf   []float64
}

// statistics reads the query's statistics once.
func (w *wordSearch) statistics() (*statistics, error) {
	if w.stats25 != nil {
		return w.stats25, nil
	}
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
	st := &statistics{avgdl: avgdl}
	if st.idf, err = exactIDF(w.ctx, w.p, rows, hits); err != nil {
		return nil, err
	}
	w.stats25 = st
	return st, nil
}

// prepare prepares the statements reading a heavy passage's size and counts.
func (h *heavy) prepare(ctx context.Context, p *part) error {
	var err error
	if h.size, err = p.tx.PrepareContext(ctx, `SELECT sz FROM search_docsize WHERE id = ?`); err != nil {
		return err
	}
	if h.count, err = p.tx.PrepareContext(ctx, `SELECT term, col, count FROM heavy WHERE passage = ?`); err != nil {
		return err
	}
	h.ready = true
	return nil
}

// score returns what scoreSQL returns for a heavy passage: BM25 negated, and whether it
// matches by its title or text.
func (h *heavy) score(ctx context.Context, p *part, st *statistics, id int64) (float64, bool, error) {
	if !h.ready {
		if err := h.prepare(ctx, p); err != nil {
			return 0, false, err
		}
	}
	var sz []byte
	if err := h.size.QueryRowContext(ctx, id).Scan(&sz); err != nil {
		return 0, false, err
	}
	var size int32
	for range cache.SearchColumns {
		v, n := cache.SQLiteVarint(sz)
		if n == 0 {
			return 0, false, errors.New("the search index's size record is damaged")
		}
		size += int32(v)
		sz = sz[n:]
	}
	rows, err := h.count.QueryContext(ctx, id)
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	freq := make([]float64, len(h.terms))
	tfreq := make([]float64, len(h.terms))
	for rows.Next() {
		var term string
		var col int
		var count int64
		if err := rows.Scan(&term, &col, &count); err != nil {
			return 0, false, err
		}
		if col < 0 || col >= len(cache.RankWeights) {
			return 0, false, errors.New("the heavy table names an unknown column")
		}
		for k, t := range h.terms {
			if t == term {
				freq[k] += float64(cache.RankWeights[col] * float64(count))
				tfreq[k] += float64(cache.TitleTextWeights[col] * float64(count))
			}
		}
	}
	if err := rows.Err(); err != nil {
		return 0, false, err
	}
	return cache.BM25(st.idf, freq, float64(size), st.avgdl), cache.BM25(st.idf, tfreq, float64(size), st.avgdl) > 0, nil
}

// scoreHeavySQL is scoreSQL leaving the BM25 of heavy passages NULL, for heavy.score.
var scoreHeavySQL = `SELECT search.rowid,
		CASE WHEN search.rowid IN (` + heavySQL + `) THEN NULL ELSE -` + cache.RankBM25 + ` END,
		CASE WHEN search.rowid IN (` + heavySQL + `) THEN NULL ELSE ` + cache.TitleTextBM25 + ` < 0 END
		FROM search WHERE search MATCH :match` + only

// scoredRow is a passage's BM25 negated and whether it matches by title or text.
type scoredRow struct {
	id int64
	b  float64
	tt bool
	// mask holds the terms the passage holds, when the statement that scored it tells.
	mask uint64
}

// scoreRows runs BM25 over the passages matching any term, restricted by restrict (a
// condition on search.rowid, or ""), in passage order.
func (w *wordSearch) scoreRows(restrict string, args ...any) ([]scoredRow, error) {
	return w.scoreMatch(w.match, restrict, args...)
}

// scoreMatch is scoreRows over the passages matching match, an expression of the query's
// terms in their order, so that BM25 is the query's for each passage it keeps.
func (w *wordSearch) scoreMatch(match, restrict string, args ...any) ([]scoredRow, error) {
	query := scoreSQL
	if w.heavy != nil {
		query = scoreHeavySQL
	}
	restrict, args = w.within(restrict, append([]any{sql.Named("match", match)}, args...)...)
	rows, err := w.p.tx.QueryContext(w.ctx, strings.NewReplacer(only, restrict).Replace(query), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	w.stats.passes++
	var out []scoredRow
	var later []int
	for rows.Next() {
		var r scoredRow
		var b sql.NullFloat64
		var tt sql.NullBool
		if err := rows.Scan(&r.id, &b, &tt); err != nil {
			return nil, err
		}
		r.b, r.tt = b.Float64, tt.Bool
		if !b.Valid {
			later = append(later, len(out))
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	w.stats.heavy += len(later)
	var st *statistics
	if len(later) > 0 {
		if st, err = w.statistics(); err != nil {
			return nil, err
		}
	}
	for _, i := range later {
		r := &out[i]
		if r.b, r.tt, err = w.heavy.score(w.ctx, w.p, st, r.id); err != nil {
			return nil, err
		}
	}
	return out, nil
}
