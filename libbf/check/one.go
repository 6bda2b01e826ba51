package check

import (
	"context"
	"slices"
	"strings"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/scan"
)

// Finding is one problem or warning bf validate reports for a note, with where in the
// note the check was looking: a 1-based line, a front matter field path ("fields.owner",
// "aliases") or a link destination as written. Any of them may be empty.
type Finding struct {
	Message string
	Warning bool
	Line    int
	Field   string
	Link    string
}

// Note returns what bf validate would report for the note at rel (a brain-relative slash
// path) if its file held data: parse errors, the note's own rules, links, relations,
// identities claimed elsewhere and the validate: policy of bf.yaml, in the order validate
// finds them. The rest of the brain is read as every command reads it: from its cache,
// refreshed first, and from the files of the notes the links name. Nothing is written
// but the cache. The error is the cache's: it could not be opened.
func Note(ctx context.Context, b *brain.Brain, rel string, data []byte) ([]Finding, error) {
	cc, tx, err := cache.Snapshot(ctx, b)
	if err != nil {
		return nil, err
	}
	defer cc.Close()
	defer func() { _ = tx.Rollback() }()
	c := newChecker(b, &scan.Tree{})
	c.index = &cacheIndex{c: c, db: tx, ctx: ctx, parsed: map[string]*note.Note{}}
	c.buffer, c.bufferData, c.collectNote = rel, data, true
	if len(data) > note.MaxBytes {
		c.problem(rel, "file is larger than %d MiB", note.MaxBytes>>20)
		return c.findings, nil
	}
	n := c.parseNote(rel, data)
	if n == nil {
		return c.findings, nil
	}
	c.notes[rel] = n
	c.checkNote(n)
	if n.Kind == note.OKF {
		for _, id := range n.Identities() {
			if files := c.claimants(id, rel); len(files) > 1 {
				c.at = place{field: claimField(n, id)}
				c.duplicate(rel, id, files)
				c.at = place{}
			}
		}
	}
	c.notePolicy(n)
	return c.findings, ctx.Err()
}

// claimants lists the files claiming id when the note at rel claims it too, in the order
// claimIdentities lists them: notes by path, then records.
func (c *checker) claimants(id, rel string) []string {
	var notes, records []string
	for _, f := range c.ownersOf(id) {
		switch {
		case f == rel:
		case strings.HasPrefix(f, "memories/"):
			records = append(records, f)
		default:
			notes = append(notes, f)
		}
	}
	notes = append(notes, rel)
	slices.Sort(notes)
	return append(notes, records...)
}

// claimField is the front matter field where n claims id.
func claimField(n *note.Note, id string) string {
	switch {
	case n.Meta.Entity == id:
		return "entity"
	case slices.Contains(n.Meta.Aliases, id):
		return "aliases"
	}
	return "resource"
}
