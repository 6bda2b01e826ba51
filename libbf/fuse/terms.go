package fuse

import (
	"context"
	"database/sql"
	"slices"

	"github.com/bfgo/bf/libbf/fold"

	"github.com/bfgo/bf/libbf/search"
)

// heldSQL tells whether one of an item's passages holds a term.
const heldSQL = `SELECT EXISTS(SELECT 1 FROM search
	WHERE search MATCH ?1 AND rowid IN (SELECT id FROM passages WHERE item = ?2))`

// heldBigramsSQL tells whether one of an item's passages holds a bigram phrase.
const heldBigramsSQL = `SELECT EXISTS(SELECT 1 FROM bigrams
	WHERE bigrams MATCH ?1 AND rowid IN (SELECT id FROM passages WHERE item = ?2))`

// holdings finds the query terms the shown items hold, with the statements prepared once
// per brain of the search. Close it when the page is printed.
type holdings struct {
	stmts map[stmtKey]*sql.Stmt
}

// stmtKey names a statement prepared for one brain.
type stmtKey struct {
	brain int
	query string
}

// stmt is the statement of query for brain i, prepared on first use.
func (hs *holdings) stmt(ctx context.Context, s *search.Session, i int, query string) (*sql.Stmt, error) {
	k := stmtKey{i, query}
	if st := hs.stmts[k]; st != nil {
		return st, nil
	}
	st, err := s.DB(i).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if hs.stmts == nil {
		hs.stmts = map[stmtKey]*sql.Stmt{}
	}
	hs.stmts[k] = st
	return st, nil
}

// matched lists the query terms an item holds, as the query wrote them, then the
// unspaced runs of the query (記録) it holds only inside a longer run (果樹園の記録),
// found through the bigram index.
func (hs *holdings) matched(ctx context.Context, s *search.Session, h search.Hit) ([]string, error) {
	var out []string
	holds := func(query, match string) (bool, error) {
		st, err := hs.stmt(ctx, s, h.Brain, query)
		if err != nil {
			return false, err
		}
		var held bool
		err = st.QueryRowContext(ctx, match, h.ID).Scan(&held)
		return held, err
	}
	for _, t := range s.Query().Terms {
		held, err := holds(heldSQL, t.Match())
		if err != nil {
			return nil, err
		}
		if held {
			out = append(out, t.Display())
		}
	}
	for _, p := range fold.BigramPhrases(s.Query().Terms) {
		if slices.Contains(out, p.Run) {
			continue
		}
		held, err := holds(heldBigramsSQL, p.Phrase)
		if err != nil {
			return nil, err
		}
		if held {
			out = append(out, p.Run)
		}
	}
	return out, nil
}

// close releases the prepared statements.
func (hs *holdings) close() {
	for _, st := range hs.stmts {
		st.Close()
	}
}
