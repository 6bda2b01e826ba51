package check

import (
	"bytes"
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/ref"
)

// policy applies the optional validate: section of bf.yaml.
func (c *checker) policy() {
	v := c.cfg.Validate
	if v == nil {
		return
	}
	if v.IndexNote != "" {
		c.indexNote(v.IndexNote)
	}
	for _, p := range slices.Sorted(maps.Keys(c.notes)) {
		c.notePolicy(c.notes[p])
	}
}

// notePolicy applies the validate: rules of bf.yaml that concern one note alone.
func (c *checker) notePolicy(n *note.Note) {
	v := c.cfg.Validate
	if v == nil {
		return
	}
	if len(v.RequiredStatus) > 0 && n.Kind == note.OKF && !slices.Contains(v.RequiredStatus, n.Status) {
		c.at = place{field: "status"}
		c.problem(n.Path, "status %s is not one of validate.required_status in bf.yaml (%s)", n.Status, strings.Join(v.RequiredStatus, ", "))
		c.at = place{}
	}
	patterns := v.Patterns()
	if len(patterns) == 0 {
		return
	}
	data, err := c.noteData(n.Path)
	if err != nil {
		return
	}
	for i, re := range patterns {
		loc := re.FindIndex(data)
		if loc == nil {
			continue
		}
		// The match itself is never shown: forbidden patterns often catch secrets.
		line := bytes.Count(data[:loc[0]], []byte("\n")) + 1
		c.at = place{line: line}
		c.problem(n.Path, "line %d matches validate.forbid_patterns.%d of bf.yaml", line, i)
		c.at = place{}
	}
}

// indexNote checks that the named note exists and links to every project and concept note.
func (c *checker) indexNote(p string) {
	index, ok := c.notes[p]
	if !ok {
		c.problem("bf.yaml", "validate.index_note: %s is not a note of this brain", p)
		return
	}
	listed := map[string]bool{}
	for _, l := range index.Links {
		if t, err := note.Resolve(index.Path, l.Target); err == nil && t.Kind == note.File {
			listed[t.Path] = true
			continue
		}
		if a, err := ref.ParseAddress(l.Target); err == nil && a.Brain == c.name {
			listed[cmp.Or(c.entities[a.Path], a.Path)] = true
		}
	}
	for _, q := range slices.Sorted(maps.Keys(c.notes)) {
		n := c.notes[q]
		if q == p || n.Kind != note.OKF || strings.HasPrefix(q, "actions/") {
			continue
		}
		if !listed[q] {
			c.problem(q, "not listed in the index note %s; link to it there (validate.index_note)", p)
		}
	}
}

// noteSpelling remembers that file writes identity id, for the letter-case warning.
func (c *checker) noteSpelling(file, id string) {
	if !ref.IsIdentity(id) {
		return
	}
	if c.written[id] == nil {
		c.written[id] = map[string]bool{}
	}
	c.written[id][file] = true
}

// identityWarnings reports identities that differ only by letter case: they are distinct
// identities, which is rarely what their writers meant.
func (c *checker) identityWarnings() {
	groups := map[string][]string{}
	for id := range c.written {
		k := strings.ToLower(id)
		groups[k] = append(groups[k], id)
	}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		ids := groups[k]
		if len(ids) < 2 {
			continue
		}
		spellings := make([]Spelling, 0, len(ids))
		for _, id := range ids {
			spellings = append(spellings, Spelling{Identity: id, Files: len(c.written[id])})
		}
		slices.SortFunc(spellings, func(a, b Spelling) int {
			return cmp.Or(cmp.Compare(b.Files, a.Files), cmp.Compare(a.Identity, b.Identity))
		})
		if len(spellings) > maxSpellings {
			spellings = spellings[:maxSpellings]
		}
		c.warnings = append(c.warnings, Warning{Warning: "identities differ only by letter case", Identities: spellings})
	}
}
