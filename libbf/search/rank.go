package search

import (
	"context"
	"database/sql"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/jsontext"
)

// SQL shared by the queries over items i. A note's time is its day at local midnight, from
// the days table each query binds (:days); a record's time is its stored instant.
const (
	// timeExpr is where an item sits in time: a note's day at local midnight, a record's
	// event time, or when it has none the time it was first observed. Period scopes and
	// newest-first ties use it; replies show a record's own time (row.stored), never this
	// fallback.
	timeExpr = `(CASE WHEN i.kind = 'note' THEN coalesce(d.at, '') WHEN i.time != '' THEN i.time ELSE i.observed END)`
	// linking selects the items linking to a target (:targets) or to a section of one
	// (:sections); the range reads every link target starting with "TARGET#".
	linking = `SELECT l.item FROM links l WHERE l.target IN (SELECT value FROM json_each(:targets))
		UNION SELECT l.item FROM json_each(:sections) s CROSS JOIN links l
		ON l.target > s.value || '#' AND l.target < s.value || '$'`
	// filters stands for the scope's filter in the queries below (see scopeFilter).
	filters = `{filters}`
	// limitBound stands for the row bound, written as a number: bound as a parameter, a
	// LIMIT makes SQLite compile the whole statement a second time when it first runs.
	limitBound = `{limit}`
	// rowColumns are the columns scanRow reads, after the CTEs named t (rank) and i (item).
	rowColumns = `i.id, i.ref, i.path, i.kind, i.source, i.time, i.type, i.status, i.url, i.updated,
		i.observed, i.partial, i.fields, i.title, i.lead`
)

// identitySQL lists the items that are the identity (its ref, 2e6), own it (a name, 1e6)
// or link to it or to a section of it (1e3: {linkers}), best score first, then newest,
// then by ref descending.
const identitySQL = `WITH ` + cache.DaysCTE + `,
candidates(item, score) AS (
	SELECT id, 2e6 FROM items WHERE ref = :text
	UNION ALL SELECT item, 1e6 FROM names WHERE name IN (SELECT value FROM json_each(:identities))
	UNION ALL ` + linkers + `),
owners AS (SELECT item, max(score) AS score FROM candidates GROUP BY item)
SELECT ` + rowColumns + `, ` + timeExpr + ` AS time, '', i.title, 0, c.score, '', ''
FROM owners c JOIN items i ON i.id = c.item ` + cache.DaysJoin + `
WHERE ` + filters + `
ORDER BY c.score DESC, time DESC, i.ref DESC LIMIT ` + limitBound

// SQL of the items linking to an identity: linkers stands for them in identitySQL.
const (
	linkers = `{linkers}`
	// allLinkers selects every item linking to one of :identities or to a section of one
	// of :idsections.
	allLinkers = `SELECT item, 1e3 FROM links WHERE target IN (SELECT value FROM json_each(:identities))
	UNION ALL SELECT l.item, 1e3 FROM json_each(:idsections) s CROSS JOIN links l
		ON l.target > s.value || '#' AND l.target < s.value || '$'`
	// walkedLinkers are the linkers the walk found (:walked).
	walkedLinkers = `SELECT value, 1e3 FROM json_each(:walked)`
	// linkerCount counts linkers, up to the bound.
	linkerCount = `SELECT count(*) FROM (` + allLinkers + ` LIMIT ` + limitBound + `)`
	// linksTo is whether item i links to one of :identities; linksToSection whether it
	// links to a section of one of :idsections.
	linksTo        = `EXISTS (SELECT 1 FROM links l WHERE l.item = i.id AND l.target IN (SELECT value FROM json_each(:identities)))`
	linksToSection = `EXISTS (SELECT 1 FROM json_each(:idsections) s CROSS JOIN links l
		ON l.item = i.id AND l.target > s.value || '#' AND l.target < s.value || '$')`
)

// tagSQL lists a tag's members ({members}), newest first.
const tagSQL = `WITH ` + cache.DaysCTE + `
SELECT ` + rowColumns + `, ` + timeExpr + ` AS time, '', i.title, 0, 1e3, '', ''
FROM items i ` + cache.DaysJoin + `
WHERE i.id IN (` + members + `) AND ` + filters + `
ORDER BY time DESC, i.ref DESC LIMIT ` + limitBound

// SQL of a tag's members: members stands for them in tagSQL.
const (
	members       = `{members}`
	allMembers    = `SELECT item FROM tags WHERE target = :text`
	walkedMembers = `SELECT value FROM json_each(:walked)`
	memberCount   = `SELECT count(*) FROM (` + allMembers + ` LIMIT ` + limitBound + `)`
	taggedWith    = `EXISTS (SELECT 1 FROM tags t WHERE t.item = i.id AND t.target = :text)`
)

// row is one ranked item of one brain.
type row struct {
	part                                *part
	id                                  int64
	ref, path, kind, source, stored     string
	typ, status, url, updated, observed string
	partial                             bool
	fields, title, lead, time, fragment string
	passage                             int64
	score                               float64
	also, sections                      []string
}

// scopeFilter is the SQL condition on items i of a scope: only the clauses the scope
// uses, so an unscoped search does not compile the others (compiling the word query is a
// good part of a warm search). Each clause is the one of the full filter that holds when
// its part of the scope is unset.
func scopeFilter(sc scope) string {
	var parts []string
	if sc.period {
		parts = append(parts, `(`+timeExpr+` != '' AND `+timeExpr+` >= :since AND `+timeExpr+` < :until)`)
	}
	if sc.undated {
		parts = append(parts, `i.time = ''`)
	}
	if sc.prefix != "" {
		parts = append(parts, `(i.path = :prefix OR substr(i.path, 1, length(:prefix) + 1) = :prefix || '/')`)
	}
	switch {
	case sc.target == "":
	case sc.tag:
		parts = append(parts, `i.id IN (SELECT item FROM tags WHERE target = :target)`)
	default:
		parts = append(parts, `(i.ref IN (SELECT value FROM json_each(:targets)) OR i.id IN (`+linking+`))`)
	}
	if len(parts) == 0 {
		return "1"
	}
	return strings.Join(parts, "\n\t\tAND ")
}

// render fills a query's scope filter and row bound.
func render(query string, sc scope, limit int64) string {
	return strings.NewReplacer(filters, scopeFilter(sc), limitBound, strconv.FormatInt(limit, 10)).Replace(query)
}

// noDays binds :days (cache.DaysCTE) for a statement that reads no note's place in time:
// its join to the days then finds none, which changes no row.
const noDays = "{}"

// scopeArgs binds a scope's filters; targets are this brain's identities of the scope, days
// the brain's note days as JSON (cache.Days), or noDays.
func scopeArgs(p *part, sc scope, targets map[string]bool, days string) []any {
	list := sortedSet(targets)
	return []any{
		sql.Named("days", days), sql.Named("since", sc.since), sql.Named("until", sc.until),
		sql.Named("prefix", sc.prefix), sql.Named("target", sc.target),
		sql.Named("targets", jsontext.Array(list)), sql.Named("sections", jsontext.Array(sectionTargets(list))),
	}
}

// rankIdentity runs the identity query in one brain: tag members for a tag address.
// Without a scope, the newest linkers or members are found by a walk when there are many
// (newest.go); the page then reads only their rows.
func rankIdentity(ctx context.Context, p *part, text string, identities map[string]bool, sc scope, targets map[string]bool, limit int64) ([]*row, error) {
	days, err := p.days.JSON(ctx)
	if err != nil {
		return nil, err
	}
	args := append(scopeArgs(p, sc, targets, days), sql.Named("text", text))
	query, count, probe, all, walked := identitySQL, linkerCount, linksTo, allLinkers, walkedLinkers
	if isTagAddress(text) {
		query, count, probe, all, walked = tagSQL, memberCount, taggedWith, allMembers, walkedMembers
	} else {
		ids := identities
		if len(ids) == 0 {
			ids = map[string]bool{text: true}
		}
		list := sortedSet(ids)
		sections := sectionTargets(list)
		if len(sections) > 0 {
			// Probing a section link costs a range read per section per item walked.
			probe = "(" + linksTo + " OR " + linksToSection + ")"
		}
		args = append(args, sql.Named("identities", jsontext.Array(list)), sql.Named("idsections", jsontext.Array(sections)))
	}
	if scopeFilter(sc) == "1" && !sortEveryMember {
		found, ok, err := newest(ctx, p, membership{member: probe, count: count, args: args}, limit)
		if err != nil {
			return nil, err
		}
		if traceWalk != nil {
			traceWalk(ok)
		}
		if ok {
			page := strings.NewReplacer(linkers, walked, members, walked).Replace(query)
			return queryRows(ctx, p, render(page, sc, limit), append(args, sql.Named("walked", jsontext.Int64s(found))))
		}
	}
	full := strings.NewReplacer(linkers, all, members, all).Replace(query)
	return queryRows(ctx, p, render(full, sc, limit), args)
}

// sortEveryMember turns the walk off, and traceWalk hears whether each walk tried found the
// page: tests and benchmarks compare the walk with the sort.
var (
	sortEveryMember bool
	traceWalk       func(found bool)
)

func queryRows(ctx context.Context, p *part, query string, args []any) ([]*row, error) {
	return cache.Collect(ctx, p.tx, query, args, func(rows *sql.Rows) (*row, error) {
		r := &row{part: p}
		var partial int
		var itemTitle, also, sections string
		if err := rows.Scan(&r.id, &r.ref, &r.path, &r.kind, &r.source, &r.stored, &r.typ, &r.status, &r.url,
			&r.updated, &r.observed, &partial, &r.fields, &itemTitle, &r.lead, &r.time, &r.fragment, &r.title,
			&r.passage, &r.score, &also, &sections); err != nil {
			return nil, err
		}
		r.partial = partial != 0
		if also != "" {
			json.Unmarshal([]byte(also), &r.also)
			sort.Strings(r.also)
		}
		if sections != "" {
			r.sections = sectionRefs(r.ref, sections)
		}
		return r, nil
	})
}

// sectionRefs turns [[position, fragment], …] into note#fragment refs, best first.
func sectionRefs(note, raw string) []string {
	var pairs [][2]json.RawMessage
	if json.Unmarshal([]byte(raw), &pairs) != nil {
		return nil
	}
	type sec struct {
		pos  int
		frag string
	}
	secs := make([]sec, 0, len(pairs))
	for _, pr := range pairs {
		var s sec
		if json.Unmarshal(pr[0], &s.pos) != nil || json.Unmarshal(pr[1], &s.frag) != nil {
			continue
		}
		secs = append(secs, s)
	}
	sort.Slice(secs, func(i, j int) bool { return secs[i].pos < secs[j].pos })
	out := make([]string, len(secs))
	for i, s := range secs {
		out[i] = note + "#" + s.frag
	}
	return out
}
