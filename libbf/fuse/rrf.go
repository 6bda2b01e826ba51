package fuse

import (
	"cmp"
	"slices"

	"github.com/bfgo/bf/libbf/reply"
)

// K is the constant of reciprocal rank fusion: a hit at rank r of a strategy of weight w
// adds w / (K + r) to its fused score.
const K = 60

// ranking is one strategy's list for one brain, best first.
type ranking struct {
	name  string
	items []scored
}

// scored is an item of a strategy's list with its score on the strategy's own scale.
type scored struct {
	id    int64
	score float64
}

// fused is an item with its fused score and what each strategy gave it.
type fused struct {
	id           int64
	ref          string
	score        float64
	contributors []reply.Contribution
}

// matches reports a strategy that finds items by what they hold (their words, their
// meaning). Graph and recency only add evidence about items: they break ties and order
// near-equals, and do not beat what matched (see bounded).
func matches(name string) bool { return name == Lexical || name == Strength || name == Dense }

// contribution is what an item at rank (1-based) with score of a strategy of weight w
// adds: w / (K + rank), and for Strength w × score / (K + 1), score being the item's
// word score as a share of the best one.
func contribution(name string, w float64, rank int, score float64) float64 {
	if name == Strength {
		return w * score / float64(K+1)
	}
	return w / float64(K+rank)
}

// strength is the Strength list of a lexical list: its items in its order, each scored
// by its word score as a share of the first item's (so between 0 and 1).
func strength(lexical []scored) []scored {
	if len(lexical) == 0 || lexical[0].score <= 0 {
		return nil
	}
	out := make([]scored, len(lexical))
	for i, it := range lexical {
		out[i] = scored{it.id, it.score / lexical[0].score}
	}
	return out
}

// fuseRanks combines rankings by weighted reciprocal rank, the graph and recency
// contributions of a matched item bounded (see bounded). refs orders ties (by ref, then
// id), so the same lists always give the same order.
func fuseRanks(lists []ranking, weights Weights, refs map[int64]string) []*fused {
	byID := map[int64]*fused{}
	var out []*fused
	for _, name := range strategies {
		for _, l := range lists {
			if l.name != name {
				continue
			}
			w := weights[name]
			if w <= 0 {
				continue
			}
			for i, it := range l.items {
				f := byID[it.id]
				if f == nil {
					f = &fused{id: it.id, ref: refs[it.id]}
					byID[it.id] = f
					out = append(out, f)
				}
				c := contribution(name, w, i+1, it.score)
				if matches(name) {
					f.score += c
				}
				f.contributors = append(f.contributors, reply.Contribution{
					Name: name, Rank: i + 1, Score: reply.Round6(it.score), Weight: w, Contribution: reply.Round6(c)})
			}
		}
	}
	for _, f := range out {
		bounded(f)
	}
	sortFused(out)
	return out
}

// bounded adds an item's graph and recency evidence to its score. For an item nothing
// matched, that is the evidence in full. For a matched item it is at most one step of
// its best match list below its rank there (w / (K + r) − w / (K + r + 1)), so it orders
// the item among near-equals but never lifts it past an item that list ranks above it,
// unless the evidence alone would place it higher than its match does: then it ranks
// where an unmatched item of the same evidence would. The contributions shown are scaled
// to what was added, so they still sum to the score.
func bounded(f *fused) {
	var evidence float64
	var best *reply.Contribution // the match contribution by rank that adds most
	for i, c := range f.contributors {
		full := c.Weight / float64(K+c.Rank)
		if !matches(c.Name) {
			evidence += full
		} else if c.Name != Strength && (best == nil || full > best.Weight/float64(K+best.Rank)) {
			best = &f.contributors[i]
		}
	}
	if evidence == 0 {
		return
	}
	added := evidence
	if best != nil {
		step := best.Weight/float64(K+best.Rank) - best.Weight/float64(K+best.Rank+1)
		added = max(min(evidence, step), evidence-f.score)
	}
	for i, c := range f.contributors {
		if !matches(c.Name) {
			f.contributors[i].Contribution = reply.Round6(c.Weight / float64(K+c.Rank) * added / evidence)
		}
	}
	f.score += added
}

// sortFused orders by fused score, then ref, then id.
func sortFused(out []*fused) {
	slices.SortStableFunc(out, func(a, b *fused) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(a.ref, b.ref); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
}
