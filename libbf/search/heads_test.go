package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/cache"
)

// TestHeadsProperty ranks one word at a time over random small brains whose frequent words
// have short heads, between random edits (each refresh touches passages and moves the row
// count, the average size and the rows holding each word): every row and score must be
// those of the plain statement scoring every match with FTS5's bm25(). The heads must both
// settle pages and fail to.
func TestHeadsProperty(t *testing.T) {
	defer func(least int64, length int) { cache.HeadMinPassages, cache.HeadLength = least, length }(cache.HeadMinPassages, cache.HeadLength)
	cache.HeadMinPassages = 8
	var read, settled, missed int
	defer func() { traceRank = nil }()
	traceRank = func(s rankStats) {
		if s.heads > 0 {
			read++
			settled += s.topBound
			missed += s.topMissed
		}
	}
	for seed := range uint64(6) {
		// Heads shorter than some pages, and longer.
		cache.HeadLength = []int{3, 6, 12, 24}[seed%4]
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 38))
			b, vocab := randomBrain(t, r)
			parts := openParts(t, b)
			for range 40 {
				if r.IntN(4) == 0 {
					closeParts(parts)
					randomChange(t, r, b, vocab)
					parts = openParts(t, b)
				}
				word := vocab[int(float64(len(vocab))*r.Float64()*r.Float64())]
				limit := []int64{1, 2, 3, 5, 10, 20, 50}[r.IntN(7)]
				checkSameRanking(t, parts[0], parts, word, "", []int64{limit})
			}
		})
	}
	t.Logf("heads read %d, settled %d, missed %d", read, settled, missed)
	if settled == 0 || missed == 0 {
		t.Errorf("of %d rankings reading a head, %d settled the page by its bound and %d missed: both must happen", read, settled, missed)
	}
}

// TestHeadsAfterAverageMoves builds a head while long passages make the average size large,
// so that it keeps the passages repeating the word, then removes them: under the new
// average the short passages holding the word once, all outside the head, rank first. Only
// the bound of the rest pairs, taken with the statistics of the search, finds them.
func TestHeadsAfterAverageMoves(t *testing.T) {
	defer func(least int64, length int) { cache.HeadMinPassages, cache.HeadLength = least, length }(cache.HeadMinPassages, cache.HeadLength)
	cache.HeadMinPassages, cache.HeadLength = 8, 5
	files := map[string]string{}
	for i := range 10 {
		files[fmt.Sprintf("projects/l%02d.md", i)] = "alpha alpha alpha " + strings.Repeat("filler ", 300) + "\n"
		files[fmt.Sprintf("concepts/s%02d.md", i)] = "alpha word\n"
		files[fmt.Sprintf("projects/deep/p%02d.md", i)] = strings.Repeat("padding ", 4000) + "\n"
	}
	b := newBrain(t, "moves", files)
	// Files older than the build, so that the refresh reads only what changed.
	old := time.Now().Add(-time.Hour)
	for path := range files {
		if err := os.Chtimes(filepath.Join(b.Root, filepath.FromSlash(path)), old, old); err != nil {
			t.Fatal(err)
		}
	}
	closeParts(openParts(t, b))
	for i := range 10 {
		if err := os.Remove(filepath.Join(b.Root, "projects", "deep", fmt.Sprintf("p%02d.md", i))); err != nil {
			t.Fatal(err)
		}
	}
	heads := 0
	defer func() { traceRank = nil }()
	traceRank = func(s rankStats) { heads += s.heads }
	parts := openParts(t, b)
	touched, err := cache.Touched(context.Background(), parts[0].tx)
	if err != nil || len(touched) != 10 {
		t.Fatalf("the refresh touched %d passages (%v), want the 10 removed", len(touched), err)
	}
	checkSameRanking(t, parts[0], parts, "alpha", "", []int64{1, 3, 5, 10})
	if heads == 0 {
		t.Error("no ranking read the head of alpha")
	}
}
