package cache_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/terms/termstest"
)

// TestSearchTerms compares every term the search table holds, for the example brain, with
// the terms package terms cuts from the values the build wrote, term by term and position
// by position.
func TestSearchTerms(t *testing.T) {
	root := brainfix.Copy(t, filepath.Join("..", "..", "examples", "brain"), false)
	n, err := termstest.CompareBrain(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Fatalf("compared %d instances, want the example brain's thousands", n)
	}
}
