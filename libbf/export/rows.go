package export

import (
	"bufio"
	"context"
	"encoding/json"
	"time"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// item is one items row. Fields are in the order of their sorted JSON keys.
type item struct {
	Brain   string `json:"brain"`
	Date    string `json:"date,omitempty"`
	Excerpt string `json:"excerpt,omitempty"`
	// Fields are the item's declared field values, as stored.
	Fields   json.RawMessage `json:"fields,omitempty"`
	Kind     string          `json:"kind"`
	Observed string          `json:"observed,omitempty"`
	Partial  bool            `json:"partial,omitempty"`
	Path     string          `json:"path"`
	Ref      string          `json:"ref"`
	Source   string          `json:"source,omitempty"`
	Status   string          `json:"status,omitempty"`
	// Tags are a note's tag labels, sorted.
	Tags    []string     `json:"tags,omitempty"`
	Tasks   *reply.Tasks `json:"tasks,omitempty"`
	Time    string       `json:"time,omitempty"`
	Title   string       `json:"title,omitempty"`
	Type    string       `json:"type,omitempty"`
	Updated string       `json:"updated,omitempty"`
	URI     string       `json:"uri"`
	URL     string       `json:"url,omitempty"`
}

// edge is one edges row: a claim, typed or not.
type edge struct {
	Brain string `json:"brain"`
	// Date is the stating note's day; Time the stating record's event time.
	Date   string `json:"date,omitempty"`
	Origin string `json:"origin"`
	// Relation is cites, tagged-with or a declared relation; absent for an untyped link.
	Relation string `json:"relation,omitempty"`
	Subject  string `json:"subject"`
	Target   string `json:"target"`
	Time     string `json:"time,omitempty"`
}

// identity is one identities row: an identity and the item answering to it.
type identity struct {
	Brain    string `json:"brain"`
	Identity string `json:"identity"`
	Ref      string `json:"ref"`
}

const itemsSQL = `SELECT i.ref, i.path, i.kind, i.source, i.title, i.time, i.type, i.status, i.lead, i.url,
		i.updated, i.observed, i.partial, i.tasks_open, i.tasks_done, i.fields,
		(SELECT json_group_array(target) FROM (SELECT target FROM tags t WHERE t.item = i.id ORDER BY target))
	FROM items i WHERE ` + filterSQL + ` ORDER BY i.ref`

func writeItems(ctx context.Context, w *bufio.Writer, p *part, sc scope, loc *time.Location) error {
	rows, err := p.tx.QueryContext(ctx, itemsSQL, sc.args()...)
	if err != nil {
		return cacheError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var it item
		var tm, fields, tags string
		var partial, open, done int
		if err := rows.Scan(&it.Ref, &it.Path, &it.Kind, &it.Source, &it.Title, &tm, &it.Type, &it.Status,
			&it.Excerpt, &it.URL, &it.Updated, &it.Observed, &partial, &open, &done, &fields, &tags); err != nil {
			return cacheError(err)
		}
		if !sc.keep(placed{it.Kind, tm, it.Observed}, loc) {
			continue
		}
		it.Brain = p.b.Name
		it.URI = reply.Address(p.b.Name, it.Ref)
		if it.Kind == cache.KindNote {
			if len(tm) >= 10 {
				it.Date = tm[:10]
			}
		} else {
			it.Time = local(tm, loc)
		}
		it.Updated = local(it.Updated, loc)
		it.Observed = local(it.Observed, loc)
		it.Partial = partial != 0
		if open+done > 0 {
			it.Tasks = &reply.Tasks{Open: open, Done: done}
		}
		it.Fields = rawFields(fields)
		it.Tags = tagLabels(tags)
		if err := line(w, it); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return cacheError(err)
	}
	return nil
}

// tagLabels reads the JSON list of an item's tag addresses (bf://NAME/tags/LABEL) as
// labels.
func tagLabels(list string) []string {
	var targets []string
	if json.Unmarshal([]byte(list), &targets) != nil {
		return nil
	}
	var out []string
	for _, t := range targets {
		a, err := ref.ParseAddress(t)
		if err != nil {
			continue
		}
		if page, ok, _ := ref.ParsePage(a.Path); ok && page.Kind == ref.PageTag {
			out = append(out, page.Tag)
		}
	}
	return out
}

const edgesSQL = `SELECT e.subject, e.relation, e.target, e.origin, i.kind, i.time, i.observed
	FROM items i JOIN edges e ON e.item = i.id
	WHERE ` + filterSQL + ` ORDER BY i.ref, e.rowid`

func writeEdges(ctx context.Context, w *bufio.Writer, p *part, sc scope, loc *time.Location) error {
	rows, err := p.tx.QueryContext(ctx, edgesSQL, sc.args()...)
	if err != nil {
		return cacheError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var e edge
		var pl placed
		if err := rows.Scan(&e.Subject, &e.Relation, &e.Target, &e.Origin, &pl.kind, &pl.time, &pl.observed); err != nil {
			return cacheError(err)
		}
		if !sc.keep(pl, loc) {
			continue
		}
		e.Brain = p.b.Name
		if pl.kind == cache.KindNote {
			if len(pl.time) >= 10 {
				e.Date = pl.time[:10]
			}
		} else {
			e.Time = local(pl.time, loc)
		}
		if err := line(w, e); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return cacheError(err)
	}
	return nil
}

const identitiesSQL = `SELECT n.name, i.ref, i.kind, i.time, i.observed
	FROM items i JOIN names n ON n.item = i.id
	WHERE ` + filterSQL + ` ORDER BY i.ref, n.name`

func writeIdentities(ctx context.Context, w *bufio.Writer, p *part, sc scope, loc *time.Location) error {
	rows, err := p.tx.QueryContext(ctx, identitiesSQL, sc.args()...)
	if err != nil {
		return cacheError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id identity
		var pl placed
		if err := rows.Scan(&id.Identity, &id.Ref, &pl.kind, &pl.time, &pl.observed); err != nil {
			return cacheError(err)
		}
		if !sc.keep(pl, loc) || id.Identity == reply.Address(p.b.Name, id.Ref) {
			continue
		}
		id.Brain = p.b.Name
		if err := line(w, id); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return cacheError(err)
	}
	return nil
}
