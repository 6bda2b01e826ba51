package fuse

import (
	"context"
	"database/sql"

	"github.com/bfgo/bf/libbf/fold"
)

// heldSQL tells whether one of an item's passages holds a term.
const heldSQL = `SELECT EXISTS(SELECT 1 FROM search
	WHERE search MATCH ?1 AND rowid IN (SELECT id FROM passages WHERE item = ?2))`

// matched lists the query terms an item holds, as the query wrote them.
func matched(ctx context.Context, db *sql.Tx, item int64, terms []fold.Term) ([]string, error) {
	var out []string
	for _, t := range terms {
		var held bool
		if err := db.QueryRowContext(ctx, heldSQL, t.Match(), item).Scan(&held); err != nil {
			return nil, err
		}
		if held {
			out = append(out, t.Display())
		}
	}
	return out, nil
}
