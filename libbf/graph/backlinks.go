package graph

import (
	"context"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/jsontext"
	"github.com/bfgo/bf/libbf/reply"
)

// link is one item linking to the target through one relation.
type link struct {
	part     Part
	item     int64
	ref      string
	kind     string
	relation string // group name: cites, a declared relation or links
	at       time.Time
	dated    bool
}

// newer orders links newest first: by placement instant (undated last), then ref and brain
// descending.
func newer(a, b *link) bool {
	if a.dated != b.dated {
		return a.dated
	}
	if !a.at.Equal(b.at) {
		return a.at.After(b.at)
	}
	if a.ref != b.ref {
		return a.ref > b.ref
	}
	return a.part.Name() > b.part.Name()
}

// links returns every item linking to the target, once per relation group it belongs to,
// newest first. With only set, just those relations are kept.
func (t *Target) links(ctx context.Context, only map[string]bool) ([]*link, error) {
	var out []*link
	loc := t.set.loc()
	for _, p := range t.set.Parts {
		exact, sections := t.targets(p.Name())
		self := int64(0)
		if p.Name() == t.Brain {
			self = t.Item
		}
		rows, err := p.DB.QueryContext(ctx, `WITH e(item, relation) AS (
				SELECT item, relation FROM edges WHERE target IN (SELECT value FROM json_each(?1))
				UNION SELECT e.item, e.relation FROM json_each(?2) s CROSS JOIN edges e
					ON e.target > s.value || '#' AND e.target < s.value || '$')
			SELECT e.item, e.relation, i.ref, i.kind, i.time FROM e JOIN items i ON i.id = e.item
			WHERE e.relation != ?3 AND e.item != ?4 ORDER BY e.item, e.relation`,
			jsontext.Array(exact), jsontext.Array(sections), config.RelTaggedWith, self)
		if err != nil {
			return nil, dbError(err)
		}
		var cur []*link // the rows of one item
		flush := func() {
			typed := false
			for _, l := range cur {
				if l.relation != config.RelLinks {
					typed = true
				}
			}
			for _, l := range cur {
				if typed && l.relation == config.RelLinks {
					continue
				}
				if only == nil || only[l.relation] {
					out = append(out, l)
				}
			}
			cur = cur[:0]
		}
		for rows.Next() {
			l := &link{part: p}
			var rel, stored string
			if err := rows.Scan(&l.item, &rel, &l.ref, &l.kind, &stored); err != nil {
				rows.Close()
				return nil, dbError(err)
			}
			l.relation = relationName(rel)
			l.at, l.dated = placed(l.kind, stored, loc)
			if len(cur) > 0 && cur[0].item != l.item {
				flush()
			}
			cur = append(cur, l)
		}
		flush()
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, dbError(err)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return newer(out[i], out[j]) })
	return out, nil
}

// groupOrder sorts relation names as groups list them: cites, declared relations by name,
// then links.
func groupOrder(a, b string) bool {
	rank := func(s string) int {
		switch s {
		case config.RelCites:
			return 0
		case config.RelLinks:
			return 2
		}
		return 1
	}
	if rank(a) != rank(b) {
		return rank(a) < rank(b)
	}
	return a < b
}

// Backlinks returns the target's backlink groups (at most MaxGroups) and how many more
// groups were omitted.
func (t *Target) Backlinks(ctx context.Context) ([]Group, int, error) {
	all, err := t.links(ctx, nil)
	if err != nil {
		return nil, 0, err
	}
	byRel := map[string][]*link{}
	var names []string
	for _, l := range all {
		if _, ok := byRel[l.relation]; !ok {
			names = append(names, l.relation)
		}
		byRel[l.relation] = append(byRel[l.relation], l)
	}
	sort.Slice(names, func(i, j int) bool { return groupOrder(names[i], names[j]) })
	omitted := 0
	if len(names) > MaxGroups {
		omitted = len(names) - MaxGroups
		names = names[:MaxGroups]
	}
	groups := make([]Group, 0, len(names))
	for _, name := range names {
		ls := byRel[name]
		g := Group{Relation: name, Total: len(ls), Items: []reply.Item{}}
		for _, l := range ls[:min(Preview, len(ls))] {
			it, err := t.set.item(ctx, l, true)
			if err != nil {
				return nil, 0, err
			}
			g.Items = append(g.Items, t.set.shape(it))
		}
		groups = append(groups, g)
	}
	return groups, omitted, nil
}

// item builds the reply item of a linking item: a preview (excerpt up to 160 characters,
// no url or record times) or a listing entry like a search result.
func (s *Set) item(ctx context.Context, l *link, preview bool) (reply.Item, error) {
	var typ, status, source, url, updated, observed, fields, title, lead, stored, path string
	var partial bool
	err := l.part.DB.QueryRowContext(ctx, `SELECT type, status, source, url, updated, observed, partial, fields,
			title, lead, time, path FROM items WHERE id = ?`, l.item).Scan(&typ, &status, &source, &url, &updated,
		&observed, &partial, &fields, &title, &lead, &stored, &path)
	if err != nil {
		return reply.Item{}, dbError(err)
	}
	it := reply.Item{
		Brain:   l.part.Name(),
		Kind:    l.kind,
		Ref:     l.ref,
		Title:   reply.Title(title),
		Status:  status,
		Fields:  reply.ListedFields(fields, singleValued(l.part)),
		Excerpt: reply.Collapse(lead),
	}
	if preview {
		it.Excerpt = clip(it.Excerpt, Glimpse)
	}
	if l.kind == reply.KindNote {
		it.Type = typ
		if stored != "" {
			it.Date = stored[:min(10, len(stored))]
		}
		it.URI = reply.Address(l.part.Name(), path)
	} else {
		it.Source = source
		it.Time = stored
		it.URI = reply.Address(l.part.Name(), l.ref)
		if !preview {
			it.URL, it.Updated, it.Observed, it.Partial = url, updated, observed, partial
		}
	}
	it.Present(s.loc())
	return it, nil
}

// shape drops brain and uri from an item when the set is local.
func (s *Set) shape(it reply.Item) reply.Item {
	if s.Local {
		return it.Local()
	}
	return it.Addressed()
}

// singleValued reports the declared fields of the part's brain that hold one value.
func singleValued(p Part) func(string) bool {
	return func(name string) bool {
		if p.Brain == nil || p.Brain.Config == nil {
			return false
		}
		f := p.Brain.Config.Fields[name]
		return f != nil && f.Cardinality != config.Many
	}
}

// clip cuts s to at most n characters: a longer text keeps n-1 and ends with "…".
func clip(s string, n int) string {
	count := 0
	for i := range s {
		if count == n-1 {
			if utf8.RuneCountInString(s[i:]) <= 1 {
				return s
			}
			return s[:i] + "…"
		}
		count++
	}
	return s
}
