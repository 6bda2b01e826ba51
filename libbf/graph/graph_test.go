package graph

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/google/go-cmp/cmp"
)

func TestBacklinks(t *testing.T) {
	o, _ := open(t, atlasBrain(t))
	ctx := context.Background()
	groups, omitted, err := Backlinks(ctx, &o.Set, "work", "projects/atlas.md")
	if err != nil {
		t.Fatal(err)
	}
	want := `[` +
		`{"items":[{"date":"2026-09-25","excerpt":"The stack serves Atlas.","kind":"note","ref":"concepts/stack.md","status":"stable","title":"Stack","type":"concept"}],"relation":"cites","total":1},` +
		`{"items":[{"excerpt":"A brief that depends on Atlas.","kind":"record","ref":"brief:r1","source":"brief","time":"2026-09-27T10:00:00+02:00","title":"Needs Atlas"}],"relation":"depends-on","total":1},` +
		`{"items":[{"date":"2026-09-26","excerpt":"Deep work relates to Atlas.","fields":{"phase":"study"},"kind":"note","ref":"concepts/deep.md","status":"stable","title":"Deep","type":"concept"}],"relation":"related-to","total":1},` +
		`{"items":[{"excerpt":"Untyped mention.","kind":"record","ref":"brief:r2","source":"brief","time":"2026-09-11T10:00:00+02:00","title":"Mentions Atlas"},` +
		`{"date":"2026-09-10","excerpt":"See the repo and again.","kind":"note","ref":"concepts/plain.md","status":"stable","title":"Plain","type":"concept"}],"relation":"links","total":2}]`
	if got := jsonOf(t, groups); got != want || omitted != 0 {
		t.Errorf("backlinks (omitted %d):\n got %s\nwant %s", omitted, got, want)
	}

	// An unknown item is not found.
	var nf *reply.NotFoundError
	if _, _, err := Backlinks(ctx, &o.Set, "work", "projects/none.md"); !errors.As(err, &nf) {
		t.Errorf("unknown item: %v", err)
	}
}

func TestBacklinkPreviewAndGroups(t *testing.T) {
	files := map[string]string{}
	for i := 1; i <= 7; i++ {
		files[fmt.Sprintf("concepts/c%d.md", i)] = fmt.Sprintf("---\nupdated: 2026-09-%02d\n---\n%s [x](repo:x/y)\n", i, strings.Repeat("word ", 60))
	}
	var cfg strings.Builder
	cfg.WriteString("version: 8\nname: work\nfields:\n")
	var fields []string
	for i := 0; i < 66; i++ {
		fmt.Fprintf(&cfg, "  rel-%02d:\n    description: r\n    type: identity\n    relation: true\n", i)
		fields = append(fields, fmt.Sprintf(`"rel-%02d":"repo:x/y"`, i))
	}
	b := newBrain(t, "work", cfg.String(), files)
	b.Record("feed", "one", `"title":"One","time":"2026-08-01T00:00:00Z","fields":{`+strings.Join(fields, ",")+`}`)
	o, _ := open(t, b)
	groups, omitted, err := Backlinks(context.Background(), &o.Set, "", "repo:x/y")
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != maxGroups || omitted != 3 {
		t.Fatalf("%d groups, %d omitted", len(groups), omitted)
	}
	if groups[0].Relation != "rel-00" || groups[63].Relation != "rel-63" {
		t.Errorf("groups from %s to %s", groups[0].Relation, groups[63].Relation)
	}

	// Without the relations, the links group previews its 5 newest of 7.
	o2, _ := open(t, newBrain(t, "work", "", files))
	groups, _, err = Backlinks(context.Background(), &o2.Set, "", "repo:x/y")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range groups[0].Items {
		got = append(got, it.Ref)
		if n := len([]rune(it.Excerpt)); n != glimpse || !strings.HasSuffix(it.Excerpt, "…") {
			t.Errorf("excerpt of %d characters: %q", n, it.Excerpt)
		}
	}
	want := []string{"concepts/c7.md", "concepts/c6.md", "concepts/c5.md", "concepts/c4.md", "concepts/c3.md"}
	if diff := cmp.Diff(want, got); diff != "" || groups[0].Total != 7 || groups[0].Relation != "links" {
		t.Errorf("preview (-want +got):\n%s total %d", diff, groups[0].Total)
	}
}

func TestClaims(t *testing.T) {
	o, _ := open(t, atlasBrain(t))
	ctx := context.Background()
	tg, err := Resolve(ctx, &o.Set, "work", "projects/atlas.md")
	if err != nil {
		t.Fatal(err)
	}
	claims, cut, err := tg.Claims(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"date":"2026-09-20","origin":"projects/atlas.md#atlas","relation":"depends-on","subject":"bf://work/things/atlas","target":"bf://work/concepts/stack.md","target_ref":"concepts/stack.md","target_title":"Stack"},` +
		`{"date":"2026-09-20","origin":"projects/atlas.md","relation":"tagged-with","subject":"bf://work/things/atlas","target":"bf://work/tags/website"}]`
	if got := jsonOf(t, claims); got != want || cut {
		t.Errorf("claims (cut %v):\n got %s\nwant %s", cut, got, want)
	}

	// 25 depends-on, 25 related-to and 10 tags: 20, 20 and 10.
	var deps, body, tags []string
	for i := 0; i < 25; i++ {
		deps = append(deps, fmt.Sprintf("repo:x/d%02d", i))
		body = append(body, fmt.Sprintf("[t%02d](bf://work/things/t%02d?rel=related-to)", i, i))
	}
	for i := 0; i < 10; i++ {
		tags = append(tags, fmt.Sprintf("t%d", i))
	}
	b := newBrain(t, "work", "", map[string]string{
		"projects/many.md": "---\nupdated: 2026-09-01\ntags: [" + strings.Join(tags, ", ") + "]\nfields:\n  depends-on: [" +
			strings.Join(deps, ", ") + "]\n---\n# Many\n\n" + strings.Join(body, "\n") + "\n",
	})
	o, _ = open(t, b)
	tg, err = Resolve(ctx, &o.Set, "work", "projects/many.md")
	if err != nil {
		t.Fatal(err)
	}
	claims, cut, err = tg.Claims(ctx)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, c := range claims {
		count[c.Relation]++
	}
	if diff := cmp.Diff(map[string]int{"depends-on": 20, "related-to": 20, "tagged-with": 10}, count); diff != "" || !cut || len(claims) != maxClaims {
		t.Errorf("claims per relation (-want +got):\n%s (cut %v, %d)", diff, cut, len(claims))
	}
	if claims[0].Target != "repo:x/d00" || claims[19].Target != "repo:x/d19" {
		t.Errorf("first claims %+v … %+v", claims[0], claims[19])
	}
}

func TestRelationPage(t *testing.T) {
	b := atlasBrain(t)
	o, _ := open(t, b)
	ctx := context.Background()
	tg, err := Resolve(ctx, &o.Set, "work", "projects/atlas.md")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rel   string
		want  string
		total int
	}{
		{"related-to", `[{"excerpt":"A brief that depends on Atlas.","kind":"record","observed":"","ref":"brief:r1","relation":"depends-on","source":"brief","time":"2026-09-27T10:00:00+02:00","title":"Needs Atlas"},` +
			`{"date":"2026-09-26","excerpt":"Deep work relates to Atlas.","fields":{"phase":"study"},"kind":"note","ref":"concepts/deep.md","status":"stable","title":"Deep","type":"concept"}]`, 2},
		{"depends-on", `[{"excerpt":"A brief that depends on Atlas.","kind":"record","ref":"brief:r1","source":"brief","time":"2026-09-27T10:00:00+02:00","title":"Needs Atlas"}]`, 1},
		{"cites", `[{"date":"2026-09-25","excerpt":"The stack serves Atlas.","kind":"note","ref":"concepts/stack.md","status":"stable","title":"Stack","type":"concept"}]`, 1},
		{"links", `[{"excerpt":"Untyped mention.","kind":"record","ref":"brief:r2","source":"brief","time":"2026-09-11T10:00:00+02:00","title":"Mentions Atlas"},` +
			`{"date":"2026-09-10","excerpt":"See the repo and again.","kind":"note","ref":"concepts/plain.md","status":"stable","title":"Plain","type":"concept"}]`, 2},
	}
	for _, tt := range tests {
		items, total, next, err := tg.RelationPage(ctx, tt.rel, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.ReplaceAll(tt.want, `"observed":"",`, "")
		if got := jsonOf(t, items); got != want || total != tt.total || next != nil {
			t.Errorf("%s page (total %d, next %v):\n got %s\nwant %s", tt.rel, total, next, got, want)
		}
	}
	// Paging: offset 1 of links.
	items, total, next, err := tg.RelationPage(ctx, "links", 1)
	if err != nil || len(items) != 1 || items[0].Ref != "concepts/plain.md" || total != 2 || next != nil {
		t.Errorf("links from 1: %v %d %v %v", items, total, next, err)
	}

	br, _ := brain.Open(b.Root)
	err = CheckRelation([]*brain.Brain{br}, "owner")
	if err == nil || err.Error() != "invalid input: rel: unknown relation; use one of cites, depends-on, links, related-to" {
		t.Errorf("unknown relation: %v", err)
	}
	if err := CheckRelation([]*brain.Brain{br}, "depends-on"); err != nil {
		t.Error(err)
	}
}

func TestRelationPageSize(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 60; i++ {
		files[fmt.Sprintf("concepts/c%02d.md", i)] = fmt.Sprintf("---\nupdated: 2026-07-%02d\n---\n[x](repo:x/y)\n", 1+i%28)
	}
	o, _ := open(t, newBrain(t, "work", "", files))
	tg, err := Resolve(context.Background(), &o.Set, "", "repo:x/y")
	if err != nil {
		t.Fatal(err)
	}
	items, total, next, err := tg.RelationPage(context.Background(), "links", 0)
	if err != nil || len(items) != pageSize || total != 60 || next == nil || *next != 50 {
		t.Fatalf("first page: %d items, total %d, next %v, %v", len(items), total, next, err)
	}
	items, _, next, _ = tg.RelationPage(context.Background(), "links", 50)
	if len(items) != 10 || next != nil {
		t.Errorf("second page: %d items, next %v", len(items), next)
	}
}

func TestSeveralBrains(t *testing.T) {
	work := atlasBrain(t)
	home := newBrain(t, "home", "", map[string]string{
		"concepts/far.md":   "---\nupdated: 2026-09-28\n---\nAbout [Atlas](bf://work/projects/atlas.md#budget).\n",
		"projects/atlas.md": "---\nupdated: 2026-09-01\n---\n# Home atlas\n",
		"concepts/near.md":  "---\nupdated: 2026-09-02\n---\nOur own [atlas](../projects/atlas.md).\n",
	})
	o, _ := open(t, work, home)
	o.Local = false
	groups, _, err := Backlinks(context.Background(), &o.Set, "work", "projects/atlas.md")
	if err != nil {
		t.Fatal(err)
	}
	links := groups[len(groups)-1]
	want := `{"items":[{"brain":"home","date":"2026-09-28","excerpt":"About Atlas.","kind":"note","ref":"concepts/far.md","status":"stable","title":"far","type":"concept","uri":"bf://home/concepts/far.md"},` +
		`{"brain":"work","excerpt":"Untyped mention.","kind":"record","ref":"brief:r2","source":"brief","time":"2026-09-11T10:00:00+02:00","title":"Mentions Atlas","uri":"bf://work/brief:r2"},` +
		`{"brain":"work","date":"2026-09-10","excerpt":"See the repo and again.","kind":"note","ref":"concepts/plain.md","status":"stable","title":"Plain","type":"concept","uri":"bf://work/concepts/plain.md"}],"relation":"links","total":3}`
	if got := jsonOf(t, links); got != want {
		t.Errorf("links across brains:\n got %s\nwant %s", got, want)
	}
}

// A name two items claim counts for neither, and says so.
func TestSharedAlias(t *testing.T) {
	b := newBrain(t, "work", "", map[string]string{
		"concepts/a.md":    "---\naliases: [person:dana]\n---\nA.\n",
		"concepts/b.md":    "---\naliases: [person:dana]\n---\nB.\n",
		"concepts/link.md": "---\nupdated: 2026-09-01\n---\n[Dana](person:dana) and [A](a.md).\n",
	})
	o, probs := open(t, b)
	groups, _, err := Backlinks(context.Background(), &o.Set, "work", "concepts/a.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 || groups[0].Total != 1 {
		t.Errorf("groups %s", jsonOf(t, groups))
	}
	want := []reply.Problem{{Brain: "work", Error: "1 alias is also claimed elsewhere and was not expanded"}}
	if diff := cmp.Diff(want, probs.List()); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestBacklinkPreviewIsNewest: the preview kept while the links stream is the first
// Preview of the group sorted whole, whatever order the links arrive in: notes of the same
// day (ordered by ref), undated notes (last), records between notes' local midnights.
func TestBacklinkPreviewIsNewest(t *testing.T) {
	days := []string{"2026-09-03", "", "2026-09-05", "2026-09-03", "2026-09-07", "", "2026-09-05", "2026-09-01", "2026-09-03"}
	files := map[string]string{}
	for i, d := range days {
		front := ""
		if d != "" {
			front = "---\nupdated: " + d + "\n---\n"
		}
		files[fmt.Sprintf("concepts/n%02d.md", (i*5)%len(days))] = front + "See [x](repo:x/y).\n"
	}
	b := newBrain(t, "work", "", files)
	for i, at := range []string{"2026-09-04T23:30:00Z", "2026-09-02T21:59:59Z", "2026-09-06T22:00:00Z", "2026-09-08T01:00:00Z"} {
		b.Record("feed", fmt.Sprintf("r%d", i), `"title":"R","time":"`+at+`","links":["repo:x/y"]`)
	}
	o, _ := open(t, b)
	o.Location = zone
	ctx := context.Background()
	tg, err := Resolve(ctx, &o.Set, "", "repo:x/y")
	if err != nil {
		t.Fatal(err)
	}
	all, err := tg.links(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	groups, _, err := tg.Backlinks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 || groups[0].Total != len(days)+4 || len(all) != len(days)+4 {
		t.Fatalf("groups %+v, %d links; want one group of %d", groups, len(all), len(days)+4)
	}
	var want, got []string
	for _, l := range all[:preview] {
		want = append(want, l.ref)
	}
	for _, it := range groups[0].Items {
		got = append(got, it.Ref)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("preview (-sorted whole +kept while streaming):\n%s", diff)
	}
	// r3; then r2 and n02 at the same instant (09-07 00:00 local), by ref descending; r0 at
	// 09-05 01:30 local; the notes of 09-05 by ref descending.
	if diff := cmp.Diff([]string{"feed:r3", "feed:r2", "concepts/n02.md", "feed:r0", "concepts/n03.md"}, got); diff != "" {
		t.Errorf("preview (-want +got):\n%s", diff)
	}
}
