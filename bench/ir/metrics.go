package main

import "math"

// ndcgAt is nDCG@k as trec_eval's ndcg_cut computes it: gain is the judged relevance,
// discounted by log2(rank+1); the ideal ranking sorts the judgements.
func ndcgAt(k int, ranked []string, rel map[string]int) float64 {
	dcg := 0.0
	seen := map[string]bool{}
	for i, id := range ranked {
		if i >= k {
			break
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		if g := rel[id]; g > 0 {
			dcg += float64(g) / math.Log2(float64(i+2))
		}
	}
	var gains []int
	for _, g := range rel {
		if g > 0 {
			gains = append(gains, g)
		}
	}
	// Sort descending (few judgements per query: insertion sort is plenty).
	for i := 1; i < len(gains); i++ {
		for j := i; j > 0 && gains[j] > gains[j-1]; j-- {
			gains[j], gains[j-1] = gains[j-1], gains[j]
		}
	}
	idcg := 0.0
	for i, g := range gains {
		if i >= k {
			break
		}
		idcg += float64(g) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// recallAt is the share of relevant documents found in the first k.
func recallAt(k int, ranked []string, rel map[string]int) float64 {
	total := 0
	for _, g := range rel {
		if g > 0 {
			total++
		}
	}
	if total == 0 {
		return 0
	}
	found := map[string]bool{}
	for i, id := range ranked {
		if i >= k {
			break
		}
		if rel[id] > 0 {
			found[id] = true
		}
	}
	return float64(len(found)) / float64(total)
}

// mrrAt is the reciprocal rank of the first relevant item within the first k.
func mrrAt(k int, ranked []string, rel map[string]int) float64 {
	for i, id := range ranked[:min(k, len(ranked))] {
		if rel[id] > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}
