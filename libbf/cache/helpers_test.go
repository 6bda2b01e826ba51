package cache

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/record"
)

const testConfig = "version: 8\nname: work\nfields:\n" + brainfix.OwnerField + brainfix.KindField

// fixture is a brain written by a test.
type fixture struct{ *brainfix.Brain }

// newFixture is a brain with testConfig holding files.
func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	return &fixture{brainfix.New(t, brainfix.Spec{Config: testConfig, Notes: files})}
}

func (f *fixture) path(p string) string { return filepath.Join(f.Root, filepath.FromSlash(p)) }

func (f *fixture) write(p, s string) { f.T.Helper(); f.Write(p, s) }

func (f *fixture) remove(p string) {
	f.T.Helper()
	if err := os.RemoveAll(f.path(p)); err != nil {
		f.T.Fatal(err)
	}
}

// recordPath is where a record with this id lives in source.
func recordPath(source, id string) string {
	return "memories/" + source + "/" + record.FileName(id)
}

// writeRecord stores a record file from its JSON fields (id is added) and returns its path.
func (f *fixture) writeRecord(source, id, body string) string {
	f.T.Helper()
	return f.Record(source, id, body)
}

func (f *fixture) brain() *brain.Brain { f.T.Helper(); return f.Open() }

func (f *fixture) open() *Cache {
	f.T.Helper()
	c, err := Open(context.Background(), f.brain())
	if err != nil {
		f.T.Fatalf("Open: %v", err)
	}
	f.T.Cleanup(func() { c.Close() })
	return c
}

func (f *fixture) build() BuildResult {
	f.T.Helper()
	res, err := Build(context.Background(), f.brain(), nil)
	if err != nil {
		f.T.Fatalf("Build: %v", err)
	}
	return res
}

// rows runs a query and prints each row as its columns joined by " | ".
func rows(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rs, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out []string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			parts[i] = fmt.Sprint(v)
		}
		out = append(out, strings.Join(parts, " | "))
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func count(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// touchPast sets a path's times 10 s in the past, beyond the settle time.
func (f *fixture) touchPast(p string) {
	f.T.Helper()
	old := time.Now().Add(-10 * time.Second)
	if err := os.Chtimes(f.path(p), old, old); err != nil {
		f.T.Fatal(err)
	}
}
