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

// fuseRanks combines rankings by weighted reciprocal rank. refs orders ties (by ref,
// then id), so the same lists always give the same order.
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
				c := w / float64(K+i+1)
				f.score += c
				f.contributors = append(f.contributors, reply.Contribution{
					Name: name, Rank: i + 1, Score: reply.Round6(it.score), Weight: w, Contribution: reply.Round6(c)})
			}
		}
	}
	sortFused(out)
	return out
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
