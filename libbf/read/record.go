package read

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/graph"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/reply"
)

// record reads a record: the stored record, its collection state, digest and time,
// backlinks and claims.
func (r *reader) record(ctx context.Context, t *graph.Target) (any, error) {
	p, _ := partOf(&r.set.Set, t.Brain)
	var path, source, stored string
	if err := p.DB.QueryRowContext(ctx, `SELECT path, source, time FROM items WHERE id = ?`, t.Item).Scan(&path, &source, &stored); err != nil {
		return nil, cacheError(err)
	}
	f, err := readFile(p.Brain.Root, path, r.req.Location)
	if err != nil {
		return nil, err
	}
	rec, err := record.Parse(f.data)
	if err != nil {
		return nil, fmt.Errorf("invalid record <brain>/%s: %v; run bf validate", path, err)
	}
	raw, err := rec.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	if _, ok := fields["time"]; ok && stored != "" {
		fields["time"], _ = json.Marshal(reply.Local(stored, r.req.Location))
	}
	groups, omitted, err := t.Backlinks(ctx)
	if err != nil {
		return nil, err
	}
	claims, cut, err := t.Claims(ctx)
	if err != nil {
		return nil, err
	}
	out := &RecordReply{
		Backlinks: &groups, BacklinksOmitted: omitted, Brain: t.Brain, Claims: claims, ClaimsTruncated: cut,
		Collection: collection(p, source, r.req.Location), Modified: f.modified, Notice: reply.Notice, Path: path,
		Problems: r.probs.List(), Record: fields, Ref: t.Ref, SHA256: f.sha256, Stale: r.set.Stale,
		URI: r.uri(t.Brain, t.Ref, ""),
	}
	withText := func(slice string) map[string]json.RawMessage {
		m := make(map[string]json.RawMessage, len(fields))
		for k, v := range fields {
			m[k] = v
		}
		m["text"], _ = json.Marshal(slice)
		return m
	}
	pg := pager{
		text:   rec.Text,
		whole:  out,
		offset: r.req.Offset,
		setFirst: func(slice string, offset int64, next *int64, total int) any {
			first := *out
			first.Record, first.Offset, first.NextOffset, first.TotalCharacters = withText(slice), &offset, next, &total
			return &first
		},
		later: func(slice string, offset int64, next *int64, total int) any {
			return &recordTextPage{
				Brain: out.Brain, Modified: out.Modified, NextOffset: next, Notice: reply.Notice, Offset: offset,
				Problems: r.readProbs, Record: textOnly{Text: slice}, Ref: out.Ref, SHA256: out.SHA256,
				Stale: r.set.Stale, TotalCharacters: total, URI: out.URI,
			}
		},
	}
	return pg.page()
}

// collection describes a record's source from this machine's run history, as search's
// sources do: state, freshness, last collection, collected window, last attempt failed.
func collection(p graph.Part, source string, loc *time.Location) *Collection {
	var s *config.Sensor
	if p.Brain.Config != nil {
		s = p.Brain.Config.Sensors[source]
	}
	// History that cannot be read counts as none: bf status names the problem.
	h, _ := history.Load(brain.System(), p.Brain)
	c := history.Coverage(source, s, h.Sensor(source), time.Now())
	c.Present(loc)
	return &Collection{Failed: c.Failed, Freshness: c.Freshness, LastCollected: c.LastCollected,
		Mode: c.Mode, State: c.State, Window: c.Window}
}
