package vector

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fuse"
)

// Report says what an embedding pass did.
type Report struct {
	// Embedded counts the chunk texts given a vector by this pass.
	Embedded int `json:"embedded"`
	// Chunks counts the brain's distinct chunk texts.
	Chunks int `json:"chunks"`
}

// Embed computes the vectors the brain's cache lacks for its declared provider and
// stores them. A brain without an embeddings provider has nothing to do.
func Embed(ctx context.Context, b *brain.Brain) (Report, error) {
	var r Report
	if b.Config == nil || b.Config.Embeddings == nil {
		return r, nil
	}
	if ok, err := trusted(b); err != nil {
		return r, err
	} else if !ok {
		return r, ErrUntrusted
	}
	p := New(b.Config.Embeddings, b.Root)
	c, err := cache.Open(ctx, b)
	if err != nil {
		return r, err
	}
	pending, err := c.Pending(ctx, p.Model())
	if err == nil {
		err = c.DB().QueryRowContext(ctx, `SELECT count(DISTINCT hash) FROM chunks`).Scan(&r.Chunks)
	}
	var stored int
	if err == nil {
		stored, err = storedDimensions(ctx, c.DB(), p.Model())
	}
	c.Close()
	if err != nil {
		return r, err
	}
	if len(pending) == 0 {
		return r, nil
	}
	texts := make([]string, len(pending))
	for i, pd := range pending {
		texts[i] = pd.Text
	}
	vecs, err := p.Embed(ctx, texts)
	if err != nil {
		return r, err
	}
	if msg := dimensionsDiffer(p.Model(), "vectors", len(vecs[0]), stored); msg != "" {
		return r, errors.New(msg)
	}
	out := map[string][]byte{}
	for i, v := range vecs {
		if enc := Encode(v); enc != nil {
			out[pending[i].Hash] = enc
		}
	}
	if err := cache.StoreVectors(ctx, b, p.Model(), out); err != nil {
		return r, err
	}
	r.Embedded = len(out)
	return r, nil
}

// scanSQL reads every embedded chunk of the model with its item.
const scanSQL = `SELECT c.item, v.vector FROM chunks c JOIN vectors v ON v.model = ?1 AND v.hash = c.hash`

// missingSQL counts the chunks without a vector of the model.
const missingSQL = `SELECT count(*), (SELECT count(*) FROM chunks) FROM chunks c
	WHERE NOT EXISTS (SELECT 1 FROM vectors v WHERE v.model = ?1 AND v.hash = c.hash)`

// Dense is fused search's dense strategy: the query's vector from the brain's provider
// (the only provider call on the search path), then every embedded chunk compared by
// cosine, each item scored by its best chunk. Without a provider, when the provider
// fails, or while chunks wait for their vectors, the note says so and fused search runs
// on what it has.
func Dense(ctx context.Context, db *sql.Tx, b *brain.Brain, query string, depth int) ([]fuse.Scored, string, error) {
	if b.Config == nil || b.Config.Embeddings == nil {
		return nil, fuse.NoProvider, nil
	}
	if ok, err := trusted(b); err != nil {
		return nil, "", err
	} else if !ok {
		return nil, ErrUntrusted.Error() + "; searched with lexical, graph and recency", nil
	}
	p := New(b.Config.Embeddings, b.Root)
	var missing, total int
	if err := db.QueryRowContext(ctx, missingSQL, p.Model()).Scan(&missing, &total); err != nil {
		return nil, "", err
	}
	if total > 0 && missing == total {
		return nil, fmt.Sprintf("no chunk is embedded yet (%d waiting); run bf build --embed; searched with lexical, graph and recency", missing), nil
	}
	q, note, err := queryVector(ctx, db, b, p, query)
	if err != nil || note != "" {
		return nil, note, err
	}
	rows, err := db.QueryContext(ctx, scanSQL, p.Model())
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	best := map[int64]float64{}
	for rows.Next() {
		var item int64
		var enc []byte
		if err := rows.Scan(&item, &enc); err != nil {
			return nil, "", err
		}
		s := dot(enc, q)
		if s < -1 {
			continue
		}
		if old, ok := best[item]; !ok || s > old {
			best[item] = s
		}
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	out := make([]fuse.Scored, 0, len(best))
	for id, s := range best {
		out = append(out, fuse.Scored{ID: id, Score: s})
	}
	slices.SortFunc(out, func(a, b fuse.Scored) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if len(out) > depth {
		out = out[:depth]
	}
	if missing > 0 {
		note = fmt.Sprintf("%d of %d chunks are not embedded yet; run bf build --embed or bf update", missing, total)
	}
	return out, note, nil
}
