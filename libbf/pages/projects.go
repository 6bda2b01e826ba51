package pages

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
)

// errDays is a part whose note days do not decode.
var errDays = errors.New("note days do not decode")

// Home orders every project but shows only those that fit its budget. The projects are
// read in two steps: for all of them, what orders them and sets their review signals; for
// those shown, the rest of their row (title, excerpt, fields…), which is most of its bytes.

// homeProjects lists the projects of one brain that are not deprecated, newest first, each
// row holding only its id, ref, path, kind, time, type, status, tasks, next, weight,
// stale_after and sort key (its event time); fill reads the rest.
func homeProjects(ctx context.Context, p *part) ([]*row, error) {
	rows, err := p.tx.QueryContext(ctx, `SELECT i.id, i.ref, i.path, i.kind, i.time, i.type, i.status, i.tasks_open,
			i.tasks_done, i.next, i.weight, i.stale_after, substr(i.time, 1, 10)
		FROM items i WHERE `+entry+` AND i.type = 'project' AND i.status != 'deprecated'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	days := p.dayMap()
	if days == nil {
		return nil, errDays
	}
	var out []*row
	for rows.Next() {
		r := &row{part: p, light: true}
		var day string
		if err := rows.Scan(&r.id, &r.ref, &r.path, &r.kind, &r.time, &r.typ, &r.status, &r.open, &r.done, &r.next,
			&r.weight, &r.staleAfter, &day); err != nil {
			return nil, err
		}
		// The event time of a note, as eventExpr states it.
		r.key = days[day]
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	newestFirst(out)
	return out, nil
}

// fill completes rows homeProjects read, all of part p.
func fill(ctx context.Context, p *part, rows []*row) error {
	byID := map[int64]*row{}
	var ids []int64
	for _, r := range rows {
		if r.light {
			byID[r.id] = r
			ids = append(ids, r.id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	idJSON, _ := json.Marshal(ids)
	full, err := scanRows(ctx, p.tx, p, `SELECT `+itemColumns+`, '' FROM items i WHERE i.id IN (SELECT value FROM json_each(:ids))`,
		[]any{sql.Named("ids", string(idJSON))})
	if err != nil {
		return err
	}
	for _, f := range full {
		r := byID[f.id]
		f.key, f.signals = r.key, r.signals
		*r = *f
	}
	return nil
}
