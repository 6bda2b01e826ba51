package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/bench/internal/measure"
)

// TestWatchedTargets checks the goals judged on the passes with a watcher: the worst query
// kind names each per-kind target, and the slowest page the page target. The speed-up over
// rg takes rg from the passes with a watcher, not from those without (where word, not
// scoped, would be the worst kind).
func TestWatchedTargets(t *testing.T) {
	sum := func(median, p95 float64) measure.Summary { return measure.Summary{N: 3, Median: median, P95: p95} }
	ptr := func(s measure.Summary) *measure.Summary { return &s }
	r := &Result{
		Build:   BuildResult{Wall: sum(20000, 20000), SQLiteFTS: ptr(sum(10000, 10000)), PeakRSS: 100 << 20},
		Refresh: Refresh{AfterEdit: sum(300, 300), AfterEditRatio: 1.5},
		Search: SearchResult{
			All:     sum(200, 300),
			Watched: ptr(sum(90, 120)),
			PerKind: []KindSummary{
				{Kind: "word", BF: 200, RG: 1000, Watched: &Pair{BF: sum(70, 90), SQLite: ptr(sum(50, 60)), RG: ptr(sum(1050, 1100))}},
				{Kind: "words", BF: 200, RG: 2000, Watched: &Pair{BF: sum(100, 110), SQLite: ptr(sum(50, 100)), RG: ptr(sum(2000, 2100))}},
				{Kind: "scoped", BF: 200, RG: 900, Watched: &Pair{BF: sum(60, 70), SQLite: ptr(sum(45, 60)), RG: ptr(sum(420, 450))}},
			},
		},
		Reads: []ReadResult{
			{Name: "home page", BF: sum(100, 100), Watched: &Pair{BF: sum(45, 50)}},
			{Name: "note with most backlinks", Ref: "projects/hub.md", BF: sum(100, 100), Watched: &Pair{BF: sum(55, 60)}},
			{Name: "record", Ref: "tickets:OPS-100", BF: sum(100, 100), Watched: &Pair{BF: sum(18, 20)}},
		},
	}
	var got []string
	for _, tg := range targets(r) {
		got = append(got, tg.Name+": "+tg.Value+": "+tg.Margin)
	}
	want := []string{
		"warm search, median: 200 ms: missed, 4.0× over",
		"warm search, speed-up over rg: n/a (install ripgrep): not measured",
		"first search after editing one note: 1.50× (300 ms): met, 1.3× under",
		"full build, wall: 20.0 s: met, 3.0× under",
		"full build, peak RSS: 100.0 MiB: met, 5.0× under",
		"home page read, median: 100 ms: missed, 1.0× over",
		"full build ÷ raw FTS5 build: 2.00×: met, 1.2× under",
		"warm search, watcher, worst kind: median: 2.00× (words): missed, 1.3× over",
		"warm search, watcher, worst kind: p95: 1.50× (word): met, 1.3× under",
		"warm search, watcher, worst kind: speed-up over rg: 7.0× (scoped): missed, 0.70× of the goal",
		"warm search, watcher, p95 of all queries: 120 ms: missed, 1.2× over",
		"read of a record, watcher, median: 18.0 ms: met, 1.1× under",
		"slowest page read, watcher, median: 55.0 ms (note with most backlinks): missed, 1.1× over",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
}
