package pages

import (
	"database/sql"
	"encoding/json"
)

// A note's event time is its day's local midnight, which SQLite can only find by looking
// the day up: a condition on it alone reads every note (and, beside records, every item).
// These conditions are implied by the exact ones they accompany, and bound the stored
// times so that the indexes on (kind, time) and on path answer them: the exact condition
// then runs on the few rows within the bounds.
const (
	// noteTimes bounds a note's stored time to the days in [:dlo, :dhi).
	noteTimes = `i.kind = 'note' AND i.time >= :dlo AND i.time < :dhi`
	// eventTimes bounds the items whose event time is in [:since, :until): notes by day,
	// records by time (the cache holds no other kind).
	eventTimes = `(` + noteTimes + ` OR i.kind = 'record' AND i.time >= :since AND i.time < :until)`
	// actionPaths bounds the paths of actionNote, whose kind is then better checked row by
	// row (+i.kind) than through an index.
	actionPaths = `i.path >= 'actions/' AND i.path < 'actions0'`
	// belowPaths bounds the paths of below: '0' follows '/'.
	belowPaths = `i.path >= :prefix || '/' AND i.path < :prefix || '0'`
)

// dayMap is the part's note days and their local midnights.
func (p *part) dayMap() map[string]string {
	if p.dayAt == nil {
		p.dayAt = map[string]string{}
		if err := json.Unmarshal([]byte(p.days), &p.dayAt); err != nil {
			// Without the days no note is bounded out: every stored time is kept.
			p.dayAt = nil
		}
	}
	return p.dayAt
}

// noteBounds binds :dlo and :dhi to the stored times of the notes whose day's local
// midnight is in [since, until).
func (p *part) noteBounds(since, until string) []any {
	days := p.dayMap()
	if days == nil {
		return []any{sql.Named("dlo", ""), sql.Named("dhi", "\xff")}
	}
	lo, hi := dayBounds(days, func(at string) bool { return at >= since && at < until })
	return []any{sql.Named("dlo", lo), sql.Named("dhi", hi)}
}

// dayBounds is the range [lo, hi) of stored times starting with a day whose midnight in
// days satisfies in, an empty range when none does.
func dayBounds(days map[string]string, in func(at string) bool) (lo, hi string) {
	first, last := "", ""
	for day, at := range days {
		if !in(at) {
			continue
		}
		if first == "" || day < first {
			first = day
		}
		if last == "" || day > last {
			last = day
		}
	}
	if first == "" {
		return "1", "0"
	}
	return first, successor(last)
}

// successor is the least string above every string that starts with s (not empty).
func successor(s string) string {
	b := []byte(s)
	for len(b) > 0 && b[len(b)-1] == 0xff {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return "\xff"
	}
	b[len(b)-1]++
	return string(b)
}
