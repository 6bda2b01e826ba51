package pages

import (
	"context"
	"database/sql"
	"sort"
	"time"

	"github.com/bfgo/bf/libbf/history"
	"github.com/bfgo/bf/libbf/reply"
)

// Home is the home page: what needs attention now.
type Home struct {
	// Actions are the 10 latest actions that are not deprecated.
	Actions []reply.Item `json:"actions"`
	// Activity counts the records of each source in the last 24 hours.
	Activity []Activity `json:"activity"`
	// Attention lists the scheduled programs that failed, are overdue or never succeeded.
	Attention []Attention `json:"attention"`
	// Changed are other notes dated in the last 7 days, briefly.
	Changed  []reply.Item    `json:"changed"`
	Notice   string          `json:"notice"`
	Page     string          `json:"page"`
	Pages    []string        `json:"pages"`
	Problems []reply.Problem `json:"problems,omitempty"`
	Projects []reply.Item    `json:"projects"`
	// ProjectsTotal counts every project that is not deprecated.
	ProjectsTotal int      `json:"projects_total"`
	Stale         []string `json:"stale,omitempty"`
	// Upcoming are the items of the next 7 days, oldest first.
	Upcoming []reply.Item `json:"upcoming"`
}

// Activity is one source's record count in a window, with the page listing them.
type Activity struct {
	Brain    string `json:"brain,omitempty"`
	Page     string `json:"page"`
	Priority string `json:"priority,omitempty"`
	Records  int    `json:"records"`
	Source   string `json:"source"`
}

// Attention is one program needing attention.
type Attention struct {
	Assistant string `json:"assistant,omitempty"`
	Brain     string `json:"brain,omitempty"`
	Failed    bool   `json:"failed,omitempty"`
	Freshness string `json:"freshness"`
	Routine   string `json:"routine,omitempty"`
	Sensor    string `json:"sensor,omitempty"`
	Silent    bool   `json:"silent,omitempty"`
}

// Home windows.
const (
	homeRecent   = 7 * 24 * time.Hour
	homeActivity = 24 * time.Hour
	homeAhead    = 7 * 24 * time.Hour
)

func home(ctx context.Context, req Request) (*Home, error) {
	s, err := openSession(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.close()
	now := s.now
	stamp := canonical(now)
	week := canonical(now.Add(-homeRecent))
	ahead := canonical(now.Add(homeAhead))
	day := canonical(now.Add(-homeActivity))

	var projects, actions, changed, upcoming []*row
	out := &Home{Notice: reply.Notice, Pages: browse, Activity: []Activity{}, Attention: []Attention{}}
	sc := s.scope()
	reviewers := map[*part]*reviewer{}
	for i, p := range s.parts {
		pr, err := homeProjects(ctx, p)
		if err != nil {
			return nil, cacheError(err)
		}
		ac, err := queryRows(ctx, p, eventExpr, actionNote+` AND i.status != 'deprecated'`, `i.path DESC`, homeActions)
		if err != nil {
			return nil, cacheError(err)
		}
		// Projects list themselves in projects, so changed holds the other notes.
		ch, err := queryRows(ctx, p, eventExpr,
			`i.kind = 'note' AND i.status != 'deprecated' AND NOT (`+entry+` AND i.type = 'project') AND `+
				eventExpr+` != '' AND `+eventExpr+` >= :since AND `+
				eventExpr+` < :until AND `+noteTimes, `k DESC, i.ref DESC`, sectionSize,
			append(p.noteBounds(week, stamp), sql.Named("since", week), sql.Named("until", stamp))...)
		if err != nil {
			return nil, cacheError(err)
		}
		up, err := queryRows(ctx, p, eventExpr,
			`i.status != 'deprecated' AND `+loud+` AND `+eventExpr+` != '' AND `+eventExpr+` >= :since AND `+
				eventExpr+` < :until AND `+eventTimes, `k, i.ref`, sectionSize,
			append(p.noteBounds(stamp, ahead), sql.Named("since", stamp), sql.Named("until", ahead))...)
		if err != nil {
			return nil, cacheError(err)
		}
		// Projects are ordered by whether they need review, and changed shows only that;
		// the newer evidence of the projects is sought only for those the page shows.
		all := append(append(append(append([]*row{}, pr...), ac...), ch...), up...)
		rv, err := startReview(ctx, sc, i, all, now, s.loc)
		if err != nil {
			return nil, cacheError(err)
		}
		if err := rv.settle(ctx, append(append([]*row{}, ac...), up...)); err != nil {
			return nil, cacheError(err)
		}
		if err := rv.decide(ctx, append(append([]*row{}, pr...), ch...)); err != nil {
			return nil, cacheError(err)
		}
		reviewers[p] = rv
		act, err := activity(ctx, p, day, stamp, "24h")
		if err != nil {
			return nil, cacheError(err)
		}
		out.Activity = append(out.Activity, act...)
		out.Attention = append(out.Attention, attention(p, now)...)
		projects = append(projects, pr...)
		actions = append(actions, ac...)
		changed = append(changed, ch...)
		upcoming = append(upcoming, up...)
	}

	newestFirst(projects)
	sort.SliceStable(projects, func(i, j int) bool {
		return projects[i].signals != nil && projects[i].signals.Review &&
			!(projects[j].signals != nil && projects[j].signals.Review)
	})
	sort.SliceStable(actions, func(i, j int) bool { return actions[i].ref > actions[j].ref })
	newestFirst(changed)
	sort.SliceStable(upcoming, func(i, j int) bool {
		if upcoming[i].key != upcoming[j].key {
			return upcoming[i].key < upcoming[j].key
		}
		return upcoming[i].ref < upcoming[j].ref
	})

	out.ProjectsTotal = len(projects)
	out.Projects = []reply.Item{}
	out.Actions = []reply.Item{}
	for _, r := range window(actions, 0, homeActions) {
		out.Actions = append(out.Actions, s.item(r, true))
	}
	out.Changed = []reply.Item{}
	for _, r := range window(changed, 0, sectionSize) {
		out.Changed = append(out.Changed, brief(s.item(r, false)))
	}
	out.Upcoming = []reply.Item{}
	for _, r := range window(upcoming, 0, sectionSize) {
		out.Upcoming = append(out.Upcoming, s.item(r, false))
	}
	out.Stale = s.stale
	out.Problems = s.probs.List()

	// Projects needing review first, each group newest first, in what the rest of the page
	// leaves of the budget, measured as several brains print it.
	rest, err := size(s.addressedHome(out))
	if err != nil {
		return nil, err
	}
	if out.Projects, err = s.fitProjects(ctx, reviewers, projects, reply.Budget-rest); err != nil {
		return nil, err
	}
	out.Projects = emptyItems(out.Projects)

	s.shapeItems(out.Projects)
	s.shapeItems(out.Actions)
	s.shapeItems(out.Changed)
	s.shapeItems(out.Upcoming)
	if s.single {
		for i := range out.Activity {
			out.Activity[i].Brain = ""
		}
		for i := range out.Attention {
			out.Attention[i].Brain = ""
		}
	}
	return out, nil
}

// fitProjects returns the items of the first projects that fit budget bytes. Newer
// evidence only adds to an item, so the projects that fit without it bound those that fit
// with it: only those, and the one after, are settled and measured again.
func (s *session) fitProjects(ctx context.Context, reviewers map[*part]*reviewer, projects []*row, budget int) ([]reply.Item, error) {
	var items []reply.Item
	bound := 0
	for {
		end := min(len(projects), max(2*len(items), 64))
		if err := s.eachPart(projects[len(items):end], func(p *part, rows []*row) error { return fill(ctx, p, rows) }); err != nil {
			return nil, err
		}
		for _, r := range projects[len(items):end] {
			items = append(items, s.item(r, true))
		}
		fitted, err := s.fit(items, budget)
		if err != nil {
			return nil, err
		}
		if bound = len(fitted); bound < len(items) || end == len(projects) {
			break
		}
	}
	shown := projects[:min(len(projects), bound+1)]
	if err := s.eachPart(shown, func(p *part, rows []*row) error { return reviewers[p].settle(ctx, rows) }); err != nil {
		return nil, err
	}
	items = items[:len(shown)]
	for i, r := range shown {
		items[i] = s.item(r, true)
	}
	return s.fit(items, budget)
}

// eachPart calls f with the rows of each part, in the session's order of parts.
func (s *session) eachPart(rows []*row, f func(p *part, rows []*row) error) error {
	for _, p := range s.parts {
		var mine []*row
		for _, r := range rows {
			if r.part == p {
				mine = append(mine, r)
			}
		}
		if len(mine) > 0 {
			if err := f(p, mine); err != nil {
				return cacheError(err)
			}
		}
	}
	return nil
}

// addressedHome is a copy of home as several brains print it.
func (s *session) addressedHome(h *Home) *Home {
	c := *h
	c.Actions = s.addressedCopy(h.Actions)
	c.Changed = s.addressedCopy(h.Changed)
	c.Upcoming = s.addressedCopy(h.Upcoming)
	c.Projects = s.addressedCopy(h.Projects)
	return &c
}

// addressedCopy is a copy of items as several brains print them.
func (s *session) addressedCopy(items []reply.Item) []reply.Item {
	out := make([]reply.Item, len(items))
	for i, it := range items {
		out[i] = s.addressed(it)
	}
	return out
}

// newestFirst sorts rows by key then ref, both descending, keeping brain order on ties.
func newestFirst(rows []*row) {
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].key != rows[j].key {
			return rows[i].key > rows[j].key
		}
		return rows[i].ref > rows[j].ref
	})
}

// activity counts the records of each source placed in [since, until), busiest first,
// each with its page memories/SOURCE/PERIOD; low-priority sources say so.
func activity(ctx context.Context, p *part, since, until, period string) ([]Activity, error) {
	// A record is placed by its time, or by its observation when it has none: counted apart,
	// dated and undated records each read only their own range of the index on (kind, time).
	const placed = `coalesce(nullif(i.time, ''), i.observed) >= :since AND coalesce(nullif(i.time, ''), i.observed) < :until
		AND coalesce(nullif(i.time, ''), i.observed) != ''`
	rows, err := p.tx.QueryContext(ctx, `SELECT source, count(*) AS n FROM (
			SELECT i.source FROM items i WHERE i.kind = 'record' AND i.time != '' AND i.time >= :since
				AND i.time < :until AND `+placed+`
			UNION ALL SELECT i.source FROM items i WHERE i.kind = 'record' AND i.time = '' AND `+placed+`)
		GROUP BY source ORDER BY n DESC, source`, sql.Named("since", since), sql.Named("until", until))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Activity{}
	for rows.Next() {
		a := Activity{Brain: p.name}
		if err := rows.Scan(&a.Source, &a.Records); err != nil {
			return nil, err
		}
		a.Page = "memories/" + a.Source + "/" + period
		if p.low[a.Source] {
			a.Priority = "low"
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// attention lists the brain's scheduled programs needing attention at now, from this
// machine's run history: those that failed, are overdue, never succeeded here or went
// silent. Home shows this for every brain it reads, trusted to collect here or not: a
// program that may not run here indeed never succeeded here (bf status, which judges the
// machine's health, counts only trusted brains).
func attention(p *part, now time.Time) []Attention {
	out := []Attention{}
	for _, n := range history.Attention(p.brain.Config, historyOf(p), now) {
		a := Attention{Brain: p.name, Failed: n.Failed, Freshness: n.Freshness, Silent: n.Silent}
		switch n.Kind {
		case history.KindSensor:
			a.Sensor = n.Name
		case history.KindRoutine:
			a.Routine = n.Name
		default:
			a.Assistant = n.Name
		}
		out = append(out, a)
	}
	return out
}
