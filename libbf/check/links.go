package check

import (
	"errors"
	"net/url"
	"strings"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/ref"
)

// The words that start the problems of a link whose target is missing, which an editor
// can offer to fix (bf lsp's code actions).
const (
	BrokenLinkPrefix     = "broken link: "
	MissingHeadingPrefix = "missing heading: "
)

// checkLink checks one link written in file. notePath is set for links in notes, whose
// relative paths resolve from the note's folder; records only hold URIs.
func (c *checker) checkLink(file, notePath, dest string) {
	if notePath != "" {
		t, err := note.Resolve(notePath, dest)
		if err != nil {
			if errors.Is(err, note.ErrLeavesBrain) {
				c.problem(file, "link leaves the brain: %s", dest)
			} else {
				c.problem(file, "invalid link: %s", dest)
			}
			return
		}
		switch t.Kind {
		case note.Ignored:
			return
		case note.File:
			c.checkFile(file, dest, t.Path, t.Fragment, t.HasFragment)
			return
		}
	}
	c.checkURI(file, dest)
}

// checkFile checks a relative link: the target exists with this exact name, and a
// fragment on a note names one of its sections.
func (c *checker) checkFile(file, dest, target, fragment string, hasFragment bool) {
	if !c.exists(target) {
		c.problem(file, BrokenLinkPrefix+"%s", dest)
		return
	}
	if !c.inside(target) {
		c.problem(file, "link leaves the brain: %s", dest)
		return
	}
	if !hasFragment {
		return
	}
	if n := c.noteAt(target); n != nil {
		if _, ok := n.Section(fragment); !ok {
			c.problem(file, MissingHeadingPrefix+"%s", dest)
		}
	}
}

// checkURI checks a link with a scheme: a bf:// address, a record ref or another identity.
func (c *checker) checkURI(file, dest string) {
	if ref.IsAddress(dest) {
		c.checkAddress(file, dest)
		return
	}
	if rr, ok := ref.ParseRecordRef(dest); ok && c.isSource(rr.Source) {
		if !c.recordExists(rr, dest) {
			c.problem(file, BrokenLinkPrefix+"%s", dest)
		}
		return
	}
	u, err := url.Parse(dest)
	if err != nil {
		c.problem(file, "invalid link: %s", dest)
		return
	}
	if u.Query().Has("rel") {
		c.problem(file, "only bf:// links take ?rel=; use bf://%s/PATH?rel=RELATION for a typed link", c.name)
	}
}

// isSource reports whether name is a record source of this brain: a memories/ folder or a
// declared sensor. Only then is SOURCE:ID a record ref rather than an opaque identity.
func (c *checker) isSource(name string) bool {
	if c.index != nil && c.sourceFolder(name) {
		return true
	}
	for _, s := range c.tree.Sources {
		if s.Name == name {
			return true
		}
	}
	_, ok := c.cfg.Sensors[name]
	return ok
}

// recordExists accepts a record by its ref, or by a provider alias a record declares.
func (c *checker) recordExists(rr ref.RecordRef, written string) bool {
	if c.hasRecord(rr) {
		return true
	}
	for _, owner := range c.ownersOf(written) {
		if strings.HasPrefix(owner, "memories/") {
			return true
		}
	}
	return false
}

// checkAddress checks a bf:// link: its relation, and its target when it is in this brain.
func (c *checker) checkAddress(file, dest string) {
	a, err := ref.ParseAddress(dest)
	if err != nil {
		c.problem(file, "%s", err)
		return
	}
	if a.Rel != "" {
		c.checkRelation(file, a.Rel, a.Identity())
	}
	if a.Brain != c.name {
		c.unresolved = append(c.unresolved, Unresolved{File: file, Target: a.String()})
		return
	}
	shown := a.String()
	switch a.Kind() {
	case ref.AddressHome:
		return
	case ref.AddressRecord:
		rr, _ := a.Record()
		if !c.recordExists(rr, rr.String()) {
			c.problem(file, BrokenLinkPrefix+"%s", shown)
		}
		return
	}
	if page, ok, err := ref.ParsePage(a.Path); err != nil {
		c.problem(file, "%s", err)
		return
	} else if ok {
		if !c.pageExists(page) {
			c.problem(file, BrokenLinkPrefix+"%s", shown)
		}
		return
	}
	// A note file, a folder, or an entity some note declares. A folder wins over an entity.
	switch {
	case c.noteAt(a.Path) != nil:
		if a.Fragment != "" {
			if _, ok := c.noteAt(a.Path).Section(a.Fragment); !ok {
				c.problem(file, MissingHeadingPrefix+"%s", shown)
			}
		}
	case c.exists(a.Path):
		if a.Fragment != "" && c.isDir(a.Path) {
			c.problem(file, "a folder has no sections: %s", shown)
		}
	case c.entityNote(a.Path) != "":
		if a.Fragment != "" {
			if n := c.noteAt(c.entityNote(a.Path)); n == nil || !hasSection(n, a.Fragment) {
				c.problem(file, MissingHeadingPrefix+"%s", shown)
			}
		}
	default:
		c.problem(file, BrokenLinkPrefix+"%s", shown)
	}
}

// pageExists reports whether a page address names something: a folder page needs its
// folder, a source page its source. Tags and periods always name a page, even an empty one.
func (c *checker) pageExists(p ref.Page) bool {
	switch p.Kind {
	case ref.PageFolder:
		return ref.IsAuthoredRoot(p.Path) || c.isDir(p.Path)
	case ref.PageSource, ref.PageSourcePeriod, ref.PageSourceUndated:
		return c.isSource(p.Source)
	case ref.PageRecordFile:
		return c.exists(p.Path)
	}
	return true
}

// checkRelation checks a typed link's relation and the target against its declared targets.
func (c *checker) checkRelation(file, rel, target string) {
	switch rel {
	case config.RelTaggedWith:
		c.problem(file, "link relation tagged-with is reserved for tag membership; add the tag to the note instead")
		return
	case config.RelCites:
		return
	case config.RelLinks:
		c.problem(file, "links is the group of untyped links, not a relation; drop ?rel=links")
		return
	}
	f, ok := c.cfg.Relation(rel)
	if !ok {
		c.problem(file, "link relation %s is undeclared; declare it in bf.yaml fields with relation: true", rel)
		return
	}
	if !withinTargets(f, target) {
		c.problem(file, "link relation %s: %s", rel, config.ErrOutsideTargets)
	}
}

func withinTargets(f *config.Field, identity string) bool {
	if len(f.Targets) == 0 {
		return true
	}
	for _, p := range f.Targets {
		if strings.HasPrefix(identity, p) {
			return true
		}
	}
	return false
}

func hasSection(n *note.Note, slug string) bool {
	_, ok := n.Section(slug)
	return ok
}
