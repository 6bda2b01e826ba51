package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/google/go-cmp/cmp"
)

// TestNoteMatchesBrain checks one note from unsaved text and compares it with bf validate
// over the brain with that text saved: the same problems, in the same words and order.
func TestNoteMatchesBrain(t *testing.T) {
	const rel = "projects/tax-engine.md"
	tests := []struct {
		name string
		edit func(string) string
		want []Finding
	}{
		{"unchanged", func(s string) string { return s }, nil},
		{"broken link and heading", func(s string) string {
			return s + "\nSee [gone](gone.md) and [rates](tax-engine.md#no-such).\n"
		}, []Finding{
			{Message: "broken link: gone.md", Line: 33, Link: "gone.md"},
			{Message: "missing heading: tax-engine.md#no-such", Line: 33, Link: "tax-engine.md#no-such"},
		}},
		{"unknown relation", func(s string) string {
			return s + "\n[x](bf://acme/projects/billing-api.md?rel=feeds)\n"
		}, []Finding{{Message: "link relation feeds is undeclared; declare it in bf.yaml fields with relation: true", Line: 33, Link: "bf://acme/projects/billing-api.md?rel=feeds"}}},
		{"undeclared field", func(s string) string {
			return strings.Replace(s, "fields:\n", "fields:\n  colour: blue\n", 1)
		}, []Finding{{Message: "fields.colour: field colour is not declared in bf.yaml fields", Field: "fields.colour"}}},
		{"bad status", func(s string) string {
			return strings.Replace(s, "status: stable", "status: done", 1)
		}, []Finding{{Message: "status: OKF status must be draft, stable or deprecated", Field: "status"}}},
		{"wikilink", func(s string) string { return s + "\nSee [[ledger]].\n" }, []Finding{{
			Message: "[[wikilinks]] are plain text in a brain, not links (1 here): write them as Markdown links such as [Note](note.md); bf import converts a vault's (docs/import.md)",
			Warning: true, Line: 33,
		}}},
		{"records and entities", func(s string) string {
			return s + "\n[a](tickets:BILL-999) [b](bf://acme/tickets:BILL-171) [c](bf://acme/teams/billing#nope) [d](bf://acme/teams/billing) [e](bf://acme/nowhere)\n"
		}, []Finding{
			{Message: "broken link: tickets:BILL-999", Line: 33, Link: "tickets:BILL-999"},
			{Message: "missing heading: bf://acme/teams/billing#nope", Line: 33, Link: "bf://acme/teams/billing#nope"},
			{Message: "broken link: bf://acme/nowhere", Line: 33, Link: "bf://acme/nowhere"},
		}},
		{"duplicate identity", func(s string) string {
			return strings.Replace(s, "tags: [billing, tax]", "tags: [billing, tax]\naliases: [\"person:email/priya@example.test\"]", 1)
		}, nil}, // filled below from the brain's own report
	}
	root, b := exampleBrain(t)
	orig, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := tt.edit(string(orig))
			got, err := Note(context.Background(), b, rel, []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			saved := brainfix.Copy(t, root, false)
			if err := os.WriteFile(filepath.Join(saved, rel), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			sb, err := brain.Open(saved)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Brain(sb, nil)
			if err != nil {
				t.Fatal(err)
			}
			var fromBrain, fromNote []string
			for _, p := range rep.Problems {
				if p.File == rel {
					fromBrain = append(fromBrain, p.Error)
				}
			}
			for _, w := range rep.Warnings {
				if w.File == rel {
					fromBrain = append(fromBrain, w.Warning)
				}
			}
			for _, f := range got {
				if !f.Warning {
					fromNote = append(fromNote, f.Message)
				}
			}
			for _, f := range got {
				if f.Warning {
					fromNote = append(fromNote, f.Message)
				}
			}
			if diff := cmp.Diff(fromBrain, fromNote); diff != "" {
				t.Errorf("messages differ from bf validate's (-validate +note):\n%s", diff)
			}
			if tt.name == "duplicate identity" {
				if len(got) != 1 || got[0].Field != "aliases" || !strings.HasPrefix(got[0].Message, "identity person:email/priya@example.test is claimed by 2 notes or records (concepts/people/priya.md, projects/tax-engine.md)") {
					t.Errorf("duplicate = %+v", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
	// Nothing the checks above saw stays: the note as saved has no finding.
	if got, err := Note(context.Background(), b, rel, orig); err != nil || len(got) != 0 {
		t.Errorf("after the edits, the saved note gives %+v", got)
	}
}

// TestSavedNotes checks a note against another one saved after the first check: the
// cache, refreshed by each check, has its heading and its claims.
func TestSavedNotes(t *testing.T) {
	root, b := exampleBrain(t)
	ctx := context.Background()
	const linking = "---\ntype: project\n---\n\n# L\n\n[t](tax-engine.md#audit)\n"
	want := []Finding{{Message: "missing heading: tax-engine.md#audit", Line: 7, Link: "tax-engine.md#audit"}}
	got, err := Note(ctx, b, "projects/l.md", []byte(linking))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("before the save (-want +got):\n%s", diff)
	}
	file := filepath.Join(root, "projects", "tax-engine.md")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	saved := strings.Replace(string(data), "tags: [billing, tax]", "tags: [billing, tax]\naliases: [\"repo:github.com/acme/tax\"]", 1) + "\n## Audit\n"
	if err := os.WriteFile(file, []byte(saved), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Note(ctx, b, "projects/l.md", []byte(linking)); err != nil || len(got) != 0 {
		t.Errorf("after the save: %+v %v, want none", got, err)
	}
	claiming := "---\ntype: project\naliases: [\"repo:github.com/acme/tax\"]\n---\n# C\n"
	got, err = Note(ctx, b, "projects/c.md", []byte(claiming))
	if err != nil || len(got) != 1 || got[0].Message != "identity repo:github.com/acme/tax is claimed by 2 notes or records (projects/c.md, projects/tax-engine.md); keep one owner and link to it from the others" {
		t.Errorf("a second claim after the save: %+v %v", got, err)
	}
}

// exampleBrain opens a copy of examples/brain.
func exampleBrain(t *testing.T) (string, *brain.Brain) {
	t.Helper()
	root := brainfix.Copy(t, filepath.Join("..", "..", "examples", "brain"), false)
	b, err := brain.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, b
}
