package search

// The statements of the word ranking (words.go).

import (
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/jsontext"
)

// Statements of the word ranking. {only} restricts a pass to listed passages; {filters} is
// the scope's condition (see scopeFilter).
const (
	only = `{only}`
	// termSQL lists the passages holding a term, in passage order.
	termSQL = `SELECT rowid FROM search WHERE search MATCH ?`
	// countSQL counts the passages holding a term.
	countSQL = `SELECT count(*) FROM search WHERE search MATCH ?`
	// heldSQL lists which of some passages (?2) hold a term (?1).
	heldSQL = `SELECT rowid FROM search WHERE search MATCH ?1 AND +rowid IN (SELECT value FROM json_each(?2))`
	// scoreSQL runs BM25 over the passages matching any term. The restriction to listed
	// passages is a filter (+rowid): as a constraint, FTS5 would run the whole query
	// once per passage. The second BM25, weighting only title and text, tells whether a
	// section matches by its heading or its text.
	scoreSQL = `SELECT search.rowid, -` + cache.RankBM25 + `, ` + cache.TitleTextBM25 + ` < 0
		FROM search WHERE search MATCH :match` + only
	// joinSQL reads the items of scored passages. Every scored passage is within the scope.
	joinSQL = `SELECT p.id, p.item, p.fragment, i.ref, i.url, i.source, i.status = 'deprecated', i.kind, i.time,
			i.observed, i.weight
		FROM json_each(?) j CROSS JOIN passages p ON p.id = j.value CROSS JOIN items i ON i.id = p.item`
	// siblingsSQL lists the passages of notes.
	siblingsSQL = `SELECT id, item, fragment FROM passages WHERE item IN (SELECT value FROM json_each(:items))`
	// sharedSQL finds the records of URLs (:urls) within the scope. A record's URL is among
	// the identity words of its passage, so every record of a URL is among the passages
	// holding one word of it there (:words, a word per URL); the URL is then compared.
	sharedSQL = `WITH ` + cache.DaysCTE + `
		SELECT i.url, p.id, i.ref, i.source
		FROM search s CROSS JOIN passages p ON p.id = s.rowid CROSS JOIN items i ON i.id = p.item
		` + cache.DaysJoin + `
		WHERE s.search MATCH :words AND i.url IN (SELECT value FROM json_each(:urls)) AND ` + filters
	// sharedScanSQL finds the records of one URL of other characters by reading every item.
	sharedScanSQL = `WITH ` + cache.DaysCTE + `
		SELECT i.url, p.id, i.ref, i.source
		FROM items i CROSS JOIN passages p ON p.item = i.id
		` + cache.DaysJoin + `
		WHERE i.url = :url AND ` + filters
	// pageSQL reads what a page shows of its passages and items.
	pageSQL = `SELECT p.id, ` + rowColumns + `, p.title
		FROM json_each(:ids) j CROSS JOIN passages p ON p.id = j.value CROSS JOIN items i ON i.id = p.item`
	// averagesSQL reads FTS5's totals record, which starts with the number of rows BM25
	// uses for idf.
	averagesSQL = `SELECT block FROM search_data WHERE id = 1`
)

// scopedPassages is a query of the passages of the items within a scope. Besides the
// scope's filter it states a wider condition an index answers (scopeHint), so that the
// items are found through it rather than by reading them all.
func scopedPassages(sc scope) string {
	where := scopeCondition(sc)
	if !sc.period {
		// Only a period reads times: without the days, an index of paths answers alone.
		return `SELECT p.id FROM items i CROSS JOIN passages p ON p.item = i.id WHERE ` + where
	}
	return `WITH ` + cache.DaysCTE + ` SELECT p.id FROM items i CROSS JOIN passages p ON p.item = i.id ` + cache.DaysJoin +
		` WHERE ` + where
}

// scopeCondition is the scope's filter on items i, after its hint when it has one.
func scopeCondition(sc scope) string {
	if hint := scopeHint(sc); hint != "" {
		return hint + " AND " + scopeFilter(sc)
	}
	return scopeFilter(sc)
}

// scopeHint is a condition every item within the scope meets that an index of items
// answers, or "" when the filter itself does: a folder or file as a range of paths, a
// period as ranges of times (a note's day is within two days of its local midnight).
func scopeHint(sc scope) string {
	var hints []string
	if sc.prefix != "" {
		hints = append(hints, `i.path >= :prefix AND i.path < :prefix || '0'`)
	}
	if sc.period && len(sc.since) >= 10 && len(sc.until) >= 10 {
		since, err1 := time.Parse(time.DateOnly, sc.since[:10])
		until, err2 := time.Parse(time.DateOnly, sc.until[:10])
		if err1 == nil && err2 == nil {
			hints = append(hints, `(i.kind = 'record' AND i.time >= :since AND i.time < :until
				OR i.kind = 'record' AND i.time = ''
				OR i.kind = 'note' AND i.time >= '`+since.AddDate(0, 0, -2).Format(time.DateOnly)+`'
					AND i.time < '`+until.AddDate(0, 0, 2).Format(time.DateOnly)+`')`)
		}
	}
	return strings.Join(hints, " AND ")
}

// idList is the entries' passage ids as a JSON array.
func idList(list []*entry) string {
	ids := make([]int64, len(list))
	for i, e := range list {
		ids[i] = e.id
	}
	return jsontext.Int64s(ids)
}
