package export

import (
	"errors"
	"time"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/search"
)

// Scope errors.
var (
	errScope = errors.New("export takes a folder or a whole note (projects, projects/new-website.md), " +
		"memories, a source with an optional period, undated records or a record file (memories/brief, " +
		"memories/brief/7d, memories/brief/undated, memories/brief/FILE), or a period (today, 7d, 2026-09, " +
		"2026-09-21..2026-09-25)")
)

// scope is one parsed export scope; the zero value exports everything.
type scope struct {
	// prefix keeps items whose path is prefix or lies below prefix/.
	prefix string
	// source keeps the records of one source.
	source string
	// undated keeps records without an event time.
	undated bool
	// period keeps items placed in [since, until) (canonical UTC).
	period       bool
	since, until string
}

// parseScope reads the scope forms that select stored rows: the folder and note, memories
// and period forms of bf search --scope, parsed by search itself. Identity and tag scopes
// select by links, not by stored rows, so export refuses them with every other form.
func parseScope(value string, now time.Time, loc *time.Location) (scope, error) {
	s, err := search.ParseScope(value, now, loc)
	switch {
	case errors.Is(err, ref.ErrInvalidPeriod) || errors.Is(err, search.ErrScopeSection):
		return scope{}, err
	case err != nil || s.Target != "":
		return scope{}, errScope
	}
	return scope{prefix: s.Prefix, source: s.Source, undated: s.Undated, period: s.Period,
		since: s.Since, until: s.Until}, nil
}
