// Package termstest compares package terms with FTS5 itself: the terms FTS5 indexes, listed
// by fts5vocab one instance at a time, against the terms package terms cuts from the same
// values, term by term and position by position.
package termstest

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/terms"
	_ "modernc.org/sqlite"
)

// Tokenizer is the search table's tokenizer, the one package terms reproduces, and
// foldedTokenizer the same without the stemmer.
const (
	tokenizer       = `tokenize='porter unicode61 remove_diacritics 2'`
	foldedTokenizer = `tokenize='unicode61 remove_diacritics 2'`
)

// CompareTexts indexes texts in a new FTS5 table of the search table's tokenizer and
// compares its instances with the terms of each text (Cutter.Each); it returns how many it
// compared.
func CompareTexts(ctx context.Context, texts []string) (int, error) {
	return compareTexts(ctx, texts, tokenizer, (*terms.Cutter).Each)
}

// CompareFolded is CompareTexts without the stemmer (foldedTokenizer, Cutter.EachFolded).
func CompareFolded(ctx context.Context, texts []string) (int, error) {
	return compareTexts(ctx, texts, foldedTokenizer, (*terms.Cutter).EachFolded)
}

// cutter is Cutter.Each or Cutter.EachFolded.
type cutter func(c *terms.Cutter, s string, fn func([]byte))

func compareTexts(ctx context.Context, texts []string, tokenizer string, each cutter) (int, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE VIRTUAL TABLE t USING fts5(x, ` + tokenizer + `)`,
		`CREATE VIRTUAL TABLE temp.t_instances USING fts5vocab(main, t, instance)`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return 0, err
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	for i, s := range texts {
		if _, err := tx.ExecContext(ctx, `INSERT INTO t(rowid, x) VALUES (?, ?)`, i+1, s); err != nil {
			return 0, err
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	return compare(ctx, conn, `SELECT rowid, x FROM t`, "t_instances", []string{"x"}, each)
}

// searchColumns are the columns of a cache's search table.
var searchColumns = []string{"title", "text", "names", "context"}

// CompareBrain builds the cache of the brain at root and compares its search table
// (compareSearch).
func CompareBrain(ctx context.Context, root string) (int, error) {
	b, err := brain.Open(root)
	if err != nil {
		return 0, err
	}
	if _, err := cache.Build(ctx, b, nil); err != nil {
		return 0, err
	}
	return compareSearch(ctx, filepath.Join(root, cache.Dir, cache.IndexFile))
}

// compareSearch compares the search table of the database file, a cache's index.sqlite
// (opened read-only), with the terms of its rows' values; it returns how many instances it
// compared.
func compareSearch(ctx context.Context, file string) (int, error) {
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.search_instances USING fts5vocab(main, search, instance)`); err != nil {
		return 0, err
	}
	return compare(ctx, conn, `SELECT rowid, title, text, names, context FROM search`, "search_instances", searchColumns,
		(*terms.Cutter).Each)
}

// instance is one occurrence of a term: row, column and position.
type instance struct {
	term     string
	doc, col int64
	offset   int64
}

// compare reads the values of rows (rowid then one value per column) and the instances of
// the fts5vocab table vocab, cuts the values with each and reports the first difference.
func compare(ctx context.Context, conn *sql.Conn, rows, vocab string, columns []string, each cutter) (int, error) {
	var want []instance
	values := map[int64][]string{}
	var cut terms.Cutter
	rs, err := conn.QueryContext(ctx, rows)
	if err != nil {
		return 0, err
	}
	for rs.Next() {
		var id int64
		vals := make([]sql.NullString, len(columns))
		dest := []any{&id}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := rs.Scan(dest...); err != nil {
			rs.Close()
			return 0, err
		}
		for col, v := range vals {
			values[id] = append(values[id], v.String)
			var pos int64
			each(&cut, v.String, func(term []byte) {
				want = append(want, instance{term: string(term), doc: id, col: int64(col), offset: pos})
				pos++
			})
		}
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return 0, err
	}
	var got []instance
	rs, err = conn.QueryContext(ctx, `SELECT term, doc, col, offset FROM temp.`+vocab)
	if err != nil {
		return 0, err
	}
	defer rs.Close()
	for rs.Next() {
		var in instance
		var col string
		if err := rs.Scan(&in.term, &in.doc, &col, &in.offset); err != nil {
			return 0, err
		}
		if in.col = int64(slices.Index(columns, col)); in.col < 0 {
			return 0, fmt.Errorf("fts5vocab names an unknown column %q", col)
		}
		got = append(got, in)
	}
	if err := rs.Err(); err != nil {
		return 0, err
	}
	order := func(a, b instance) int {
		return cmp.Or(cmp.Compare(a.doc, b.doc), cmp.Compare(a.col, b.col), cmp.Compare(a.offset, b.offset))
	}
	slices.SortFunc(got, order)
	slices.SortFunc(want, order)
	for k := range min(len(got), len(want)) {
		if got[k] != want[k] {
			g, w := got[k], want[k]
			row := min(g.doc, w.doc)
			return k, fmt.Errorf("row %d: FTS5 has %q at column %d position %d, package terms %q at column %d position %d; the row's values: %q",
				row, g.term, g.col, g.offset, w.term, w.col, w.offset, clip(values[row]))
		}
	}
	if len(got) != len(want) {
		return min(len(got), len(want)), fmt.Errorf("FTS5 lists %d instances, package terms %d", len(got), len(want))
	}
	return len(got), nil
}

func clip(vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		if len(v) > 400 {
			v = v[:400] + "…"
		}
		out[i] = v
	}
	return out
}
