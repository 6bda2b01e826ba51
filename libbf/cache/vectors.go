package cache

import (
	"context"
	"path/filepath"

	"github.com/bfgo/bf/libbf/brain"
)

// Pending is a chunk text without a vector for a model.
type Pending struct {
	Hash, Text string
}

// Pending lists the distinct chunk texts that have no vector for model yet, by hash.
func (c *Cache) Pending(ctx context.Context, model string) ([]Pending, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT c.hash, min(c.text) FROM chunks c
		WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = ?1 AND v.hash = c.hash)
		GROUP BY c.hash ORDER BY c.hash`, model)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Pending
	for rows.Next() {
		var p Pending
		if err := rows.Scan(&p.Hash, &p.Text); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// StoreVectors writes vectors (by chunk hash, already encoded) for model into the live
// generation of b's cache, under the writer lock, and drops the vectors no chunk uses any
// more. Open the cache first: a brain without a live generation has nothing to embed.
func StoreVectors(ctx context.Context, b *brain.Brain, model string, vectors map[string][]byte) error {
	dir, err := prepareDir(b.Root)
	if err != nil {
		return err
	}
	writer, err := acquire(ctx, dir, WriterLockFile, true, missingWait)
	if err != nil {
		return busyError(err, "another process is writing the search cache in .bf")
	}
	defer releaseWriter(dir, writer)
	db, err := openFile(filepath.Join(dir, IndexFile), false)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO vectors(model, hash, vector) VALUES(?, ?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	for hash, v := range vectors {
		if _, err := st.ExecContext(ctx, model, hash, v); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM vectors WHERE hash NOT IN (SELECT hash FROM chunks)`); err != nil {
		return err
	}
	return tx.Commit()
}
