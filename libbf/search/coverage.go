package search

import (
	"context"

	"github.com/bfgo/bf/libbf/reply"
)

// Coverage states and freshness.
const (
	stateActive     = "active"
	stateDisabled   = "disabled"
	stateHistorical = "historical"

	freshNever   = "never"
	freshManual  = "manual"
	freshUnknown = "unknown"
	freshOverdue = "overdue"
)

// searchedSources lists the sources a part searches: every source it indexes and every
// sensor its bf.yaml declares, or only the scope's source.
func searchedSources(ctx context.Context, p *part, only string) ([]string, error) {
	// DISTINCT would read the index entry of every record (100k records: ~10 ms); this
	// skip-scan seeks items_kind_source_time once per source instead.
	indexed, err := stringsOf(ctx, p, `WITH RECURSIVE s(source) AS (
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

// coverageOf describes one source of a part. Collection run history is not kept on this
// machine yet, so a declared sensor has never run here: never when it refreshes on its own,
// manual without refresh, unknown when disabled; a source whose sensor is no longer
// declared is historical.
func coverageOf(p *part, source string) reply.Coverage {
	c := reply.Coverage{Brain: p.name, Source: source, State: stateHistorical, Freshness: freshUnknown}
	if p.brain.Config == nil {
		return c
	}
	s := p.brain.Config.Sensors[source]
	if s == nil {
		return c
	}
	c.Mode = s.Mode
	switch {
	case !s.Enabled:
		c.State = stateDisabled
	case s.Refresh > 0:
		c.State, c.Freshness = stateActive, freshNever
	default:
		c.State, c.Freshness = stateActive, freshManual
	}
	return c
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
			c.Freshness == freshOverdue || c.Freshness == freshNever {
			kept = append(kept, c)
		}
	}
	return kept, len(all) - len(kept)
}
