package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// plant writes a memory note as a merge or a hand edit would, past the duplicate guard.
func plant(t *testing.T, s *Store, scope, title string) string {
	t.Helper()
	m := &Memory{Ref: Folder + "/" + slugOf(title) + ".md", Type: "fact", Title: title, Body: "x", Importance: defaultImportance,
		Confidence: defaultConfidence, Trust: DefaultTrust, Scope: scope, Saved: s.now()}
	if err := s.Write(m); err != nil {
		t.Fatal(err)
	}
	return m.Ref
}

// Overlapping titles come as one group per cluster, chained overlaps included; a pair
// saved on purpose with --allow-duplicate is recorded in the newer note and not reported.
func TestReviewGroupsDuplicates(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	// a and b overlap 67%, b and c 67%, a and c 43%: one group, through b.
	a := plant(t, s, "global", "alpha bravo charlie delta echo")
	b := plant(t, s, "global", "alpha bravo charlie delta foxtrot")
	c := plant(t, s, "global", "bravo charlie delta foxtrot golf")
	d := plant(t, s, "channel:ops", "alpha bravo charlie delta echo hotel")
	e := plant(t, s, "channel:ops", "alpha bravo charlie delta echo india")
	plant(t, s, "global", "the wiki lives on the intranet now")
	if _, err := s.Remember(ctx, RememberRequest{Type: "decision", Title: "We ship on Tuesdays only", Body: "Release train."}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Remember(ctx, RememberRequest{Type: "decision", Title: "We ship on Tuesdays mostly", Body: "Release train.", AllowDuplicate: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := "  saved beside concepts/memory/we-ship-on-tuesdays-only.md as a separate fact (--allow-duplicate): bf review does not report them as duplicates"; !strings.Contains(strings.Join(r.Said, "\n"), want) {
		t.Errorf("said %q, want %q", r.Said, want)
	}
	note, err := os.ReadFile(filepath.Join(s.Brain.Root, filepath.FromSlash(r.Ref)))
	if err != nil {
		t.Fatal(err)
	}
	if want := "  distinct-from:\n    - \"bf://test/concepts/memory/we-ship-on-tuesdays-only.md\"\n"; !strings.Contains(string(note), want) {
		t.Errorf("note:\n%s\nwant:\n%s", note, want)
	}
	got, err := s.Review(ctx, DefaultStaleDays, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Duplicate{
		{Scope: "channel:ops", Refs: []string{d, e}, Overlap: 71},
		{Scope: "global", Refs: []string{a, b, c}, Overlap: 67},
	}
	if diff := cmp.Diff(want, got.Duplicates); diff != "" {
		t.Errorf("duplicates (-want +got):\n%s", diff)
	}
	if got.Total.Duplicates != 2 || got.NextOffset != nil {
		t.Errorf("total %+v, next_offset %v; want 2 groups, one page", got.Total, got.NextOffset)
	}

	// A correction takes over the pairs accepted with the memory it replaces.
	fix, err := s.Remember(ctx, RememberRequest{Type: "decision", Title: "We ship on Tuesdays mostly now", Body: "Release train, most weeks.", Supersedes: r.Ref})
	if err != nil {
		t.Fatal(err)
	}
	if want := "  inherits from " + r.Ref + ": saved as a separate fact beside concepts/memory/we-ship-on-tuesdays-only.md"; !slices.Contains(fix.Said, want) {
		t.Errorf("said %q, want %q", fix.Said, want)
	}
	if got, err := s.Review(ctx, DefaultStaleDays, 0); err != nil || got.Total.Duplicates != 2 {
		t.Errorf("after the correction: %+v, %v; want the 2 groups alone", got.Duplicates, err)
	}
	r = fix

	// Forgetting one of an accepted pair drops it from the other's record: a later memory
	// under the same file name is not accepted by a pair it never was in.
	if _, err := s.Forget(ctx, "we-ship-on-tuesdays-only"); err != nil {
		t.Fatal(err)
	}
	l, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if m := l.ByRef[r.Ref]; len(m.DistinctFrom) != 0 {
		t.Errorf("after forget, %s is distinct from %v", r.Ref, m.DistinctFrom)
	}
}

// Each list pages 50 at a time, with its total and next_offset; 500 memories with
// templated titles make one group, not 124,750 pairs.
func TestReviewPages(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	var first []string
	for i := range 60 {
		w := func(word string) string { return fmt.Sprintf("%s%02d", word, i) }
		ref := plant(t, s, "global", strings.Join([]string{w("alpha"), w("bravo"), w("charlie"), w("delta"), w("echo")}, " "))
		plant(t, s, "global", strings.Join([]string{w("alpha"), w("bravo"), w("charlie"), w("delta"), w("foxtrot")}, " "))
		first = append(first, ref)
	}
	var refs []string
	var offset int64
	for pages := 0; ; pages++ {
		got, err := s.Review(ctx, DefaultStaleDays, offset)
		if err != nil {
			t.Fatal(err)
		}
		if got.Total.Duplicates != 60 || len(got.Duplicates) > reviewLimit {
			t.Fatalf("page %d: %d groups of %d", pages, len(got.Duplicates), got.Total.Duplicates)
		}
		for _, d := range got.Duplicates {
			refs = append(refs, d.Refs[0])
		}
		if got.NextOffset == nil {
			if pages != 1 {
				t.Errorf("%d pages, want 2", pages+1)
			}
			break
		}
		offset = *got.NextOffset
	}
	if diff := cmp.Diff(first, refs); diff != "" {
		t.Errorf("groups over the pages (-want +got):\n%s", diff)
	}
	if _, err := s.Review(ctx, DefaultStaleDays, -1); err == nil {
		t.Error("a negative offset was accepted")
	}

	big := newStore(t)
	for i := range 500 {
		plant(t, big, "global", fmt.Sprintf("service %03d deploys from the release branch", i))
	}
	got, err := big.Review(ctx, DefaultStaleDays, 0)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Duplicates) != 1 || len(got.Duplicates[0].Refs) != 500 || len(data) > 40<<10 {
		t.Errorf("500 templated titles: %d groups, %d bytes of JSON; want one group of 500 in under 40 KiB", len(got.Duplicates), len(data))
	}
}
