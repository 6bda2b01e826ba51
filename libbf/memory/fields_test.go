package memory

import (
	"slices"
	"testing"

	"github.com/bfgo/bf/libbf/note"
)

// TestNoteFieldsAgreeWithTheirDeclarations holds each memory field's reading (FromNote) to
// its declaration in bf.yaml (Fields): every value FromNote takes, bf validate's check of
// the declared field takes too, and a value of another type than the declared one FromNote
// refuses. Changing a field's declared type or its reading alone fails here.
func TestNoteFieldsAgreeWithTheirDeclarations(t *testing.T) {
	old := "bf://test/" + Folder + "/old.md"
	supersedes := []any{old}
	tests := map[string]struct{ takes, refuses []any }{
		fieldImportance: {takes: []any{int64(1), int64(5)}, refuses: []any{"3", true, 2.5}},
		fieldConfidence: {takes: []any{"confirmed", "low"}, refuses: []any{int64(1), true}},
		fieldTrust:      {takes: []any{"stated", "external"}, refuses: []any{int64(1), false}},
		fieldScope:      {takes: []any{"global", "channel:deploy"}, refuses: []any{int64(1), true}},
		fieldPinned:     {takes: []any{true, false}, refuses: []any{"true", int64(1)}},
		fieldReview:     {takes: []any{"2026-03-01"}, refuses: []any{int64(20260301), true}},
		fieldCommit:     {takes: []any{"abc1234"}, refuses: []any{int64(1234567), true}},
		fieldProject:    {takes: []any{"abc1234def"}, refuses: []any{int64(1234567), true}},
		fieldSource:     {takes: []any{"the on-call channel"}, refuses: []any{int64(1), true}},
		fieldRef:        {takes: []any{"https://example.com/x"}, refuses: []any{int64(1), true}},
		fieldSaved:      {takes: []any{"2026-01-01T00:00:00Z"}, refuses: []any{int64(2026), true}},
		fieldSupersedes: {takes: []any{supersedes}, refuses: []any{int64(1), []any{true}}},
		fieldDistinct:   {takes: []any{supersedes}, refuses: []any{int64(1), []any{int64(2)}}},
	}
	declared := fields("test")
	var names []string
	for _, nf := range noteFields {
		names = append(names, nf.name)
		tt, ok := tests[nf.name]
		if !ok {
			t.Errorf("%s: no values to hold it to its declaration", nf.name)
			continue
		}
		decl := declared[nf.name]
		read := func(v any) bool {
			taken := true
			n := &note.Note{Meta: note.FrontMatter{Updated: "2026-01-01"}}
			nf.read(&Memory{}, n, v, true, func(string, string) { taken = false })
			return taken
		}
		for _, v := range tt.takes {
			if !read(v) {
				t.Errorf("%s: FromNote refuses %#v", nf.name, v)
			}
			if _, err := decl.Normalize(v); err != nil {
				t.Errorf("%s: FromNote takes %#v, which its declaration (type %s) refuses: %v", nf.name, v, decl.Type, err)
			}
		}
		for _, v := range tt.refuses {
			if read(v) {
				t.Errorf("%s: FromNote takes %#v", nf.name, v)
			}
			if _, err := decl.Normalize(v); err == nil && nf.name != fieldImportance {
				t.Errorf("%s: %#v should be of another type than the declared %s", nf.name, v, decl.Type)
			}
		}
	}
	if len(names) != len(tests) || len(declared) != len(noteFields) {
		t.Errorf("fields read %v, declared %d, tested %d", names, len(declared), len(tests))
	}
	if !slices.Contains(names, fieldSaved) {
		t.Error("saved is not read")
	}
	// The one leniency: FromNote takes a single address for a list of them, which bf
	// validate reports against the declaration.
	for _, name := range []string{fieldSupersedes, fieldDistinct} {
		m := &Memory{}
		noteFields[slices.Index(names, name)].read(m, &note.Note{}, old, true, func(string, string) { t.Errorf("%s: a single address refused", name) })
		if _, err := declared[name].Normalize(old); err == nil {
			t.Errorf("%s: the declaration takes a single address; FromNote's leniency is no longer needed", name)
		}
	}
}
