package search_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/search"
)

// Run searches the notes and records of the brains given, best first; each item's ref is
// what read.Run takes.
func ExampleRun() {
	root, err := os.MkdirTemp("", "search-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	for path, text := range map[string]string{
		"bf.yaml":             "version: 8\nname: acme\n",
		"concepts/ledger.md":  "# Ledger\n\nEvery invoice is posted to the ledger.\n",
		"concepts/dunning.md": "# Dunning\n\nReminders for unpaid invoices.\n",
		"projects/website.md": "# Website\n\nA new landing page.\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, path)), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, path), []byte(text), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	b, err := brain.Open(root)
	if err != nil {
		log.Fatal(err)
	}

	res, err := search.Run(context.Background(), search.Request{
		Query:    "invoice",
		Brains:   []*brain.Brain{b},
		Now:      time.Date(2026, 10, 5, 12, 0, 0, 0, time.UTC),
		Location: time.UTC,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range res.Items {
		fmt.Println(it.Ref, it.Title)
	}
	// Output:
	// concepts/dunning.md Dunning
	// concepts/ledger.md Ledger
}
