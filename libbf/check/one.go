package check

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/bfgo/bf/libbf/brain"
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

// Loaded is a brain checked once and kept, so that one note at a time can be checked
// again from text that is not on disk yet, such as an editor's unsaved buffer, by the
// same rules and with the same words as bf validate.
type Loaded struct {
	mu sync.Mutex
	c  *checker
}

// Load checks the whole brain once. An error means the brain's tree could not be listed,
// or ctx ended first.
func Load(ctx context.Context, b *brain.Brain) (*Loaded, error) {
	tree, err := scan.Brain(b.Root)
	if err != nil {
		return nil, err
	}
	c := newChecker(b, tree)
	c.stop = func() bool { return ctx.Err() != nil }
	c.load()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.stop = nil
	// Checking a note later asks only whether a record exists: keep the refs, not the
	// records, whose texts would hold the brain's memories a second time.
	for rr := range c.records {
		c.records[rr] = nil
	}
	c.problems, c.warnings, c.unresolved = nil, nil, nil
	return &Loaded{c: c}, nil
}

// Note returns what bf validate would report for the note at rel (a brain-relative slash
// path) if its file held data: parse errors, the note's own rules, links, relations,
// identities claimed elsewhere and the validate: policy of bf.yaml, in the order validate
// finds them. The rest of the brain is as it was loaded; nothing is written.
func (l *Loaded) Note(rel string, data []byte) []Finding {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.c
	old, had := c.notes[rel]
	problems, warnings, written := c.problems, c.warnings, c.written
	c.problems, c.warnings, c.written = nil, nil, map[string]map[string]bool{}
	c.buffer, c.bufferData, c.collectNote, c.findings = rel, data, true, nil
	defer func() {
		if had {
			c.notes[rel] = old
		} else {
			delete(c.notes, rel)
		}
		c.problems, c.warnings, c.written = problems, warnings, written
		c.buffer, c.bufferData, c.collectNote, c.at = "", nil, false, place{}
	}()
	if len(data) > note.MaxBytes {
		c.problem(rel, "file is larger than %d MiB", note.MaxBytes>>20)
		return c.findings
	}
	n := c.parseNote(rel, data)
	if n == nil {
		return c.findings
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
	return c.findings
}

// claimants lists the files claiming id when the note at rel claims it too, in the order
// claimIdentities lists them: notes by path, then records.
func (c *checker) claimants(id, rel string) []string {
	var notes, records []string
	for _, f := range c.owners[id] {
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

// Update takes the note at rel as now holding data, as after the editor saved it: later
// checks of other notes see its headings, its entity and the identities it claims.
func (l *Loaded) Update(rel string, data []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.c
	if old := c.notes[rel]; old != nil {
		for _, id := range old.Identities() {
			c.owners[id] = slices.DeleteFunc(c.owners[id], func(f string) bool { return f == rel })
		}
		for p, owner := range c.entities {
			if owner == rel {
				delete(c.entities, p)
			}
		}
		delete(c.notes, rel)
	}
	if len(data) > note.MaxBytes {
		return
	}
	n, err := note.Parse(rel, data, note.KindOf(rel))
	if err != nil {
		return
	}
	c.notes[rel] = n
	if n.Kind == note.OKF {
		c.claim(rel, n)
	}
}
