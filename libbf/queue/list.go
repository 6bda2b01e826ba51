package queue

import (
	"database/sql"
	"encoding/json"
	"fmt"
)

// itemColumns selects an Item from jobs and deliveries alike, oldest first. attempts is
// every attempt made, as the history numbers them, not the current round's count that
// the retry policy keeps (an explicit retry starts that over); the round's count is the
// fallback once retention dropped the history.
const itemColumns = `SELECT id, 'delivery', state, '', '', '', job, channel, conversation,
		max(attempts, coalesce((SELECT max(n) FROM attempts a WHERE a.work = deliveries.id), 0)), attempts, next_attempt, error, created, updated, finished
	FROM deliveries %[1]s
	UNION ALL
	SELECT id, 'job', state, assistant, kind, schedule, '', channel, conversation,
		max(attempts, coalesce((SELECT max(n) FROM attempts a WHERE a.work = jobs.id), 0)), attempts, 0, error, created, updated, finished
	FROM jobs %[1]s
	ORDER BY 14, 1`

type rowScanner interface{ Scan(dest ...any) error }

func scanItem(r rowScanner) (Item, error) {
	var it Item
	var round int
	var next, created, updated int64
	var finished sql.NullInt64
	err := r.Scan(&it.ID, &it.Type, &it.State, &it.Assistant, &it.Kind, &it.Schedule, &it.Job, &it.Channel, &it.Conversation,
		&it.Attempts, &round, &next, &it.Error, &created, &updated, &finished)
	if err != nil {
		return it, err
	}
	it.Created, it.Updated = fromMS(created), fromMS(updated)
	if finished.Valid {
		it.Finished = fromMS(finished.Int64)
	}
	// A pending delivery waits for its next attempt only after a failed one of this round.
	if it.Type == "delivery" && it.State == Pending && round > 0 {
		it.NextAttempt = fromMS(next)
	}
	return it, nil
}

func queryItems(tx *sql.Tx, where string, args ...any) ([]Item, error) {
	rows, err := tx.QueryContext(ctx, fmt.Sprintf(itemColumns, where), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	items := []Item{}
	for rows.Next() {
		it, err := scanItem(rows)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	return items, rows.Err()
}

func loadItem(tx *sql.Tx, id string) (Item, error) {
	items, err := queryItems(tx, "WHERE id = ?1", id)
	if err != nil {
		return Item{}, err
	}
	if len(items) == 0 {
		return Item{}, notFound(id)
	}
	return items[0], nil
}

// List returns every job and delivery the queue holds, oldest first: identities, states
// and errors, never bodies.
func (q *Queue) List() ([]Item, error) {
	var items []Item
	err := q.read(func(tx *sql.Tx) error {
		var err error
		items, err = queryItems(tx, "")
		return err
	})
	return items, err
}

// Get opens one job or delivery explicitly, private bodies and attempt history included.
func (q *Queue) Get(id string) (Detail, error) {
	var d Detail
	err := q.read(func(tx *sql.Tx) error {
		var err error
		d, err = loadDetail(tx, id)
		return err
	})
	return d, err
}

func loadDetail(tx *sql.Tx, id string) (Detail, error) {
	it, err := loadItem(tx, id)
	if err != nil {
		return Detail{}, err
	}
	d := Detail{Item: it}
	if it.Type == "delivery" {
		var body []byte
		var send string
		var receipt Receipt
		err = tx.QueryRowContext(ctx, "SELECT body, reply_to, send, receipt_id, receipt_conversation FROM deliveries WHERE id = ?", id).
			Scan(&body, &d.ReplyTo, &send, &receipt.ID, &receipt.Conversation)
		if err != nil {
			return Detail{}, err
		}
		if body != nil {
			text := string(body)
			d.Text = &text
		} else {
			d.BodyExpired = true
		}
		d.Send = &Send{}
		if err := json.Unmarshal([]byte(send), d.Send); err != nil {
			return Detail{}, fmt.Errorf("delivery %s: unreadable send snapshot: %w", id, err)
		}
		if receipt.ID != "" {
			d.Receipt = &receipt
		}
	} else {
		var routes string
		var input []byte
		err = tx.QueryRowContext(ctx, "SELECT input, answer, routes, max_bytes, config FROM jobs WHERE id = ?", id).Scan(&input, &d.Answer, &routes, &d.MaxBytes, &d.Config)
		if err != nil {
			return Detail{}, err
		}
		d.Input = input
		d.BodyExpired = input == nil
		if err := json.Unmarshal([]byte(routes), &d.Routes); err != nil {
			return Detail{}, fmt.Errorf("job %s: unreadable routes: %w", id, err)
		}
	}
	rows, err := tx.QueryContext(ctx, "SELECT n, started, ended, outcome, error FROM attempts WHERE work = ? ORDER BY n", id)
	if err != nil {
		return Detail{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var a AttemptRecord
		var started int64
		var ended sql.NullInt64
		if err := rows.Scan(&a.N, &started, &ended, &a.Outcome, &a.Error); err != nil {
			return Detail{}, err
		}
		a.Started = fromMS(started)
		if ended.Valid {
			a.Ended = fromMS(ended.Int64)
		}
		d.History = append(d.History, a)
	}
	return d, rows.Err()
}

// Summary is what bf status says about the queue.
type Summary struct {
	Jobs       map[State]int `json:"jobs"`
	Deliveries map[State]int `json:"deliveries"`
	// Unresolved counts work that still needs a worker or the user.
	Unresolved int `json:"unresolved"`
	// Oldest is the oldest unresolved work, if any.
	Oldest *Item `json:"oldest,omitempty"`
	// Attention lists failed and uncertain work, oldest first: it keeps bf status --check
	// failing until retried or cancelled. An assistant's failed delivery is listed even
	// though it no longer holds its conversation.
	Attention []Item `json:"attention"`
	// InFlight lists running jobs and deliveries being sent, which may be attempts a
	// killed process left behind until Recover records them.
	InFlight []Item `json:"in_flight"`
	// Obligations, StoredBytes and ReservedBytes are what admission compares with its
	// limits.
	Obligations   int   `json:"obligations"`
	StoredBytes   int64 `json:"stored_bytes"`
	ReservedBytes int64 `json:"reserved_bytes"`
}

// Summary counts work by state and names what needs attention.
func (q *Queue) Summary() (Summary, error) {
	s := Summary{Jobs: map[State]int{}, Deliveries: map[State]int{}, Attention: []Item{}, InFlight: []Item{}}
	err := q.read(func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT 'job', state, count(*) FROM jobs GROUP BY state
			UNION ALL SELECT 'delivery', state, count(*) FROM deliveries GROUP BY state`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var kind string
			var state State
			var n int
			if err := rows.Scan(&kind, &state, &n); err != nil {
				rows.Close()
				return err
			}
			if kind == "job" {
				s.Jobs[state] = n
			} else {
				s.Deliveries[state] = n
			}
			if !state.Resolved() {
				s.Unresolved += n
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		open, err := queryItems(tx, "WHERE state NOT IN ('delivered', 'completed', 'cancelled')")
		if err != nil {
			return err
		}
		for i, it := range open {
			if s.Oldest == nil {
				s.Oldest = &open[i]
			}
			switch it.State {
			case Failed, Uncertain:
				s.Attention = append(s.Attention, it)
			case Running, Sending:
				s.InFlight = append(s.InFlight, it)
			}
		}
		u, err := readUsage(tx)
		if err != nil {
			return err
		}
		s.Obligations, s.StoredBytes, s.ReservedBytes = u.obligations, u.stored, u.reserved
		return nil
	})
	return s, err
}
