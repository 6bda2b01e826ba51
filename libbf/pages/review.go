package pages

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/jsontext"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
)

// Review signal constants.
const (
	// reviewDays is how long after its file's last edit a project falls due.
	reviewDays = 14
	// Newer is how many newer linked items a note names.
	Newer = 5
)

// Review reasons.
const (
	reasonDue             = "due"
	reasonNewerEvidence   = "newer_evidence"
	reasonFutureModified  = "future_modified"
	reasonUnknownModified = "unknown_modified"
)

// Review sources.
const (
	sourceStaleAfter = "stale_after"
	sourceModified   = "modified"
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
		// Note days are found when newer evidence needs them, and only those it needs.
		sc.brains = append(sc.brains, snapshot{name: b.Name, q: b.DB})
		if b.Name == brainName && at < 0 {
			at = i
		}
	}
	if at < 0 {
		return nil, nil
	}
	self := sc.brains[at]
	// The row's sort key is constant: it needs no days.
	p := &part{name: self.name, days: "{}", lowJSON: "[]"}
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

// snapshot is one brain's cache with its note days (as JSON for queries), when already
// read.
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

// review sets every signal of the rows that get reminders, all of the brain sc.brains[self];
// their newer evidence comes from every brain of sc. A note listed twice gets the same
// signals in each row.
func review(ctx context.Context, sc *scope, self int, rows []*row, now time.Time, loc *time.Location) error {
	v, err := startReview(ctx, sc, self, rows, now, loc)
	if err != nil {
		return err
	}
	return v.settle(ctx, rows)
}

// reviewer holds the review signals of one brain's rows while their newer evidence is
// sought on demand. Newer evidence is the costly part: a page that shows only some rows, or
// needs only whether the others need review, asks for it note by note as it needs it, and
// each note is answered once.
type reviewer struct {
	sc    *scope
	self  int
	now   time.Time
	loc   *time.Location
	stamp string // now, canonical
	// rows are the rows of each note that gets reminders; signals are its signals, whose
	// newer evidence is set once the note is settled.
	rows    map[int64][]*row
	signals map[int64]*Signals
	// edits are the notes' last edits, canonical, when known.
	edits   map[int64]string
	settled map[int64]bool
	// holders counts, for each value asked about, the items of every brain holding it as a
	// name or as their ref; homeRef holds those some item of the reviewed brain has as its
	// ref.
	holders map[string]int
	homeRef map[string]bool
	// days are each brain's note days and their local midnights, read when a window too
	// long to walk day by day first needs them.
	days []map[string]string
	// crowded is the oldest edit since which more than crowdedLimit items were dated, if
	// any: a window at least as wide is not listed again.
	crowded      string
	crowdedLimit int
	// only forces one way of finding newer evidence, for tests that compare them.
	only strategy
}

// strategy is a way of finding newer evidence: both are exact, and resolve picks the cheaper.
type strategy int

const (
	anyWay strategy = iota
	byLinks
	byTime
)

// startReview sets the signals of the rows that get reminders, all of the brain
// sc.brains[self], but for their newer evidence, which settle adds. Until then a note's
// Review holds its other reasons only.
func startReview(ctx context.Context, sc *scope, self int, rows []*row, now time.Time, loc *time.Location) (*reviewer, error) {
	// The maps are sized for every row at once: home reviews every project of a brain,
	// thousands on a large one, and growing them step by step cost more than filling them.
	v := &reviewer{sc: sc, self: self, now: now, loc: loc, stamp: canonical(now), rows: make(map[int64][]*row, len(rows)),
		signals: make(map[int64]*Signals, len(rows)), edits: make(map[int64]string, len(rows)), settled: map[int64]bool{},
		holders: map[string]int{}, homeRef: map[string]bool{}, days: make([]map[string]string, len(sc.brains))}
	var paths []string
	for _, r := range rows {
		if !reminded(r) {
			continue
		}
		if _, ok := v.rows[r.id]; !ok {
			paths = append(paths, r.path)
		}
		v.rows[r.id] = append(v.rows[r.id], r)
	}
	if len(v.rows) == 0 {
		return v, nil
	}
	mtimes, err := fileTimes(ctx, sc.brains[self].q, paths)
	if err != nil {
		return nil, err
	}
	for id, rs := range v.rows {
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
			if sig.Modified > v.stamp {
				reasons = append(reasons, reasonFutureModified)
			}
			due = mtime.Add(reviewDays * 24 * time.Hour)
			v.edits[id] = sig.Modified
		} else {
			reasons = append(reasons, reasonUnknownModified)
		}
		sig.ReviewSource = sourceModified
		if r.staleAfter != "" {
			sig.ReviewSource = sourceStaleAfter
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
				reasons = append(reasons, reasonDue)
			}
		}
		sig.ReviewReasons = reasons
		sig.Review = len(reasons) > 0
		v.signals[id] = sig
		for _, r := range rs {
			r.signals = sig
		}
	}
	return v, nil
}

// settle adds the newer evidence of the notes of rows that get reminders.
func (v *reviewer) settle(ctx context.Context, rows []*row) error {
	var ids []int64
	for _, r := range rows {
		if _, ok := v.signals[r.id]; ok && !v.settled[r.id] {
			ids = append(ids, r.id)
		}
	}
	return v.resolve(ctx, ids)
}

// decide settles the notes of rows whose Review their other reasons leave open: after it,
// every row's Review is final, though a note already due may still lack its newer items.
func (v *reviewer) decide(ctx context.Context, rows []*row) error {
	var ids []int64
	for _, r := range rows {
		if sig, ok := v.signals[r.id]; ok && !sig.Review && !v.settled[r.id] {
			ids = append(ids, r.id)
		}
	}
	return v.resolve(ctx, ids)
}

// finish records a settled note's newer evidence, if any.
func (v *reviewer) finish(id int64, n *newer) {
	v.settled[id] = true
	if n == nil {
		return
	}
	sig := v.signals[id]
	sig.NewLinks, sig.Newer = n.total, n.refs
	sig.ReviewReasons = append(sig.ReviewReasons, reasonNewerEvidence)
	sig.Review = true
}

// fileTimes reads the modification times (ns) of files from the cache's fingerprints. Many
// paths are read by one walk along the table's key from the first to the last, which on
// the large bench brain costs a twentieth of a look-up per path (the home page reviews
// every project): at most walkPerPath rows a path, the paths past the walk looked up.
func fileTimes(ctx context.Context, q Querier, paths []string) (map[string]int64, error) {
	out := make(map[string]int64, len(paths))
	sorted := slices.Compact(slices.Sorted(slices.Values(paths)))
	rest := sorted
	if len(sorted) >= walkFrom {
		limit := walkPerPath * len(sorted)
		wanted := make(map[string]bool, len(sorted))
		for _, p := range sorted {
			wanted[p] = true
		}
		rows, err := q.QueryContext(ctx, filesWalkSQL, sorted[0], sorted[len(sorted)-1], limit)
		if err != nil {
			return nil, err
		}
		seen, last := 0, ""
		err = scanFileTimes(rows, func(path string, mtime int64) {
			seen, last = seen+1, path
			if wanted[path] {
				out[path] = mtime
			}
		})
		if err != nil {
			return nil, err
		}
		rest = nil
		if seen == limit {
			// The walk stopped at last: the paths past it are looked up.
			i, _ := slices.BinarySearch(sorted, last)
			for _, p := range sorted[i:] {
				if _, found := out[p]; !found && p > last {
					rest = append(rest, p)
				}
			}
		}
	}
	if len(rest) == 0 {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, filesLookupSQL, jsontext.Array(rest))
	if err != nil {
		return nil, err
	}
	return out, scanFileTimes(rows, func(path string, mtime int64) { out[path] = mtime })
}

// Reading file times: a walk along the key of the files table between two paths, or a
// look-up per path.
const (
	filesWalkSQL   = `SELECT path, mtime FROM files WHERE path >= ?1 AND path <= ?2 ORDER BY path LIMIT ?3`
	filesLookupSQL = `SELECT path, mtime FROM files WHERE path IN (SELECT value FROM json_each(?))`
)

// walkFrom is the fewest paths read by a walk; walkPerPath bounds the rows it reads for
// each. Tests lower them.
var walkFrom, walkPerPath = 64, 4

// scanFileTimes hands each row of a query of paths and times to each.
func scanFileTimes(rows *sql.Rows, each func(path string, mtime int64)) error {
	defer rows.Close()
	for rows.Next() {
		var path string
		var mtime int64
		if err := rows.Scan(&path, &mtime); err != nil {
			return err
		}
		each(path, mtime)
	}
	return rows.Err()
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
