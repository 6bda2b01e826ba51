package fuse

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/bfgo/bf/libbf/search"
)

// halfLife is the recency strategy's half-life: an item changed halfLife ago scores half
// of one changed now.
const halfLife = 14 * 24 * time.Hour

// recency ranks the hits that hold a query word (the lexical list) by when they last
// changed, decaying with halfLife; items without a time are left out. A time after now
// counts as now.
func recency(hits []search.Hit, now time.Time) []scored {
	type dated struct {
		scored
		ref string
	}
	var list []dated
	for _, h := range hits {
		if h.Time == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, h.Time)
		if err != nil {
			continue
		}
		age := max(now.Sub(t), 0)
		list = append(list, dated{scored{h.ID, math.Exp2(-float64(age) / float64(halfLife))}, h.Ref})
	}
	slices.SortStableFunc(list, func(a, b dated) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.ref, b.ref)
	})
	out := make([]scored, len(list))
	for i, d := range list {
		out[i] = d.scored
	}
	return out
}
