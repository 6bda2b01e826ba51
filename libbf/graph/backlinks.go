package graph

import (
	"context"
	"database/sql"
	"slices"
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
	err := t.eachLink(ctx, only, func(l *link) { out = append(out, l) })
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return newer(out[i], out[j]) })
	return out, nil
}

// eachLink calls f with every item linking to the target, once per relation group it
// belongs to, brain by brain in the order of the set and by item id within a brain. With
// only set, just those relations are kept.
func (t *Target) eachLink(ctx context.Context, only map[string]bool, f func(*link)) error {
	loc := t.set.loc()
	// A note is placed at local midnight of its day: each day is parsed once.
	type day struct {
		at    time.Time
		dated bool
	}
	days := map[string]day{}
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
			return dbError(err)
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
					f(l)
				}
			}
			cur = cur[:0]
		}
		for rows.Next() {
			l := &link{part: p}
			var rel, stored string
			if err := rows.Scan(&l.item, &rel, &l.ref, &l.kind, &stored); err != nil {
				rows.Close()
				return dbError(err)
			}
			l.relation = relationName(rel)
			if l.kind == reply.KindNote && stored != "" {
				key := stored[:min(10, len(stored))]
				d, ok := days[key]
				if !ok {
					d.at, d.dated = placed(l.kind, stored, loc)
					days[key] = d
				}
				l.at, l.dated = d.at, d.dated
			} else {
				l.at, l.dated = placed(l.kind, stored, loc)
			}
			if len(cur) > 0 && cur[0].item != l.item {
				flush()
			}
			cur = append(cur, l)
		}
		flush()
		rows.Close()
		if err := rows.Err(); err != nil {
			return dbError(err)
		}
	}
	return nil
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

// Backlinks returns the target's backlink groups (at most maxGroups) and how many more
// groups were omitted.
func (t *Target) Backlinks(ctx context.Context) ([]Group, int, error) {
	// Each group keeps its total and its Preview newest links while the links stream by: a
	// target with thousands of backlinks is never sorted whole.
	type group struct {
		total  int
		newest []*link
	}
	byRel := map[string]*group{}
	var names []string
	err := t.eachLink(ctx, nil, func(l *link) {
		g := byRel[l.relation]
		if g == nil {
			g = &group{}
			byRel[l.relation] = g
			names = append(names, l.relation)
		}
		g.total++
		// No two links of a group tie (an item is in a group once per brain), so the
		// Preview newest are the first Preview of the group sorted newest first.
		i := sort.Search(len(g.newest), func(i int) bool { return newer(l, g.newest[i]) })
		if i < preview {
			g.newest = slices.Insert(g.newest, i, l)
			if len(g.newest) > preview {
				g.newest = g.newest[:preview]
			}
		}
	})
	if err != nil {
		return nil, 0, err
	}
	sort.Slice(names, func(i, j int) bool { return groupOrder(names[i], names[j]) })
	omitted := 0
	if len(names) > maxGroups {
		omitted = len(names) - maxGroups
		names = names[:maxGroups]
	}
	var shown []*link
	for _, name := range names {
		shown = append(shown, byRel[name].newest...)
	}
	items, err := t.set.items(ctx, shown, true)
	if err != nil {
		return nil, 0, err
	}
	groups := make([]Group, 0, len(names))
	for _, name := range names {
		g := byRel[name]
		out := Group{Relation: name, Total: g.total, Items: []reply.Item{}}
		for range g.newest {
			out.Items = append(out.Items, t.set.shape(items[0]))
			items = items[1:]
		}
		groups = append(groups, out)
	}
	return groups, omitted, nil
}

// itemColumns are the columns of items that a graph reply's item shows.
const itemColumns = `id, type, status, source, url, updated, observed, partial, fields, title, lead, time, path`

// itemRow is one row of itemColumns.
type itemRow struct {
	id                                                               int64
	typ, status, source, url, updated, observed, fields, title, lead string
	stored, path                                                     string
	partial                                                          bool
}

func (r *itemRow) scan(sc interface{ Scan(...any) error }) error {
	return sc.Scan(&r.id, &r.typ, &r.status, &r.source, &r.url, &r.updated, &r.observed, &r.partial, &r.fields,
		&r.title, &r.lead, &r.stored, &r.path)
}

// items builds the reply items of links as item does, reading the rows of each brain in
// one query.
func (s *Set) items(ctx context.Context, links []*link, preview bool) ([]reply.Item, error) {
	out := make([]reply.Item, len(links))
	for _, p := range s.Parts {
		var ids []int64
		for _, l := range links {
			if l.part.Name() == p.Name() {
				ids = append(ids, l.item)
			}
		}
		if len(ids) == 0 {
			continue
		}
		rows, err := p.DB.QueryContext(ctx, `SELECT `+itemColumns+` FROM items WHERE id IN (SELECT value FROM json_each(?))`,
			jsontext.Int64s(ids))
		if err != nil {
			return nil, dbError(err)
		}
		found := map[int64]itemRow{}
		for rows.Next() {
			var r itemRow
			if err := r.scan(rows); err != nil {
				rows.Close()
				return nil, dbError(err)
			}
			found[r.id] = r
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, dbError(err)
		}
		for i, l := range links {
			if l.part.Name() != p.Name() {
				continue
			}
			r, ok := found[l.item]
			if !ok {
				return nil, dbError(sql.ErrNoRows)
			}
			out[i] = s.itemOf(l, r, preview)
		}
	}
	return out, nil
}

// item builds the reply item of a linking item: a preview (excerpt up to 160 characters,
// no url or record times) or a listing entry like a search result.
func (s *Set) item(ctx context.Context, l *link, preview bool) (reply.Item, error) {
	var r itemRow
	if err := r.scan(l.part.DB.QueryRowContext(ctx, `SELECT `+itemColumns+` FROM items WHERE id = ?`, l.item)); err != nil {
		return reply.Item{}, dbError(err)
	}
	return s.itemOf(l, r, preview), nil
}

// itemOf is the reply item of link l, whose row is r.
func (s *Set) itemOf(l *link, r itemRow, preview bool) reply.Item {
	it := reply.Item{
		Brain:   l.part.Name(),
		Kind:    l.kind,
		Ref:     l.ref,
		Title:   reply.Title(r.title),
		Status:  r.status,
		Fields:  reply.ListedFields(r.fields, singleValued(l.part)),
		Excerpt: reply.Collapse(r.lead),
	}
	if preview {
		it.Excerpt = clip(it.Excerpt, glimpse)
	}
	if l.kind == reply.KindNote {
		it.Type = r.typ
		if r.stored != "" {
			it.Date = r.stored[:min(10, len(r.stored))]
		}
		it.URI = reply.Address(l.part.Name(), r.path)
	} else {
		it.Source = r.source
		it.Time = r.stored
		it.URI = reply.Address(l.part.Name(), l.ref)
		if !preview {
			it.URL, it.Updated, it.Observed, it.Partial = r.url, r.updated, r.observed, r.partial
		}
	}
	it.Present(s.loc())
	return it
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
