package pages

import (
	"context"
	"database/sql"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// PeriodReply is a period page: items placed in the period, items modified in it but
// placed outside it, and each source's record count.
type PeriodReply struct {
	// Changed are up to 20 items modified upstream in the period but placed outside it.
	Changed []reply.Item `json:"changed"`
	Items   []reply.Item `json:"items"`
	// Next and Previous name the adjacent periods of a day, month or range.
	Next       string          `json:"next,omitempty"`
	NextOffset *int64          `json:"next_offset,omitempty"`
	Notice     string          `json:"notice"`
	Page       string          `json:"page"`
	Previous   string          `json:"previous,omitempty"`
	Problems   []reply.Problem `json:"problems,omitempty"`
	Since      string          `json:"since"`
	Sources    []Activity      `json:"sources"`
	Stale      []string        `json:"stale,omitempty"`
	Total      int             `json:"total"`
	Until      string          `json:"until"`
}

// placedIn selects items placed in [:since, :until).
const placedIn = placeExpr + ` != '' AND ` + placeExpr + ` >= :since AND ` + placeExpr + ` < :until`

// period lists the items placed in a period, newest first, 50 per page, without the
// records of low-priority sources, which only count in sources.
func period(ctx context.Context, req Request, page ref.Page) (*PeriodReply, error) {
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
	bounds := []any{sql.Named("since", since), sql.Named("until", until)}
	out := &PeriodReply{
		Notice: reply.Notice, Page: page.Path,
		Since: timestamp.Local(pd.Start, s.loc), Until: timestamp.Local(pd.End, s.loc),
		Sources: []Activity{},
	}
	if prev, ok := pd.Previous(); ok {
		out.Previous = prev.Name
	}
	if next, ok := pd.Next(); ok {
		out.Next = next.Name
	}
	where := placedIn + ` AND ` + loud
	changedWhere := `i.kind = 'record' AND i.updated != '' AND i.updated >= :since AND i.updated < :until
		AND NOT (` + placedIn + `) AND ` + loud
	var all, changed []*row
	for _, p := range s.parts {
		n, err := countRows(ctx, p, where, bounds...)
		if err != nil {
			return nil, cacheError(err)
		}
		out.Total += n
		rows, err := queryRows(ctx, p, placeExpr, where, `k DESC, i.ref DESC`, fetch(req.Offset, PageSize), bounds...)
		if err != nil {
			return nil, cacheError(err)
		}
		all = append(all, rows...)
		ch, err := queryRows(ctx, p, `i.updated`, changedWhere, `k DESC, i.ref DESC`, SectionSize, bounds...)
		if err != nil {
			return nil, cacheError(err)
		}
		changed = append(changed, ch...)
		act, err := activity(ctx, p, since, until, page.Path)
		if err != nil {
			return nil, cacheError(err)
		}
		out.Sources = append(out.Sources, act...)
	}
	newestFirst(all)
	newestFirst(changed)
	out.Changed = []reply.Item{}
	for _, r := range window(changed, 0, SectionSize) {
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
	pageRows := window(all, req.Offset, PageSize)
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
