package cache

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/bfgo/bf/libbf/scratch"
	"github.com/bfgo/bf/libbf/terms"
)

// A passage of one word repeated hundreds of thousands of times makes FTS5's bm25() slow:
// it lists every instance of every query term in the row before summing them. So the
// passages where that can happen keep their term counts in the heavy table, and search
// computes their BM25 from those counts with FTS5's own formula (libbf/search, heavy.go).
//
// A passage is kept when its columns hold more than heavyBytes bytes and at most
// heavyTerms distinct (term, column) pairs: it is large and repeats few terms, so its
// counts are a few rows. Any other passage is scored by FTS5, which is exact too.
const (
	heavyBytes = 64 << 10
	heavyTerms = 256
)

// TermCount is how many times a term occurs in one column of a passage, as the search
// table's tokenizer cuts it.
type TermCount struct {
	Term   string
	Column int // 0 title, 1 text, 2 names, 3 context
	Count  int64
}

// SearchColumns are the columns of the search table, in order.
var SearchColumns = [4]string{"title", "text", "names", "context"}

// passageTable creates, in the scratch database, a table of the search table's columns and
// tokenizer, where one passage at a time is run through FTS5 exactly as the index runs it.
var passageTable = []string{
	`CREATE VIRTUAL TABLE IF NOT EXISTS passage USING fts5(title, text, names, context, ` + searchTokenizer + `)`,
}

// WithPassage writes cols as the only row (rowid 1) of the scratch database's passage table
// and runs fn, which may read it: snippet(passage, …) where passage MATCH a query. The
// row is written in a transaction rolled back after fn, so the table is empty between
// callers and never holds a segment.
func WithPassage(ctx context.Context, cols [4]string, fn func(*scratch.Conn) error) error {
	return scratch.Do(ctx, func(c *scratch.Conn) error {
		if err := c.Table(ctx, "passage", passageTable...); err != nil {
			return err
		}
		if err := c.Exec(ctx, `BEGIN`); err != nil {
			return err
		}
		defer c.Rollback(ctx)
		if err := c.Exec(ctx, `INSERT INTO passage(rowid, title, text, names, context) VALUES (1, ?, ?, ?, ?)`,
			cols[0], cols[1], cols[2], cols[3]); err != nil {
			return err
		}
		return fn(c)
	})
}

// TermCounts cuts the four column values cols into terms as the search table's tokenizer
// does (package terms) and returns each (term, column) with its count, ordered by term then
// column.
func TermCounts(cols [4]string) []TermCount {
	counts := map[TermCount]int64{}
	var cut terms.Cutter
	for col, s := range cols {
		cut.Each(s, func(term []byte) {
			counts[TermCount{Term: string(term), Column: col}]++
		})
	}
	out := make([]TermCount, 0, len(counts))
	for tc, n := range counts {
		tc.Count = n
		out = append(out, tc)
	}
	slices.SortFunc(out, func(a, b TermCount) int {
		return cmp.Or(strings.Compare(a.Term, b.Term), cmp.Compare(a.Column, b.Column))
	})
	return out
}

// heavyCounts returns the term counts of a search row worth keeping in the heavy table,
// or nil.
func heavyCounts(r *ftsRow) []TermCount {
	if len(r.title)+len(r.text)+len(r.names)+len(r.context) <= heavyBytes || !fewWords(r, 4*heavyTerms) {
		return nil
	}
	if counts := TermCounts([4]string{r.title, r.text, r.names, r.context}); len(counts) <= heavyTerms {
		return counts
	}
	return nil
}

// fewWords reports whether the columns of r hold at most n distinct words (runs of letters,
// digits and marks, in lower case): a cheap test before tokenizing a large passage, which
// only decides whether its counts are worth computing.
func fewWords(r *ftsRow, n int) bool {
	seen := map[string]bool{}
	for _, s := range []string{r.title, r.text, r.names, r.context} {
		for w := range strings.FieldsFuncSeq(s, func(c rune) bool {
			return !unicode.IsLetter(c) && !unicode.IsNumber(c) && !unicode.IsMark(c)
		}) {
			if !seen[w] {
				if seen[strings.ToLower(w)] {
					continue
				}
				seen[strings.ToLower(w)] = true
				if len(seen) > n {
					return false
				}
			}
		}
	}
	return true
}
