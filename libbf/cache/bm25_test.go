package cache

import (
	"fmt"
	"strings"
	"testing"
)

// TestBM25Weights keeps the column weights FTS5 is called with equal to those the scores
// computed from term counts use.
func TestBM25Weights(t *testing.T) {
	for _, c := range []struct {
		call    string
		weights [4]float64
	}{{RankBM25, RankWeights}, {TitleTextBM25, TitleTextWeights}} {
		parts := make([]string, len(c.weights))
		for i, w := range c.weights {
			parts[i] = fmt.Sprintf("%.1f", w)
		}
		if want := "bm25(search, " + strings.Join(parts, ", ") + ")"; c.call != want {
			t.Errorf("%s, want %s", c.call, want)
		}
	}
}
