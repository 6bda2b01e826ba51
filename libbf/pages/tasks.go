package pages

import (
	"context"
	"sort"

	"github.com/bfgo/bf/libbf/reply"
)

// tasksReply is the tasks page: open checkboxes and counts over the whole selection.
type tasksReply struct {
	Items      []task          `json:"items"`
	NextOffset *int64          `json:"next_offset,omitempty"`
	Notice     string          `json:"notice"`
	Page       string          `json:"page"`
	Problems   []reply.Problem `json:"problems,omitempty"`
	Stale      []string        `json:"stale,omitempty"`
	Summary    taskSummary     `json:"summary"`
	// Total counts the open tasks.
	Total int `json:"total"`
}

// task is one open checkbox: its note and title, the section ref, line and text.
type task struct {
	Brain string `json:"brain,omitempty"`
	Line  int    `json:"line"`
	Note  string `json:"note"`
	Ref   string `json:"ref"`
	Text  string `json:"text"`
	Title string `json:"title,omitempty"`
	URI   string `json:"uri,omitempty"`
}

// taskSummary counts open and done checkboxes and the notes holding any.
type taskSummary struct {
	Done  int `json:"done"`
	Notes int `json:"notes"`
	Open  int `json:"open"`
}

// tasks lists the open checkboxes of entry notes that are not deprecated (the cache keeps
// only theirs), by note path, line and brain, 50 per page.
func tasks(ctx context.Context, req Request) (*tasksReply, error) {
	s, err := openSession(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.close()
	out := &tasksReply{Notice: reply.Notice, Page: "tasks"}
	var all []task
	for _, p := range s.parts {
		var open, done, notes int
		if err := p.tx.QueryRowContext(ctx, `SELECT coalesce(sum(done = 0), 0), coalesce(sum(done = 1), 0),
			count(DISTINCT item) FROM tasks`).Scan(&open, &done, &notes); err != nil {
			return nil, cacheError(err)
		}
		out.Summary.Open += open
		out.Summary.Done += done
		out.Summary.Notes += notes
		// Items are walked in ref order and each one's tasks in line order (their keys), so a
		// page reads its own tasks, not every open one sorted.
		rows, err := p.tx.QueryContext(ctx, `SELECT i.ref, i.title, t.line, t.fragment, t.text
			FROM items i CROSS JOIN tasks t ON t.item = i.id WHERE t.done = 0 ORDER BY i.ref, t.line LIMIT ?`,
			fetch(req.Offset, pageSize))
		if err != nil {
			return nil, cacheError(err)
		}
		for rows.Next() {
			var t task
			var fragment string
			if err := rows.Scan(&t.Note, &t.Title, &t.Line, &fragment, &t.Text); err != nil {
				rows.Close()
				return nil, cacheError(err)
			}
			t.Brain = p.name
			t.Title = reply.Title(t.Title)
			t.Ref = t.Note
			if fragment != "" {
				t.Ref += "#" + fragment
			}
			t.URI = reply.SectionAddress(p.name, t.Note, fragment)
			all = append(all, t)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, cacheError(err)
		}
	}
	out.Total = out.Summary.Open
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		switch {
		case a.Note != b.Note:
			return a.Note < b.Note
		case a.Line != b.Line:
			return a.Line < b.Line
		}
		return a.Brain < b.Brain
	})
	out.Items, out.NextOffset, err = fitEntries(s, window(all, req.Offset, pageSize), req.Offset, out.Total,
		func(t *task) { t.Brain, t.URI = "", "" })
	if err != nil {
		return nil, err
	}
	out.Problems = s.probs.List()
	out.Stale = s.stale
	return out, nil
}
