package pages

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/reply"
)

// SQL shared by the queries over items i. A note's time is its day at local midnight, from
// the days table each query binds (:days).
const (
	// eventExpr is the event time: a note's local midnight, a record's time.
	eventExpr = `(CASE WHEN i.kind = 'note' THEN coalesce(d.at, '') ELSE i.time END)`
	// placeExpr places an item in periods: event time, else a record's observation.
	placeExpr = `(CASE WHEN i.kind = 'note' THEN coalesce(d.at, '') ELSE coalesce(nullif(i.time, ''), i.observed) END)`
	// itemColumns are the columns scanRow reads, then one sort key.
	itemColumns = `i.id, i.ref, i.path, i.kind, i.source, i.title, i.time, i.type, i.status, i.lead, i.url,
		i.updated, i.observed, i.partial, i.tasks_open, i.tasks_done, i.next, i.weight, i.stale_after, i.fields`
	// loud keeps items outside the low-priority sources (:low); notes have no source.
	loud = `i.source NOT IN (SELECT value FROM json_each(:low))`
	// entry selects entry notes: projects/ and concepts/ notes other than index.md and
	// log.md, and actions/FOLDER/ACTION.md (the cache weighs them 2).
	entry = `i.kind = 'note' AND i.weight = 2`
	// actionNote selects the canonical ACTION.md notes, found through the index on path.
	actionNote = `+i.kind = 'note' AND i.weight = 2 AND substr(i.path, 1, 8) = 'actions/' AND ` + actionPaths
	// below selects the paths under :prefix, a range of the index on path.
	below = `substr(i.path, 1, length(:prefix) + 1) = :prefix || '/' AND ` + belowPaths
)

// row is one item of one brain.
type row struct {
	part                                      *part
	id                                        int64
	ref, path, kind, source, title, time, typ string
	status, lead, url, updated, observed      string
	partial                                   bool
	open, done                                int
	next                                      string
	weight                                    int
	staleAfter, fields                        string
	// key is the query's sort key: a time, a modification time or a title.
	key string
	// signals are the review signals of a note that gets reminders.
	signals *Signals
	// light is a row read without its title, excerpt, fields and record columns.
	light bool
}

// queryRows runs `SELECT itemColumns, KEY FROM items i … WHERE where ORDER BY order LIMIT
// :limit` in one brain's snapshot, binding :days and :low besides args.
func queryRows(ctx context.Context, p *part, key, where, order string, limit int64, args ...any) ([]*row, error) {
	return queryOn(ctx, p.tx, p, key, where, order, limit, args...)
}

// queryOn is queryRows over any querier, for callers holding a cache but no session.
func queryOn(ctx context.Context, q Querier, p *part, key, where, order string, limit int64, args ...any) ([]*row, error) {
	if q == nil {
		return nil, errors.New("no cache")
	}
	query := `WITH ` + cache.DaysCTE + ` SELECT ` + itemColumns + `, ` + key + ` AS k FROM items i ` + cache.DaysJoin +
		` WHERE ` + where + ` ORDER BY ` + order + ` LIMIT :limit`
	args = append(args, sql.Named("days", p.days), sql.Named("low", p.lowJSON), sql.Named("limit", limit))
	return scanRows(ctx, q, p, query, args)
}

// scanRows reads the rows of an item query.
func scanRows(ctx context.Context, q Querier, p *part, query string, args []any) ([]*row, error) {
	return cache.Collect(ctx, q, query, args, func(rows *sql.Rows) (*row, error) {
		r := &row{part: p}
		var partial int
		if err := rows.Scan(&r.id, &r.ref, &r.path, &r.kind, &r.source, &r.title, &r.time, &r.typ, &r.status,
			&r.lead, &r.url, &r.updated, &r.observed, &partial, &r.open, &r.done, &r.next, &r.weight,
			&r.staleAfter, &r.fields, &r.key); err != nil {
			return nil, err
		}
		r.partial = partial != 0
		return r, nil
	})
}

// countRows counts the items of one brain matching where.
func countRows(ctx context.Context, p *part, where string, args ...any) (int, error) {
	q := `WITH ` + cache.DaysCTE + ` SELECT count(*) FROM items i ` + cache.DaysJoin + ` WHERE ` + where
	args = append(args, sql.Named("days", p.days), sql.Named("low", p.lowJSON))
	return count(ctx, p.tx, q, args...)
}

// item is the reply item of a row, with its brain, uri and any review signals, instants
// in local time; excerpt adds the row's lead as its excerpt.
func (s *session) item(r *row, excerpt bool) reply.Item {
	p := r.part
	it := reply.Item{
		Brain:  p.name,
		Kind:   r.kind,
		Ref:    r.ref,
		Title:  reply.Title(r.title),
		Status: r.status,
		URI:    reply.Address(p.name, r.ref),
		Fields: listedFields(p.brain.Config, r.fields),
	}
	if excerpt {
		it.Excerpt = reply.Collapse(r.lead)
	}
	if r.kind == reply.KindNote {
		it.Type = r.typ
		if len(r.time) >= 10 {
			it.Date = r.time[:10]
		}
		if r.open+r.done > 0 {
			it.Tasks = &reply.Tasks{Open: r.open, Done: r.done}
		}
		it.Next = r.next
	} else {
		it.Source = r.source
		it.Time = r.time
		it.URL = r.url
		it.Updated = r.updated
		it.Observed = r.observed
		it.Partial = r.partial
	}
	if r.signals != nil {
		r.signals.apply(&it)
	}
	it.Present(s.loc)
	return it
}

// brief is an item as home changed shows it: ref, kind, title, date, modified and review.
func brief(it reply.Item) reply.Item {
	return reply.Item{
		Brain: it.Brain, URI: it.URI, Ref: it.Ref, Kind: it.Kind, Title: it.Title,
		Date: it.Date, Time: it.Time, Modified: it.Modified, Review: it.Review,
	}
}

// listedFields are the item's declared single-value fields as listings show them.
func listedFields(cfg *config.Config, raw string) map[string]json.RawMessage {
	if cfg == nil {
		return nil
	}
	return reply.ListedFields(raw, cfg.SingleValued)
}

// window returns up to n rows of all from offset.
func window[T any](all []T, offset int64, n int) []T {
	if offset >= int64(len(all)) {
		return nil
	}
	end := offset + int64(n)
	if end > int64(len(all)) {
		end = int64(len(all))
	}
	return all[offset:end]
}

// fetch is how many rows each brain reads for a page: every row up to its end.
func fetch(offset int64, size int) int64 { return offset + int64(size) }

// shapeItems prints items in the reply's shape: local for one brain, addressed otherwise.
func (s *session) shapeItems(items []reply.Item) []reply.Item {
	for i := range items {
		if s.single {
			items[i] = items[i].Local()
		} else {
			items[i] = s.addressed(items[i])
		}
	}
	return items
}

// addressed is an item as a reply naming several brains prints it. Review signals name
// newer items already in the reply's shape: bf:// addresses of each item's own brain when
// several brains are read, brain-relative refs of the one brain otherwise, which the
// measure of a local reply addresses like the item's other refs.
func (s *session) addressed(it reply.Item) reply.Item {
	if s.single {
		return it.Addressed()
	}
	newer := it.Newer
	it = it.Addressed()
	it.Newer = newer
	return it
}

// fit keeps the items that fit budget bytes, measured addressed.
func (s *session) fit(items []reply.Item, budget int) ([]reply.Item, error) {
	n, err := reply.Fit(items, budget, func(it reply.Item) any { return s.addressed(it) })
	if err != nil {
		return nil, err
	}
	return items[:n], nil
}

// size is the length of v's encoding, as replies print it.
func size(v any) (int, error) {
	b, err := reply.Marshal(v)
	return len(b), err
}

// emptyItems is a non-nil empty list, printed [].
func emptyItems(items []reply.Item) []reply.Item {
	if items == nil {
		return []reply.Item{}
	}
	return items
}
