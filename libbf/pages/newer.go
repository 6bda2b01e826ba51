package pages

import (
	"context"
	"database/sql"
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/jsontext"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Newer evidence of a note is every item linked to it, either way, whose event time or
// upstream update falls between the note's last edit and now:
//   - items linking to the note by its ref (in its own brain only) or by one of its names
//     (in any brain), or by a #section of either;
//   - records the note links to, by their ref in its own brain, by a bare SOURCE:ID in
//     another brain when the note's brain holds no item of that ref and no selected brain
//     is missing, or by a name only that record holds.
//
// A name held by several items, as a name or as a ref, in any of the brains, links to none
// of them. In the note's own brain, its links to itself do not count.
//
// Two exact ways find it. Following each note's links (linkFirst) costs what the notes are
// linked to: a page of listed notes, or one note, even one linked thousands of times. Most
// notes are edited recently, though, or already due: their windows are short, so the items
// dated in the union of the windows are few, and following their links back (timeFirst)
// settles every note at once whatever its links. Home needs to know, for every project,
// whether it needs review: that is the second way.

// newer counts a note's newer linked items and names the newest, as the reply prints them.
type newer struct {
	total int
	refs  []string
}

// evidence is one newer linked item of a reviewed note.
type evidence struct {
	brain int // index in the scope
	ref   string
	at    string // event time or upstream update, canonical
}

// How many items a time window may hold before following the notes' own links is thought
// cheaper: an item dated in the window costs about a tenth of what the links of a typical
// note cost, and two or three times what one linked item costs, as measured on a brain of
// 10,000 notes and 100,000 records.
const (
	candidatesPerNote  = 16
	candidatesMin      = 32
	linkedPerCandidate = 2
)

// backlinksSQL counts the links of one brain to the values of :exact, or to a #section of
// those of :sections, from the index on target alone.
const backlinksSQL = `SELECT
	(SELECT count(*) FROM json_each(:exact) j CROSS JOIN links l ON l.target = j.value)
	+ (SELECT count(*) FROM json_each(:sections) s CROSS JOIN links l
		ON l.target > s.value || '#' AND l.target < s.value || '$')`

// resolve settles the notes ids (of v's rows): by the items dated since their oldest edit
// when those are few enough for so many notes, else those edited within the review period
// likewise, and the others by their links.
func (v *reviewer) resolve(ctx context.Context, ids []int64) error {
	var pending []int64
	seen := map[int64]bool{}
	for _, id := range ids {
		if v.settled[id] || seen[id] {
			continue
		}
		seen[id] = true
		if after, ok := v.edits[id]; !ok || after > v.stamp {
			// Without a known edit there is nothing to be newer than; an edit in the
			// future leaves no instant both after it and not after now.
			v.finish(id, nil)
			continue
		}
		pending = append(pending, id)
	}
	if len(pending) == 0 {
		return nil
	}
	if v.only == byLinks {
		sort.Slice(pending, func(i, j int) bool { return pending[i] < pending[j] })
		return v.linkFirst(ctx, pending)
	}
	done, err := v.timeFirst(ctx, pending, candidatesMin+candidatesPerNote*len(pending))
	if err != nil || done {
		return err
	}
	// A note edited long ago (one whose stale_after is still ahead) widens the window the
	// most: without those, the others may still be settled at once.
	horizon := canonical(v.now.Add(-reviewDays * 24 * time.Hour))
	var recent, old []int64
	for _, id := range pending {
		if v.edits[id] >= horizon {
			recent = append(recent, id)
		} else {
			old = append(old, id)
		}
	}
	if len(recent) > 0 && len(old) > 0 {
		done, err := v.timeFirst(ctx, recent, candidatesMin+candidatesPerNote*len(recent))
		if err != nil {
			return err
		}
		if done {
			pending = old
		}
	}
	sort.Slice(pending, func(i, j int) bool { return pending[i] < pending[j] })
	return v.linkFirst(ctx, pending)
}

// conclude settles notes from their evidence, in any order: it keeps each note's total and
// its newest items, newest first, then by ref, then by brain.
func (v *reviewer) conclude(ids []int64, found map[int64][]evidence, totals map[int64]int) {
	for _, id := range ids {
		es := found[id]
		if len(es) == 0 {
			v.finish(id, nil)
			continue
		}
		sort.SliceStable(es, func(i, j int) bool {
			if es[i].at != es[j].at {
				return es[i].at > es[j].at
			}
			if es[i].ref != es[j].ref {
				return es[i].ref < es[j].ref
			}
			return es[i].brain < es[j].brain
		})
		n := &newer{total: totals[id]}
		for _, e := range es[:min(Newer, len(es))] {
			if v.sc.local {
				n.refs = append(n.refs, e.ref)
			} else {
				n.refs = append(n.refs, reply.Address(v.sc.brains[e.brain].name, e.ref))
			}
		}
		v.finish(id, n)
	}
}

// holdersSQL counts, for each value of :values that an item of the brain holds as a name
// or as its ref, the items holding it, and whether one holds it as its ref.
const holdersSQL = `SELECT j.value,
		(SELECT count(*) FROM (SELECT item FROM names WHERE name = j.value UNION SELECT id FROM items WHERE ref = j.value)),
		EXISTS (SELECT 1 FROM items WHERE ref = j.value)
	FROM json_each(:values) j
	WHERE EXISTS (SELECT 1 FROM names WHERE name = j.value) OR EXISTS (SELECT 1 FROM items WHERE ref = j.value)`

// count fills holders and homeRef for the values not yet counted.
func (v *reviewer) count(ctx context.Context, values map[string]bool) error {
	var ask []string
	for value := range values {
		if _, ok := v.holders[value]; !ok {
			ask = append(ask, value)
			v.holders[value] = 0
		}
	}
	if len(ask) == 0 {
		return nil
	}
	sort.Strings(ask)
	valuesJSON := jsontext.Array(ask)
	for i, b := range v.sc.brains {
		rows, err := b.q.QueryContext(ctx, holdersSQL, sql.Named("values", valuesJSON))
		if err != nil {
			return err
		}
		for rows.Next() {
			var value string
			var n int
			var isRef bool
			if err := rows.Scan(&value, &n, &isRef); err != nil {
				rows.Close()
				return err
			}
			v.holders[value] += n
			if i == v.self && isRef {
				v.homeRef[value] = true
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// linkedSQL finds, in one brain, for each reviewed note ([id, last edit] in :reviewed, ids
// of the reviewed brain), the items linking to it by one of its names or a #section of
// one ([id, name, takes sections] in :names), and the records it links to ([id, target,
// by name, by ref] in :outgoing): a record holding the target as a name, or as its ref.
// Each counts once, when its event time or a record's upstream updated falls between the
// edit and :now; the newest :limit are returned, with each note's total. In the reviewed
// brain itself (:self), a note's links to itself do not count. A note's local midnight is
// looked up item by item: joining the days table instead reads all of it for every
// linked item.
const linkedSQL = `WITH ` + cache.DaysCTE + `,
reviewed(note, after) AS MATERIALIZED (
	SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(:reviewed)),
named(note, name, sections) AS MATERIALIZED (
	SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(:names)),
outgoing(note, target, byname, byref) AS MATERIALIZED (
	SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),
		json_extract(value, '$[3]') FROM json_each(:outgoing)),
linked(note, item) AS (
	SELECT m.note, l.item FROM named m CROSS JOIN links l ON l.target = m.name
	UNION SELECT m.note, l.item FROM named m CROSS JOIN links l
		ON m.sections AND l.target > m.name || '#' AND l.target < m.name || '$'
	UNION SELECT o.note, i.id FROM outgoing o CROSS JOIN items i ON i.ref = o.target
		WHERE o.byref AND i.kind = 'record'
	UNION SELECT o.note, n.item FROM outgoing o CROSS JOIN names n ON n.name = o.target
		CROSS JOIN items i ON i.id = n.item WHERE o.byname AND i.kind = 'record'),
dated AS (
	SELECT k.note, i.ref, i.kind, i.updated, r.after,
		CASE WHEN i.kind = 'note' THEN coalesce((SELECT at FROM days WHERE day = substr(i.time, 1, 10)), '')
			ELSE i.time END AS event
	FROM linked k JOIN reviewed r ON r.note = k.note JOIN items i ON i.id = k.item
	WHERE NOT (:self AND i.id = k.note)),
found AS (
	SELECT note, ref, max(
		CASE WHEN event != '' AND event >= after AND event <= :now THEN event ELSE '' END,
		CASE WHEN kind = 'record' AND updated != '' AND updated >= after AND updated <= :now
			THEN updated ELSE '' END) AS at
	FROM dated)
SELECT note, ref, at, total FROM (
	SELECT note, ref, at, count(*) OVER (PARTITION BY note) AS total,
		row_number() OVER (PARTITION BY note ORDER BY at DESC, ref) AS n FROM found WHERE at != '')
WHERE n <= :limit ORDER BY note, n`

// linkFirst settles notes (ids in ascending order) by following their links in every
// brain.
func (v *reviewer) linkFirst(ctx context.Context, ids []int64) error {
	idJSON, _ := json.Marshal(ids)
	home := v.sc.brains[v.self].q
	// The notes' refs, their other names, and their link targets.
	own, err := pairs(ctx, home, `SELECT id, ref FROM items WHERE id IN (SELECT value FROM json_each(:ids)) ORDER BY id`,
		sql.Named("ids", string(idJSON)))
	if err != nil {
		return err
	}
	names, err := pairs(ctx, home, `SELECT item, name FROM names WHERE item IN (SELECT value FROM json_each(:ids))
		ORDER BY item, name`, sql.Named("ids", string(idJSON)))
	if err != nil {
		return err
	}
	targets, err := pairs(ctx, home, `SELECT item, target FROM links WHERE item IN (SELECT value FROM json_each(:ids))
		ORDER BY item, target`, sql.Named("ids", string(idJSON)))
	if err != nil {
		return err
	}
	if v.only == anyWay {
		// Notes linked far more than most (a hub with thousands of backlinks) are settled
		// faster by the items of their window, even a wide one, when those are fewer.
		var exact, sections []string
		for _, p := range append(append([]idValue{}, own...), names...) {
			exact = append(exact, p.value)
			if takesSections(p.value) {
				sections = append(sections, p.value)
			}
		}
		linked, err := count(ctx, home, backlinksSQL, sql.Named("exact", jsontext.Array(exact)), sql.Named("sections", jsontext.Array(sections)))
		if err != nil {
			return err
		}
		if limit := (linked + len(targets)) / linkedPerCandidate; limit > candidatesMin+candidatesPerNote*len(ids) {
			done, err := v.timeFirst(ctx, ids, limit)
			if err != nil || done {
				return err
			}
		}
	}
	// How many items of every brain hold each name and target, and which targets are refs
	// of the notes' own brain.
	values := map[string]bool{}
	for _, n := range names {
		values[n.value] = true
	}
	for _, t := range targets {
		values[t.value] = true
	}
	if err := v.count(ctx, values); err != nil {
		return err
	}
	reviewed := make([][2]any, 0, len(ids))
	for _, id := range ids {
		reviewed = append(reviewed, [2]any{id, v.edits[id]})
	}
	reviewedJSON, _ := json.Marshal(reviewed)
	// Only the days whose midnight falls in some note's window can date evidence: the
	// query looks each linked note's day up in them, and indexes them first.
	oldest := v.edits[ids[0]]
	for _, id := range ids {
		oldest = min(oldest, v.edits[id])
	}
	found := map[int64][]evidence{}
	totals := map[int64]int{}
	for i, b := range v.sc.brains {
		// A note's own name is held by the note itself: one holder more identifies none.
		named := [][3]any{}
		if i == v.self {
			for _, o := range own {
				named = append(named, [3]any{o.id, o.value, takesSections(o.value)})
			}
		}
		for _, n := range names {
			if v.holders[n.value] == 1 {
				named = append(named, [3]any{n.id, n.value, takesSections(n.value)})
			}
		}
		outgoing := [][4]any{}
		for _, t := range targets {
			byName := v.holders[t.value] == 1
			byRef := i == v.self || !v.homeRef[t.value] && !v.sc.missing
			if byName || byRef {
				outgoing = append(outgoing, [4]any{t.id, t.value, byName, byRef})
			}
		}
		if len(named) == 0 && len(outgoing) == 0 {
			continue
		}
		namesJSON, _ := json.Marshal(named)
		outgoingJSON, _ := json.Marshal(outgoing)
		days, err := v.windowDays(ctx, i, oldest)
		if err != nil {
			return err
		}
		daysJSON, _ := json.Marshal(days)
		rows, err := b.q.QueryContext(ctx, linkedSQL, sql.Named("days", string(daysJSON)), sql.Named("reviewed", string(reviewedJSON)),
			sql.Named("names", string(namesJSON)), sql.Named("outgoing", string(outgoingJSON)),
			sql.Named("self", i == v.self), sql.Named("now", v.stamp), sql.Named("limit", Newer))
		if err != nil {
			return err
		}
		seen := map[int64]bool{}
		for rows.Next() {
			var id int64
			var total int
			e := evidence{brain: i}
			if err := rows.Scan(&id, &e.ref, &e.at, &total); err != nil {
				rows.Close()
				return err
			}
			if !seen[id] {
				seen[id] = true
				totals[id] += total
			}
			found[id] = append(found[id], e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	v.conclude(ids, found, totals)
	return nil
}

// candidate is an item dated in a time window: its event time (a note's local midnight)
// and a record's upstream update, either possibly outside the window.
type candidate struct {
	id             int64
	ref, kind      string
	event, updated string
	// targets are its links; names, a record's names.
	targets, names []string
}

// candidatesSQL lists one brain's items whose event time or upstream update may fall in
// [:after, :now], at most :limit: records by time, records by updated (when their time is
// outside), through the indexes on (kind, time) and (kind, updated or time), and notes
// whose day is in [:lo, :hi). The parts are disjoint, so the list streams and stops at
// the limit.
const candidatesSQL = `SELECT id, ref, kind, time, updated, substr(time, 1, 10) FROM items
	WHERE kind = 'record' AND time >= :after AND time <= :now
UNION ALL SELECT id, ref, kind, time, updated, substr(time, 1, 10) FROM items
	WHERE kind = 'record' AND coalesce(nullif(updated, ''), time) >= :after
		AND coalesce(nullif(updated, ''), time) <= :now AND updated != ''
		AND NOT (time >= :after AND time <= :now)
UNION ALL SELECT id, ref, kind, time, updated, substr(time, 1, 10) FROM items
	WHERE kind = 'note' AND time >= :lo AND time < :hi
LIMIT :limit`

// estimateSQL bounds the count of candidatesSQL from the indexes alone, each part up to
// :limit: listing a candidate reads its row, which costs several times more, and a window
// holding too many is not listed.
const estimateSQL = `SELECT
	(SELECT count(*) FROM (SELECT 1 FROM items WHERE kind = 'record' AND time >= :after AND time <= :now LIMIT :limit))
	+ (SELECT count(*) FROM (SELECT 1 FROM items WHERE kind = 'record'
		AND coalesce(nullif(updated, ''), time) >= :after AND coalesce(nullif(updated, ''), time) <= :now LIMIT :limit))
	+ (SELECT count(*) FROM (SELECT 1 FROM items WHERE kind = 'note' AND time >= :lo AND time < :hi LIMIT :limit))`

// maxWalk is the longest window, in days, whose days are listed by walking the calendar
// rather than read from the cache.
const maxWalk = 1000

// windowDays are the note days of brain i whose local midnight is in [after, now], each
// with that midnight: the only days that can date newer evidence of a note edited at
// after. A short window walks the calendar, a long one reads the brain's note days.
func (v *reviewer) windowDays(ctx context.Context, i int, after string) (map[string]string, error) {
	out := map[string]string{}
	from, err := time.Parse(storedLayout, after)
	if err == nil && v.now.Sub(from) < maxWalk*24*time.Hour {
		// A local midnight is less than a day from the UTC midnight of its date.
		last := v.now.UTC().AddDate(0, 0, 2)
		for d := from.AddDate(0, 0, -2); !d.After(last); d = d.AddDate(0, 0, 1) {
			day := d.Format(dayLayout)
			if t, err := timestamp.ParseDay(day, v.loc); err == nil {
				if at := canonical(t); at >= after && at <= v.stamp {
					out[day] = at
				}
			}
		}
		return out, nil
	}
	if v.days[i] == nil {
		b := v.sc.brains[i]
		days := b.days
		if days == "" {
			if days, err = cache.NoteDays(ctx, b.q, v.loc); err != nil {
				return nil, err
			}
		}
		m := map[string]string{}
		if err := json.Unmarshal([]byte(days), &m); err != nil {
			return nil, err
		}
		v.days[i] = m
	}
	for day, at := range v.days[i] {
		if at >= after && at <= v.stamp {
			out[day] = at
		}
	}
	return out, nil
}

// candidates lists brain i's items whose event time or upstream update may fall in [after,
// now], or reports more than limit.
func (v *reviewer) candidates(ctx context.Context, i int, after string, limit int) ([]*candidate, bool, error) {
	days, err := v.windowDays(ctx, i, after)
	if err != nil {
		return nil, false, err
	}
	// Notes are dated by day: the days whose local midnight is in the window, as a range of
	// stored times.
	lo, hi := dayBounds(days, func(string) bool { return true })
	b := v.sc.brains[i]
	args := []any{sql.Named("after", after), sql.Named("now", v.stamp), sql.Named("lo", lo), sql.Named("hi", hi),
		sql.Named("limit", limit+1)}
	n, err := count(ctx, b.q, estimateSQL, args...)
	if err != nil || n > limit {
		return nil, n > limit, err
	}
	rows, err := b.q.QueryContext(ctx, candidatesSQL, args...)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var out []*candidate
	for rows.Next() {
		c := &candidate{}
		var t, day string
		if err := rows.Scan(&c.id, &c.ref, &c.kind, &t, &c.updated, &day); err != nil {
			return nil, false, err
		}
		c.event = t
		if c.kind == cache.KindNote {
			c.event = days[day]
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	return out, len(out) > limit, nil
}

// timeFirst settles, when the items dated since the oldest edit of want are few enough,
// every unsettled note edited since then, want included, by following those items' links
// and the links to them; it reports false, settling nothing, when they are too many.
func (v *reviewer) timeFirst(ctx context.Context, want []int64, limit int) (bool, error) {
	after := v.edits[want[0]]
	for _, id := range want {
		after = min(after, v.edits[id])
	}
	// Every note whose window lies inside [after, now] is settled by the same items.
	notes := map[int64]string{}
	for id, edit := range v.edits {
		if !v.settled[id] && edit >= after && edit <= v.stamp {
			notes[id] = edit
		}
	}
	if v.only == byTime {
		limit = 1 << 30
	}
	if v.crowded != "" && after <= v.crowded && limit <= v.crowdedLimit {
		// A window as wide held more items already.
		return false, nil
	}
	cands := make([][]*candidate, len(v.sc.brains))
	total := 0
	for i := range v.sc.brains {
		cs, over, err := v.candidates(ctx, i, after, limit-total)
		if err != nil {
			return false, err
		}
		if over {
			v.crowded, v.crowdedLimit = after, limit
			return false, nil
		}
		cands[i] = cs
		total += len(cs)
	}
	// Their links, and the names of the records, which a note may link them by.
	for i, b := range v.sc.brains {
		if len(cands[i]) == 0 {
			continue
		}
		byID := map[int64]*candidate{}
		var ids, records []int64
		for _, c := range cands[i] {
			byID[c.id] = c
			ids = append(ids, c.id)
			if c.kind == cache.KindRecord {
				records = append(records, c.id)
			}
		}
		// attach adds the values query pairs with the items ids to the list field picks of
		// their candidates.
		attach := func(query string, ids []int64, field func(*candidate) *[]string) error {
			idJSON, _ := json.Marshal(ids)
			found, err := pairs(ctx, b.q, query, sql.Named("ids", string(idJSON)))
			if err != nil {
				return err
			}
			for _, f := range found {
				list := field(byID[f.id])
				*list = append(*list, f.value)
			}
			return nil
		}
		if err := attach(`SELECT item, target FROM links WHERE item IN (SELECT value FROM json_each(:ids))`, ids,
			func(c *candidate) *[]string { return &c.targets }); err != nil {
			return false, err
		}
		if len(records) > 0 {
			if err := attach(`SELECT item, name FROM names WHERE item IN (SELECT value FROM json_each(:ids))`, records,
				func(c *candidate) *[]string { return &c.names }); err != nil {
				return false, err
			}
		}
	}
	// In the notes' brain: which notes a target names, by ref or by a name (a target with a
	// #section names what precedes that '#'), and which notes link to a record's ref or
	// names.
	targetKeys, recordKeys := map[string]bool{}, map[string]bool{}
	for _, cs := range cands {
		for _, c := range cs {
			for _, t := range c.targets {
				targetKeys[t] = true
				for k := 1; k+1 < len(t); k++ {
					if t[k] == '#' {
						targetKeys[t[:k]] = true
					}
				}
			}
			if c.kind == cache.KindRecord {
				recordKeys[c.ref] = true
			}
			for _, key := range c.names {
				recordKeys[key] = true
			}
		}
	}
	home := v.sc.brains[v.self].q
	byRef, byName := map[string]int64{}, map[string][]int64{}
	linkers := map[string][]int64{}
	nameValues := map[string]bool{}
	if len(targetKeys) > 0 {
		keysJSON := jsontext.Array(slices.Sorted(maps.Keys(targetKeys)))
		refs, err := pairs(ctx, home, `SELECT i.id, i.ref FROM json_each(:keys) j JOIN items i ON i.ref = j.value`,
			sql.Named("keys", keysJSON))
		if err != nil {
			return false, err
		}
		for _, r := range refs {
			if _, ok := notes[r.id]; ok {
				byRef[r.value] = r.id
			}
		}
		names, err := pairs(ctx, home, `SELECT n.item, n.name FROM json_each(:keys) j JOIN names n ON n.name = j.value`,
			sql.Named("keys", keysJSON))
		if err != nil {
			return false, err
		}
		for _, n := range names {
			if _, ok := notes[n.id]; ok {
				byName[n.value] = append(byName[n.value], n.id)
				nameValues[n.value] = true
			}
		}
	}
	if len(recordKeys) > 0 {
		links, err := pairs(ctx, home, `SELECT l.item, l.target FROM json_each(:keys) j JOIN links l ON l.target = j.value`,
			sql.Named("keys", jsontext.Array(slices.Sorted(maps.Keys(recordKeys)))))
		if err != nil {
			return false, err
		}
		for _, l := range links {
			if _, ok := notes[l.id]; ok {
				linkers[l.value] = append(linkers[l.value], l.id)
				nameValues[l.value] = true
			}
		}
	}
	if err := v.count(ctx, nameValues); err != nil {
		return false, err
	}
	found := map[int64][]evidence{}
	totals := map[int64]int{}
	for i, cs := range cands {
		self := i == v.self
		for _, c := range cs {
			linked := map[int64]bool{}
			// The notes c names, except itself in the notes' brain.
			named := func(key string, sections bool) {
				if sections && !takesSections(key) {
					return
				}
				if id, ok := byRef[key]; ok && self && id != c.id {
					linked[id] = true
				}
				if v.holders[key] == 1 {
					for _, id := range byName[key] {
						if !(self && id == c.id) {
							linked[id] = true
						}
					}
				}
			}
			for _, t := range c.targets {
				named(t, false)
				for k := 1; k+1 < len(t); k++ {
					if t[k] == '#' {
						named(t[:k], true)
					}
				}
			}
			// The notes linking to a record by its ref or by a name only it holds.
			if c.kind == cache.KindRecord {
				if self || !v.homeRef[c.ref] && !v.sc.missing {
					for _, id := range linkers[c.ref] {
						linked[id] = true
					}
				}
				for _, key := range c.names {
					if v.holders[key] == 1 {
						for _, id := range linkers[key] {
							linked[id] = true
						}
					}
				}
			}
			for id := range linked {
				at := v.dated(c, notes[id])
				if at == "" {
					continue
				}
				found[id] = append(found[id], evidence{brain: i, ref: c.ref, at: at})
				totals[id]++
			}
		}
	}
	ids := make([]int64, 0, len(notes))
	for id := range notes {
		ids = append(ids, id)
	}
	v.conclude(ids, found, totals)
	return true, nil
}

// dated is when an item is newer evidence of a note edited at after: the later of its
// event time and a record's upstream update among those in [after, now], or "".
func (v *reviewer) dated(c *candidate, after string) string {
	event, updated := "", ""
	if c.event != "" && c.event >= after && c.event <= v.stamp {
		event = c.event
	}
	if c.kind == cache.KindRecord && c.updated != "" && c.updated >= after && c.updated <= v.stamp {
		updated = c.updated
	}
	return max(event, updated)
}
