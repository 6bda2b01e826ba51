package queue

import (
	"database/sql"
	"fmt"
	"time"
)

// Automatic retries of jobs whose run kind an assistant declares idempotent: the wait
// after the nth failed attempt doubles from jobFirstBackoff, at most jobMaxBackoff.
const (
	jobFirstBackoff = 5 * time.Second
	jobMaxBackoff   = 300 * time.Second
)

// jobBackoff is the wait before the next automatic attempt of a job whose nth attempt
// failed.
func jobBackoff(n int) time.Duration {
	d := jobFirstBackoff
	for i := 1; i < n && d < jobMaxBackoff; i++ {
		d *= 2
	}
	return min(d, jobMaxBackoff)
}

// Mark is a checkpoint saved with a job: where a schedule's last slot or an input stands,
// or when an assistant asked to wake (the inputs table holds them all, by name). A zero
// Position with an empty Cursor removes the checkpoint.
type Mark struct {
	Name string
	Progress
}

func setMarks(tx *sql.Tx, marks []Mark, now time.Time) error {
	for _, m := range marks {
		if err := checkField("checkpoint", m.Name, true); err != nil {
			return err
		}
		if m.Position.IsZero() && m.Cursor == "" {
			if _, err := tx.ExecContext(ctx, "DELETE FROM inputs WHERE name = ?", m.Name); err != nil {
				return err
			}
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO inputs (name, position, cursor, updated) VALUES (?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET position = excluded.position, cursor = excluded.cursor, updated = excluded.updated`,
			m.Name, ms(m.Position), m.Cursor, ms(now)); err != nil {
			return err
		}
	}
	return nil
}

// Checkpoints returns the checkpoints whose name starts with prefix, by name.
func (q *Queue) Checkpoints(prefix string) (map[string]Progress, error) {
	out := map[string]Progress{}
	err := q.read(func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT name, position, cursor FROM inputs WHERE substr(name, 1, ?) = ? ORDER BY name", len(prefix), prefix)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			var pos int64
			var p Progress
			if err := rows.Scan(&name, &pos, &p.Cursor); err != nil {
				return err
			}
			p.Position = fromMS(pos)
			out[name] = p
		}
		return rows.Err()
	})
	return out, err
}

// Mark saves checkpoints without admitting anything: a schedule seen for the first time,
// or a slot a gate skipped.
func (q *Queue) Mark(marks ...Mark) error {
	return q.write("save checkpoints in", func(tx *sql.Tx) error { return setMarks(tx, marks, q.now()) })
}

// AdmitJobMarked admits job j and saves marks in one transaction, so a due schedule or
// wake is admitted exactly once: a job ID that exists changes nothing but the marks.
func (q *Queue) AdmitJobMarked(j NewJob, marks ...Mark) (Item, bool, error) {
	if err := j.check(); err != nil {
		return Item{}, false, err
	}
	var item Item
	admitted := false
	err := q.write("admit a job to", func(tx *sql.Tx) error {
		now := q.now()
		if err := q.compact(tx, now); err != nil {
			return err
		}
		var err error
		if admitted, err = q.insertJob(tx, j, nil, now); err != nil {
			return err
		}
		if err := setMarks(tx, marks, now); err != nil {
			return err
		}
		item, err = loadItem(tx, j.ID)
		return err
	})
	return item, admitted, err
}

// AnswerMarked is Answer that also saves marks (a wake the answer asked for) in the same
// transaction.
func (r *Run) AnswerMarked(answer []byte, marks ...Mark) (Item, error) {
	if len(marks) == 0 {
		return r.Answer(answer)
	}
	r.marks = marks
	defer func() { r.marks = nil }()
	return r.Answer(answer)
}

// FailRetrying records a failed attempt of a job whose run kind retries by itself: the job
// becomes pending again, due jobBackoff(n) after this nth attempt, until attempts
// attempts of the current round failed; the last one leaves it failed like Fail.
func (r *Run) FailRetrying(reason string, attempts int) (Item, error) {
	if reason == "" {
		return Item{}, newError(errInvalid, "job %s: a failed attempt needs a reason; say what failed", r.job.ID)
	}
	return r.end("record a failed attempt in", func(tx *sql.Tx, j *job, now time.Time) (string, string, error) {
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT attempts FROM jobs WHERE id = ?", j.ID).Scan(&n); err != nil {
			return "", "", err
		}
		state, msg := "pending", reason
		if n >= attempts {
			state, msg = "failed", fmt.Sprintf("%s; stopped retrying after %d attempts; retry or cancel it with bf queue", reason, n)
		}
		_, err := tx.ExecContext(ctx, "UPDATE jobs SET state = ?, error = ?, reserved = 0, updated = ? WHERE id = ?", state, msg, ms(now), j.ID)
		return outFailed, reason, err
	})
}

// Requeue makes an uncertain job whose harness attempt was interrupted pending again,
// for a run kind that retries by itself, while fewer than attempts attempts of the round
// ran; it reports whether it did.
func (q *Queue) Requeue(id string, attempts int) (bool, error) {
	done := false
	err := q.write("retry a job in", func(tx *sql.Tx) error {
		done = false
		res, err := tx.ExecContext(ctx, "UPDATE jobs SET state = 'pending', updated = ? WHERE id = ? AND state = 'uncertain' AND error = ? AND answer IS NULL AND attempts < ?",
			ms(q.now()), id, msgInterruptedRun, attempts)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		done = n > 0
		return err
	})
	return done, err
}

// Ready lists the pending jobs a worker may start now, oldest first. A job that failed
// before and retries by itself waits jobBackoff after its last attempt. A job waits while
// an earlier job of the same assistant and conversation (a message) or schedule is
// pending, running, failed or uncertain, so answers keep their order and a failure holds
// later work until the user resolves it.
func (q *Queue) Ready() ([]string, error) {
	var ids []string
	err := q.read(func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT j.id, j.attempts, coalesce((SELECT max(ended) FROM attempts a WHERE a.work = j.id), 0)
			FROM jobs j WHERE j.state = 'pending' AND (j.kind = 'run' OR NOT EXISTS (
				SELECT 1 FROM jobs e WHERE e.assistant = j.assistant AND e.kind = j.kind
				AND e.channel = j.channel AND e.conversation = j.conversation AND e.schedule = j.schedule
				AND e.state IN ('pending', 'running', 'failed', 'uncertain')
				AND (e.created < j.created OR (e.created = j.created AND e.id < j.id))))
			ORDER BY j.created, j.id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		now := q.now()
		for rows.Next() {
			var id string
			var n int
			var ended int64
			if err := rows.Scan(&id, &n, &ended); err != nil {
				return err
			}
			if n > 0 && ended > 0 && now.Before(fromMS(ended).Add(jobBackoff(n))) {
				continue
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	return ids, err
}

// Turn is one earlier message of a conversation: a message an input admitted, or an
// answer delivered to it (Own).
type Turn struct {
	Sender string
	Time   time.Time
	Text   string
	Own    bool
}

// Conversation returns up to limit turns of a channel's conversation before instant
// before, oldest first: admitted messages whose text the conversation cache still holds,
// and delivered answers whose body retention kept.
func (q *Queue) Conversation(channel, conversation string, before time.Time, limit int) ([]Turn, error) {
	var out []Turn
	err := q.read(func(tx *sql.Tx) error {
		out = nil
		rows, err := tx.QueryContext(ctx, `SELECT sender, time, text, own FROM (
				SELECT sender, time, text, own FROM messages WHERE channel = ?1 AND conversation = ?2 AND text IS NOT NULL AND time < ?3
				UNION ALL
				SELECT '', created, CAST(body AS TEXT), 1 FROM deliveries WHERE channel = ?1 AND conversation = ?2 AND job <> ''
					AND state = 'delivered' AND body IS NOT NULL AND created < ?3)
			ORDER BY time DESC LIMIT ?4`, channel, conversation, ms(before), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t Turn
			var at int64
			if err := rows.Scan(&t.Sender, &at, &t.Text, &t.Own); err != nil {
				return err
			}
			t.Time = fromMS(at)
			out = append(out, t)
		}
		return rows.Err()
	})
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, err
}
