package chunk

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBlocks(t *testing.T) {
	text := "First paragraph\nstill first.\n\n- item one\n- item two\n  continued\n\n```go\nfunc f() {\n\n\treturn\n}\n```\n| a | b |\n|---|---|\n| 1 | 2 |\n\n1. step\nLast."
	want := []string{
		"First paragraph\nstill first.",
		"- item one",
		"- item two\n  continued",
		"```go\nfunc f() {\n\n\treturn\n}\n```",
		"| a | b |",
		"| 1 | 2 |",
		"1. step\nLast.",
	}
	if diff := cmp.Diff(want, Blocks(text)); diff != "" {
		t.Errorf("Blocks (-want +got):\n%s", diff)
	}
}

func TestPack(t *testing.T) {
	a, b, c, d := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40), strings.Repeat("d", 200)
	got := Pack([]string{a, b, c, d}, 100)
	// a and b fit; c starts a new chunk after b (one block of overlap); d alone is larger
	// than the target and stays whole, without overlap that would not fit.
	want := [][]string{{a, b}, {b, c}, {d}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Pack (-want +got):\n%s", diff)
	}
}

func TestCut(t *testing.T) {
	w := Where{Title: "Ledger migration", Headings: []string{"Plan", "Decision"}, Type: "project",
		Entities: []string{"bf://acme/people/dana"}, Date: "2026-10-02"}
	got := Cut(w, "decision", "Migrate per customer.")
	want := []Chunk{{Fragment: "decision", Text: "Title: Ledger migration\nSection: Plan > Decision\nType: project\nLinked: bf://acme/people/dana\nDate: 2026-10-02\n\nMigrate per customer."}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Cut (-want +got):\n%s", diff)
	}
	rec := Cut(Where{Source: "tickets", Title: "BILL-142", Date: "2026-10-03T09:00:00.000000Z"}, "", "")
	if len(rec) != 1 || rec[0].Text != "Source: tickets\nTitle: BILL-142\nDate: 2026-10-03T09:00:00.000000Z\n" {
		t.Errorf("record chunk: %q", rec)
	}
	if got[0].Hash() == rec[0].Hash() || len(got[0].Hash()) != 64 {
		t.Error("hashes")
	}
}
