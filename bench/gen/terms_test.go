package gen

import (
	"context"
	"testing"

	"github.com/bfgo/bf/libbf/terms/termstest"
)

// TestSearchTerms builds the cache of a generated brain and compares every term of its
// search table with the terms package terms cuts from the values, term by term and position
// by position: the Zipf vocabulary, tail tokens, names and links of a bench brain.
func TestSearchTerms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a brain of 1,700 files")
	}
	dir, _ := generate(t, Config{Notes: 200, Records: 1500, Seed: 38}, 2)
	n, err := termstest.CompareBrain(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if n < 100_000 {
		t.Fatalf("compared %d instances, want at least 100,000", n)
	}
}
