package memory

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// recalled is what a fill test compares of each item: which memory, in what order, how
// many of the query's words it holds and whether it is marked weak.
type recalled struct {
	Title string
	Held  int
	Weak  bool
}

func saveAll(t *testing.T, s *Store, mems [][2]string) {
	t.Helper()
	for _, m := range mems {
		if _, err := s.Remember(context.Background(), RememberRequest{Type: "fact", Title: m[0], Body: m[1], Reviewed: true, AllowDuplicate: true}); err != nil {
			t.Fatalf("save %q: %v", m[0], err)
		}
	}
}

// The coverage rule decides what ranks first; the rest of the page is filled with the
// weaker matches, marked weak, so the memory holding the answer under other words is
// still returned.
func TestRecallFillsWithWeakMatches(t *testing.T) {
	s := newStore(t)
	saveAll(t, s, [][2]string{
		{"Postgres backups", "The Postgres backups run nightly at 02:00 from the replica."},
		{"Restore drill", "A restore of last night's backups was tested in March."},
		{"Deploy window", "Deploys happen on Tuesdays only."},
		{"Replica lag", "The replica lags a few seconds behind at night."},
	})
	tests := []struct {
		name  string
		query string
		limit int
		loose bool
		want  []recalled
		total int
	}{
		{"the evidence is a weak match", "when do postgres backups run", 10, false, []recalled{
			{"Postgres backups", 3, false},
			{"Restore drill", 1, true},
		}, 2},
		{"the strong matches fill the page first", "postgres backups nightly replica", 1, false, []recalled{
			{"Postgres backups", 4, false},
		}, 3},
		{"strong before weak whatever their words' strength", "postgres backups nightly replica", 10, false, []recalled{
			{"Postgres backups", 4, false},
			{"Replica lag", 1, true},
			{"Restore drill", 1, true},
		}, 3},
		{"no strong match: a loose reply, every item weak", "replica restore drill tuesdays", 10, true, []recalled{
			{"Restore drill", 2, true},
			{"Deploy window", 1, true},
			{"Replica lag", 1, true},
			{"Postgres backups", 1, true},
		}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Recall(context.Background(), RecallRequest{Query: tt.query, Limit: tt.limit, NoTouch: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []recalled
			for _, it := range res.Items {
				got = append(got, recalled{it.Title, it.Held, it.Weak})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if res.Loose != tt.loose || res.Total != tt.total {
				t.Errorf("loose %v total %d, want loose %v total %d", res.Loose, res.Total, tt.loose, tt.total)
			}
		})
	}
}

// The prompt hook shows where the weaker matches begin.
func TestPromptHookMarksWeakMatches(t *testing.T) {
	s := newStore(t)
	saveAll(t, s, [][2]string{
		{"Postgres backups", "The Postgres backups run nightly at 02:00 from the replica."},
		{"Restore drill", "A restore of last night's backups was tested in March."},
	})
	out, warnings, err := s.PromptHook(context.Background(), &HookInput{Prompt: "when do postgres backups run"}, RecallRequest{NoTouch: true})
	if err != nil || len(warnings) > 0 {
		t.Fatalf("err %v, warnings %v", err, warnings)
	}
	want := "Memories that match this prompt (bf recall):\n" +
		"- Postgres backups: The Postgres backups run nightly at 02:00 from the replica. (concepts/memory/postgres-backups.md)\n" +
		"Weaker matches (fewer of the prompt's words):\n" +
		"- Restore drill: A restore of last night's backups was tested in March. (concepts/memory/restore-drill.md)\n"
	if diff := cmp.Diff(want, out.Specific.Context); diff != "" {
		t.Errorf("context (-want +got):\n%s", diff)
	}
}

// The weaker matches that fill a page, or make the whole of a loose one, come as a word
// search would order them: by how many of the query's words they hold, then how strongly
// they match. Fading is left to the memories that hold enough of the query, so a
// two-year-old memory that names more of the question is not pushed below one that names a
// single word today (the formula would put it last: its recency is 0.5^(730/180)).
func TestRecallFillOrder(t *testing.T) {
	s := newStore(t)
	s.Now = pinned(t, "2024-01-01T00:00:00Z")
	saveAll(t, s, [][2]string{{"Lighthouse visit", "We watched the ferry from the lighthouse."}})
	s.Now = pinned(t, "2026-01-01T00:00:00Z")
	saveAll(t, s, [][2]string{
		{"Pier tickets", "Tickets are sold at the pier."},
		{"Evening crossing", "At dusk the ferry leaves the harbour."},
	})
	tests := []struct {
		name, query string
		loose       bool
		want        []recalled
	}{
		{"after the memories that hold enough", "ferry lighthouse dusk pier harbour", false,
			[]recalled{{"Evening crossing", 3, false}, {"Lighthouse visit", 2, true}, {"Pier tickets", 1, true}}},
		{"a loose reply", "ferry lighthouse pier otter kelp", true,
			[]recalled{{"Lighthouse visit", 2, true}, {"Pier tickets", 1, true}, {"Evening crossing", 1, true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Recall(context.Background(), RecallRequest{Query: tt.query, Limit: 10, NoTouch: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []recalled
			for _, it := range res.Items {
				got = append(got, recalled{it.Title, it.Held, it.Weak})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
			if res.Loose != tt.loose {
				t.Errorf("loose %v, want %v", res.Loose, tt.loose)
			}
		})
	}
}

// Paging through the weaker matches gives the page of all of them, one at a time, each
// page but the last pointing to the next.
func TestRecallPagesThroughWeakMatches(t *testing.T) {
	s := newStore(t)
	saveAll(t, s, [][2]string{
		{"Postgres backups", "The Postgres backups run nightly at 02:00 from the replica."},
		{"Restore drill", "A restore of last night's backups was tested in March."},
		{"Deploy window", "Deploys happen on Tuesdays only."},
		{"Replica lag", "The replica lags a few seconds behind at night."},
	})
	ctx := context.Background()
	for _, query := range []string{"postgres backups nightly replica", "replica restore drill tuesdays"} {
		whole, err := s.Recall(ctx, RecallRequest{Query: query, Limit: 10, NoTouch: true})
		if err != nil {
			t.Fatal(err)
		}
		for off := range whole.Total + 1 {
			page, err := s.Recall(ctx, RecallRequest{Query: query, Limit: 1, Offset: off, NoTouch: true})
			if err != nil {
				t.Fatal(err)
			}
			var want []RecallItem
			if off < whole.Total {
				want = whole.Items[off : off+1]
			}
			if diff := cmp.Diff(want, page.Items, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%q offset %d (-whole page +this page):\n%s", query, off, diff)
			}
			if page.Total != whole.Total || (page.NextOffset != nil) != (off+1 < whole.Total) {
				t.Errorf("%q offset %d: total %d next_offset %v, want total %d and a next page %v", query, off, page.Total, page.NextOffset, whole.Total, off+1 < whole.Total)
			}
		}
	}
}
