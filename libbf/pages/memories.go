package pages

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// memories is the sources overview: every source with its coverage, records and newest
// event time. It is never paged.
type memories struct {
	Notice   string           `json:"notice"`
	Page     string           `json:"page"`
	Problems []reply.Problem  `json:"problems,omitempty"`
	Sources  []reply.Coverage `json:"sources"`
	Stale    []string         `json:"stale,omitempty"`
}

// indexed holds a source's record count and newest event time in one brain.
type indexed struct {
	records int
	latest  string
}

// sourcesOf returns the record counts of a brain's indexed sources.
func sourcesOf(ctx context.Context, p *part) (map[string]indexed, error) {
	rows, err := p.tx.QueryContext(ctx, `SELECT source, count(*), max(time) FROM items WHERE kind = 'record' GROUP BY source`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]indexed{}
	for rows.Next() {
		var name string
		var ix indexed
		if err := rows.Scan(&name, &ix.records, &ix.latest); err != nil {
			return nil, err
		}
		out[name] = ix
	}
	return out, rows.Err()
}

// coverageOf describes one source of a brain from its indexed records and this machine's
// run history h at now.
func coverageOf(p *part, source string, ix indexed, h *history.History, now time.Time) reply.Coverage {
	var s *config.Sensor
	if p.brain.Config != nil {
		s = p.brain.Config.Sensors[source]
	}
	c := history.Coverage(source, s, h.Sensor(source), now)
	records := ix.records
	c.Brain, c.Records, c.Latest = p.name, &records, ix.latest
	return c
}

// historyOf reads a brain's run history on this machine. History that cannot be read counts
// as none: its sources then read as never collected, which asks for a look (bf status names
// the problem) rather than hiding one.
func historyOf(p *part) *history.History {
	h, _ := history.Load(brain.System(), p.brain)
	return h
}

// declares reports whether a brain's bf.yaml declares a sensor.
func declares(p *part, source string) bool {
	return p.brain.Config != nil && p.brain.Config.Sensors[source] != nil
}

func memoriesOverview(ctx context.Context, req Request) (*memories, error) {
	s, err := openSession(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.close()
	out := &memories{Notice: reply.Notice, Page: "memories", Sources: []reply.Coverage{}}
	for _, p := range s.parts {
		counts, err := sourcesOf(ctx, p)
		if err != nil {
			return nil, cacheError(err)
		}
		h := historyOf(p)
		names := map[string]bool{}
		for n := range counts {
			names[n] = true
		}
		if p.brain.Config != nil {
			for n := range p.brain.Config.Sensors {
				names[n] = true
			}
		}
		for _, n := range slices.Sorted(maps.Keys(names)) {
			c := coverageOf(p, n, counts[n], h, s.now)
			c.Page = "memories/" + n
			c.Present(s.loc)
			if s.single {
				c.Brain = ""
			}
			out.Sources = append(out.Sources, c)
		}
	}
	out.Problems = s.probs.List()
	out.Stale = s.stale
	return out, nil
}

// source lists one source's records: all of them (20 per page), those placed in a period
// or those without event time, each page with the source's coverage in every brain that
// indexes or declares it; or the record a record file holds, without coverage.
func source(ctx context.Context, req Request, page ref.Page) (*Listing, error) {
	var pd ref.Period
	if page.Kind == ref.PageSourcePeriod {
		var err error
		if pd, err = ref.ParsePeriod(page.Period, req.Now, req.Location); err != nil {
			return nil, &reply.InputError{Argument: "ref", Err: err}
		}
	}
	s, err := openSession(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.close()
	args := []any{sql.Named("source", page.Source)}
	where := `i.kind = 'record' AND i.source = :source`
	key, order, pageSize := `i.time`, `k DESC, i.ref DESC`, pageSize
	out := &Listing{Paging: Paging{Notice: reply.Notice, Page: page.Path}}
	if page.Kind != ref.PageRecordFile {
		out.Sources = []reply.Coverage{}
	}
	switch page.Kind {
	case ref.PageSource:
		pageSize = sectionSize
	case ref.PageSourcePeriod:
		args = append(args, sql.Named("since", canonical(pd.Start)), sql.Named("until", canonical(pd.End)))
		where += ` AND ` + placedIn
		key = placeExpr
		prefix := "memories/" + page.Source + "/"
		if prev, ok := pd.Previous(); ok {
			out.Previous = prefix + prev.Name
		}
		if next, ok := pd.Next(); ok {
			out.Next = prefix + next.Name
		}
	case ref.PageSourceUndated:
		where += ` AND i.time = ''`
		key, order = `i.ref`, `i.ref DESC`
	case ref.PageRecordFile:
		args = append(args, sql.Named("path", "memories/"+page.Source+"/"+page.File))
		where += ` AND i.path = :path`
	}
	var all []*row
	known := false
	for _, p := range s.parts {
		counts, err := sourcesOf(ctx, p)
		if err != nil {
			return nil, cacheError(err)
		}
		ix, ok := counts[page.Source]
		if !ok && !declares(p, page.Source) {
			continue
		}
		known = true
		if out.Sources != nil {
			c := coverageOf(p, page.Source, ix, historyOf(p), s.now)
			c.Present(s.loc)
			out.Sources = append(out.Sources, c)
		}
		n, err := countRows(ctx, p, where, args...)
		if err != nil {
			return nil, cacheError(err)
		}
		out.Total += n
		rows, err := queryRows(ctx, p, key, where, order, fetch(req.Offset, pageSize), args...)
		if err != nil {
			return nil, cacheError(err)
		}
		all = append(all, rows...)
	}
	if !known {
		return nil, s.notFound(msgUnknownSource)
	}
	if page.Kind == ref.PageSourceUndated {
		sort.SliceStable(all, func(i, j int) bool { return all[i].ref > all[j].ref })
	} else {
		newestFirst(all)
	}
	reserved := 0
	if out.Sources != nil {
		if reserved, err = size(out.Sources); err != nil {
			return nil, err
		}
	}
	return s.finishListing(out, window(all, req.Offset, pageSize), req.Offset, reserved)
}
