package cache

// The heads of the frequent terms: for every term in more than HeadMinPassages passages,
// the HeadLength passages of its best BM25 when the generation was built, each with the
// term's weighted count (RankWeights) and its size in tokens, and for the term's other
// passages the pairs (weighted count, size) no other of them beats on both (rest). BM25
// of one term grows with the count and falls with the size whatever the row count, the
// average size and the rows holding the term, so the best of the rest pairs bounds every
// passage left out of the head under the statistics of any later refresh. A refresh
// records every passage it writes or removes in touched: their head entries and rest
// pairs are no longer theirs, and search scores them apart (libbf/search, heads.go).
//
// The counts come from package terms, which cuts text as the search table's tokenizer
// does; the build reads the search rows once more, after FTS5 has indexed them.
//
// The same pass counts the rows holding each of these terms (term_docs), which BM25's idf
// needs and FTS5 finds only by reading the term's whole list; every refresh then keeps
// them exact (termdocs.go).

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/bfgo/bf/libbf/terms"
)

// HeadMinPassages is the fewest passages a term must be in, plus one, for the build to
// keep its head; HeadLength is how many passages a head keeps. Tests shrink them.
var (
	HeadMinPassages int64 = 5000
	HeadLength            = 512
)

// HeadEntry is a passage of a term's head: the term's weighted count in it and its size.
type HeadEntry struct {
	Passage int64
	Freq    float64
	Size    int64
}

// RestPair is a weighted count and size of a passage holding the term outside its head.
type RestPair struct {
	Freq float64
	Size int64
}

const (
	headsSQL     = `SELECT entries, rest FROM heads WHERE term = ?`
	touchedSQL   = `SELECT passage FROM touched`
	addHeadSQL   = `INSERT INTO heads(term, entries, rest) VALUES(?, ?, ?)`
	addDocsSQL   = `INSERT INTO term_docs(term, docs) VALUES(?, ?)`
	frequentSQL  = `SELECT term FROM vocabulary WHERE doc > ?`
	searchRowSQL = `SELECT rowid, title, text, names, context FROM search`
	totalsSQL    = `SELECT block FROM search_data WHERE id = 1`
)

// Head returns the head of an indexed term and its rest pairs; false when the generation
// keeps none for it.
func Head(ctx context.Context, q Querier, term string) ([]HeadEntry, []RestPair, bool, error) {
	var entries, rest []byte
	err := q.QueryRowContext(ctx, headsSQL, term).Scan(&entries, &rest)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, err
	}
	var out []HeadEntry
	for len(entries) > 0 {
		var v [3]uint64
		if entries, err = uvarints(entries, v[:]); err != nil {
			return nil, nil, false, fmt.Errorf("the head of %q in the heads table: %w", term, err)
		}
		out = append(out, HeadEntry{Passage: int64(v[0]), Freq: float64(v[1]) / 2, Size: int64(v[2])})
	}
	var pairs []RestPair
	for len(rest) > 0 {
		var v [2]uint64
		if rest, err = uvarints(rest, v[:]); err != nil {
			return nil, nil, false, fmt.Errorf("the rest of %q in the heads table: %w", term, err)
		}
		pairs = append(pairs, RestPair{Freq: float64(v[0]) / 2, Size: int64(v[1])})
	}
	return out, pairs, true, nil
}

// Touched returns the passages refreshes wrote or removed since the build.
func Touched(ctx context.Context, q Querier) ([]int64, error) {
	rows, err := q.QueryContext(ctx, touchedSQL)
	return ReadRows(rows, err, ScanInt64)
}

func uvarints(b []byte, out []uint64) ([]byte, error) {
	for i := range out {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errors.New("damaged entry; delete .bf/ to rebuild the cache")
		}
		out[i], b = v, b[n:]
	}
	return b, nil
}

// headAcc gathers one frequent term's head while the rows are read.
type headAcc struct {
	// top is a min-heap of the best entries by impact.
	top []headCandidate
	// small and rest map twice a weighted count to the least size seen with it outside
	// top (keepRest); a size is never 0, so 0 in small is unseen.
	small  []int64
	rest   map[uint64]int64
	freq   float64
	lastID int64
	// docs counts the rows holding the term.
	docs int64
}

type headCandidate struct {
	impact float64
	e      HeadEntry
}

// buildHeads writes the heads of the frequent terms of a generation whose search table
// is complete.
func buildHeads(ctx context.Context, tx *sql.Tx) error {
	// What the build itself wrote is in the heads.
	if _, err := tx.ExecContext(ctx, `DELETE FROM touched`); err != nil {
		return err
	}
	rows, err := tx.QueryContext(ctx, frequentSQL, HeadMinPassages)
	frequent, err := ReadRows(rows, err, func(r *sql.Rows) (s string, err error) { return s, r.Scan(&s) })
	if err != nil || len(frequent) == 0 {
		return err
	}
	var block []byte
	if err := tx.QueryRowContext(ctx, totalsSQL).Scan(&block); err != nil {
		return err
	}
	_, avgdl, err := AverageSize(block)
	if err != nil {
		return err
	}
	accs := make(map[string]*headAcc, len(frequent))
	for _, t := range frequent {
		accs[t] = &headAcc{rest: map[uint64]int64{}, lastID: -1}
	}
	rs, err := tx.QueryContext(ctx, searchRowSQL)
	if err != nil {
		return err
	}
	defer rs.Close()
	var cut terms.Cutter
	var held []*headAcc
	for rs.Next() {
		var id int64
		var cols [4]string
		if err := rs.Scan(&id, &cols[0], &cols[1], &cols[2], &cols[3]); err != nil {
			return err
		}
		held = held[:0]
		size := int64(0)
		for col, s := range cols {
			weight := RankWeights[col]
			cut.Each(s, func(term []byte) {
				size++
				a := accs[string(term)]
				if a == nil {
					return
				}
				if a.lastID != id {
					a.lastID, a.freq = id, 0
					held = append(held, a)
				}
				a.freq += weight
			})
		}
		for _, a := range held {
			a.docs++
			a.add(HeadEntry{Passage: id, Freq: a.freq, Size: size}, avgdl)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := rs.Err(); err != nil {
		return err
	}
	rs.Close()
	st, err := tx.PrepareContext(ctx, addHeadSQL)
	if err != nil {
		return err
	}
	defer st.Close()
	docs, err := tx.PrepareContext(ctx, addDocsSQL)
	if err != nil {
		return err
	}
	defer docs.Close()
	for _, t := range frequent {
		entries, rest := accs[t].encode()
		if _, err := st.ExecContext(ctx, t, entries, rest); err != nil {
			return err
		}
		if _, err := docs.ExecContext(ctx, t, accs[t].docs); err != nil {
			return err
		}
	}
	return nil
}

// add keeps an entry in the head when its impact is among the best, and the pair of the
// one it displaces (or its own) in the rest. The impact orders passages as their BM25 for
// the term does under the build's average size, whatever the idf.
func (a *headAcc) add(e HeadEntry, avgdl float64) {
	c := headCandidate{impact: e.Freq / (e.Freq + bM25K1*(1-bM25B+bM25B*float64(e.Size)/avgdl)), e: e}
	if len(a.top) < HeadLength {
		a.top = append(a.top, c)
		a.up(len(a.top) - 1)
		return
	}
	if c.impact > a.top[0].impact {
		c, a.top[0] = a.top[0], c
		a.down(0)
	}
	a.keepRest(uint64(c.e.Freq*2), c.e.Size)
}

// keepRest keeps the least size seen with twice a weighted count outside the head: small
// counts in a slice, the rare large ones in a map.
func (a *headAcc) keepRest(f uint64, size int64) {
	if f < restDense {
		if int(f) >= len(a.small) {
			a.small = append(a.small, make([]int64, int(f)+1-len(a.small))...)
		}
		if s := a.small[f]; s == 0 || size < s {
			a.small[f] = size
		}
		return
	}
	if s, ok := a.rest[f]; !ok || size < s {
		a.rest[f] = size
	}
}

// restDense bounds the counts kept in headAcc.small.
const restDense = 1024

func (a *headAcc) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if a.top[p].impact <= a.top[i].impact {
			return
		}
		a.top[p], a.top[i] = a.top[i], a.top[p]
		i = p
	}
}

func (a *headAcc) down(i int) {
	for {
		l, least := 2*i+1, i
		if l < len(a.top) && a.top[l].impact < a.top[least].impact {
			least = l
		}
		if r := l + 1; r < len(a.top) && a.top[r].impact < a.top[least].impact {
			least = r
		}
		if least == i {
			return
		}
		a.top[least], a.top[i] = a.top[i], a.top[least]
		i = least
	}
}

// encode returns the head, best impact first, and the rest pairs no other rest pair
// beats on both count and size.
func (a *headAcc) encode() (entries, rest []byte) {
	slices.SortFunc(a.top, func(x, y headCandidate) int {
		if x.impact != y.impact {
			if x.impact > y.impact {
				return -1
			}
			return 1
		}
		return int(x.e.Passage - y.e.Passage)
	})
	entries = []byte{}
	for _, c := range a.top {
		entries = binary.AppendUvarint(entries, uint64(c.e.Passage))
		entries = binary.AppendUvarint(entries, uint64(c.e.Freq*2))
		entries = binary.AppendUvarint(entries, uint64(c.e.Size))
	}
	for f, s := range a.small {
		if s > 0 {
			a.rest[uint64(f)] = s
		}
	}
	freqs := make([]uint64, 0, len(a.rest))
	for f := range a.rest {
		freqs = append(freqs, f)
	}
	// From the largest count down, a pair is kept when its size is below every size kept.
	slices.Sort(freqs)
	rest = []byte{}
	least := int64(math.MaxInt64)
	for i := len(freqs) - 1; i >= 0; i-- {
		f := freqs[i]
		if s := a.rest[f]; s < least {
			least = s
			rest = binary.AppendUvarint(rest, f)
			rest = binary.AppendUvarint(rest, uint64(s))
		}
	}
	return entries, rest
}

// AverageSize reads the average row size in tokens, as FTS5's bm25 computes it, from the
// search index's totals record (SQLite varints: the row count, then each column's tokens).
// It returns the row count too.
func AverageSize(block []byte) (uint64, float64, error) {
	rows, n := SQLiteVarint(block)
	var tokens uint64
	for range SearchColumns {
		if n == 0 {
			return 0, 0, errors.New("the search index's totals record is damaged")
		}
		block = block[n:]
		var v uint64
		v, n = SQLiteVarint(block)
		tokens += v
	}
	if n == 0 || rows == 0 {
		return 0, 0, errors.New("the search index's totals record is damaged")
	}
	return rows, float64(int64(tokens)) / float64(int64(rows)), nil
}

// SQLiteVarint decodes an SQLite varint (FTS5's records): big-endian groups of 7 bits, the ninth byte
// whole. It returns the value and its length, 0 when b holds none.
func SQLiteVarint(b []byte) (uint64, int) {
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
