package search

import (
	"context"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/reply"
)

// searchedSources lists the sources a part searches: every source it indexes and every
// sensor its bf.yaml declares, or only the scope's source.
func searchedSources(ctx context.Context, p *part, only string) ([]string, error) {
	// DISTINCT would read the index entry of every record (100k records: ~10 ms); this
	// skip-scan seeks items_kind_source_time once per source instead.
	indexed, err := cache.Strings(ctx, p.tx, `WITH RECURSIVE s(source) AS (
			SELECT (SELECT min(source) FROM items WHERE kind = 'record')
			UNION ALL SELECT (SELECT min(source) FROM items WHERE kind = 'record' AND source > s.source)
			FROM s WHERE s.source IS NOT NULL)
		SELECT source FROM s WHERE source IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, s := range indexed {
		set[s] = true
	}
	if p.brain.Config != nil {
		for name := range p.brain.Config.Sensors {
			set[name] = true
		}
	}
	if only != "" {
		if !set[only] {
			return nil, nil
		}
		return []string{only}, nil
	}
	return sortedSet(set), nil
}

// coverageOf describes one source of a part from this machine's run history: its state,
// freshness, last collection, collected window and whether its last attempt failed.
// Freshness is judged at the real clock, whatever period the request ends at: it says how
// recent the collection is now.
func coverageOf(p *part, source string) reply.Coverage {
	var s *config.Sensor
	if p.brain.Config != nil {
		s = p.brain.Config.Sensors[source]
	}
	c := history.Coverage(source, s, historyOf(p).Sensor(source), time.Now())
	c.Brain = p.name
	return c
}

// historyOf returns the part's run history, read once per search. History that cannot be
// read counts as none: freshness then says never, which asks for a look rather than hiding
// a problem.
func historyOf(p *part) *history.History {
	if p.hist == nil {
		p.hist, _ = history.Load(brain.System(), p.brain)
	}
	return p.hist
}

// coverage keeps the sources of returned records and those needing attention (failed,
// overdue or never collected), or every searched source when whole; it returns the kept
// entries and how many were left out.
func coverage(all []reply.Coverage, items []reply.Item, whole bool) ([]reply.Coverage, int) {
	returned := map[[2]string]bool{}
	for _, it := range items {
		if it.Kind == reply.KindRecord {
			returned[[2]string{it.Brain, it.Source}] = true
		}
	}
	var kept []reply.Coverage
	for _, c := range all {
		if whole || returned[[2]string{c.Brain, c.Source}] || c.Failed ||
			c.Freshness == history.Overdue || c.Freshness == history.Never {
			kept = append(kept, c)
		}
	}
	return kept, len(all) - len(kept)
}
