package pages

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/google/go-cmp/cmp"
)

// signalsOf lists the review signals of a listing's items by ref.
func signalsOf(t *testing.T, l *Listing) map[string]Signals {
	t.Helper()
	out := map[string]Signals{}
	for _, it := range l.Items {
		if it.ReviewSource == "" {
			continue
		}
		out[it.Ref] = Signals{Modified: it.Modified, NewLinks: it.NewLinks, Newer: it.Newer, Review: it.Review,
			ReviewDue: it.ReviewDue, ReviewReasons: it.ReviewReasons, ReviewSource: it.ReviewSource}
	}
	return out
}

func TestReviewReasons(t *testing.T) {
	w := workBrain(t)
	var got = map[string]Signals{}
	for _, folder := range []string{"projects", "concepts", "actions"} {
		v, err := read(t, folder, 0, w)
		if err != nil {
			t.Fatal(err)
		}
		for r, s := range signalsOf(t, v.(*Listing)) {
			got[r] = s
		}
	}
	want := map[string]Signals{
		// due 14 days after the last edit, and a record linking to it happened since.
		"projects/atlas.md": {Modified: "2026-09-10T12:00:00+02:00", NewLinks: 2,
			Newer: []string{"mail:m1", "actions/2026-09-25_launch/ACTION.md"}, Review: true, ReviewDue: "2026-09-24",
			ReviewReasons: []string{"due", "newer_evidence"}, ReviewSource: "modified"},
		// A record it links to changed upstream (attributes.updated) after its last edit.
		"projects/beacon.md": {Modified: "2026-09-27T12:00:00+02:00", NewLinks: 1, Newer: []string{"mail:m2"},
			Review: true, ReviewDue: "2026-10-11", ReviewReasons: []string{"newer_evidence"}, ReviewSource: "modified"},
		// Observed after the edit, but observation is no evidence: no signal.
		"projects/calm.md": {Modified: "2026-09-27T11:00:00+02:00", ReviewDue: "2026-10-11", ReviewSource: "modified"},
		"projects/future.md": {Modified: "2026-10-01T02:00:00+02:00", Review: true, ReviewDue: "2026-10-15",
			ReviewReasons: []string{"future_modified"}, ReviewSource: "modified"},
		"projects/web/site.md": {Modified: "2026-09-27T10:00:00+02:00", ReviewDue: "2026-10-11", ReviewSource: "modified"},
		// Any note with stale_after gets reminders, due from that instant.
		"concepts/retention.md": {Modified: "2026-09-20T02:00:00+02:00", Review: true, ReviewDue: "2026-09-25",
			ReviewReasons: []string{"due"}, ReviewSource: "stale_after"},
		// projects/index.md, projects/old.md (deprecated), concepts/archive.md and the actions get none.
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("signals (-want +got):\n%s", diff)
	}
}

// withCache opens a brain's cache for a test.
func withCache(t *testing.T, b *testBrain, f func(db *sql.DB)) {
	t.Helper()
	c, err := cache.Open(context.Background(), b.Open())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f(c.DB())
}

// one is the evidence of one brain, printed in the local shape.
func one(b *testBrain, db *sql.DB) Evidence {
	return Evidence{Brains: []Snapshot{{Name: b.Name, DB: db}}, Local: true}
}

func TestReviewOneNote(t *testing.T) {
	w := workBrain(t)
	ctx := context.Background()
	withCache(t, w, func(db *sql.DB) {
		got, err := Review(ctx, one(w, db), w.Name, "projects/atlas.md", now, paris)
		if err != nil {
			t.Fatal(err)
		}
		want := &Signals{Modified: "2026-09-10T12:00:00+02:00", NewLinks: 2,
			Newer: []string{"mail:m1", "actions/2026-09-25_launch/ACTION.md"}, Next: "Measure cold-cache latency",
			Review: true, ReviewDue: "2026-09-24", ReviewReasons: []string{"due", "newer_evidence"},
			ReviewSource: "modified", Tasks: &reply.Tasks{Open: 1, Done: 1}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Review (-want +got):\n%s", diff)
		}
		for _, r := range []string{"concepts/archive.md", "projects/old.md", "projects/index.md", "projects/nothing.md",
			"actions/2026-09-25_launch/ACTION.md"} {
			if s, err := Review(ctx, one(w, db), w.Name, r, now, paris); err != nil || s != nil {
				t.Errorf("Review(%s) = %+v, %v; want no reminders", r, s, err)
			}
		}
	})

	// Editing the note clears newer_evidence until newer evidence arrives.
	w.Touch("projects/atlas.md", utc(9, 27, 0, 0))
	withCache(t, w, func(db *sql.DB) {
		got, err := Review(ctx, one(w, db), w.Name, "projects/atlas.md", now, paris)
		if err != nil {
			t.Fatal(err)
		}
		want := &Signals{Modified: "2026-09-27T02:00:00+02:00", Next: "Measure cold-cache latency",
			ReviewDue: "2026-10-11", ReviewSource: "modified", Tasks: &reply.Tasks{Open: 1, Done: 1}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Review after an edit (-want +got):\n%s", diff)
		}
	})
}

func TestReviewUnknownModified(t *testing.T) {
	w := workBrain(t)
	withCache(t, w, func(db *sql.DB) {
		ctx := context.Background()
		days, err := cache.NoteDays(ctx, db, paris)
		if err != nil {
			t.Fatal(err)
		}
		// A note whose file has no fingerprint: its modification time cannot be stated.
		r := &row{id: 1 << 40, ref: "projects/ghost.md", path: "projects/ghost.md", kind: "note", weight: 2, typ: "project",
			staleAfter: "2026-09-30T00:00:00.000000Z"}
		sc := &scope{brains: []snapshot{{name: w.Name, q: db, days: days}}, local: true}
		if err := review(ctx, sc, 0, []*row{r}, now, paris); err != nil {
			t.Fatal(err)
		}
		want := &Signals{Review: true, ReviewDue: "2026-09-30", ReviewReasons: []string{"unknown_modified"},
			ReviewSource: "stale_after"}
		if diff := cmp.Diff(want, r.signals); diff != "" {
			t.Errorf("signals (-want +got):\n%s", diff)
		}
	})
}

func TestReviewNewerCap(t *testing.T) {
	b := newBrain(t, "cap", "version: 8\nname: %s\n", map[string]string{
		"projects/hub.md": "---\ntitle: Hub\ntype: project\naliases: [org:hub, org:dup]\n---\n# Hub\n\nThe hub.\n",
		// A name two items claim links to neither.
		"concepts/b.md": "---\ntitle: B\naliases: [org:dup]\n---\n# B\n\nB.\n",
	})
	b.Touch("projects/hub.md", utc(9, 1, 0, 0))
	for i := 1; i <= 7; i++ {
		b.Record("log", fmt.Sprintf("r%d", i), fmt.Sprintf(`"title":"R%d","time":"2026-09-%02dT08:00:00.000000Z",`+
			`"links":["bf://cap/projects/hub.md#the-hub"]`, i, 10+i))
	}
	// Before the edit: not newer. After now: not yet.
	b.Record("log", "old", `"title":"Old","time":"2026-08-01T08:00:00.000000Z","links":["bf://cap/projects/hub.md"]`)
	b.Record("log", "later", `"title":"Later","time":"2026-10-01T08:00:00.000000Z","links":["bf://cap/projects/hub.md"]`)
	b.Record("log", "entity", `"title":"Entity","time":"2026-09-25T08:00:00.000000Z","links":["org:hub"]`)
	b.Record("log", "dup", `"title":"Dup","time":"2026-09-26T08:00:00.000000Z","links":["org:dup"]`)
	v, err := read(t, "projects", 0, b)
	if err != nil {
		t.Fatal(err)
	}
	l := v.(*Listing)
	if len(l.Items) == 0 {
		t.Fatalf("no items: %s", jsonOf(t, l))
	}
	it := l.Items[0]
	if it.NewLinks != 8 || !cmp.Equal(it.Newer, []string{"log:entity", "log:r7", "log:r6", "log:r5", "log:r4"}) {
		t.Errorf("new_links %d, newer %v", it.NewLinks, it.Newer)
	}
	if !cmp.Equal(it.ReviewReasons, []string{"due", "newer_evidence"}) {
		t.Errorf("reasons %v", it.ReviewReasons)
	}
}

func TestReviewAcrossBrains(t *testing.T) {
	alpha := newBrain(t, "alpha", "version: 8\nname: %s\n", map[string]string{
		"projects/hub.md": "---\ntitle: Hub\ntype: project\naliases: [org:hub, org:dup]\n---\n# Hub\n\n" +
			"Reads [b1](bf://beta/mail:b1), [b2](mail:b2) and [a1](mail:a1).\n",
	})
	alpha.Touch("projects/hub.md", utc(9, 1, 0, 0))
	alpha.Record("mail", "a1", `"title":"A1","time":"2026-09-10T08:00:00.000000Z"`)
	beta := newBrain(t, "beta", "version: 8\nname: %s\n", map[string]string{
		// A name items of two brains claim links to neither.
		"concepts/dup.md": "---\ntitle: Dup\naliases: [org:dup]\n---\n# Dup\n\nDup.\n",
	})
	// Linked from the hub by address, and linking back: counted once.
	beta.Record("mail", "b1", `"title":"B1","time":"2026-09-11T08:00:00.000000Z","links":["bf://alpha/projects/hub.md"]`)
	// A bare SOURCE:ID that alpha does not hold names beta's record.
	beta.Record("mail", "b2", `"title":"B2","time":"2026-09-12T08:00:00.000000Z"`)
	// alpha holds its own mail:a1: the hub's bare link names that one only.
	beta.Record("mail", "a1", `"title":"Beta A1","time":"2026-09-13T08:00:00.000000Z"`)
	beta.Record("log", "x", `"title":"X","time":"2026-09-14T08:00:00.000000Z","links":["org:hub"]`)
	beta.Record("log", "y", `"title":"Y","time":"2026-09-15T08:00:00.000000Z","links":["org:dup"]`)
	beta.Record("log", "z", `"title":"Z","time":"2026-09-16T08:00:00.000000Z","links":["bf://alpha/projects/hub.md#hub"]`)
	// A note path names a note of the linking item's own brain.
	beta.Record("log", "w", `"title":"W","time":"2026-09-17T08:00:00.000000Z","links":["projects/hub.md"]`)

	wantNewer := []string{"bf://beta/log:z", "bf://beta/log:x", "bf://beta/mail:b2", "bf://beta/mail:b1", "bf://alpha/mail:a1"}
	v, err := read(t, "projects", 0, alpha, beta)
	if err != nil {
		t.Fatal(err)
	}
	l := v.(*Listing)
	if len(l.Items) != 1 {
		t.Fatalf("items: %s", jsonOf(t, l))
	}
	it := l.Items[0]
	if it.NewLinks != 5 || !cmp.Equal(it.Newer, wantNewer) || !cmp.Equal(it.ReviewReasons, []string{"due", "newer_evidence"}) {
		t.Errorf("projects: new_links %d, newer %v, reasons %v", it.NewLinks, it.Newer, it.ReviewReasons)
	}
	v, err = read(t, "", 0, alpha, beta)
	if err != nil {
		t.Fatal(err)
	}
	h := v.(*Home)
	if len(h.Projects) != 1 || h.Projects[0].NewLinks != 5 || !cmp.Equal(h.Projects[0].Newer, wantNewer) {
		t.Errorf("home projects: %s", jsonOf(t, h.Projects))
	}
	// Alone, alpha knows only its own record, named by its ref.
	v, err = read(t, "projects", 0, alpha)
	if err != nil {
		t.Fatal(err)
	}
	it = v.(*Listing).Items[0]
	if it.NewLinks != 1 || !cmp.Equal(it.Newer, []string{"mail:a1"}) {
		t.Errorf("alpha alone: new_links %d, newer %v", it.NewLinks, it.Newer)
	}
}
