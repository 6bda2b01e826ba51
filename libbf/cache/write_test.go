package cache

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDuplicateRef inserts three files, the second holding the ref of the first, with the
// refresh's writer (a savepoint per file) and the build's (rows batched): the second is
// recorded as skipped with nothing else of it written, and ids go on as if it were absent.
func TestDuplicateRef(t *testing.T) {
	entry := func(ref, path string) *entry {
		return &entry{
			item:     itemRow{ref: ref, path: path, kind: KindNote, title: ref, weight: 1},
			passages: []passageRow{{display: ref, title: ref, text: "text of " + path}},
			names:    []string{"bf://work/" + path},
			links:    []string{"target/" + path},
		}
	}
	files := []prepared{
		{in: input{path: "a.md", fp: fingerprint{Size: 1, Mtime: 1, Ctime: 1, Inode: 1}}, e: entry("x", "a.md")},
		{in: input{path: "b.md", fp: fingerprint{Size: 2, Mtime: 2, Ctime: 2, Inode: 2}}, e: entry("x", "b.md")},
		{in: input{path: "c.md", fp: fingerprint{Size: 3, Mtime: 3, Ctime: 3, Inode: 3}}, e: entry("y", "c.md")},
	}
	for _, batch := range []bool{false, true} {
		name := "savepoints"
		if batch {
			name = "batched"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db, err := openBuildFile(ctx, filepath.Join(t.TempDir(), "index.sqlite"), generationPageSize)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var fts []int64
			err = writeTx(ctx, db, func(w *writer) error {
				if batch {
					if err := w.batch(ctx); err != nil {
						return err
					}
				}
				for _, p := range files {
					if err := w.insert(ctx, p, false); err != nil {
						return err
					}
				}
				for _, r := range w.ftsAdd {
					fts = append(fts, r.id)
				}
				return w.flushBatches(ctx)
			})
			if err != nil {
				t.Fatal(err)
			}
			query := func(q string) string {
				t.Helper()
				rows, err := db.QueryContext(ctx, q)
				got, err := ReadRows(rows, err, func(rows *sql.Rows) (v string, err error) {
					return v, rows.Scan(&v)
				})
				if err != nil {
					t.Fatal(err)
				}
				return strings.Join(got, "; ")
			}
			checks := []struct{ q, want string }{
				{`SELECT id || ' ' || ref || ' ' || path FROM items ORDER BY id`, "1 x a.md; 2 y c.md"},
				{`SELECT id || ' ' || item || ' ' || title FROM passages ORDER BY id`, "1 1 x; 2 2 y"},
				{`SELECT item || ' ' || name FROM names ORDER BY item`, "1 bf://work/a.md; 2 bf://work/c.md"},
				{`SELECT item || ' ' || target FROM links ORDER BY item`, "1 target/a.md; 2 target/c.md"},
				{`SELECT path || ' ' || size || ' [' || error || ']' FROM files ORDER BY path`,
					"a.md 1 []; b.md 2 [another file already holds the ref x; run bf validate]; c.md 3 []"},
			}
			for _, c := range checks {
				if got := query(c.q); got != c.want {
					t.Errorf("%s:\n got %s\nwant %s", c.q, got, c.want)
				}
			}
			if !slices.Equal(fts, []int64{1, 2}) {
				t.Errorf("search rows %v, want [1 2]", fts)
			}
		})
	}
}

// TestPassagesFollowItems edits, removes and adds notes and records between refreshes,
// then a build: a passage of a later item always has a higher id than one of an earlier
// item, the order scoped searches read ranges of passages by.
func TestPassagesFollowItems(t *testing.T) {
	f := newFixture(t, nil)
	for i := range 12 {
		f.write(fmt.Sprintf("%s/n%02d.md", []string{"projects", "concepts", "projects/deep"}[i%3], i),
			fmt.Sprintf("# Note %d\n\nText.\n\n## One\n\nMore.\n\n## Two\n\nEnd.\n", i))
		f.writeRecord("mail", fmt.Sprint("m", i), fmt.Sprintf(`"title":"Mail %d","text":"Body."`, i))
	}
	check := func(when string) {
		t.Helper()
		c := f.open()
		var crossed int
		if err := c.DB().QueryRow(`SELECT count(*) FROM passages a JOIN passages b ON a.item < b.item AND a.id > b.id`).Scan(&crossed); err != nil {
			t.Fatal(err)
		}
		if crossed != 0 {
			t.Errorf("%s: %d pairs of passages out of their items' order", when, crossed)
		}
		c.Close()
	}
	check("first open")
	f.write("projects/n03.md", "# Edited\n\nNew text.\n\n## Three\n\nMore.\n")
	f.remove("concepts/n04.md")
	f.write("concepts/new.md", "# New\n\nText.\n")
	check("after an edit, a removal and an addition")
	f.writeRecord("mail", "m99", `"title":"Late mail","text":"Body."`)
	f.write("projects/deep/n02.md", "# Edited again\n\nOne passage.\n")
	check("after a record and another edit")
	f.build()
	check("after a build")
}
