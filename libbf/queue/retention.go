package queue

import (
	"database/sql"
	"time"
)

// Compact applies retention now; admission and completion already do on every call, and
// watch calls it between them.
func (q *Queue) Compact() error {
	return q.write("compact", func(tx *sql.Tx) error { return q.compact(tx, q.now()) })
}

// compact deletes expired identity tombstones and drops the oldest completed bodies over
// their budgets. Unresolved work and its bodies are never touched.
//
//   - Delivered and cancelled deliveries, completed and cancelled jobs and admitted
//     message identities are deleted TombstoneAge after they finished (or, for messages,
//     were admitted): until then they recognise replays, identical resends and echoes.
//     A delivery stays while its job is unresolved.
//   - Completed job bodies (input and answer), completed delivery bodies and the
//     conversation cache's texts each keep their newest RetentionBytes; the conversation
//     cache also keeps at most ConversationMessages texts.
func (q *Queue) compact(tx *sql.Tx, now time.Time) error {
	cutoff := ms(now.Add(-q.opts.TombstoneAge))
	budget := q.opts.RetentionBytes
	steps := []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM attempts WHERE work IN (SELECT id FROM deliveries WHERE state IN ('delivered', 'cancelled') AND finished < ?1
			AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.id = deliveries.job AND jobs.state IN ` + unresolvedJobs + `))`, []any{cutoff}},
		{`DELETE FROM deliveries WHERE state IN ('delivered', 'cancelled') AND finished < ?1
			AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.id = deliveries.job AND jobs.state IN ` + unresolvedJobs + `)`, []any{cutoff}},
		{`DELETE FROM attempts WHERE work IN (SELECT id FROM jobs WHERE state IN ('completed', 'cancelled') AND finished < ?1
			AND NOT EXISTS (SELECT 1 FROM deliveries WHERE deliveries.job = jobs.id))`, []any{cutoff}},
		{`DELETE FROM jobs WHERE state IN ('completed', 'cancelled') AND finished < ?1
			AND NOT EXISTS (SELECT 1 FROM deliveries WHERE deliveries.job = jobs.id)`, []any{cutoff}},
		{`DELETE FROM messages WHERE admitted < ?1`, []any{cutoff}},
		{`UPDATE deliveries SET body = NULL, held = held - body_bytes WHERE id IN (
			SELECT id FROM (SELECT id, sum(body_bytes) OVER (ORDER BY finished DESC, id DESC) AS kept
				FROM deliveries WHERE state IN ('delivered', 'cancelled') AND body IS NOT NULL)
			WHERE kept > ?1)`, []any{budget}},
		{`UPDATE jobs SET input = NULL, answer = NULL, held = length(config) + length(routes) WHERE id IN (
			SELECT id FROM (SELECT id, sum(held) OVER (ORDER BY finished DESC, id DESC) AS kept
				FROM jobs WHERE state IN ('completed', 'cancelled') AND input IS NOT NULL
				AND NOT EXISTS (SELECT 1 FROM deliveries WHERE deliveries.job = jobs.id AND deliveries.state IN ` + unresolvedDeliveries + `))
			WHERE kept > ?1)`, []any{budget}},
		{`UPDATE messages SET text = NULL, held = held - octet_length(text) WHERE rowid IN (
			SELECT rowid FROM (SELECT rowid, sum(octet_length(text)) OVER w AS kept, row_number() OVER w AS rank
				FROM messages WHERE text IS NOT NULL WINDOW w AS (ORDER BY admitted DESC, rowid DESC))
			WHERE kept > ?1 OR rank > ?2)`, []any{budget, q.opts.ConversationMessages}},
	}
	for _, s := range steps {
		if _, err := tx.ExecContext(ctx, s.sql, s.args...); err != nil {
			return err
		}
	}
	return nil
}
