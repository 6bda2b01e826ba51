package pages

import (
	"context"
	"database/sql"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// Review signal constants.
const (
	// ReviewDays is how long after its file's last edit a project falls due.
	ReviewDays = 14
	// Newer is how many newer linked items a note names.
	Newer = 5
)

// Review reasons.
const (
	ReasonDue             = "due"
	ReasonNewerEvidence   = "newer_evidence"
	ReasonFutureModified  = "future_modified"
	ReasonUnknownModified = "unknown_modified"
)

// Review sources.
const (
	SourceStaleAfter = "stale_after"
	SourceModified   = "modified"
)

// Signals are the reminders of a note that gets them: its tasks and next open task, and
// its review signals. Modified is shown in local time. Newer names items as the reply
// prints them: brain-relative refs when it names one brain, else bf:// addresses, each in
// the linked item's own brain.
type Signals struct {
	Modified      string       `json:"modified,omitempty"`
	NewLinks      int          `json:"new_links,omitempty"`
	Newer         []string     `json:"newer,omitempty"`
	Next          string       `json:"next,omitempty"`
	Review        bool         `json:"review,omitempty"`
	ReviewDue     string       `json:"review_due,omitempty"`
	ReviewReasons []string     `json:"review_reasons,omitempty"`
	ReviewSource  string       `json:"review_source,omitempty"`
	Tasks         *reply.Tasks `json:"tasks,omitempty"`
}

// Snapshot is one selected brain's cache, as review signals read it.
type Snapshot struct {
	// Name is the brain's name.
	Name string
	// DB is its cache's DB() or, better, a read-only transaction on it.
	DB Querier
}

// Evidence is where review signals look for linked items: every selected brain that
// answered.
type Evidence struct {
	// Brains are the brains that answered, in selection order.
	Brains []Snapshot
	// Missing is true when a selected brain did not answer: a bare SOURCE:ID then names no
	// record of another brain, since the missing brain might hold its own.
	Missing bool
	// Local is true when the reply names one brain: Newer then holds brain-relative refs.
	Local bool
}

// Review returns the reminders of the note whose ref (a brain-relative note path) is in
// the brain called brainName, one of ev's brains, at now, with days in loc; nil when the
// note gets none. Only entry notes (projects/ and concepts/ notes other than index.md and
// log.md, and actions/FOLDER/ACTION.md) that are not deprecated and are projects or set
// stale_after get reminders. Newer evidence is sought in every brain of ev. A ref the
// brain's cache does not hold, or a brain ev lacks, gives nil.
//
// The whole read of a note adds these fields beside its own; Modified there is the file's
// time as the read states it anyway.
func Review(ctx context.Context, ev Evidence, brainName, noteRef string, now time.Time, loc *time.Location) (*Signals, error) {
	if loc == nil {
		loc = time.Local
	}
	sc := &scope{missing: ev.Missing, local: ev.Local}
	at := -1
	for i, b := range ev.Brains {
		days, err := noteDays(ctx, b.DB, loc)
		if err != nil {
			return nil, err
		}
		sc.brains = append(sc.brains, snapshot{name: b.Name, q: b.DB, days: days})
		if b.Name == brainName && at < 0 {
			at = i
		}
	}
	if at < 0 {
		return nil, nil
	}
	self := sc.brains[at]
	p := &part{name: self.name, days: self.days, lowJSON: "[]"}
	rows, err := queryOn(ctx, self.q, p, `''`, `i.ref = :ref`, `i.ref`, 1, sql.Named("ref", noteRef))
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	if err := review(ctx, sc, at, rows, now, loc); err != nil {
		return nil, err
	}
	sig := rows[0].signals
	if sig == nil {
		return nil, nil
	}
	out := *sig
	out.Modified = reply.Local(out.Modified, loc)
	return &out, nil
}

// snapshot is one brain's cache with its note days (as JSON for queries).
type snapshot struct {
	name string
	q    Querier
	days string
}

// scope is the brains review signals read, and how the reply names items.
type scope struct {
	brains  []snapshot
	missing bool
	local   bool
}

// scope is the session's brains, as review signals read them.
func (s *session) scope() *scope {
	sc := &scope{missing: s.missing, local: s.single}
	for _, p := range s.parts {
		sc.brains = append(sc.brains, snapshot{name: p.name, q: p.tx, days: p.days})
	}
	return sc
}

// index is the position of a session part among the scope's brains.
func (s *session) index(p *part) int {
	for i, q := range s.parts {
		if q == p {
			return i
		}
	}
	return -1
}

// apply adds the signals to a listed item; Modified stays canonical until Present.
func (s *Signals) apply(it *reply.Item) {
	it.Modified = s.Modified
	it.NewLinks = s.NewLinks
	it.Newer = s.Newer
	it.Review = s.Review
	it.ReviewDue = s.ReviewDue
	it.ReviewReasons = s.ReviewReasons
	it.ReviewSource = s.ReviewSource
}

// reminded reports whether a row gets reminders.
func reminded(r *row) bool {
	return r.kind == reply.KindNote && r.weight == 2 && r.status != "deprecated" &&
		(r.typ == "project" || r.staleAfter != "")
}

// review sets the signals of the rows that get reminders, all of the brain sc.brains[self];
// their newer evidence comes from every brain of sc. A note listed twice gets the same
// signals in each row.
func review(ctx context.Context, sc *scope, self int, rows []*row, now time.Time, loc *time.Location) error {
	subjects := map[int64][]*row{}
	var paths []string
	for _, r := range rows {
		if !reminded(r) {
			continue
		}
		if _, ok := subjects[r.id]; !ok {
			paths = append(paths, r.path)
		}
		subjects[r.id] = append(subjects[r.id], r)
	}
	if len(subjects) == 0 {
		return nil
	}
	mtimes, err := fileTimes(ctx, sc.brains[self].q, paths)
	if err != nil {
		return err
	}
	stamp := canonical(now)
	edits := map[int64]string{}
	signals := map[int64]*Signals{}
	for id, rs := range subjects {
		r := rs[0]
		sig := &Signals{Next: r.next}
		if r.open+r.done > 0 {
			sig.Tasks = &reply.Tasks{Open: r.open, Done: r.done}
		}
		var reasons []string
		var due time.Time
		mtime, known := modTime(mtimes, r.path)
		if known {
			sig.Modified = canonical(mtime)
			if sig.Modified > stamp {
				reasons = append(reasons, ReasonFutureModified)
			}
			due = mtime.Add(ReviewDays * 24 * time.Hour)
			edits[id] = sig.Modified
		} else {
			reasons = append(reasons, ReasonUnknownModified)
		}
		sig.ReviewSource = SourceModified
		if r.staleAfter != "" {
			sig.ReviewSource = SourceStaleAfter
			if t, err := time.Parse(storedLayout, r.staleAfter); err == nil {
				due = t
			} else {
				due = time.Time{}
			}
		}
		if !due.IsZero() {
			// A far-future deadline past the last local day keeps its UTC day.
			local := due.In(loc)
			if local.Year() > 9999 {
				local = due.UTC()
			}
			sig.ReviewDue = local.Format(dayLayout)
			if !due.After(now) {
				reasons = append(reasons, ReasonDue)
			}
		}
		sig.ReviewReasons = reasons
		signals[id] = sig
	}
	newer, err := newerLinks(ctx, sc, self, edits, stamp)
	if err != nil {
		return err
	}
	for id, sig := range signals {
		if n, ok := newer[id]; ok {
			sig.NewLinks, sig.Newer = n.total, n.refs
			sig.ReviewReasons = append(sig.ReviewReasons, ReasonNewerEvidence)
		}
		sig.Review = len(sig.ReviewReasons) > 0
		for _, r := range subjects[id] {
			r.signals = sig
		}
	}
	return nil
}

// fileTimes reads the modification times (ns) of files from the cache's fingerprints.
func fileTimes(ctx context.Context, q Querier, paths []string) (map[string]int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT path, mtime FROM files WHERE path IN (SELECT value FROM json_each(?))`, jsonList(paths))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var path string
		var mtime int64
		if err := rows.Scan(&path, &mtime); err != nil {
			return nil, err
		}
		out[path] = mtime
	}
	return out, rows.Err()
}

// modTime is a file's modification time, when known and representable in the stored form
// (years 1–9999).
func modTime(mtimes map[string]int64, path string) (time.Time, bool) {
	ns, ok := mtimes[path]
	if !ok || ns == -1 {
		return time.Time{}, false
	}
	t := time.Unix(0, ns).UTC()
	if y := t.Year(); y < 1 || y > 9999 {
		return time.Time{}, false
	}
	return t, true
}

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

// newerSQL finds, in one brain, for each reviewed note ([id, last edit] in :reviewed, ids
// of the reviewed brain), the items linking to it by one of its names or a #section of
// one ([id, name, takes sections] in :names), and the records it links to ([id, target,
// by name, by ref] in :outgoing): a record holding the target as a name, or as its ref.
// Each counts once, when its event time or a record's upstream updated falls between the
// edit and :now; the newest :limit are returned, with each note's total. In the reviewed
// brain itself (:self), a note's links to itself do not count.
const newerSQL = `WITH ` + daysCTE + `,
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
found AS (
	SELECT k.note, i.ref, max(
		CASE WHEN ` + eventExpr + ` != '' AND ` + eventExpr + ` >= r.after AND ` + eventExpr + ` <= :now
			THEN ` + eventExpr + ` ELSE '' END,
		CASE WHEN i.kind = 'record' AND i.updated != '' AND i.updated >= r.after AND i.updated <= :now
			THEN i.updated ELSE '' END) AS at
	FROM linked k JOIN reviewed r ON r.note = k.note JOIN items i ON i.id = k.item ` + daysJoin + `
	WHERE NOT (:self AND i.id = k.note))
SELECT note, ref, at, total FROM (
	SELECT note, ref, at, count(*) OVER (PARTITION BY note) AS total,
		row_number() OVER (PARTITION BY note ORDER BY at DESC, ref) AS n FROM found WHERE at != '')
WHERE n <= :limit ORDER BY note, n`

// holdersSQL counts, for each value of :values that an item of the brain holds as a name
// or as its ref, the items holding it, and whether one holds it as its ref.
const holdersSQL = `SELECT j.value,
		(SELECT count(*) FROM (SELECT item FROM names WHERE name = j.value UNION SELECT id FROM items WHERE ref = j.value)),
		EXISTS (SELECT 1 FROM items WHERE ref = j.value)
	FROM json_each(:values) j
	WHERE EXISTS (SELECT 1 FROM names WHERE name = j.value) OR EXISTS (SELECT 1 FROM items WHERE ref = j.value)`

// newerLinks returns, per note id of edits (id → last edit, canonical) in the brain
// sc.brains[self], its newer linked items from every brain of sc, as backlinks count them:
//   - items linking to the note by its ref (in its own brain only) or by one of its names
//     (in any brain), or by a #section of either;
//   - records the note links to, by their ref in its own brain, by a bare SOURCE:ID in
//     another brain when the note's brain holds no item of that ref and no selected brain
//     is missing, or by a name only that record holds.
//
// A name held by several items, as a name or as a ref, in any of the brains, links to none
// of them.
func newerLinks(ctx context.Context, sc *scope, self int, edits map[int64]string, now string) (map[int64]newer, error) {
	if len(edits) == 0 {
		return nil, nil
	}
	ids := make([]int64, 0, len(edits))
	for id := range edits {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	idJSON, _ := json.Marshal(ids)
	home := sc.brains[self].q
	// The notes' refs, their other names, and their link targets.
	own, err := pairs(ctx, home, `SELECT id, ref FROM items WHERE id IN (SELECT value FROM json_each(:ids)) ORDER BY id`,
		sql.Named("ids", string(idJSON)))
	if err != nil {
		return nil, err
	}
	names, err := pairs(ctx, home, `SELECT item, name FROM names WHERE item IN (SELECT value FROM json_each(:ids))
		ORDER BY item, name`, sql.Named("ids", string(idJSON)))
	if err != nil {
		return nil, err
	}
	targets, err := pairs(ctx, home, `SELECT item, target FROM links WHERE item IN (SELECT value FROM json_each(:ids))
		ORDER BY item, target`, sql.Named("ids", string(idJSON)))
	if err != nil {
		return nil, err
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
	holders := map[string]int{}
	homeRef := map[string]bool{}
	if len(values) > 0 {
		valuesJSON := jsonList(sortedKeys(values))
		for i, b := range sc.brains {
			rows, err := b.q.QueryContext(ctx, holdersSQL, sql.Named("values", valuesJSON))
			if err != nil {
				return nil, err
			}
			for rows.Next() {
				var v string
				var n int
				var isRef bool
				if err := rows.Scan(&v, &n, &isRef); err != nil {
					rows.Close()
					return nil, err
				}
				holders[v] += n
				if i == self && isRef {
					homeRef[v] = true
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return nil, err
			}
		}
	}
	reviewed := make([][2]any, 0, len(ids))
	for _, id := range ids {
		reviewed = append(reviewed, [2]any{id, edits[id]})
	}
	reviewedJSON, _ := json.Marshal(reviewed)
	found := map[int64][]evidence{}
	totals := map[int64]int{}
	for i, b := range sc.brains {
		// A note's own name is held by the note itself: one holder more identifies none.
		named := [][3]any{}
		if i == self {
			for _, o := range own {
				named = append(named, [3]any{o.id, o.value, takesSections(o.value)})
			}
		}
		for _, n := range names {
			if holders[n.value] == 1 {
				named = append(named, [3]any{n.id, n.value, takesSections(n.value)})
			}
		}
		outgoing := [][4]any{}
		for _, t := range targets {
			byName := holders[t.value] == 1
			byRef := i == self || !homeRef[t.value] && !sc.missing
			if byName || byRef {
				outgoing = append(outgoing, [4]any{t.id, t.value, byName, byRef})
			}
		}
		if len(named) == 0 && len(outgoing) == 0 {
			continue
		}
		namesJSON, _ := json.Marshal(named)
		outgoingJSON, _ := json.Marshal(outgoing)
		rows, err := b.q.QueryContext(ctx, newerSQL, sql.Named("days", b.days), sql.Named("reviewed", string(reviewedJSON)),
			sql.Named("names", string(namesJSON)), sql.Named("outgoing", string(outgoingJSON)),
			sql.Named("self", i == self), sql.Named("now", now), sql.Named("limit", Newer))
		if err != nil {
			return nil, err
		}
		seen := map[int64]bool{}
		for rows.Next() {
			var id int64
			var total int
			e := evidence{brain: i}
			if err := rows.Scan(&id, &e.ref, &e.at, &total); err != nil {
				rows.Close()
				return nil, err
			}
			if !seen[id] {
				seen[id] = true
				totals[id] += total
			}
			found[id] = append(found[id], e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	out := map[int64]newer{}
	for id, es := range found {
		sort.SliceStable(es, func(i, j int) bool {
			if es[i].at != es[j].at {
				return es[i].at > es[j].at
			}
			if es[i].ref != es[j].ref {
				return es[i].ref < es[j].ref
			}
			return es[i].brain < es[j].brain
		})
		n := newer{total: totals[id]}
		for _, e := range es[:min(Newer, len(es))] {
			if sc.local {
				n.refs = append(n.refs, e.ref)
			} else {
				n.refs = append(n.refs, reply.Address(sc.brains[e.brain].name, e.ref))
			}
		}
		out[id] = n
	}
	return out, nil
}

// idValue is one text value of an item.
type idValue struct {
	id    int64
	value string
}

// pairs runs a query of an item id and a text value.
func pairs(ctx context.Context, q Querier, query string, args ...any) ([]idValue, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []idValue
	for rows.Next() {
		var p idValue
		if err := rows.Scan(&p.id, &p.value); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// takesSections reports a name whose #section links also link to it: a bf:// address
// without a fragment, or a note path. A bare SOURCE:ID may hold '#' in its id.
func takesSections(name string) bool {
	if ref.IsAddress(name) {
		a, err := ref.ParseAddress(name)
		return err == nil && !a.HasFragment
	}
	return ref.UnderAuthored(name) && strings.HasSuffix(name, ".md")
}
