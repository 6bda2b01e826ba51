package export

import (
	"errors"
	"strings"
	"time"
	"unicode"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Scope errors.
var (
	errScope = errors.New("export takes a folder or a whole note (projects, projects/new-website.md), " +
		"memories, a source with an optional period, undated records or a record file (memories/brief, " +
		"memories/brief/7d, memories/brief/undated, memories/brief/FILE), or a period (today, 7d, 2026-09, " +
		"2026-09-21..2026-09-25)")
	errScopeSection = errors.New("scope takes a whole note without its #section; scope the note, then read the section")
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
// and period forms of bf search --scope.
func parseScope(value string, now time.Time, loc *time.Location) (scope, error) {
	value = strings.TrimFunc(value, unicode.IsSpace)
	if value == "" {
		return scope{}, nil
	}
	path := value
	if len(path) > 1 && strings.HasSuffix(path, "/") {
		path = path[:len(path)-1]
	}
	if ref.IsPeriod(path) {
		p, err := ref.ParsePeriod(path, now, loc)
		if err != nil {
			return scope{}, err
		}
		return periodScope(scope{}, p), nil
	}
	if note, _, found := strings.Cut(path, "#"); found {
		if ref.UnderAuthored(note) && strings.HasSuffix(note, ".md") {
			return scope{}, errScopeSection
		}
		return scope{}, errScope
	}
	if !clean(path) {
		return scope{}, errScope
	}
	first, _, _ := strings.Cut(path, "/")
	switch {
	case ref.IsAuthoredRoot(first):
		return scope{prefix: path}, nil
	case first != "memories":
		return scope{}, errScope
	}
	page, ok, err := ref.ParsePage(path)
	if err != nil {
		if errors.Is(err, ref.ErrInvalidPeriod) {
			return scope{}, err
		}
		return scope{}, errScope
	}
	if !ok {
		return scope{}, errScope
	}
	source := "memories/" + page.Source
	switch page.Kind {
	case ref.PageMemories:
		return scope{prefix: "memories"}, nil
	case ref.PageSource:
		return scope{prefix: source, source: page.Source}, nil
	case ref.PageSourceUndated:
		return scope{prefix: source, source: page.Source, undated: true}, nil
	case ref.PageRecordFile:
		return scope{prefix: source + "/" + page.File, source: page.Source}, nil
	case ref.PageSourcePeriod:
		p, err := ref.ParsePeriod(page.Period, now, loc)
		if err != nil {
			return scope{}, err
		}
		return periodScope(scope{prefix: source, source: page.Source}, p), nil
	}
	return scope{}, errScope
}

func periodScope(s scope, p ref.Period) scope {
	s.period = true
	s.since = timestamp.Canonical(p.Start)
	s.until = timestamp.Canonical(p.End)
	return s
}
