package vector

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/fuse"
)

// Report says what an embedding pass did.
type Report struct {
	// Embedded counts the chunk texts given a vector by this pass.
	Embedded int `json:"embedded"`
	// Reused counts the chunk texts whose vector the store already held: none was sent.
	Reused int `json:"reused"`
	// Chunks counts the brain's distinct chunk texts.
	Chunks int `json:"chunks"`
}

// keyOf names a provider's vectors in the store: its URL or command line, and its model.
func keyOf(cfg *config.Embeddings) cache.VectorKey {
	if cfg.URL != "" {
		return cache.VectorKey{Provider: cfg.URL, Model: cfg.Model}
	}
	argv, _ := json.Marshal([]string(cfg.Command))
	return cache.VectorKey{Provider: string(argv), Model: cfg.Model}
}

// Embed computes the vectors the store (.bf/vectors.sqlite) lacks for the brain's chunk
// texts and its declared provider, one batch at a time, each batch committed before the
// next is sent: a pass that fails keeps the batches it finished, and a rebuilt cache
// reuses every vector of a text it still holds. It first drops the vectors of texts the
// brain no longer holds. A brain without an embeddings provider has nothing to do.
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
	cfg := b.Config.Embeddings
	c, err := cache.Open(ctx, b)
	if err != nil {
		return r, err
	}
	texts, err := c.ChunkTexts(ctx)
	c.Close()
	if err != nil {
		return r, err
	}
	r.Chunks = len(texts)
	st, err := cache.OpenVectors(ctx, b.Root)
	if err != nil {
		return r, err
	}
	defer st.Close()
	used := make(map[string]bool, len(texts))
	for _, t := range texts {
		used[t.Hash] = true
	}
	if _, err := st.Keep(ctx, used); err != nil {
		return r, err
	}
	key := keyOf(cfg)
	have, err := st.Hashes(ctx, key)
	if err != nil {
		return r, err
	}
	var pending []cache.ChunkText
	for _, t := range texts {
		if have[t.Hash] {
			r.Reused++
		} else {
			pending = append(pending, t)
		}
	}
	p := New(cfg, b.Root)
	stored, err := st.Dimensions(ctx, key)
	if err != nil {
		return r, err
	}
	for start := 0; start < len(pending); start += cfg.Batch {
		batch := pending[start:min(start+cfg.Batch, len(pending))]
		in := make([]string, len(batch))
		for i, t := range batch {
			in[i] = t.Text
		}
		vecs, err := p.Embed(ctx, in)
		if err != nil {
			return r, err
		}
		if msg := dimensionsDiffer(p.Model(), "vectors", len(vecs[0]), stored); msg != "" {
			return r, errors.New(msg)
		}
		stored = len(vecs[0])
		out := map[string][]byte{}
		for i, v := range vecs {
			if enc := Encode(v); enc != nil {
				out[batch[i].Hash] = enc
			}
		}
		if err := st.Put(ctx, key, out); err != nil {
			return r, err
		}
		r.Embedded += len(out)
	}
	return r, nil
}

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
	s, err := loadScan(ctx, db, b.Root, keyOf(b.Config.Embeddings))
	if errors.Is(err, cache.ErrVectorsDamaged) {
		return nil, err.Error() + "; run bf build --embed; searched with lexical, graph and recency", nil
	} else if err != nil {
		return nil, "", err
	}
	defer s.close()
	if s.chunks > 0 && s.missing == s.chunks {
		return nil, fmt.Sprintf("no chunk is embedded yet (%d waiting); run bf build --embed; searched with lexical, graph and recency", s.missing), nil
	}
	stored := 0
	if len(s.items) > 0 {
		stored = s.dims
	}
	q, note, err := queryVector(ctx, b, New(b.Config.Embeddings, b.Root), query, stored)
	if err != nil || note != "" {
		return nil, note, err
	}
	out := s.top(q, depth)
	if s.missing > 0 {
		note = fmt.Sprintf("%d of %d chunks are not embedded yet; run bf build --embed or bf update", s.missing, s.chunks)
	}
	return out, note, nil
}
