package cache

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"testing"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/google/go-cmp/cmp"
)

// nullIn stores a NULL in a NOT NULL column of the live generation, as a damaged page can
// read: the constraint is lifted for the write and its text put back.
func nullIn(t *testing.T, f *fixture, table, column, decl string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+f.path(".bf/"+IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	loose := column + " TEXT"
	for _, q := range []string{
		"PRAGMA writable_schema = ON",
		"UPDATE sqlite_master SET sql = replace(sql, '" + decl + "', '" + loose + "') WHERE name = '" + table + "'",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	db, err = sql.Open("sqlite", "file:"+f.path(".bf/"+IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		"UPDATE " + table + " SET " + column + " = NULL",
		"PRAGMA writable_schema = ON",
		"UPDATE sqlite_master SET sql = replace(sql, '" + loose + "', '" + decl + "') WHERE name = '" + table + "'",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// A NULL where every build writes text is damage: the next open rebuilds the generation
// once instead of failing on every command until bf build.
func TestImpossibleValueRebuilds(t *testing.T) {
	f := smallBrain(t)
	f.build()
	c := f.open()
	want := refs(t, c)
	c.Close()
	nullIn(t, f, "meta", "signature", "signature TEXT NOT NULL")
	c, err := Open(context.Background(), f.brain())
	if err != nil {
		t.Fatalf("open of a generation holding an impossible NULL: %v", err)
	}
	defer c.Close()
	if diff := cmp.Diff(want, refs(t, c)); diff != "" {
		t.Errorf("refs after the rebuild (-want +got):\n%s", diff)
	}
}

// A command that reads an impossible NULL from one brain's cache discards that cache, so
// its retry answers from a rebuilt one.
func TestHealImpossibleValue(t *testing.T) {
	f := smallBrain(t)
	f.build()
	c := f.open()
	var title string
	err := c.DB().QueryRow(`SELECT NULL`).Scan(&title)
	c.Close()
	if err == nil {
		t.Fatal("scanning NULL into a string succeeded")
	}
	if !Heal(context.Background(), []*brain.Brain{f.brain()}, Unavailable(err)) {
		t.Fatalf("Heal(%v) = false, want the generation discarded", err)
	}
	if _, err := os.Stat(f.path(".bf/" + IndexFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the generation survived Heal: %v", err)
	}
	// Another error is not damage.
	f.build()
	if Heal(context.Background(), []*brain.Brain{f.brain()}, Unavailable(errors.New("disk full"))) {
		t.Error("Heal discarded a sound generation for an error that is not damage")
	}
}
