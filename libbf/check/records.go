package check

import (
	"cmp"
	"maps"
	"net/url"
	"path"
	"slices"

	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/yamlx"
)

func recordFileName(id string) string { return record.FileName(id) }

// parseRecords reads every record file and keeps the valid ones by ref. A file whose id
// does not hash to its name is reported and left out: nothing may attribute it.
func (c *checker) parseRecords() {
	for _, f := range c.tree.Stray {
		c.problem(f.Path, "expected memories/<source>/<sha256-id>.json")
	}
	for _, f := range c.tree.Leftover {
		c.warn(f.Path, "temporary file left by an interrupted record write")
	}
	for _, src := range c.tree.Sources {
		for _, f := range src.Records {
			c.recCount++
			data, err := c.read(f.Path, record.MaxFileSize)
			if err != nil {
				c.problem(f.Path, "%s", err)
				continue
			}
			r, err := record.Parse(data)
			if err != nil {
				c.problem(f.Path, "%s", err)
				continue
			}
			if err := record.CheckFileName(r, path.Base(f.Path)); err != nil {
				c.problem(f.Path, "%s", err)
				continue
			}
			c.records[ref.RecordRef{Source: src.Name, ID: r.ID}] = &r
		}
	}
}

// checkRecords checks each valid record's stored fields against the current declarations
// and its links against the brain.
func (c *checker) checkRecords() {
	refs := make([]ref.RecordRef, 0, len(c.records))
	for rr := range c.records {
		refs = append(refs, rr)
	}
	sortRefs(refs)
	for _, rr := range refs {
		r := c.records[rr]
		file := recordPath(rr)
		for _, id := range r.Aliases {
			c.noteSpelling(file, id)
		}
		for _, name := range slices.Sorted(maps.Keys(r.Fields)) {
			field := yamlx.Join("fields", name)
			f, ok := c.cfg.Fields[name]
			if !ok || f == nil {
				c.problem(file, "%s: field %s is not declared in bf.yaml fields", field, name)
				continue
			}
			v, err := f.Normalize(r.Fields[name])
			if err != nil {
				c.problem(file, "%s: %s", field, err)
				continue
			}
			if f.Relation {
				for _, id := range identities(v) {
					c.noteSpelling(file, id)
					if ref.IsAddress(id) {
						c.checkAddress(file, id)
					}
				}
			}
		}
		odd := false
		for _, l := range r.Links {
			c.noteSpelling(file, l)
			if !ref.IsIdentity(l) && !isURL(l) {
				odd = true
				continue
			}
			c.checkURI(file, l)
		}
		if odd {
			c.warn(file, "record links should be identities (scheme:value) or URLs")
		}
	}
}

func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "")
}

func sortRefs(refs []ref.RecordRef) {
	slices.SortFunc(refs, func(a, b ref.RecordRef) int {
		return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.ID, b.ID))
	})
}
