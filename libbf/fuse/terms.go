package fuse

import (
	"context"
	"database/sql"

	"github.com/bfgo/bf/libbf/search"
)

// heldSQL tells whether one of an item's passages holds a term.
const heldSQL = `SELECT EXISTS(SELECT 1 FROM search
	WHERE search MATCH ?1 AND rowid IN (SELECT id FROM passages WHERE item = ?2))`

// holdings finds the query terms the shown items hold, with the statement prepared once
// per brain of the search. Close it when the page is printed.
type holdings struct {
	stmts map[int]*sql.Stmt
}

// matched lists the query terms an item holds, as the query wrote them.
func (hs *holdings) matched(ctx context.Context, s *search.Session, h search.Hit) ([]string, error) {
	st := hs.stmts[h.Brain]
	if st == nil {
		var err error
		if st, err = s.DB(h.Brain).PrepareContext(ctx, heldSQL); err != nil {
			return nil, err
		}
		if hs.stmts == nil {
			hs.stmts = map[int]*sql.Stmt{}
		}
		hs.stmts[h.Brain] = st
	}
	var out []string
	for _, t := range s.Query().Terms {
		var held bool
		if err := st.QueryRowContext(ctx, t.Match(), h.ID).Scan(&held); err != nil {
			return nil, err
		}
		if held {
			out = append(out, t.Display())
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
