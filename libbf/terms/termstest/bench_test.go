package termstest

// BenchmarkCutter and BenchmarkFTS5 cut the search rows of a built cache named by
// BF_BENCH_INDEX (a brain's .bf/index.sqlite, the bench generator's for example): package
// terms counting every term of every column, then FTS5 indexing the same values into an
// in-memory table of the search table's columns and tokenizer, which is the share of a
// build they replace. Without the variable they are skipped; they never run in make test.
//
//	BF_BENCH_INDEX=FILE go test -run '^$' -bench . ./libbf/terms/termstest

import (
	"context"
	"database/sql"
	"os"
	"testing"

	"github.com/bfgo/bf/libbf/terms"
)

func benchRows(b *testing.B) [][4]string {
	file := os.Getenv("BF_BENCH_INDEX")
	if file == "" {
		b.Skip("BF_BENCH_INDEX names no cache")
	}
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rs, err := db.Query(`SELECT title, text, names, context FROM search`)
	if err != nil {
		b.Fatal(err)
	}
	defer rs.Close()
	var out [][4]string
	var size int64
	for rs.Next() {
		var r [4]sql.NullString
		if err := rs.Scan(&r[0], &r[1], &r[2], &r[3]); err != nil {
			b.Fatal(err)
		}
		out = append(out, [4]string{r[0].String, r[1].String, r[2].String, r[3].String})
		size += int64(len(r[0].String) + len(r[1].String) + len(r[2].String) + len(r[3].String))
	}
	if err := rs.Err(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	return out
}

func BenchmarkCutter(b *testing.B) {
	rows := benchRows(b)
	var cut terms.Cutter
	for b.Loop() {
		counts := map[string]int{}
		for _, r := range rows {
			for _, s := range r {
				cut.Each(s, func(t []byte) { counts[string(t)]++ })
			}
			clear(counts)
		}
	}
}

func BenchmarkFTS5(b *testing.B) {
	rows := benchRows(b)
	ctx := context.Background()
	for b.Loop() {
		db, err := sql.Open("sqlite", ":memory:")
		if err != nil {
			b.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		if _, err := db.ExecContext(ctx, `CREATE VIRTUAL TABLE s USING fts5(title, text, names, context, `+tokenizer+`)`); err != nil {
			b.Fatal(err)
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		st, err := tx.PrepareContext(ctx, `INSERT INTO s(title, text, names, context) VALUES (?, ?, ?, ?)`)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rows {
			if _, err := st.ExecContext(ctx, r[0], r[1], r[2], r[3]); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}
