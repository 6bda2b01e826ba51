package check

import (
	"maps"
	"slices"
	"strings"

	"github.com/bfgo/bf/libbf/memory"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/provenance"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/yamlx"
)

// claimIdentities records who claims each identity, before any link is checked, so links
// to entities and provider aliases resolve whatever the file order.
func (c *checker) claimIdentities() {
	c.entities = map[string]string{}
	for _, p := range slices.Sorted(maps.Keys(c.notes)) {
		n := c.notes[p]
		if n.Kind != note.OKF {
			continue // a copied document cannot claim an identity
		}
		c.claim(p, n)
	}
	for rr, r := range c.records {
		file := recordPath(rr)
		for _, id := range r.Aliases {
			c.owners[id] = append(c.owners[id], file)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.owners)) {
		files := c.owners[id]
		if len(files) < 2 {
			continue
		}
		for _, f := range files {
			c.duplicate(f, id, files)
		}
	}
}

// claim records that the note n at p claims its identities and its entity's path; an
// entity path goes to the first note claiming it.
func (c *checker) claim(p string, n *note.Note) {
	for _, id := range n.Identities() {
		c.owners[id] = append(c.owners[id], p)
	}
	if e := n.Meta.Entity; e != "" {
		if a, err := ref.ParseAddress(e); err == nil && a.Brain == c.name {
			if _, taken := c.entities[a.Path]; !taken {
				c.entities[a.Path] = p
			}
		}
	}
}

func (c *checker) duplicate(file, id string, files []string) {
	c.problem(file, "identity %s is claimed by %d notes or records (%s); keep one owner and link to it from the others", id, len(files), strings.Join(files, ", "))
}

func recordPath(rr ref.RecordRef) string {
	return "memories/" + rr.Source + "/" + recordFileName(rr.ID)
}

// checkNote applies every note rule to n.
func (c *checker) checkNote(n *note.Note) {
	for _, p := range append(slices.Clone(n.Problems), n.Check()...) {
		c.at = place{line: p.Line, field: p.Field}
		if p.Line > 0 && p.Field == "" {
			c.problem(n.Path, "line %d: %s", p.Line, p.Error())
		} else {
			c.problem(n.Path, "%s", p.Error())
		}
	}
	c.at = place{field: provenance.Key}
	if msg := provenance.CheckNote(n.Meta.Extra); msg != "" {
		c.warn(n.Path, "%s: %s", provenance.Key, msg)
	}
	c.at = place{}
	if n.Kind == note.OKF {
		c.checkClaims(n)
		c.checkFields(n)
		c.checkMemory(n)
	}
	for _, l := range n.Links {
		c.at = place{line: l.Line, link: l.Target}
		if l.Line == 0 {
			c.at.field = "links"
			if l.From == note.FromSources {
				c.at.field = "sources"
			}
		}
		c.noteSpelling(n.Path, l.Target)
		c.checkLink(n.Path, n.Path, l.Target)
	}
	c.at = place{}
}

// checkClaims checks the note's entity, aliases and resource against this brain.
func (c *checker) checkClaims(n *note.Note) {
	check := func(field, id string, entity bool) {
		c.at = place{field: strings.SplitN(field, ":", 2)[0]}
		defer func() { c.at = place{} }()
		c.noteSpelling(n.Path, id)
		if !ref.IsAddress(id) {
			return
		}
		a, err := ref.ParseAddress(id)
		if err != nil {
			return // already reported by the note's own checks
		}
		switch {
		case a.Brain != c.name:
			c.problem(n.Path, "%s: identity belongs to another brain's namespace; use bf://%s/…", field, c.name)
		case ref.Reserved(a.Path):
			c.problem(n.Path, "%s: an identity cannot be a page address", field)
		case isNotePath(a.Path):
			c.problem(n.Path, "%s: an identity cannot be a note file path; the note's own address already reaches it", field)
		case entity && c.exists(a.Path):
			c.problem(n.Path, "%s: a folder or file already has this path; choose an entity path that names no folder", field)
		}
	}
	if e := n.Meta.Entity; e != "" {
		check("entity", e, true)
	}
	for _, a := range n.Meta.Aliases {
		// Aliases are stored sorted, so the problem names the alias, not its position.
		check("aliases: "+a, a, false)
		if rr, ok := ref.ParseRecordRef(a); ok && c.isSource(rr.Source) {
			c.at = place{field: "aliases"}
			c.problem(n.Path, "aliases: %s is a record ref, already that record's identity; link to the record instead", a)
			c.at = place{}
		}
	}
	if r := n.Meta.Resource; r != "" && ref.IsIdentity(r) {
		if id, err := ref.CanonicalIdentity(r); err == nil {
			check("resource", id, false)
		}
	}
}

func isNotePath(p string) bool {
	return strings.HasSuffix(p, ".md") && ref.UnderAuthored(p)
}

// checkFields checks the note's fields against the declarations of bf.yaml, and reports
// declared fields written at the top level, where OKF would silently ignore them.
func (c *checker) checkFields(n *note.Note) {
	defer func() { c.at = place{} }()
	for _, name := range slices.Sorted(maps.Keys(n.Meta.Fields)) {
		field := yamlx.Join("fields", name)
		c.at = place{field: field}
		f, ok := c.cfg.Fields[name]
		if !ok || f == nil {
			c.problem(n.Path, "%s: field %s is not declared in bf.yaml fields", field, name)
			continue
		}
		v, err := f.Normalize(n.Meta.Fields[name])
		if err != nil {
			c.problem(n.Path, "%s: %s", field, err)
			continue
		}
		if f.Relation {
			for _, id := range identities(v) {
				c.noteSpelling(n.Path, id)
				if ref.IsAddress(id) {
					c.checkAddress(n.Path, id)
				}
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(n.Meta.Extra)) {
		c.at = place{field: key}
		// The review mark is the format's own top-level key, whatever fields declare (memory
		// declares a review date under fields:).
		if _, declared := c.cfg.Fields[key]; declared && key != provenance.Key {
			c.problem(n.Path, "%s: %s is a declared field; write it under fields: in the front matter", key, key)
		}
	}
}

// identities lists the identity values of a normalised relation value.
func identities(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, item := range t {
			if s, ok := item.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// actions checks that each folder directly under actions/ is named YYYY-MM-DD_topic and
// holds ACTION.md. Loose files there are allowed.
func (c *checker) actions() {
	for _, f := range c.tree.Folders {
		top, name, ok := strings.Cut(f, "/")
		if top != "actions" || !ok || strings.Contains(name, "/") {
			continue
		}
		if !ref.ValidActionFolder(name) {
			c.problem(f, "action folders must be named YYYY-MM-DD_topic, with a real date and a lowercase hyphenated topic")
		}
		if !c.exists(f + "/ACTION.md") {
			c.problem(f, "action folder has no ACTION.md")
		}
	}
}

// checkMemory applies the memory rules (type, importance, confidence, trust, scope, review,
// commit, supersedes) to a note under concepts/memory/.
func (c *checker) checkMemory(n *note.Note) {
	if !memory.IsMemoryPath(n.Path) {
		return
	}
	data, err := c.noteData(n.Path)
	if err != nil {
		return // already reported when the note was parsed
	}
	_, probs := memory.FromNote(n, data)
	for _, p := range probs {
		c.at = place{line: p.Line, field: p.Field}
		c.problem(n.Path, "%s", p.Error())
	}
	c.at = place{}
}
