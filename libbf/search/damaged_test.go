package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
)

// TestDamagedPages zeroes pages in the middle of a built cache file, past what opening it
// reads: the search meets SQLITE_CORRUPT, the generation is discarded and rebuilt once,
// and the search answers in full.
func TestDamagedPages(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		file := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("bf.yaml", "version: 8\nname: damaged\n")
	for i := range 300 {
		write(fmt.Sprintf("concepts/n%03d.md", i), fmt.Sprintf("---\ntype: concept\n---\n# Note %d\n\nThe ledger entry %d of the quarterly close, with enough words to fill pages.\n\n## Detail\n\nMore about entry %d and its review.\n", i, i, i))
	}
	br, err := brain.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cache.Build(context.Background(), br, nil); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, cache.Dir, cache.IndexFile)
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The middle third of the file, as dd if=/dev/zero … conv=notrunc would.
	if _, err := f.WriteAt(make([]byte, st.Size()/3), st.Size()/3); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, err := Run(context.Background(), Request{Query: "ledger", Limit: 50, Brains: []*brain.Brain{br}})
	if err != nil {
		t.Fatalf("search over a damaged cache: %v", err)
	}
	if len(got.Items) != 50 {
		t.Errorf("items = %d, want 50", len(got.Items))
	}
}
