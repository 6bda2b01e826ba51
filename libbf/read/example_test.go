package read_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/read"
)

// exampleBrain writes a brain of one note in a temporary folder and opens it.
func exampleBrain() (*brain.Brain, func()) {
	root, err := os.MkdirTemp("", "read-example-")
	if err != nil {
		log.Fatal(err)
	}
	for path, text := range map[string]string{
		"bf.yaml":            "version: 8\nname: acme\n",
		"concepts/ledger.md": "---\ntype: concept\nstatus: stable\ntitle: Ledger\n---\n# Ledger\n\nEvery invoice is posted to the ledger.\n\n## Closing\n\nThe books close monthly.\n",
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
	return b, func() { os.RemoveAll(root) }
}

// Run reads one ref; a note's reply holds its exact text.
func ExampleRun() {
	b, cleanup := exampleBrain()
	defer cleanup()

	res, err := read.Run(context.Background(), read.Request{
		Ref:      "concepts/ledger.md",
		Brains:   []*brain.Brain{b},
		Now:      time.Date(2026, 10, 5, 12, 0, 0, 0, time.UTC),
		Location: time.UTC,
	})
	if err != nil {
		log.Fatal(err)
	}
	note := res.(*read.NoteReply)
	fmt.Println(note.Ref)
	fmt.Print(note.Text)
	// Output:
	// concepts/ledger.md
	// ---
	// type: concept
	// status: stable
	// title: Ledger
	// ---
	// # Ledger
	//
	// Every invoice is posted to the ledger.
	//
	// ## Closing
	//
	// The books close monthly.
}

// A ref with #section reads one section of a note, with the note's title and status.
func ExampleRun_section() {
	b, cleanup := exampleBrain()
	defer cleanup()

	res, err := read.Run(context.Background(), read.Request{Ref: "concepts/ledger.md#closing", Brains: []*brain.Brain{b}})
	if err != nil {
		log.Fatal(err)
	}
	section := res.(*read.NoteReply)
	fmt.Println(section.Ref, section.Title, section.Status)
	fmt.Print(section.Text)
	// Output:
	// concepts/ledger.md#closing Ledger stable
	// ## Closing
	//
	// The books close monthly.
}
