package check

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/ref"
)

// What checking one link or identity asks about the rest of the brain. bf validate reads
// every file first and answers from its maps; checking one note alone (Loaded.Note) asks
// the cache and the disk instead, and parses only the notes its links name.

// noteAt is the parsed note at p, or nil when p is no note of the brain (or cannot be
// parsed).
func (c *checker) noteAt(p string) *note.Note {
	if n, ok := c.notes[p]; ok || c.index == nil {
		return n
	}
	return c.index.note(p)
}

// entityNote is the note that declares the entity bf://NAME/p, or "".
func (c *checker) entityNote(p string) string {
	if c.index == nil {
		return c.entities[p]
	}
	return c.index.entity(p)
}

// ownersOf lists the files claiming identity id: notes by path, then records.
func (c *checker) ownersOf(id string) []string {
	if c.index == nil {
		return c.owners[id]
	}
	return c.index.owners(id)
}

// hasRecord reports a valid record with this ref.
func (c *checker) hasRecord(rr ref.RecordRef) bool {
	if c.index == nil {
		_, ok := c.records[rr]
		return ok
	}
	return c.index.record(rr)
}

// cacheIndex answers from one read-only snapshot of the brain's cache, which holds every
// valid note and record, their names and their claims, and from the notes' files.
type cacheIndex struct {
	c      *checker
	db     *sql.Tx
	ctx    context.Context
	parsed map[string]*note.Note
}

func (x *cacheIndex) note(p string) *note.Note {
	if n, ok := x.parsed[p]; ok {
		return n
	}
	var n *note.Note
	if strings.HasSuffix(p, ".md") && ref.UnderAuthored(p) && x.c.exists(p) {
		if data, err := x.c.read(p, note.MaxBytes); err == nil {
			if parsed, err := note.Parse(p, data, note.KindOf(p)); err == nil {
				n = parsed
			}
		}
	}
	x.parsed[p] = n
	return n
}

func (x *cacheIndex) entity(p string) string {
	var owner string
	name := ref.Address{Brain: x.c.name, Path: p}.String()
	rows, err := x.db.QueryContext(x.ctx, `SELECT i.ref FROM names n JOIN items i ON i.id = n.item
		WHERE n.name = ? AND i.kind = 'note' ORDER BY i.ref`, name)
	_ = cache.EachRow(rows, err, func(r *sql.Rows) error {
		var rf string
		if err := r.Scan(&rf); err != nil {
			return err
		}
		if owner == "" && note.KindOf(rf) == note.OKF {
			owner = rf
		}
		return nil
	})
	return owner
}

func (x *cacheIndex) owners(id string) []string {
	var notes, records []string
	rows, err := x.db.QueryContext(x.ctx, `SELECT i.ref, i.path, i.kind FROM names n JOIN items i ON i.id = n.item
		WHERE n.name = ?`, id)
	_ = cache.EachRow(rows, err, func(r *sql.Rows) error {
		var rf, path, kind string
		if err := r.Scan(&rf, &path, &kind); err != nil {
			return err
		}
		if id == (ref.Address{Brain: x.c.name, Path: rf}).String() {
			return nil // an item's own address is no claim
		}
		switch {
		case kind == cache.KindRecord:
			records = append(records, path)
		case note.KindOf(rf) == note.OKF:
			notes = append(notes, rf) // only OKF notes claim identities
		}
		return nil
	})
	slices.Sort(notes)
	slices.Sort(records)
	return append(notes, records...)
}

func (x *cacheIndex) record(rr ref.RecordRef) bool {
	var one int
	err := x.db.QueryRowContext(x.ctx, `SELECT 1 FROM items WHERE ref = ? AND kind = 'record'`, rr.String()).Scan(&one)
	return err == nil
}

// sourceFolder reports a folder memories/name, a record source of the brain.
func (c *checker) sourceFolder(name string) bool {
	st, err := os.Lstat(filepath.Join(c.root, "memories", name))
	return err == nil && st.IsDir() && c.exists("memories/"+name)
}
