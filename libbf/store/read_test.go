package store

import (
	"context"
	"errors"
	"testing"
)

// TestRead reads every record file of a source in name order, each with its record or why
// it could not be read; other files are not records.
func TestRead(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"memories/mail/" + fn("a"):   stored("a", "Alpha"),
		"memories/mail/" + fn("b"):   stored("b", "Beta"),
		"memories/mail/" + fn("c"):   "{not json",
		"memories/mail/" + fn("d"):   stored("x", "Misplaced"),
		"memories/mail/" + fn("e"):   "->" + fn("a"),
		"memories/mail/notes.txt":    "not a record",
		"memories/other/" + fn("zz"): stored("zz", "Other"),
	})
	got, err := Read(context.Background(), root, "mail")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "", "b": "", "c": "error", "d": "error", "e": "error"}
	if len(got) != len(want) {
		t.Fatalf("read %d files, want %d: %+v", len(got), len(want), got)
	}
	for i := 1; i < len(got); i++ {
		if got[i-1].File >= got[i].File {
			t.Errorf("files out of order: %s, %s", got[i-1].File, got[i].File)
		}
	}
	for _, s := range got {
		var id string
		for k := range want {
			if s.File == "memories/mail/"+fn(k) {
				id = k
			}
		}
		switch {
		case id == "":
			t.Errorf("unexpected file %s", s.File)
		case want[id] == "" && (s.Err != nil || s.Record.ID != id || len(s.Data) == 0):
			t.Errorf("%s: %+v", id, s)
		case want[id] != "" && s.Err == nil:
			t.Errorf("%s: read without error", id)
		}
	}

	none, err := Read(context.Background(), root, "absent")
	if err != nil || none != nil {
		t.Errorf("absent source: %v %v", none, err)
	}

	writeTree(t, root, map[string]string{"memories/.pending/manifest.json": "{}"})
	if _, err := Read(context.Background(), root, "mail"); !errors.Is(err, ErrInterrupted) {
		t.Errorf("interrupted: %v", err)
	}
}
