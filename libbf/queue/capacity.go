package queue

import "database/sql"

// AnswerSpace is the queue space a job reserves when a worker starts it:
//
//	answerBytes × (7 + 6 × routes) + (jobSize + 64 KiB) × (1 + routes)
//
// answerBytes is the job's max_bytes while it runs and its saved answer's size once
// answered; routes counts the deliveries it makes. The factors cover the answer saved
// in the job and in each delivery, plus the rollback journal's copy of the pages those
// writes touch, so recording an answer never finds the queue full.
func AnswerSpace(answerBytes, jobSize int64, routes int) int64 {
	r := int64(routes)
	return answerBytes*(7+6*r) + (jobSize+64*1024)*(1+r)
}

// usage is what capacity checks compare with the limits.
type usage struct {
	obligations int   // unfinished jobs and deliveries, with each unanswered job's deliveries
	stored      int64 // bytes of every body the queue holds
	reserved    int64 // answer space of running and answered jobs
	file        int64 // bytes of the database's used pages
}

func readUsage(tx *sql.Tx) (usage, error) {
	var u usage
	err := tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM deliveries WHERE state IN `+unresolvedDeliveries+`) +
		(SELECT coalesce(sum(CASE WHEN state = 'answered' THEN 1 ELSE 1 + route_count END), 0)
			FROM jobs WHERE state IN `+unresolvedJobs+`),
		(SELECT coalesce(sum(held), 0) FROM jobs) +
		(SELECT coalesce(sum(held), 0) FROM deliveries) +
		(SELECT coalesce(sum(held), 0) FROM messages),
		(SELECT coalesce(sum(reserved), 0) FROM jobs WHERE state IN ('running', 'answered'))`).
		Scan(&u.obligations, &u.stored, &u.reserved)
	if err != nil {
		return u, err
	}
	var pages, free, size int64
	for p, v := range map[string]*int64{"page_count": &pages, "freelist_count": &free, "page_size": &size} {
		if err := tx.QueryRowContext(ctx, "PRAGMA "+p).Scan(v); err != nil {
			return u, err
		}
	}
	u.file = (pages - free) * size
	return u, nil
}

// fits reports whether admitting work of size bytes making obligations more obligations
// stays within the limits. Admission charges twice the stored size: the rollback journal
// and the pages that move meanwhile need room too.
func (u usage) fits(o Options, obligations int, size int64) bool {
	charge := 2 * size
	return u.obligations+obligations <= o.MaxObligations &&
		u.stored+u.reserved+charge <= o.AdmitBytes &&
		u.stored+charge <= o.MaxWorkBytes &&
		u.file+charge <= o.MaxDatabaseBytes
}

// canReserve reports whether need bytes of answer space fit beside what is stored and
// already reserved.
func (u usage) canReserve(o Options, need int64) bool {
	return u.stored+u.reserved+need <= o.AdmitBytes && u.stored+need <= o.MaxWorkBytes
}

func fullError() error { return newError(ErrFull, "%s", msgFull) }

func tooBigError(assistant string, need int64) error {
	return newError(ErrNoAnswerSpace, "assistant %s needs %d MiB of queue space per answer, more than one job may reserve; lower its max_bytes",
		assistant, (need+miB-1)/miB)
}

func partialError(admitted, total int) error {
	return newError(ErrFull, "assistant queue is full: admitted %d of %d messages; finish, retry or cancel unfinished work, and the next poll reads the rest", admitted, total)
}
