package search

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/google/go-cmp/cmp"
)

func TestDedup(t *testing.T) {
	b := newBrain(t, "work", map[string]string{
		"projects/atlas.md": "---\nupdated: 2026-09-20\n---\n# Atlas\n\nAtlas intro.\n\n" +
			"## Storage\n\nWe store data in SQLite.\n\n## Backup\n\nBackups copy the SQLite file.\n\n" +
			"## Sync\n\nSync reads SQLite.\n\n## Export\n\nExport dumps SQLite tables.\n\n" +
			"## Archive\n\nArchive keeps old SQLite dumps around for ever and ever.\n\n## Other\n\nNothing here.\n",
	})
	b.Record("brief", "r1", `"title":"Design doc","text":"SQLite design","url":"https://docs.test/design","time":"2026-09-27T08:00:00Z"`)
	b.Record("brief", "r2", `"title":"Design highlight","text":"A highlight of the SQLite design document","url":"https://docs.test/design","time":"2026-09-26T08:00:00Z"`)
	b.Record("news", "n1", `"title":"Design doc","text":"SQLite design","url":"https://docs.test/design","time":"2026-09-27T09:00:00Z"`)
	b.Record("old", "o1", `"title":"Design doc copy","text":"SQLite design, copied","url":"https://docs.test/design"`)
	r := mustSearch(t, Request{Query: "sqlite"}, b)
	type shown struct {
		Title    string
		Sections []string
		Also     []string
	}
	got := map[string]shown{}
	for _, it := range r.Items {
		got[it.Ref] = shown{it.Title, it.Sections, it.Also}
	}
	want := map[string]shown{
		"projects/atlas.md#sync": {"Atlas — Sync", []string{
			"projects/atlas.md#export", "projects/atlas.md#backup", "projects/atlas.md#storage"}, nil},
		"brief:r1": {"Design doc", nil, []string{"news:n1", "old:o1"}},
		"brief:r2": {"Design highlight", nil, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

func TestRankingOrder(t *testing.T) {
	same := "# Same\n\nAlpha beta gamma.\n"
	b := newBrain(t, "work", map[string]string{
		"concepts/a.md": "---\nupdated: 2026-09-01\n---\n" + same,
		"concepts/b.md": "---\nupdated: 2026-09-10\n---\n" + same,
		"concepts/c.md": "---\nupdated: 2026-09-10\n---\n" + same,
		"concepts/d.md": "---\nupdated: 2026-09-20\nstatus: deprecated\n---\n# Alpha alpha\n\nAlpha alpha alpha.\n",
		// Not an entry note: half the weight of the concepts.
		"concepts/index.md": "---\nupdated: 2026-09-25\n---\n" + same,
	})
	r := mustSearch(t, Request{Query: "alpha"}, b)
	// Equal scores list the newest first, then by ref; deprecated notes come last.
	want := []string{"concepts/b.md", "concepts/c.md", "concepts/a.md", "concepts/index.md", "concepts/d.md"}
	if diff := cmp.Diff(want, refs(r.Items)); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}

	// A low-priority source ranks at half weight: its newer twin comes second.
	b.Record("brief", "x", `"title":"Omega","text":"Delta epsilon.","time":"2026-09-01T08:00:00Z"`)
	b.Record("news", "x", `"title":"Omega","text":"Delta epsilon.","time":"2026-09-20T08:00:00Z"`)
	b.Record("old", "x", `"title":"Omega","text":"Delta epsilon.","time":"2026-09-10T08:00:00Z"`)
	r = mustSearch(t, Request{Query: "omega"}, b)
	if diff := cmp.Diff([]string{"old:x", "brief:x", "news:x"}, refs(r.Items)); diff != "" {
		t.Errorf("low priority refs (-want +got):\n%s", diff)
	}
	// Several terms: a passage matching all of them gains 20%.
	b.Write("concepts/e.md", "---\nupdated: 2026-08-01\n---\n# Other\n\nZeta eta theta.\n")
	b.Write("concepts/f.md", "---\nupdated: 2026-09-01\n---\n# Other\n\nZeta iota kappa.\n")
	r = mustSearch(t, Request{Query: "zeta theta"}, b)
	if diff := cmp.Diff([]string{"concepts/e.md", "concepts/f.md"}, refs(r.Items)); diff != "" {
		t.Errorf("coverage refs (-want +got):\n%s", diff)
	}
}

func TestPaging(t *testing.T) {
	files := map[string]string{}
	for i := 1; i <= 5; i++ {
		files[fmt.Sprintf("concepts/n%d.md", i)] = fmt.Sprintf("---\nupdated: 2026-09-0%d\n---\n# Note\n\nDelta.\n", i)
	}
	b := newBrain(t, "work", files)
	pages := [][]string{{"concepts/n5.md", "concepts/n4.md"}, {"concepts/n3.md", "concepts/n2.md"}, {"concepts/n1.md"}}
	nexts := []int64{2, 4, -1}
	offset := int64(0)
	for i, want := range pages {
		r := mustSearch(t, Request{Query: "delta", Limit: 2, Offset: offset}, b)
		if diff := cmp.Diff(want, refs(r.Items)); diff != "" {
			t.Errorf("page %d (-want +got):\n%s", i, diff)
		}
		got := int64(-1)
		if r.NextOffset != nil {
			got = *r.NextOffset
			offset = got
		}
		if got != nexts[i] {
			t.Errorf("page %d: next_offset %d, want %d", i, got, nexts[i])
		}
	}
	r := mustSearch(t, Request{Query: "delta", Offset: reply.MaxOffset}, b)
	if len(r.Items) != 0 || r.NextOffset != nil {
		t.Errorf("beyond the end: %s", jsonOf(t, r))
	}
}

func TestPageBudget(t *testing.T) {
	b := newBrain(t, "work", nil)
	for i := 0; i < 30; i++ {
		b.Record("brief", fmt.Sprintf("r%02d", i), fmt.Sprintf(`"title":"Omega %02d","text":"Omega.","url":"https://docs.test/%02d/%s","time":"2026-09-%02dT08:00:00Z"`,
			i, i, strings.Repeat("p", 3000), i%28+1))
	}
	var all []reply.Item
	offset := int64(0)
	for pages := 0; ; pages++ {
		r := mustSearch(t, Request{Query: "omega", Limit: 50, Offset: offset}, b)
		size := 0
		for _, it := range r.Items {
			it.Brain, it.URI = "work", reply.Address("work", it.Ref)
			size += len(jsonOf(t, it)) + 1
		}
		if size > reply.Budget {
			t.Errorf("page at %d holds %d bytes", offset, size)
		}
		all = append(all, r.Items...)
		if r.NextOffset == nil {
			break
		}
		if len(r.Items) >= 30 || *r.NextOffset != offset+int64(len(r.Items)) {
			t.Fatalf("page at %d: %d items, next_offset %d", offset, len(r.Items), *r.NextOffset)
		}
		// The page ended before the item that would pass the budget.
		next := mustSearch(t, Request{Query: "omega", Limit: 1, Offset: *r.NextOffset}, b).Items[0]
		next.Brain, next.URI = "work", reply.Address("work", next.Ref)
		if size+len(jsonOf(t, next))+1 <= reply.Budget {
			t.Errorf("page at %d ended early", offset)
		}
		offset = *r.NextOffset
		if pages > 10 {
			t.Fatal("too many pages")
		}
	}
	if len(all) != 30 {
		t.Errorf("%d items over all pages", len(all))
	}
}

// TestScoreFormula checks the score of each passage against FTS5's own BM25: the item
// weight, half weight for low-priority sources and the coverage bonus of several terms.
func TestScoreFormula(t *testing.T) {
	b := newBrain(t, "work", map[string]string{
		"concepts/all.md":   "# One\n\nZeta theta iota.\n",
		"concepts/two.md":   "# Two\n\nZeta theta.\n",
		"concepts/index.md": "# Three\n\nZeta.\n",
	})
	b.Record("brief", "x", `"title":"Four","text":"Zeta."`)
	b.Record("news", "x", `"title":"Four","text":"Zeta."`)
	ctx := context.Background()
	parts := openParts(t, b)
	q, _ := fold.Parse("zeta theta iota")
	rows, err := rankWords(ctx, parts[0], q.Terms, scope{}, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"concepts/all.md":   2 * 1.2,   // entry note, all three terms
		"concepts/two.md":   2 * 1.1,   // entry note, two of three terms
		"concepts/index.md": 1 * 1.0,   // not an entry note, one term
		"brief:x":           1 * 1.0,   // record
		"news:x":            0.5 * 1.0, // low-priority record
	}
	got := map[string]float64{}
	for _, r := range rows {
		var bm25 float64
		err := parts[0].tx.QueryRow(`SELECT -bm25(search, 10.0, 1.0, 0.5, 3.0) FROM search WHERE search MATCH ? AND rowid = ?`,
			q.Match(), r.passage).Scan(&bm25)
		if err != nil {
			t.Fatal(err)
		}
		got[r.ref] = math.Round(r.score/bm25*1000) / 1000
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("score / bm25 (-want +got):\n%s", diff)
	}
}
