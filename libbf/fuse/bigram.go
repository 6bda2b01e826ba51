package fuse

import (
	"context"
	"database/sql"
)

// bigramSQL lists the passages matching the bigram query (?1), best first, at most ?2.
const bigramSQL = `SELECT p.item, -bm25(bigrams) FROM bigrams CROSS JOIN passages p ON p.id = bigrams.rowid
	WHERE bigrams MATCH ?1 ORDER BY bm25(bigrams), p.item LIMIT ?2`

// bigramHits are the items whose Chinese, Japanese, Korean or Thai runs hold a query
// word inside a longer run, found through the cache's bigram index, each by its best
// passage, best first.
func bigramHits(ctx context.Context, db *sql.Tx, query string, depth int) ([]scored, error) {
	var out []scored
	seen := map[int64]bool{}
	err := each(ctx, db, bigramSQL, func(rows *sql.Rows) error {
		var s scored
		if err := rows.Scan(&s.id, &s.score); err != nil {
			return err
		}
		if !seen[s.id] && len(out) < depth {
			seen[s.id] = true
			out = append(out, s)
		}
		return nil
	}, query, 4*depth)
	return out, err
}
