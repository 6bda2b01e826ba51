package cache

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/terms"
	"github.com/google/go-cmp/cmp"
)

// TestTermDocsStayExact builds random brains whose frequent words have heads, then
// refreshes them again and again (notes edited, their sections changed or gone, notes
// deleted, records added, replaced and deleted; the same files and passages many times):
// after every open, term_docs holds exactly the terms of the heads, each with the number of
// search rows FTS5 finds holding it. Words reach every column (titles, text, aliases and
// link targets, tags and headings), in several forms stemmed alike, in upper case and
// with accents, several times in one row.
func TestTermDocsStayExact(t *testing.T) {
	defer func(least int64, length int) { HeadMinPassages, HeadLength = least, length }(HeadMinPassages, HeadLength)
	HeadMinPassages, HeadLength = 6, 4
	var moved, refreshes int
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 38))
			f := newFixture(t, nil)
			tb := &termBrain{f: f, r: r}
			for i := range 12 + r.IntN(10) {
				tb.writeNote(fmt.Sprintf("%s/n%02d.md", []string{"projects", "concepts", "projects/deep"}[i%3], i))
			}
			for i := range 20 + r.IntN(20) {
				tb.writeRecord(fmt.Sprintf("r%03d", i))
			}
			f.build()
			live := f.path(".bf/index.sqlite")
			ino := inode(t, live)
			built := checkTermDocs(t, f, "the build")
			if len(built) == 0 {
				t.Fatal("the build kept no term's rows: no head to test")
			}
			for round := range 25 {
				tb.change()
				now := checkTermDocs(t, f, fmt.Sprintf("refresh %d", round))
				if inode(t, live) != ino {
					t.Fatalf("refresh %d rebuilt the generation instead of refreshing it", round)
				}
				refreshes++
				if !maps.Equal(now, built) {
					moved++
				}
			}
		})
	}
	if moved == 0 {
		t.Errorf("no refresh of %d moved a count", refreshes)
	}
}

// checkTermDocs opens the brain, refreshing it, and compares term_docs with the heads and
// with FTS5's counts; it returns the counts.
func checkTermDocs(t *testing.T, f *fixture, when string) map[string]int64 {
	t.Helper()
	c, err := Open(context.Background(), f.brain())
	if err != nil {
		t.Fatalf("%s: Open: %v", when, err)
	}
	defer c.Close()
	db := c.DB()
	heads := rows(t, db, `SELECT term FROM heads ORDER BY term`)
	stored := map[string]int64{}
	kept := rows(t, db, `SELECT term FROM term_docs ORDER BY term`)
	for _, term := range kept {
		var n int64
		if err := db.QueryRow(`SELECT docs FROM term_docs WHERE term = ?`, term).Scan(&n); err != nil {
			t.Fatal(err)
		}
		stored[term] = n
	}
	if diff := cmp.Diff(heads, kept); diff != "" {
		t.Fatalf("%s: the terms of term_docs are not those of the heads (-heads +term_docs):\n%s", when, diff)
	}
	for _, term := range kept {
		if got := terms.Terms(term); !slices.Equal(got, []string{term}) {
			t.Fatalf("%s: the query %q reads %q, not itself: choose another word", when, term, got)
		}
		var want int64
		if err := db.QueryRow(`SELECT count(*) FROM search WHERE search MATCH ?`, `"`+term+`"`).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if stored[term] != want {
			t.Errorf("%s: term_docs counts %d rows holding %q, FTS5 %d", when, stored[term], term, want)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	return stored
}

// termBrain writes the random notes and records of TestTermDocsStayExact.
type termBrain struct {
	f *fixture
	r *rand.Rand
}

// termWords are drawn with a Zipf-like law, so the first are in most rows. Some are stemmed
// alike (plan, planning, plans; run, running, runs), some differ by case or accent only.
var termWords = strings.Fields(`plan team planning Plans run café CAFE running ledger runs invoice
	migration billing payment refund customer account rate engine report export pipeline deploy
	release rollback review design decision meeting incident outage latency budget zebra okapi`)

func (b *termBrain) word() string {
	return termWords[int(float64(len(termWords))*b.r.Float64()*b.r.Float64()*b.r.Float64())]
}

func (b *termBrain) words(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = b.word()
	}
	return strings.Join(ws, " ")
}

// writeNote writes a note at path: a title, tags, aliases, a link, an introduction and a
// few sections, all of random words.
func (b *termBrain) writeNote(path string) {
	r := b.r
	var body strings.Builder
	fmt.Fprintf(&body, "---\ntags: [%s]\naliases: [%s]\n---\n# %s\n\n%s.\n\n", strings.ToLower(b.word()),
		b.words(1+r.IntN(2)), b.words(1+r.IntN(3)), b.words(1+r.IntN(25)))
	if r.IntN(3) == 0 {
		rel, err := filepath.Rel(filepath.Dir(path), "concepts/n01.md")
		if err != nil {
			b.f.T.Fatal(err)
		}
		fmt.Fprintf(&body, "See [%s](%s).\n\n", b.word(), filepath.ToSlash(rel))
	}
	for s := range r.IntN(5) {
		fmt.Fprintf(&body, "## %s %d\n\n%s.\n\n", b.words(1+r.IntN(2)), s, b.words(1+r.IntN(20)))
	}
	b.f.write(path, body.String())
}

// writeRecord writes (or replaces) the record id of a random source.
func (b *termBrain) writeRecord(id string) {
	r := b.r
	fields := fmt.Sprintf(`"title":%q,"text":%q,"time":"2026-09-01T08:00:00Z"`, b.words(1+r.IntN(3)), b.words(1+r.IntN(40)))
	if r.IntN(3) == 0 {
		fields += fmt.Sprintf(`,"url":"https://docs.test/%s"`, b.word())
	}
	b.f.writeRecord([]string{"mail", "chat"}[int(id[len(id)-1])%2], id, fields)
}

// change edits, deletes or adds a few notes and records.
func (b *termBrain) change() {
	r := b.r
	var notes, records []string
	for _, pattern := range []string{"*/n*.md", "*/*/n*.md", "memories/*/*.json"} {
		found, err := filepath.Glob(filepath.Join(b.f.Root, pattern))
		if err != nil {
			b.f.T.Fatal(err)
		}
		for _, p := range found {
			rel, err := filepath.Rel(b.f.Root, p)
			if err != nil {
				b.f.T.Fatal(err)
			}
			if strings.HasPrefix(rel, "memories") {
				records = append(records, filepath.ToSlash(rel))
			} else {
				notes = append(notes, filepath.ToSlash(rel))
			}
		}
	}
	for range 1 + r.IntN(4) {
		switch k := r.IntN(6); {
		case k <= 1 && len(notes) > 0:
			// The first notes most often, so the same passages are written again and again.
			b.writeNote(notes[int(float64(len(notes))*r.Float64()*r.Float64())])
		case k == 2 && len(notes) > 0:
			b.f.remove(notes[r.IntN(len(notes))])
		case k == 3:
			b.writeRecord(fmt.Sprintf("x%03d", r.IntN(1000)))
		case k == 4:
			// Replaced in place, often the same few.
			b.writeRecord(fmt.Sprintf("r%03d", r.IntN(8)))
		case len(records) > 0:
			b.f.remove(records[r.IntN(len(records))])
		}
	}
}
