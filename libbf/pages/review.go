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
// its review signals. Modified is shown in local time; Newer holds brain-relative refs (a
// reply naming several brains prints them as bf:// addresses of the note's brain).
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

// Review returns the reminders of the note whose ref (a brain-relative note path) is in
// the cache db reads, at now, with days in loc; nil when the note gets none. Only entry
// notes (projects/ and concepts/ notes other than index.md and log.md, and
// actions/FOLDER/ACTION.md) that are not deprecated and are projects or set stale_after
// get reminders. db is a cache's DB() or, better, a read-only transaction on it. A ref the
// cache does not hold gives nil.
//
// The whole read of a note adds these fields beside its own; Modified there is the file's
// time as the read states it anyway.
func Review(ctx context.Context, db Querier, noteRef string, now time.Time, loc *time.Location) (*Signals, error) {
	if loc == nil {
		loc = time.Local
	}
	days, err := noteDays(ctx, db, loc)
	if err != nil {
		return nil, err
	}
	p := &part{days: days, lowJSON: "[]"}
	rows, err := queryOn(ctx, db, p, `''`, `i.ref = :ref`, `i.ref`, 1, sql.Named("ref", noteRef))
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	if err := review(ctx, db, days, rows, now, loc); err != nil {
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

// review sets the signals of the rows of one brain that get reminders. A note listed
// twice gets the same signals in each row.
func review(ctx context.Context, q Querier, days string, rows []*row, now time.Time, loc *time.Location) error {
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
	mtimes, err := fileTimes(ctx, q, paths)
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
	newer, err := newerLinks(ctx, q, days, edits, stamp)
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

// newer counts a note's newer linked items and names the newest.
type newer struct {
	total int
	refs  []string
}

// newerSQL finds, for each reviewed note ([id, last edit] in :reviewed, [id, name, takes
// sections] in :names), the items linking to it by a name or a section of one and the
// records it links to by ref or by a name only that record holds. Each counts once, when
// its event time or a record's upstream updated falls between the edit and :now; the
// newest :limit refs are returned with each note's total.
const newerSQL = `WITH ` + daysCTE + `,
reviewed(note, after) AS MATERIALIZED (
	SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(:reviewed)),
named(note, name, sections) AS MATERIALIZED (
	SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(:names)),
linked(note, item) AS (
	SELECT m.note, l.item FROM named m CROSS JOIN links l ON l.target = m.name
	UNION SELECT m.note, l.item FROM named m CROSS JOIN links l
		ON m.sections AND l.target > m.name || '#' AND l.target < m.name || '$'
	UNION SELECT r.note, i.id FROM reviewed r CROSS JOIN links l ON l.item = r.note
		CROSS JOIN items i ON i.ref = l.target WHERE i.kind = 'record'
	UNION SELECT r.note, n.item FROM reviewed r CROSS JOIN links l ON l.item = r.note
		CROSS JOIN names n ON n.name = l.target CROSS JOIN items i ON i.id = n.item
		WHERE i.kind = 'record' AND NOT ` + sharedName + `),
found AS (
	SELECT k.note, i.ref, max(
		CASE WHEN ` + eventExpr + ` != '' AND ` + eventExpr + ` >= r.after AND ` + eventExpr + ` <= :now
			THEN ` + eventExpr + ` ELSE '' END,
		CASE WHEN i.kind = 'record' AND i.updated != '' AND i.updated >= r.after AND i.updated <= :now
			THEN i.updated ELSE '' END) AS at
	FROM linked k JOIN reviewed r ON r.note = k.note JOIN items i ON i.id = k.item ` + daysJoin + `
	WHERE i.id != k.note)
SELECT note, ref, total FROM (
	SELECT note, ref, count(*) OVER (PARTITION BY note) AS total,
		row_number() OVER (PARTITION BY note ORDER BY at DESC, ref) AS n FROM found WHERE at != '')
WHERE n <= :limit ORDER BY note, n`

// sharedName is true when an item other than n.item also holds the name l.target, as a
// name or as its ref: such a name identifies none of them.
const sharedName = `(EXISTS (SELECT 1 FROM names o WHERE o.name = l.target AND o.item != n.item)
	OR EXISTS (SELECT 1 FROM items o WHERE o.ref = l.target AND o.id != n.item))`

// newerLinks returns, per note id of edits (id → last edit, canonical), its newer linked
// items. A name another item also holds links to none of them.
func newerLinks(ctx context.Context, q Querier, days string, edits map[int64]string, now string) (map[int64]newer, error) {
	if len(edits) == 0 {
		return nil, nil
	}
	ids := make([]int64, 0, len(edits))
	for id := range edits {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	idJSON, _ := json.Marshal(ids)
	rows, err := q.QueryContext(ctx, `SELECT item, name FROM (
			SELECT id AS item, ref AS name FROM items WHERE id IN (SELECT value FROM json_each(:ids))
			UNION ALL SELECT item, name FROM names WHERE item IN (SELECT value FROM json_each(:ids))) m
		WHERE NOT EXISTS (SELECT 1 FROM names o WHERE o.name = m.name AND o.item != m.item)
			AND NOT EXISTS (SELECT 1 FROM items o WHERE o.ref = m.name AND o.id != m.item)
		ORDER BY item, name`, sql.Named("ids", string(idJSON)))
	if err != nil {
		return nil, err
	}
	var names [][3]any
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, [3]any{id, name, takesSections(name)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	reviewed := make([][2]any, 0, len(ids))
	for _, id := range ids {
		reviewed = append(reviewed, [2]any{id, edits[id]})
	}
	namesJSON, _ := json.Marshal(names)
	reviewedJSON, _ := json.Marshal(reviewed)
	rows, err = q.QueryContext(ctx, newerSQL, sql.Named("days", days), sql.Named("reviewed", string(reviewedJSON)),
		sql.Named("names", string(namesJSON)), sql.Named("now", now), sql.Named("limit", Newer))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]newer{}
	for rows.Next() {
		var id int64
		var r string
		var total int
		if err := rows.Scan(&id, &r, &total); err != nil {
			return nil, err
		}
		n := out[id]
		n.total = total
		n.refs = append(n.refs, r)
		out[id] = n
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
