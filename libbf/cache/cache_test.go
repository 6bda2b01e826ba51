package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const atlasNote = `---
type: project
title: Atlas
summary: Launch the **Atlas** [site](../concepts/site.md).
updated: 2026-09-20
tags: [web, launch]
aliases: [repo:github.com/acme/atlas]
fields:
  owner: [person:email/dana@example.test]
---
Intro with the ﬁne print.

## Plans

- [ ] Measure [latency](../concepts/site.md#speed)
- [x] Pick hosting

### Budget

Money from [Alice](bf://work/people/alice?rel=owner) and [a source](https://example.test/?rel=owner).
`

const siteNote = `# Site

See [mail](mail:m-1).

## Speed

Fast pages.
`

func smallBrain(t *testing.T) *fixture {
	f := newFixture(t, map[string]string{
		"projects/atlas.md":                        atlasNote,
		"concepts/site.md":                         siteNote,
		"concepts/index.md":                        "# Concepts\n",
		"actions/2026-09-21_review/ACTION.md":      "---\nstatus: draft\n---\n# Review\n\n- [ ] Read it\n",
		"actions/2026-09-21_review/inputs/note.md": "# Input\n\nCopied [text](../../../projects/atlas.md).\n",
	})
	f.writeRecord("mail", "m-1", `"title":"Storage review","text":"Review  selected\nSQLite.","time":"2026-09-12T09:00:00+02:00",`+
		`"url":"https://mail.test/1","links":["bf://work/projects/atlas.md?rel=owner","repo:github.com/acme/atlas"],`+
		`"aliases":["mailto:m-1@mail.test"],"attributes":{"partial":true,"updated":"2026-09-12T10:00:00Z"},`+
		`"fields":{"kind":"meeting","owner":["person:email/dana@example.test"]}`)
	return f
}

func TestBuildSmallBrain(t *testing.T) {
	f := smallBrain(t)
	res := f.build()
	if diff := cmp.Diff(BuildResult{Files: 6, Changed: 6, Removed: 0, Skipped: 0}, res); diff != "" {
		t.Errorf("BuildResult (-want +got):\n%s", diff)
	}
	// The sidecar file of the other tables is copied in and removed.
	for _, leftover := range []string{".bf/index.sqlite.new", ".bf/index.sqlite.new-tables", ".bf/index.sqlite.new-tables-journal"} {
		if _, err := os.Stat(f.path(leftover)); !os.IsNotExist(err) {
			t.Errorf("%s after a build: %v", leftover, err)
		}
	}
	c := f.open()
	if c.Status.Stale || len(c.Status.Problems) != 0 {
		t.Errorf("status = %+v", c.Status)
	}
	db := c.DB()
	var pageSize int
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil || pageSize != generationPageSize {
		t.Errorf("page size %d, %v; want %d", pageSize, err, generationPageSize)
	}
	counts := map[string]int{}
	for _, tb := range []string{"files", "folders", "items", "passages", "search", "tasks", "names", "links", "tags", "edges"} {
		counts[tb] = count(t, db, tb)
	}
	wantCounts := map[string]int{"files": 6, "folders": 1, "items": 6, "passages": 9, "search": 9, "tasks": 3,
		"names": 8, "links": 9, "tags": 2, "edges": 11}
	if diff := cmp.Diff(wantCounts, counts); diff != "" {
		t.Errorf("row counts (-want +got):\n%s", diff)
	}

	items := rows(t, db, `SELECT ref, kind, source, title, time, type, status, lead, url, updated, partial,
		tasks_open, tasks_done, next, weight, fields FROM items ORDER BY ref`)
	wantItems := []string{
		"actions/2026-09-21_review/ACTION.md | note |  | Review |  | action | draft | Read it |  |  | 0 | 1 | 0 | Read it | 2 | ",
		"actions/2026-09-21_review/inputs/note.md | note |  | Input |  | action | stable | Copied text. |  |  | 0 | 0 | 0 |  | 1 | ",
		"concepts/index.md | note |  | Concepts |  | concept | stable |  |  |  | 0 | 0 | 0 |  | 1 | ",
		"concepts/site.md | note |  | Site |  | concept | stable | See mail. |  |  | 0 | 0 | 0 |  | 2 | ",
		"mail:m-1 | record | mail | Storage review | 2026-09-12T07:00:00.000000Z |  |  | Review selected SQLite. | https://mail.test/1 | 2026-09-12T10:00:00.000000Z | 1 | 0 | 0 |  | 1 | {\"kind\":\"meeting\",\"owner\":[\"person:email/dana@example.test\"]}",
		"projects/atlas.md | note |  | Atlas | 2026-09-20T00:00:00.000000Z | project | stable | Launch the Atlas site. |  |  | 0 | 1 | 1 | Measure [latency] | 2 | {\"owner\":[\"person:email/dana@example.test\"]}",
	}
	if diff := cmp.Diff(wantItems, items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}

	passages := rows(t, db, `SELECT i.ref, p.fragment, p.title, s.title, s.text, s.names, s.context, p.original != ''
		FROM passages p JOIN items i ON i.id = p.item JOIN search s ON s.rowid = p.id ORDER BY i.ref, p.id`)
	wantPassages := []string{
		"actions/2026-09-21_review/ACTION.md |  | Review | Review | - [ ] Read it | action |  | 0",
		"actions/2026-09-21_review/inputs/note.md |  | Input | Input | Copied [text](../../../projects/atlas.md). | action projects/atlas.md |  | 0",
		"concepts/index.md |  | Concepts | Concepts |  | concept |  | 0",
		"concepts/site.md |  | Site | Site | See [mail](mail:m-1). | concept mail:m-1 |  | 0",
		"concepts/site.md | speed | Site — Speed | Speed | Fast pages. |  | Site | 0",
		"mail:m-1 |  | Storage review | Storage review | Review  selected\nSQLite. | mail mailto:m-1@mail.test bf://work/projects/atlas.md?rel=owner repo:github.com/acme/atlas https://mail.test/1 meeting person:email/dana@example.test |  | 0",
		"projects/atlas.md |  | Atlas | Atlas | Launch the **Atlas** [site](../concepts/site.md).\n\nIntro with the fine print. | project repo:github.com/acme/atlas concepts/site.md#speed bf://work/people/alice https://example.test/?rel=owner person:email/dana@example.test | web launch | 1",
		"projects/atlas.md | plans | Atlas — Plans | Plans | - [ ] Measure [latency](../concepts/site.md#speed)\n- [x] Pick hosting |  | Atlas | 0",
		"projects/atlas.md | budget | Atlas — Plans — Budget | Budget | Money from [Alice](bf://work/people/alice?rel=owner) and [a source](https://example.test/?rel=owner). |  | Atlas Plans | 0",
	}
	if diff := cmp.Diff(wantPassages, passages); diff != "" {
		t.Errorf("passages (-want +got):\n%s", diff)
	}

	edges := rows(t, db, `SELECT e.subject, e.relation, e.target, e.origin FROM edges e ORDER BY e.origin, e.relation, e.target`)
	wantEdges := []string{
		"bf://work/actions/2026-09-21_review/inputs/note.md |  | projects/atlas.md | actions/2026-09-21_review/inputs/note.md#input",
		"bf://work/concepts/site.md |  | mail:m-1 | concepts/site.md#site",
		"bf://work/mail:m-1 |  | repo:github.com/acme/atlas | mail:m-1",
		"bf://work/mail:m-1 | owner | bf://work/projects/atlas.md | mail:m-1",
		"bf://work/mail:m-1 | owner | person:email/dana@example.test | mail:m-1",
		"bf://work/projects/atlas.md | owner | person:email/dana@example.test | projects/atlas.md",
		"bf://work/projects/atlas.md | tagged-with | bf://work/tags/launch | projects/atlas.md",
		"bf://work/projects/atlas.md | tagged-with | bf://work/tags/web | projects/atlas.md",
		"bf://work/projects/atlas.md |  | https://example.test/?rel=owner | projects/atlas.md#budget",
		"bf://work/projects/atlas.md | owner | bf://work/people/alice | projects/atlas.md#budget",
		"bf://work/projects/atlas.md |  | concepts/site.md#speed | projects/atlas.md#plans",
	}
	if diff := cmp.Diff(wantEdges, edges); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}

	links := rows(t, db, `SELECT i.ref, l.target FROM links l JOIN items i ON i.id = l.item ORDER BY i.ref, l.target`)
	wantLinks := []string{
		"actions/2026-09-21_review/inputs/note.md | projects/atlas.md",
		"concepts/site.md | mail:m-1",
		"mail:m-1 | bf://work/projects/atlas.md",
		"mail:m-1 | person:email/dana@example.test",
		"mail:m-1 | repo:github.com/acme/atlas",
		"projects/atlas.md | bf://work/people/alice",
		"projects/atlas.md | concepts/site.md#speed",
		"projects/atlas.md | https://example.test/?rel=owner",
		"projects/atlas.md | person:email/dana@example.test",
	}
	if diff := cmp.Diff(wantLinks, links); diff != "" {
		t.Errorf("links (-want +got):\n%s", diff)
	}

	names := rows(t, db, `SELECT n.name, i.ref FROM names n JOIN items i ON i.id = n.item ORDER BY n.name`)
	wantNames := []string{
		"bf://work/actions/2026-09-21_review/ACTION.md | actions/2026-09-21_review/ACTION.md",
		"bf://work/actions/2026-09-21_review/inputs/note.md | actions/2026-09-21_review/inputs/note.md",
		"bf://work/concepts/index.md | concepts/index.md",
		"bf://work/concepts/site.md | concepts/site.md",
		"bf://work/mail:m-1 | mail:m-1",
		"bf://work/projects/atlas.md | projects/atlas.md",
		"mailto:m-1@mail.test | mail:m-1",
		"repo:github.com/acme/atlas | projects/atlas.md",
	}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	tasks := rows(t, db, `SELECT i.ref, t.line, t.fragment, t.text, t.done FROM tasks t JOIN items i ON i.id = t.item ORDER BY i.ref, t.line`)
	wantTasks := []string{
		"actions/2026-09-21_review/ACTION.md | 6 | review | Read it | 0",
		"projects/atlas.md | 15 | plans | Measure [latency](concepts/site.md#speed) | 0",
		"projects/atlas.md | 16 | plans | Pick hosting | 1",
	}
	if diff := cmp.Diff(wantTasks, tasks); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}

	// The tokenizer folds case, accents and ligatures, and stems.
	for q, want := range map[string]string{`"fine"`: "projects/atlas.md", `"selecting"`: "mail:m-1", `"SQLITE"`: "mail:m-1"} {
		got := rows(t, db, `SELECT DISTINCT i.ref FROM search s JOIN passages p ON p.id = s.rowid JOIN items i ON i.id = p.item WHERE search MATCH ? ORDER BY i.ref LIMIT 1`, q)
		if len(got) == 0 || got[0] != want {
			t.Errorf("MATCH %s = %v, want %s", q, got, want)
		}
	}
}

// TestLayoutDigest keeps layoutDigest, which usable compares with, equal to the layout of
// the DDL.
func TestLayoutDigest(t *testing.T) {
	s, err := layout()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(s))
	if got := hex.EncodeToString(sum[:]); got != layoutDigest {
		t.Errorf("layoutDigest = %s; the DDL now gives %s", layoutDigest, got)
	}
}

// TestLayoutStamp: a build stamps its generation with the layout, so an Open trusts the
// stamp instead of reading sqlite_master; a generation without the stamp (built before
// stamps) is still read without a rebuild, its layout compared in full.
func TestLayoutStamp(t *testing.T) {
	f := smallBrain(t)
	f.build()
	db, err := openFile(f.path(".bf/index.sqlite"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var cookie, stamp int64
	if err := db.QueryRow("PRAGMA schema_version").Scan(&cookie); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("PRAGMA application_id").Scan(&stamp); err != nil {
		t.Fatal(err)
	}
	if stamp == 0 || stamp != layoutStamp(cookie) {
		t.Fatalf("application_id = %d, want layoutStamp(%d) = %d", stamp, cookie, layoutStamp(cookie))
	}
	reads := 0
	onLayoutRead = func() { reads++ }
	t.Cleanup(func() { onLayoutRead = nil })

	before := inode(t, f.path(".bf/index.sqlite"))
	c := f.open()
	if got := len(refs(t, c)); got != 6 {
		t.Errorf("items = %d, want 6", got)
	}
	c.Close()
	if reads != 0 {
		t.Errorf("sqlite_master read %d times for a stamped generation, want 0", reads)
	}

	if _, err := db.Exec("PRAGMA application_id = 0"); err != nil {
		t.Fatal(err)
	}
	c = f.open()
	if got := len(refs(t, c)); got != 6 {
		t.Errorf("items = %d, want 6", got)
	}
	c.Close()
	if reads != 1 {
		t.Errorf("sqlite_master read %d times for an unstamped generation, want 1", reads)
	}
	if inode(t, f.path(".bf/index.sqlite")) != before {
		t.Errorf("an unstamped generation of this layout was rebuilt")
	}
}

func TestLayoutStampValues(t *testing.T) {
	seen := map[int64]int64{}
	for cookie := int64(0); cookie < 1000; cookie++ {
		v := layoutStamp(cookie)
		if v <= 0 || v > 1<<31-1 {
			t.Fatalf("layoutStamp(%d) = %d, want 1..2^31-1", cookie, v)
		}
		if other, ok := seen[v]; ok {
			t.Errorf("layoutStamp(%d) = layoutStamp(%d) = %d", cookie, other, v)
		}
		seen[v] = cookie
	}
}

// TestReadCache: the read-only connections an Open serves keep a 1 MiB page cache.
func TestReadCache(t *testing.T) {
	f := smallBrain(t)
	f.build()
	c := f.open()
	defer c.Close()
	var kib int
	if err := c.DB().QueryRow("PRAGMA cache_size").Scan(&kib); err != nil {
		t.Fatal(err)
	}
	if kib != readCacheKiB {
		t.Errorf("cache_size = %d, want %d", kib, readCacheKiB)
	}
}
