package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bfgo/bf/libbf/terms/termstest"
)

// TestSearchTerms builds the SciFact brain, when its data is at hand (bench/README.md),
// and compares every term of its search table with the terms package terms cuts from the
// values, term by term and position by position: scientific prose with its symbols, Greek
// letters, accents and numbers.
func TestSearchTerms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the SciFact brain")
	}
	data := defaultData()
	if !filepath.IsAbs(data) {
		data = filepath.Join("..", "..", data) // the test runs in bench/ir
	}
	corpus, err := os.ReadFile(filepath.Join(data, "corpus.jsonl"))
	if os.IsNotExist(err) {
		t.Skip("SciFact data not found")
	} else if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "brain")
	docs, err := writeBrain(root, corpus)
	if err != nil {
		t.Fatal(err)
	}
	n, err := termstest.CompareBrain(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if n < 1_000_000 {
		t.Fatalf("compared %d instances of %d documents, want SciFact's million and more", n, docs)
	}
}
