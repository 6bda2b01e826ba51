package cache

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
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

// damageText changes one byte of the first copy of text in the live generation, in place,
// as a flipped bit on disk would: the file still reads as a sound database.
func damageText(t *testing.T, f *fixture, text string) {
	t.Helper()
	live := f.path(".bf/" + IndexFile)
	data, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte(text))
	if at < 0 {
		t.Fatalf("%q is not in the cache file", text)
	}
	w, err := os.OpenFile(live, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteAt([]byte{data[at] ^ 0x20}, int64(at)); err != nil {
		t.Fatal(err)
	}
}

// A byte of the cache changed behind bf's back reads as another valid value, which SQLite
// cannot tell from the real one: the seal does, and the open answers from a rebuilt cache.
func TestChangedCacheFileIsRebuilt(t *testing.T) {
	f := smallBrain(t)
	f.build()
	c := f.open()
	const q = `SELECT ref, title, lead FROM items ORDER BY ref`
	want := rows(t, c.DB(), q)
	c.Close()
	damageText(t, f, "Storage review")
	c = f.open()
	if diff := cmp.Diff(want, rows(t, c.DB(), q)); diff != "" {
		t.Errorf("items after one byte of the cache changed (-want +got):\n%s", diff)
	}
	c.Close()
	// The rebuilt generation is sealed: the next open reads no more than the seal.
	reads := 0
	onSealRead = func() { reads++ }
	defer func() { onSealRead = nil }()
	f.open().Close()
	if reads != 0 {
		t.Errorf("the open after the rebuild read the whole file %d times, want 0", reads)
	}
}

// Refreshes change the file through SQLite and seal it before they release the writer
// lock: no later open reads the whole file or rebuilds.
func TestRefreshKeepsTheSeal(t *testing.T) {
	f := smallBrain(t)
	f.build()
	reads := 0
	onSealRead = func() { reads++ }
	defer func() { onSealRead = nil }()
	for i := range 5 {
		f.write("concepts/site.md", fmt.Sprintf("# Site %d\n", i))
		c := f.open()
		if got := titleOf(t, c, "concepts/site.md"); got != fmt.Sprintf("Site %d", i) {
			t.Errorf("refresh %d: title %q", i, got)
		}
		c.Close()
	}
	before := inode(t, f.path(".bf/"+IndexFile))
	f.open().Close()
	if after := inode(t, f.path(".bf/"+IndexFile)); after != before {
		t.Error("an open after refreshes rebuilt the generation")
	}
	// The refreshes wrote to the write-ahead log, never filling it to a checkpoint: the
	// file itself never changed, so it was never read whole.
	if reads != 0 {
		t.Errorf("the file was read whole %d times over 5 refreshes, want 0", reads)
	}
}

// BenchmarkCheckSeal is what the seal adds to every open of a sealed generation.
func BenchmarkCheckSeal(b *testing.B) {
	f := &fixture{brainfix.New(b, brainfix.Spec{Config: testConfig, Notes: map[string]string{"concepts/a.md": "# A\n"}})}
	f.build()
	dir := f.path(".bf")
	for b.Loop() {
		st, err := os.Lstat(filepath.Join(dir, IndexFile))
		if err != nil {
			b.Fatal(err)
		}
		if err := checkSeal(context.Background(), dir, st); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSealRead is the cost of reading a 64 MiB cache file whole for its CRC, which a
// writer pays when it changed the file and an open pays when the file differs from its seal.
func BenchmarkSealRead(b *testing.B) {
	file := filepath.Join(b.TempDir(), IndexFile)
	if err := os.WriteFile(file, bytes.Repeat([]byte("bf cache page "), 64<<20/14), 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(64 << 20)
	for b.Loop() {
		if _, _, err := sumFile(file); err != nil {
			b.Fatal(err)
		}
	}
}

// A generation written before seals existed is sealed as it is, never rebuilt for it.
func TestUnsealedCacheIsSealed(t *testing.T) {
	f := smallBrain(t)
	f.build()
	f.remove(".bf/" + SealFile)
	before := inode(t, f.path(".bf/"+IndexFile))
	c := f.open()
	if got := len(refs(t, c)); got != 6 {
		t.Errorf("items = %d, want 6", got)
	}
	c.Close()
	if after := inode(t, f.path(".bf/"+IndexFile)); after != before {
		t.Error("the unsealed generation was rebuilt")
	}
	if _, err := os.Stat(f.path(".bf/" + SealFile)); err != nil {
		t.Errorf("no seal after the open: %v", err)
	}
}
