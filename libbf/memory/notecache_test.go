package memory

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// age sets a memory file's modification time an hour back, out of racyWindow, as for
// a note saved a while ago: its parse may be kept.
func age(t *testing.T, s *Store, ref string, by time.Duration) {
	t.Helper()
	when := time.Now().Add(-by)
	if err := os.Chtimes(filepath.Join(s.Brain.Root, ref), when, when); err != nil {
		t.Fatal(err)
	}
}

// Load reads memories from the kept parses when their files are unchanged, and gives the
// same result as parsing every file: memories, supersession links and warnings.
func TestLoadKeptParses(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for _, r := range []RememberRequest{
		{Type: "infra", Title: "Staging runs on stage-2", Body: "stage-2 is staging.", Reviewed: true},
		{Type: "policy", Title: "Never force-push main", Body: "Ask first.", Pin: true},
	} {
		if _, err := s.Remember(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Remember(ctx, RememberRequest{Type: "infra", Title: "Staging moved to stage-3", Body: "stage-3 is staging now.", Supersedes: "staging-runs-on-stage-2"}); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(s.Brain.Root, Folder, "broken.md")
	if err := os.WriteFile(bad, []byte("---\ntitle: Broken\ntype: nonsense\n---\n\nBody.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Join(s.Brain.Root, Folder))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			age(t, s, Folder+"/"+e.Name(), time.Hour)
		}
	}
	parsed, err := s.Load() // parses every file and keeps the parses
	if err != nil {
		t.Fatal(err)
	}
	if kept := s.readNotesCache(); len(kept) != 4 {
		t.Fatalf("kept %d parses, want 4 (three memories and the skipped note)", len(kept))
	}
	same := cmp.Options{cmpopts.EquateEmpty(), cmpopts.IgnoreUnexported(Loaded{})}
	for i := range 2 {
		warm, err := s.Load()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(parsed, warm, same); diff != "" {
			t.Fatalf("load %d from kept parses differs (-parsed +kept):\n%s", i+2, diff)
		}
		// What the guards compare, kept with the parse, is what they would compute.
		for _, m := range warm.All {
			if warm.identity(m) != m.Identity() || !slices.Equal(warm.titleWords(m), titleWords(m.Title)) {
				t.Errorf("%s: kept identity %q and words %q, want %q and %q", m.Ref, warm.identity(m), warm.titleWords(m), m.Identity(), titleWords(m.Title))
			}
		}
	}

	// A note edited by hand, even to the same size, is read again: its time changed.
	stage2 := filepath.Join(s.Brain.Root, Folder, "staging-runs-on-stage-2.md")
	data, _ := os.ReadFile(stage2)
	if err := os.WriteFile(stage2, []byte(strings.Replace(string(data), "stage-2 is staging.", "stage-2 is Staging.", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	age(t, s, Folder+"/staging-runs-on-stage-2.md", 30*time.Minute)
	// The broken note is fixed and the pinned policy removed.
	if err := os.WriteFile(bad, []byte("---\ntitle: Broken\ntype: fact\nupdated: 2025-12-01\n---\n\nBody.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(s.Brain.Root, Folder, "never-force-push-main.md")); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	type seen struct{ Ref, Body string }
	var bodies []seen
	for _, m := range got.All {
		bodies = append(bodies, seen{m.Ref, strings.TrimSpace(m.Body)})
	}
	want := []seen{
		{Folder + "/broken.md", "Body."},
		{Folder + "/staging-moved-to-stage-3.md", "stage-3 is staging now."},
		{Folder + "/staging-runs-on-stage-2.md", "stage-2 is Staging."},
	}
	if diff := cmp.Diff(want, bodies); diff != "" {
		t.Errorf("memories after the edits (-want +got):\n%s", diff)
	}
	if len(got.Warnings) != 0 {
		t.Errorf("warnings %v, want none", got.Warnings)
	}
	if diff := cmp.Diff([]string{Folder + "/staging-moved-to-stage-3.md"}, got.ByRef[Folder+"/staging-runs-on-stage-2.md"].SupersededBy); diff != "" {
		t.Errorf("superseded_by (-want +got):\n%s", diff)
	}
}

// A parse of a file modified within racyWindow is never kept: a second write in the same
// timestamp tick would otherwise go unseen.
func TestLoadKeepsNoRecentParse(t *testing.T) {
	s := newStore(t)
	if _, err := s.Remember(context.Background(), RememberRequest{Type: "fact", Title: "Queue drains at night", Body: "Nightly."}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(); err != nil {
		t.Fatal(err)
	}
	if kept := s.readNotesCache(); len(kept) != 0 {
		t.Errorf("kept %d parses of a file saved just now, want none", len(kept))
	}
}
