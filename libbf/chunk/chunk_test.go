package chunk

import (
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
		"| a | b |\n|---|---|",
		"| 1 | 2 |",
		"1. step\nLast.",
	}
	if diff := cmp.Diff(want, Blocks(text)); diff != "" {
		t.Errorf("Blocks (-want +got):\n%s", diff)
	}
}

// Fences, lists and tables are CommonMark's: a ```` fence holding a ``` fence is one
// block, a ~~~ fence is closed only by ~~~, an unclosed fence runs to the end, a list
// item holds its nested list and code, and blank lines inside a block stay.
func TestBlocksCommonMark(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"nested fence", "Intro.\n\n````md\n```go\nx := 1\n\n```\n````\nAfter.",
			[]string{"Intro.", "````md\n```go\nx := 1\n\n```\n````", "After."}},
		{"tilde fence", "~~~\n```\n\nstill code\n~~~\nAfter.", []string{"~~~\n```\n\nstill code\n~~~", "After."}},
		{"unclosed fence", "```\ncode\n\n| a | b |\n|---|---|\n", []string{"```\ncode\n\n| a | b |\n|---|---|"}},
		{"indented fence", "  ```\n  a\n\n  b\n  ```", []string{"  ```\n  a\n\n  b\n  ```"}},
		{"list item with code", "- one\n\n  ```\n  - not an item\n  ```\n- two\n  - nested\n", []string{"- one\n\n  ```\n  - not an item\n  ```", "- two\n  - nested"}},
		{"crlf", "a\r\nb\r\n\r\n- c\r\n", []string{"a\r\nb", "- c"}},
		{"pipe in a paragraph", "a | b\nno table", []string{"a | b\nno table"}},
		{"link definition", "[x]: https://example.com\n\nText.", []string{"[x]: https://example.com", "Text."}},
	} {
		if diff := cmp.Diff(tc.want, Blocks(tc.text)); diff != "" {
			t.Errorf("%s: Blocks (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestPack(t *testing.T) {
	got := pack([]int{40, 40, 40, 200}, 100)
	// The first two fit; the third starts a new chunk after the second (one block of
	// overlap); the fourth alone is larger than the target and stays whole, without
	// overlap that would not fit.
	want := [][2]int{{0, 1}, {1, 2}, {3, 3}}
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
