package cache

// The rows holding each term that has a head (term_docs), kept exact by every refresh: a
// search takes its idf from them instead of FTS5 counting the term's whole list. The build
// counts them with the heads (heads.go); a refresh cuts each search row it removes, read
// back before the delete, and each it writes, as the tokenizer does (package terms), and
// moves the count of every such term the row holds.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/bfgo/bf/libbf/terms"
)

const (
	termDocsSQL = `SELECT docs FROM term_docs WHERE term = ?`
	docTermsSQL = `SELECT term FROM term_docs`
)

// TermDocs returns the number of search rows holding an indexed term, as the cache keeps it
// for the terms that have a head; false for another term, whose rows FTS5 must count.
func TermDocs(ctx context.Context, q Querier, term string) (uint64, bool, error) {
	var n int64
	err := q.QueryRowContext(ctx, termDocsSQL, term).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	if n < 0 {
		return 0, false, fmt.Errorf("the term_docs table counts %d rows holding %q; delete .bf/ to rebuild the cache", n, term)
	}
	return uint64(n), true, nil
}

// termDocs moves the counts of term_docs as a writer removes and writes search rows.
type termDocs struct {
	// terms are the terms of the table; none when the generation keeps no heads.
	terms map[string]*docCount
	// first marks the first bytes of the terms, so that rows are cut for them alone.
	first [256]bool
	// moved are the terms whose count moved since the last write.
	moved []*docCount
	row   uint64
	cut   terms.Cutter
}

// docCount is how far a term's count moved, not yet written.
type docCount struct {
	term  string
	delta int64
	// row is the last row that counted it, so a row counts each term once.
	row   uint64
	moved bool
}

// loadTermDocs reads the terms of term_docs.
func loadTermDocs(ctx context.Context, tx *sql.Tx) (*termDocs, error) {
	rows, err := tx.QueryContext(ctx, docTermsSQL)
	list, err := ReadRows(rows, err, func(r *sql.Rows) (s string, err error) { return s, r.Scan(&s) })
	if err != nil {
		return nil, err
	}
	d := &termDocs{}
	if len(list) == 0 {
		return d, nil
	}
	d.terms = make(map[string]*docCount, len(list))
	for _, t := range list {
		d.terms[t] = &docCount{term: t}
		if t != "" {
			d.first[t[0]] = true
		}
	}
	return d, nil
}

// active reports whether the generation keeps any count.
func (d *termDocs) active() bool { return len(d.terms) > 0 }

// count moves by delta the count of every term the row of these column values holds.
func (d *termDocs) count(cols [4]string, delta int64) {
	d.row++
	for _, s := range cols {
		d.cut.EachStarting(s, &d.first, func(term []byte) {
			c := d.terms[string(term)]
			if c == nil || c.row == d.row {
				return
			}
			c.row = d.row
			c.delta += delta
			if !c.moved {
				c.moved = true
				d.moved = append(d.moved, c)
			}
		})
	}
}

// write stores the counts moved since the last write.
func (d *termDocs) write(ctx context.Context, st *sql.Stmt) error {
	for _, c := range d.moved {
		if c.delta != 0 {
			if _, err := st.ExecContext(ctx, c.delta, c.term); err != nil {
				return err
			}
		}
		c.delta, c.moved = 0, false
	}
	clear(d.moved)
	d.moved = d.moved[:0]
	return nil
}

// uncount reads back the search row id is about to lose and moves the counts of its terms
// down; a row already gone holds none.
func (w *writer) uncount(ctx context.Context, id int64) error {
	var cols [4]string
	err := w.stmts["searchValues"].QueryRowContext(ctx, id).Scan(&cols[0], &cols[1], &cols[2], &cols[3])
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	w.docs.count(cols, -1)
	return nil
}
