package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/cache"
)

// TestScopeRanges reads folders, a note and a source as ranges of passage ids after a
// build and after edits that move notes to the end of the cache, remove some and add
// others between the scope's: the ranges hold exactly the scope's passages (those its
// filter lists), in as many ranges as the scope makes runs of items.
func TestScopeRanges(t *testing.T) {
	files := map[string]string{}
	for i := range 9 {
		folder := []string{"concepts", "projects", "projects/deep"}[i%3]
		files[fmt.Sprintf("%s/n%d.md", folder, i)] = fmt.Sprintf("# Note %d\n\nText.\n\n## One\n\nMore.\n", i)
	}
	b := newBrain(t, "ranges", files)
	for i := range 4 {
		b.Record("mail", fmt.Sprint("m", i), fmt.Sprintf(`"title":"Mail %d","text":"Body."`, i))
	}
	steps := []struct {
		name   string
		change func()
		want   map[string]int // scope → ranges
	}{
		{"built", func() {}, map[string]int{"projects": 1, "projects/deep": 1, "concepts": 1, "projects/n1.md": 1, "memories/mail": 1, "projects/none": 0}},
		{"a concept edited: it moves after the other folders", func() {
			b.Write("concepts/n3.md", "# Edited\n\nNew text.\n")
		}, map[string]int{"concepts": 2, "projects": 1, "projects/deep": 1, "concepts/n3.md": 1, "memories/mail": 1}},
		{"a project removed: its id leaves a gap that splits nothing", func() {
			if err := os.Remove(filepath.Join(b.Root, "projects", "n4.md")); err != nil {
				t.Fatal(err)
			}
		}, map[string]int{"projects": 1, "concepts": 2}},
		{"a project edited and a concept added: the runs stay apart", func() {
			b.Write("projects/deep/n2.md", "# Edited too\n\nText.\n")
			b.Write("concepts/new.md", "# New\n\nText.\n")
		}, map[string]int{"projects": 2, "projects/deep": 2, "concepts": 2, "memories/mail": 1}},
	}
	for _, st := range steps {
		st.change()
		p := openParts(t, b)[0]
		for scopeText, want := range st.want {
			pq, err := parse(Request{Query: "text", Scope: scopeText, Now: now, Location: time.UTC})
			if err != nil {
				t.Fatal(err)
			}
			w := &wordSearch{ctx: context.Background(), p: p, sc: pq.scope, args: scopeArgs(p, pq.scope, nil, noDays)}
			ranges, ok, err := w.scopeRanges()
			if err != nil || !ok {
				t.Fatalf("%s, %s: ok %v, %v", st.name, scopeText, ok, err)
			}
			if len(ranges) != want {
				t.Errorf("%s, %s: %d ranges %v, want %d", st.name, scopeText, len(ranges), ranges, want)
			}
			var got []int64
			for _, r := range ranges {
				ids, err := cache.Collect(w.ctx, p.tx, `SELECT id FROM passages WHERE id BETWEEN ? AND ? ORDER BY id`,
					[]any{r.lo, r.hi}, cache.ScanInt64)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ids...)
			}
			listed, err := cache.Collect(w.ctx, p.tx, scopedPassages(pq.scope), w.args, cache.ScanInt64)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(listed)
			if !slices.Equal(got, listed) {
				t.Errorf("%s, %s: the ranges hold passages %v, the scope %v", st.name, scopeText, got, listed)
			}
		}
	}
}
