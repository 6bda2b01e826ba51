package pages

import (
	"context"
	"database/sql"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// periodReply is a period page: items placed in the period, items modified in it but
// placed outside it, and each source's record count.
type periodReply struct {
	// Changed are up to 20 items modified upstream in the period but placed outside it.
	Changed []reply.Item `json:"changed"`
	Items   []reply.Item `json:"items"`
	Paging
	Since   string     `json:"since"`
	Sources []Activity `json:"sources"`
	Stale   []string   `json:"stale,omitempty"`
	Total   int        `json:"total"`
	Until   string     `json:"until"`
}

// placedIn selects items placed in [:since, :until).
const placedIn = placeExpr + ` != '' AND ` + placeExpr + ` >= :since AND ` + placeExpr + ` < :until`

// A period page shows one page of its items, their count and each source's record count.
// Its items are read in three parts, each from its own index range and in its own order,
// as light rows (id, ref and placement): notes by the stored times of the days whose local
// midnight is in the period, then placed by that midnight looked up by day; records by
// time; and records without a time by observation, which no index holds but which are few.
// Only the rows of the page shown are then read whole. A record is counted in its source's
// activity exactly when the page places it, so the sources count the loud records too.
const (
	// timedPlaced selects the records with a time in [:since, :until), newest first in the
	// order of the index on (kind, time).
	timedPlaced = `SELECT i.id, i.ref, i.time FROM items i WHERE i.kind = 'record' AND i.time != ''
		AND i.time >= :since AND i.time < :until AND ` + loud + ` ORDER BY i.time DESC, i.ref DESC LIMIT :limit`
	// observedPlaced selects the records without a time observed in [:since, :until).
	observedPlaced = `SELECT i.id, i.ref, i.observed FROM items i WHERE i.kind = 'record' AND i.time = ''
		AND i.observed != '' AND i.observed >= :since AND i.observed < :until AND ` + loud + `
		ORDER BY i.observed DESC, i.ref DESC LIMIT :limit`
	// notesIn lists the notes whose stored time falls on a day of [:dlo, :dhi), with their day.
	notesIn = `SELECT i.id, i.ref, substr(i.time, 1, 10) FROM items i WHERE ` + noteTimes + ` AND ` + loud
	// updatedIn bounds a record's upstream update, when it has one, through the index on
	// (kind, updated or time), which also orders it.
	updatedIn = `coalesce(nullif(i.updated, ''), i.time)`
	// changedIn selects up to :limit records modified upstream in [:since, :until) but placed
	// outside it, newest update first.
	changedIn = `SELECT ` + itemColumns + `, i.updated FROM items i WHERE i.kind = 'record' AND i.updated != ''
		AND ` + updatedIn + ` >= :since AND ` + updatedIn + ` < :until AND ` + loud + `
		AND NOT (coalesce(nullif(i.time, ''), i.observed) != '' AND coalesce(nullif(i.time, ''), i.observed) >= :since
			AND coalesce(nullif(i.time, ''), i.observed) < :until)
		ORDER BY ` + updatedIn + ` DESC, i.ref DESC LIMIT :limit`
)

// lightRows reads the light rows of a query of id, ref and sort key.
func lightRows(ctx context.Context, p *part, query string, args ...any) ([]*row, error) {
	rows, err := p.tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*row
	for rows.Next() {
		r := &row{part: p, light: true}
		if err := rows.Scan(&r.id, &r.ref, &r.key); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// placedNotes lists, as light rows, every note of p placed in [since, until): its day's
// local midnight is in the period, as placeExpr states it.
func placedNotes(ctx context.Context, p *part, since, until string) ([]*row, error) {
	days := p.dayMap()
	if days == nil {
		return nil, errDays
	}
	args := append(p.noteBounds(since, until), sql.Named("low", p.lowJSON))
	rows, err := lightRows(ctx, p, notesIn, args...)
	if err != nil {
		return nil, err
	}
	var out []*row
	for _, r := range rows {
		if at := days[r.key]; at != "" && at >= since && at < until {
			r.key = at
			out = append(out, r)
		}
	}
	return out, nil
}

// period lists the items placed in a period, newest first, 50 per page, without the
// records of low-priority sources, which only count in sources.
func period(ctx context.Context, req Request, page ref.Page) (*periodReply, error) {
	pd, err := ref.ParsePeriod(page.Period, req.Now, req.Location)
	if err != nil {
		return nil, &reply.InputError{Argument: "ref", Err: err}
	}
	s, err := openSession(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.close()
	since, until := canonical(pd.Start), canonical(pd.End)
	out := &periodReply{
		Paging: Paging{Notice: reply.Notice, Page: page.Path},
		Since:  timestamp.Local(pd.Start, s.loc), Until: timestamp.Local(pd.End, s.loc),
		Sources: []Activity{},
	}
	if prev, ok := pd.Previous(); ok {
		out.Previous = prev.Name
	}
	if next, ok := pd.Next(); ok {
		out.Next = next.Name
	}
	limit := fetch(req.Offset, pageSize)
	var all, changed []*row
	for _, p := range s.parts {
		args := []any{sql.Named("since", since), sql.Named("until", until), sql.Named("low", p.lowJSON),
			sql.Named("limit", limit)}
		notes, err := placedNotes(ctx, p, since, until)
		if err != nil {
			return nil, cacheError(err)
		}
		out.Total += len(notes)
		timed, err := lightRows(ctx, p, timedPlaced, args...)
		if err != nil {
			return nil, cacheError(err)
		}
		observed, err := lightRows(ctx, p, observedPlaced, args...)
		if err != nil {
			return nil, cacheError(err)
		}
		// Each part holds its own first rows, so their union holds the brain's.
		all = append(append(append(all, notes...), timed...), observed...)
		ch, err := scanRows(ctx, p.tx, p, changedIn, append(args[:3:3], sql.Named("limit", sectionSize)))
		if err != nil {
			return nil, cacheError(err)
		}
		changed = append(changed, ch...)
		act, err := activity(ctx, p, since, until, page.Path)
		if err != nil {
			return nil, cacheError(err)
		}
		for _, a := range act {
			if !p.low[a.Source] {
				out.Total += a.Records
			}
		}
		out.Sources = append(out.Sources, act...)
	}
	newestFirst(all)
	newestFirst(changed)
	out.Changed = []reply.Item{}
	for _, r := range window(changed, 0, sectionSize) {
		out.Changed = append(out.Changed, s.item(r, true))
	}
	// The summaries share the page's budget: the items fill what they leave.
	reserved, err := size(struct {
		Changed []reply.Item `json:"changed"`
		Sources []Activity   `json:"sources"`
	}{s.addressedCopy(out.Changed), out.Sources})
	if err != nil {
		return nil, err
	}
	pageRows := window(all, req.Offset, pageSize)
	if err := fillAll(ctx, pageRows); err != nil {
		return nil, cacheError(err)
	}
	items := make([]reply.Item, len(pageRows))
	for i, r := range pageRows {
		items[i] = s.item(r, true)
	}
	if items, err = s.fit(items, reply.Budget-reserved); err != nil {
		return nil, err
	}
	out.Items = emptyItems(s.shapeItems(items))
	out.NextOffset = reply.NextOffset(req.Offset, len(items), req.Offset+int64(len(items)) < int64(out.Total))
	s.shapeItems(out.Changed)
	if s.single {
		for i := range out.Sources {
			out.Sources[i].Brain = ""
		}
	}
	out.Problems = s.probs.List()
	out.Stale = s.stale
	return out, nil
}

// fillAll completes light rows of any brains, brain by brain.
func fillAll(ctx context.Context, rows []*row) error {
	byPart := map[*part][]*row{}
	var parts []*part
	for _, r := range rows {
		if _, ok := byPart[r.part]; !ok {
			parts = append(parts, r.part)
		}
		byPart[r.part] = append(byPart[r.part], r)
	}
	for _, p := range parts {
		if err := fill(ctx, p, byPart[p]); err != nil {
			return err
		}
	}
	return nil
}
