package cache

import (
	"database/sql"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

// TestDriverFTS5 checks that the driver has FTS5, fts5vocab and the tokenizer bf relies on.
func TestDriverFTS5(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "x.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range ddl {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for _, s := range indexes {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if _, err := db.Exec(`INSERT INTO search(rowid, title, text, names, context) VALUES
		(1, 'Résumé policy', 'Ångström synchronizes', '', ''),
		(2, 'Other', 'nothing here', '', '')`); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query string
		want  int64
	}{
		{`"resume"`, 1},
		{`"policies"`, 1},
		{`"angstrom"`, 1},
		{`"synchronize"`, 1},
		{`"ANGSTRÖM"`, 1},
		{`"here"`, 2},
	}
	for _, tt := range tests {
		var id int64
		if err := db.QueryRow(`SELECT rowid FROM search WHERE search MATCH ? ORDER BY bm25(search, 10, 1, 0.5, 3)`, tt.query).Scan(&id); err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		if id != tt.want {
			t.Errorf("%s: got %d, want %d", tt.query, id, tt.want)
		}
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM vocabulary WHERE term IN ('polici', 'synchron', 'resum')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("vocabulary terms = %d, want 3", n)
	}
}
