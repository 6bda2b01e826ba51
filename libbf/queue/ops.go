package queue

import (
	"database/sql"
	"errors"
	"time"
)

// Retry is bf queue ID --retry. An attempt still running in a live process is refused
// (ErrInFlight); one whose process died is recorded first.
//
// A delivery (pending, failed or uncertain) becomes pending and due now, with its attempts
// starting over; the caller then attempts it at once. Its configuration snapshot stays:
// a delivery whose channel changed needs the channel restored.
//
// A job (pending, failed or uncertain) resumes its saved answer when it has one, which
// reserves the answer's space again or fails with ErrNoAnswerSpace; otherwise it becomes
// pending, permitting another harness attempt.
func (q *Queue) Retry(id string) (Item, error) {
	var item Item
	err := q.write("retry work in", func(tx *sql.Tx) error {
		now := q.now()
		kind, state, recorded, err := q.touch(tx, id, now)
		if err != nil {
			return err
		}
		return keepIf(recorded, func() error {
			if kind == "delivery" {
				switch state {
				case Pending, Failed, Uncertain:
				default:
					return stateError(kind, id, state, "retry")
				}
				_, err = tx.ExecContext(ctx, "UPDATE deliveries SET state = 'pending', error = '', attempts = 0, next_attempt = ?, updated = ? WHERE id = ?",
					ms(now), ms(now), id)
			} else {
				err = q.retryJob(tx, id, state, now)
			}
			if err != nil {
				return err
			}
			item, err = loadItem(tx, id)
			return err
		}())
	})
	return item, err
}

func (q *Queue) retryJob(tx *sql.Tx, id string, state State, now time.Time) error {
	switch state {
	case Pending, Failed, Uncertain:
	default:
		return stateError("job", id, state, "retry")
	}
	j, err := loadJob(tx, id)
	if err != nil {
		return err
	}
	if !j.HasAnswer {
		_, err := tx.ExecContext(ctx, "UPDATE jobs SET state = 'pending', error = '', attempts = 0, updated = ? WHERE id = ?", ms(now), id)
		return err
	}
	need := AnswerSpace(j.AnswerBytes, j.Size, len(j.Routes))
	u, err := readUsage(tx)
	if err != nil {
		return err
	}
	if !u.canReserve(q.opts, need) {
		return newError(ErrNoAnswerSpace, "%s", msgNoSavedSpace)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE jobs SET state = 'answered', error = '', reserved = ?, updated = ? WHERE id = ?", need, ms(now), id); err != nil {
		return err
	}
	return settleJob(tx, id, now)
}

// Cancel is bf queue ID --cancel. The work becomes cancelled, keeping its identity
// tombstone, and no longer holds later work. Cancelling a job cancels its unresolved
// deliveries. An attempt still running in a live process is refused (ErrInFlight); one
// whose process died is recorded first. Cancelling cancelled work changes nothing.
func (q *Queue) Cancel(id string) (Item, error) {
	var item Item
	err := q.write("cancel work in", func(tx *sql.Tx) error {
		now := q.now()
		kind, state, recorded, err := q.touch(tx, id, now)
		if err != nil {
			return err
		}
		return keepIf(recorded, func() error {
			if err := q.cancelIn(tx, kind, id, state, now); err != nil {
				return err
			}
			if err := q.compact(tx, now); err != nil {
				return err
			}
			item, err = loadItem(tx, id)
			return err
		}())
	})
	return item, err
}

// CancelReport is what CancelAll did: the work it cancelled, and the work it left because
// its attempt still runs (ErrInFlight) or it was resolved meanwhile.
type CancelReport struct {
	Cancelled []string `json:"cancelled"`
	Skipped   []string `json:"skipped"`
}

// CancelAll cancels every job and delivery in ids, as Cancel does each, in one
// transaction: clearing thousands of stuck jobs takes one commit. Work whose attempt still
// runs, or that is resolved already, is skipped rather than failing the rest; an
// interrupted attempt is recorded first. An unknown ID fails and changes nothing.
func (q *Queue) CancelAll(ids []string) (CancelReport, error) {
	var out CancelReport
	err := q.write("cancel work in", func(tx *sql.Tx) error {
		out = CancelReport{Cancelled: []string{}, Skipped: []string{}}
		now := q.now()
		for _, id := range ids {
			kind, state, _, err := q.touch(tx, id, now)
			if errors.Is(err, ErrInFlight) {
				out.Skipped = append(out.Skipped, id)
				continue
			}
			if err != nil {
				return err
			}
			if state.Resolved() {
				out.Skipped = append(out.Skipped, id)
				continue
			}
			if err := q.cancelIn(tx, kind, id, state, now); err != nil {
				return err
			}
			out.Cancelled = append(out.Cancelled, id)
		}
		return q.compact(tx, now)
	})
	return out, err
}

// cancelIn cancels work id of kind in state within tx: a delivery, settling its job, or a
// job with its unresolved deliveries. Cancelled work is left as it is.
func (q *Queue) cancelIn(tx *sql.Tx, kind, id string, state State, now time.Time) error {
	switch {
	case state == Cancelled:
		return nil
	case state.Resolved():
		return stateError(kind, id, state, "cancel")
	case kind == "delivery":
		var job string
		if err := tx.QueryRowContext(ctx, "SELECT job FROM deliveries WHERE id = ?", id).Scan(&job); err != nil {
			return err
		}
		if err := cancelDelivery(tx, id, now); err != nil {
			return err
		}
		if job != "" {
			return settleJob(tx, job, now)
		}
		return nil
	}
	return q.cancelJob(tx, id, now)
}

func cancelDelivery(tx *sql.Tx, id string, now time.Time) error {
	_, err := tx.ExecContext(ctx, "UPDATE deliveries SET state = 'cancelled', updated = ?, finished = ? WHERE id = ?", ms(now), ms(now), id)
	return err
}

func (q *Queue) cancelJob(tx *sql.Tx, id string, now time.Time) error {
	rows, err := tx.QueryContext(ctx, "SELECT id, state FROM deliveries WHERE job = ? AND state IN "+unresolvedDeliveries+" ORDER BY id", id)
	if err != nil {
		return err
	}
	var open []string
	var sending []string
	for rows.Next() {
		var did string
		var s State
		if err := rows.Scan(&did, &s); err != nil {
			rows.Close()
			return err
		}
		open = append(open, did)
		if s == Sending {
			sending = append(sending, did)
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	// Every delivery must be settled before any is cancelled, so a refusal changes nothing.
	for _, did := range sending {
		if err := q.settleInterrupted(tx, did, now); err != nil {
			return err
		}
	}
	for _, did := range open {
		if err := cancelDelivery(tx, did, now); err != nil {
			return err
		}
	}
	_, err = tx.ExecContext(ctx, "UPDATE jobs SET state = 'cancelled', reserved = 0, updated = ?, finished = ? WHERE id = ?", ms(now), ms(now), id)
	return err
}

// touch finds work id and, when its attempt's process died, records the interruption
// (recorded); it refuses with ErrInFlight while that process lives.
func (q *Queue) touch(tx *sql.Tx, id string, now time.Time) (kind string, state State, recorded bool, err error) {
	kind, state, err = kindOf(tx, id)
	if err != nil {
		return "", "", false, err
	}
	if state == Sending || state == Running {
		if err := q.settleInterrupted(tx, id, now); err != nil {
			return "", "", false, err
		}
		if kind, state, err = kindOf(tx, id); err != nil {
			return "", "", false, err
		}
		recorded = true
	}
	return kind, state, recorded, nil
}

// keepIf makes a refusal that follows a recorded interruption still commit the record.
func keepIf(recorded bool, err error) error {
	var keep commitAnyway
	if err == nil || !recorded || errors.As(err, &keep) {
		return err
	}
	var e *Error
	if errors.As(err, &e) {
		return commitAnyway{err}
	}
	return err
}

func kindOf(tx *sql.Tx, id string) (string, State, error) {
	var kind string
	var state State
	err := tx.QueryRowContext(ctx, `SELECT 'delivery', state FROM deliveries WHERE id = ?1
		UNION ALL SELECT 'job', state FROM jobs WHERE id = ?1`, id).Scan(&kind, &state)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", notFound(id)
	}
	return kind, state, err
}
