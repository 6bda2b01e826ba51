package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIdentityBaseline runs the sqlite3 baseline of identity-shaped queries on a small
// cache: an identity some item names or links to (or links to a section of) is looked up;
// one no item knows is searched as its words, all OR-ed, as bf does.
func TestIdentityBaseline(t *testing.T) {
	sqlite3, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("the sqlite3 baseline needs the sqlite3 command")
	}
	db := filepath.Join(t.TempDir(), "index.sqlite")
	schema := `CREATE TABLE items(id INTEGER PRIMARY KEY, ref TEXT, time TEXT);
		CREATE TABLE names(name TEXT, item INTEGER);
		CREATE TABLE links(item INTEGER, target TEXT);
		CREATE TABLE passages(id INTEGER PRIMARY KEY, item INTEGER);
		CREATE VIRTUAL TABLE search USING fts5(title, text, names, context, tokenize='porter unicode61 remove_diacritics 2');
		INSERT INTO items VALUES (1, 'people/ana.md', '2026-01-01'), (2, 'mail:m1', '2026-02-01'),
			(3, 'tickets:OPS-1', '2026-03-01'), (4, 'notes/plan.md', '2026-04-01'), (5, 'mail:m2', '2026-05-01'),
			(6, 'notes/other.md', '2026-06-01');
		INSERT INTO names VALUES ('person:email/ana@example.test', 1), ('bf://bench/people/ana.md', 1);
		INSERT INTO links VALUES (2, 'person:email/ana@example.test'), (5, 'person:email/ana@example.test'),
			(4, 'notes/other.md#goal');
		INSERT INTO passages VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6);
		INSERT INTO search(rowid, title, text, names, context) VALUES (1, 'Ana', 'ana', '', ''),
			(2, 'Mail', 'the browse page of tickets', '', ''), (3, 'OPS-1', 'tickets tickets browse', '', ''),
			(4, 'Plan', 'plan', '', ''), (5, 'Mail', 'nothing', '', ''), (6, 'Other', 'other', '', '');`
	if out, err := exec.Command(sqlite3, db, schema).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, c := range []struct {
		id   string
		want []string
	}{
		{"person:email/ana@example.test", []string{"mail:m2", "mail:m1", "people/ana.md"}},
		{"bf://bench/notes/other.md", []string{"notes/plan.md"}},
		{"https://tickets.example.test/browse/OPS-1", []string{"tickets:OPS-1", "mail:m1"}},
		{"person:email/nobody@nowhere.test", []string{}},
	} {
		out, err := exec.Command(sqlite3, "-readonly", db, identitySQL(c.id, rankedSQL)).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v: %s", c.id, err, out)
		}
		if diff := cmp.Diff(c.want, strings.Fields(string(out))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.id, diff)
		}
	}
}
