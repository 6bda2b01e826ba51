package queue

import (
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"
)

// NewDelivery is a standalone send (bf channel send) to admit. An empty ID gets a
// generated one.
type NewDelivery struct {
	ID           string
	Channel      string
	Conversation string
	ReplyTo      string
	Text         string
	// Send is the channel's send capability now; the delivery is only ever attempted
	// while the channel still has exactly this one.
	Send Send
}

// maxID is the most characters an ID or routing field may hold.
const maxID = 4096

// checkField refuses values a channel could not route: too long, or holding control or
// format characters that would hide what a listing shows.
func checkField(field, v string, required bool) error {
	switch {
	case required && v == "":
		return newError(errInvalid, "%s: must not be empty; give a value", field)
	case !utf8.ValidString(v):
		return newError(errInvalid, "%s: must be valid UTF-8; give another value", field)
	case utf8.RuneCountInString(v) > maxID:
		return newError(errInvalid, "%s: holds more than %d characters; give a shorter value", field, maxID)
	}
	for _, r := range v {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return newError(errInvalid, "%s: holds a control or format character; remove it", field)
		}
	}
	return nil
}

// newID returns prefix followed by 20 random hex digits.
func newID(prefix string) string {
	var b [10]byte
	rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return prefix + hex.EncodeToString(b[:])
}

// digest identifies a delivery's payload: the same ID with the same digest is the same
// message, so it is not sent again.
func digest(channel, conversation, replyTo, text string) string {
	h := sha256.New()
	for _, s := range []string{channel, conversation, replyTo, text} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// AdmitDelivery saves a standalone send before anything runs it. Admitting an ID again
// returns the saved delivery (admitted false) when the payload is identical, and fails with
// ErrConflict when it differs: a deliberately new send needs a new ID. IDs of completed
// deliveries are remembered for the tombstone age (35 days).
func (q *Queue) AdmitDelivery(d NewDelivery) (Item, bool, error) {
	if d.ID == "" {
		d.ID = newID("d-")
	}
	for _, f := range []struct {
		name, v  string
		required bool
	}{{"delivery ID", d.ID, true}, {"channel", d.Channel, true}, {"conversation", d.Conversation, false}, {"reply_to", d.ReplyTo, false}} {
		if err := checkField(f.name, f.v, f.required); err != nil {
			return Item{}, false, err
		}
	}
	if len(d.Send.Command) == 0 {
		return Item{}, false, newError(errInvalid, "channel %s: has no send command; declare send before sending", d.Channel)
	}
	var item Item
	admitted := false
	err := q.write("admit a delivery to", func(tx *sql.Tx) error {
		now := q.now()
		if err := q.compact(tx, now); err != nil {
			return err
		}
		sum := digest(d.Channel, d.Conversation, d.ReplyTo, d.Text)
		var saved string
		err := tx.QueryRowContext(ctx, "SELECT digest FROM deliveries WHERE id = ?", d.ID).Scan(&saved)
		switch {
		case err == nil && saved == sum:
			item, err = loadItem(tx, d.ID)
			return err
		case err == nil:
			return newError(ErrConflict, "delivery %s was already saved with other content; send new content with a new delivery ID", d.ID)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if taken, err := exists(tx, "jobs", d.ID); err != nil || taken {
			if taken {
				return newError(ErrConflict, "delivery ID %s already names a job; choose another delivery ID", d.ID)
			}
			return err
		}
		u, err := readUsage(tx)
		if err != nil {
			return err
		}
		size := int64(len(d.Text) + len(d.ID) + len(d.Channel) + len(d.Conversation) + len(d.ReplyTo))
		if !u.fits(q.opts, 1, size) {
			return fullError()
		}
		if err := insertDelivery(tx, d.ID, "", d.Channel, d.Conversation, d.ReplyTo, []byte(d.Text), d.Send, size, now); err != nil {
			return err
		}
		admitted = true
		item, err = loadItem(tx, d.ID)
		return err
	})
	return item, admitted, err
}

func insertDelivery(tx *sql.Tx, id, job, channel, conversation, replyTo string, body []byte, send Send, held int64, now time.Time) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO deliveries (id, job, channel, conversation, reply_to, body, body_bytes, digest,
		send, idempotent, state, error, attempts, next_attempt, receipt_id, receipt_conversation, held, created, updated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', '', 0, ?, '', '', ?, ?, ?)`,
		id, job, channel, conversation, replyTo, body, len(body), digest(channel, conversation, replyTo, string(body)),
		send.encode(), send.Idempotent, ms(now), held, ms(now), ms(now))
	return err
}

func exists(tx *sql.Tx, table, id string) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, "SELECT count(*) FROM "+table+" WHERE id = ?", id).Scan(&n)
	return n > 0, err
}

// delivery is the part of a deliveries row the state machine works on.
type delivery struct {
	ID, Job, Channel string
	State            State
	Send             Send
	Attempts         int
	NextAttempt      int64
}

func loadDelivery(tx *sql.Tx, id string) (*delivery, error) {
	var d delivery
	var send string
	err := tx.QueryRowContext(ctx, "SELECT id, job, channel, state, send, attempts, next_attempt FROM deliveries WHERE id = ?", id).
		Scan(&d.ID, &d.Job, &d.Channel, &d.State, &send, &d.Attempts, &d.NextAttempt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(send), &d.Send); err != nil {
		return nil, fmt.Errorf("delivery %s: unreadable send snapshot: %w", id, err)
	}
	return &d, nil
}

// Attempt is one running attempt of a delivery, owned by this process until Finish.
type Attempt struct {
	q        *Queue
	token    string
	n        int
	delivery Detail
}

// Delivery is the delivery being attempted, with its text.
func (a *Attempt) Delivery() Detail { return a.delivery }

// BeginAttempt records that this process starts sending delivery id, before the send
// command runs. current is the channel's send capability now (nil when the channel was
// removed): when it differs from the delivery's snapshot, nothing is sent and the delivery
// becomes uncertain. A pending delivery waiting for its next retry is refused (errNotDue);
// one being sent by a live process is refused (ErrInFlight); one whose sender died is first
// recorded as interrupted. Holding later work of a conversation is for Due to apply: an
// explicit command may attempt any pending delivery.
func (q *Queue) BeginAttempt(id string, current *Send) (*Attempt, error) {
	var a *Attempt
	err := q.write("start a delivery attempt in", func(tx *sql.Tx) error {
		now := q.now()
		d, refuse, err := loadForAttempt(q, tx, id, now, loadDelivery, func(d *delivery) bool { return d.State == Sending })
		if err != nil {
			return err
		}
		if d.State != Pending {
			return refuse(stateError("delivery", id, d.State, "attempt"))
		}
		if d.NextAttempt > ms(now) {
			return refuse(newError(errNotDue, "delivery %s waits to retry until %s; retry it now with bf queue %s --retry",
				id, fromMS(d.NextAttempt).Format(time.RFC3339), id))
		}
		if current == nil || !current.equal(d.Send) {
			_, err := tx.ExecContext(ctx, "UPDATE deliveries SET state = 'uncertain', error = ?, updated = ? WHERE id = ?",
				msgChannelChanged, ms(now), id)
			if err != nil {
				return err
			}
			return commitAnyway{newError(ErrConfigChanged, "%s", msgChannelChanged)}
		}
		if _, err := tx.ExecContext(ctx, "UPDATE deliveries SET state = 'sending', attempts = attempts + 1, updated = ? WHERE id = ?", ms(now), id); err != nil {
			return err
		}
		n, token, detail, err := leaseAttempt(tx, id, now, "attempt leased")
		if err != nil {
			return err
		}
		a = &Attempt{q: q, token: token, n: n, delivery: detail}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// loadForAttempt loads work id (a delivery or a job) that a new attempt is about to start;
// load returns nil for an ID that names no such work. Work still marked as being attempted
// (inFlight) holds a lease: while its process lives the attempt is refused (ErrInFlight);
// when it died, its attempt is first recorded as interrupted and the work is read again.
// refuse wraps the caller's refusals of the work as read: after recording an interrupted
// attempt, a refusal still commits that record.
func loadForAttempt[W any](q *Queue, tx *sql.Tx, id string, now time.Time, load func(*sql.Tx, string) (*W, error), inFlight func(*W) bool) (*W, func(error) error, error) {
	w, err := load(tx, id)
	if err != nil {
		return nil, nil, err
	}
	if w == nil {
		return nil, nil, notFound(id)
	}
	refuse := func(err error) error { return err }
	if inFlight(w) {
		if err := q.settleInterrupted(tx, id, now); err != nil {
			return nil, nil, err
		}
		if w, err = load(tx, id); err != nil {
			return nil, nil, err
		}
		refuse = func(err error) error { return commitAnyway{err} }
	}
	return w, refuse, nil
}

// leaseAttempt records the start of the next attempt of work id, whose state the caller
// has just set, takes its lease and returns the attempt's number, the lease token and the
// work as it now reads. crash names the crash point tests stop at once the lease is held.
func leaseAttempt(tx *sql.Tx, id string, now time.Time, crash string) (int, string, Detail, error) {
	n, err := nextAttemptNumber(tx, id)
	if err != nil {
		return 0, "", Detail{}, err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO attempts (work, n, started, outcome, error) VALUES (?, ?, ?, '', '')", id, n, ms(now)); err != nil {
		return 0, "", Detail{}, err
	}
	token, err := takeLease(tx, id, n, ms(now))
	if err != nil {
		return 0, "", Detail{}, err
	}
	crashPoint(crash)
	detail, err := loadDetail(tx, id)
	if err != nil {
		return 0, "", Detail{}, err
	}
	return n, token, detail, nil
}

func nextAttemptNumber(tx *sql.Tx, work string) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, "SELECT coalesce(max(n), 0) + 1 FROM attempts WHERE work = ?", work).Scan(&n)
	return n, err
}

// Outcome is how a delivery attempt ended.
type Outcome struct {
	kind    string
	reason  string
	receipt Receipt
}

const (
	outDelivered   = "delivered"
	outFailed      = "failed"
	outNotStarted  = "not started"
	outInterrupted = "interrupted"
)

// Sent is a delivered message and the receipt its channel returned.
func Sent(r Receipt) Outcome { return Outcome{kind: outDelivered, receipt: r} }

// SendFailed is an attempt whose send command ran and failed; it may have sent the
// message. reason is bf's own sentence (an exit status, a timeout, an invalid receipt, the
// log to read), never the provider's text.
func SendFailed(reason string) Outcome { return Outcome{kind: outFailed, reason: reason} }

// NotStarted is an attempt whose send command never started (not on PATH…): it sent
// nothing, so any delivery retries or fails as on an idempotent channel.
func NotStarted(reason string) Outcome { return Outcome{kind: outNotStarted, reason: reason} }

// Interrupted is an attempt stopped by Ctrl-C or SIGTERM before it ended.
func Interrupted() Outcome { return Outcome{kind: outInterrupted, reason: "interrupted send"} }

// Finish records how the attempt ended and returns the delivery's new state.
func (a *Attempt) Finish(o Outcome) (Item, error) {
	id := a.delivery.ID
	switch o.kind {
	case outDelivered:
		if err := checkField("receipt id", o.receipt.ID, true); err != nil {
			return Item{}, err
		}
		if err := checkField("receipt conversation", o.receipt.Conversation, false); err != nil {
			return Item{}, err
		}
	case outFailed, outNotStarted, outInterrupted:
		if o.reason == "" {
			return Item{}, newError(errInvalid, "delivery %s: a failed attempt needs a reason; say what failed", id)
		}
	default:
		return Item{}, newError(errInvalid, "delivery %s: unknown attempt outcome; use Sent, SendFailed, NotStarted or Interrupted", id)
	}
	var item Item
	err := a.q.write("record a delivery attempt in", func(tx *sql.Tx) error {
		now := a.q.now()
		l, err := leaseOf(tx, id)
		if err != nil {
			return err
		}
		if l == nil || l.Token != a.token {
			d, err := loadItem(tx, id)
			if err != nil {
				return err
			}
			return newError(ErrState, "delivery %s: this attempt was already recorded and the delivery is %s; see bf queue %s", id, d.State, id)
		}
		d, err := loadDelivery(tx, id)
		if err != nil {
			return err
		}
		if err := a.q.settle(tx, d, l.N, o, now); err != nil {
			return err
		}
		if err := a.q.compact(tx, now); err != nil {
			return err
		}
		item, err = loadItem(tx, id)
		return err
	})
	return item, err
}

// settle ends attempt n of delivery d with o and applies the retry policy:
//
//   - delivered: the receipt is kept for echo suppression.
//   - an attempt that may have sent the message on a channel that is not idempotent
//     becomes uncertain: only the user can tell whether to send again.
//   - otherwise (an idempotent channel, or a command that never started) a standalone send
//     fails, to be retried by hand, and an assistant's delivery retries by itself after 2,
//     4, 8… seconds, at most MaxBackoff apart, until MaxAttempts attempts failed.
func (q *Queue) settle(tx *sql.Tx, d *delivery, n int, o Outcome, now time.Time) error {
	state, text, next := q.policy(d, o, now)
	var err error
	if state == Delivered {
		_, err = tx.ExecContext(ctx, `UPDATE deliveries SET state = 'delivered', error = '', receipt_id = ?, receipt_conversation = ?,
			updated = ?, finished = ? WHERE id = ?`, o.receipt.ID, o.receipt.Conversation, ms(now), ms(now), d.ID)
	} else {
		_, err = tx.ExecContext(ctx, "UPDATE deliveries SET state = ?, error = ?, next_attempt = ?, updated = ? WHERE id = ?",
			state, text, next, ms(now), d.ID)
	}
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE attempts SET ended = ?, outcome = ?, error = ? WHERE work = ? AND n = ?",
		ms(now), o.kind, o.reason, d.ID, n); err != nil {
		return err
	}
	if err := dropLease(tx, d.ID); err != nil {
		return err
	}
	crashPoint("attempt settled")
	if d.Job != "" && state == Delivered {
		return settleJob(tx, d.Job, now)
	}
	return nil
}

func (q *Queue) policy(d *delivery, o Outcome, now time.Time) (State, string, int64) {
	if o.kind == outDelivered {
		return Delivered, "", 0
	}
	attempts := d.Attempts
	if o.kind != outNotStarted && !d.Send.Idempotent {
		if o.kind == outInterrupted {
			return Uncertain, msgInterruptedSend, 0
		}
		return Uncertain, o.reason + "; it may have been sent; inspect before retrying", 0
	}
	if d.Job == "" {
		return Failed, fmt.Sprintf("%s; retry it with bf queue %s --retry", o.reason, d.ID), 0
	}
	if attempts >= q.opts.MaxAttempts {
		return Failed, fmt.Sprintf("%s; stopped retrying after %d attempts; retry or cancel it with bf queue", o.reason, attempts), 0
	}
	return Pending, o.reason, ms(now.Add(q.backoff(attempts)))
}

// backoff is the wait after the nth failed attempt: FirstBackoff doubled n-1 times, at
// most MaxBackoff.
func (q *Queue) backoff(n int) time.Duration {
	d := q.opts.FirstBackoff
	for i := 1; i < n && d < q.opts.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, q.opts.MaxBackoff)
}

// settleInterrupted records the attempt of a sending delivery or a running job as
// interrupted when its owner is dead, and refuses with ErrInFlight while the owner lives.
//
// An owner that died while its attempt's process group lives on (a send command or
// harness that a killed bf left behind) still counts as running: recording the attempt
// then would let a retry overlap it.
func (q *Queue) settleInterrupted(tx *sql.Tx, work string, now time.Time) error {
	l, err := leaseOf(tx, work)
	if err != nil {
		return err
	}
	live, orphan, err := running(tx, work, l)
	if err != nil {
		return err
	}
	if live {
		isJob, err := exists(tx, "jobs", work)
		if err != nil {
			return err
		}
		msg := msgDeliverySending
		if isJob {
			msg = msgJobRunning
		}
		switch {
		case orphan > 0:
			msg += fmt.Sprintf("; its program still runs as process group %d after its bf process ended: let it finish, or stop it with kill -- -%d", orphan, orphan)
		case orphan < 0:
			msg += "; its program may still run after its bf process ended"
		}
		return newError(ErrInFlight, "%s", msg)
	}
	_, err = q.interrupt(tx, work, l, now)
	return err
}

// interrupt records the end of work's attempt whose owner died. It reports whether there
// was an attempt to record.
func (q *Queue) interrupt(tx *sql.Tx, work string, l *lease, now time.Time) (bool, error) {
	d, err := loadDelivery(tx, work)
	if err != nil {
		return false, err
	}
	n := 0
	if l != nil {
		n = l.N
	}
	if n == 0 {
		if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(n), 0) FROM attempts WHERE work = ?", work).Scan(&n); err != nil {
			return false, err
		}
	}
	if d != nil {
		if d.State != Sending {
			return false, dropLease(tx, work)
		}
		return true, q.settle(tx, d, n, Interrupted(), now)
	}
	var state State
	err = tx.QueryRowContext(ctx, "SELECT state FROM jobs WHERE id = ?", work).Scan(&state)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && state != Running) {
		return false, dropLease(tx, work)
	}
	if err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE jobs SET state = 'uncertain', error = ?, reserved = 0, updated = ? WHERE id = ?",
		msgInterruptedRun, ms(now), work); err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE attempts SET ended = ?, outcome = ?, error = ? WHERE work = ? AND n = ?",
		ms(now), outInterrupted, "interrupted harness attempt", work, n); err != nil {
		return false, err
	}
	return true, dropLease(tx, work)
}

// Recover records every attempt whose process died (killed outright, or its machine
// restarted) and returns how many it recorded. A job becomes uncertain; a delivery
// follows its channel's retry policy. watch and bf update call it; bf queue ID --retry and
// --cancel record the one they name.
func (q *Queue) Recover() (int, error) {
	count := 0
	err := q.write("recover interrupted attempts in", func(tx *sql.Tx) error {
		count = 0
		now := q.now()
		rows, err := tx.QueryContext(ctx, "SELECT work, n, token, host, boot, pid, start FROM leases ORDER BY since, work")
		if err != nil {
			return err
		}
		var dead, leases []lease
		var works, all []string
		for rows.Next() {
			var w string
			var l lease
			if err := rows.Scan(&w, &l.N, &l.Token, &l.Host, &l.Boot, &l.PID, &l.Start); err != nil {
				rows.Close()
				return err
			}
			leases = append(leases, l)
			all = append(all, w)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		for i, w := range all {
			live, _, err := running(tx, w, &leases[i])
			if err != nil {
				return err
			}
			if !live {
				dead = append(dead, leases[i])
				works = append(works, w)
			}
		}
		// An attempt without a lease cannot happen through this package, as both are
		// written in one transaction; should a damaged file hold one, nobody owns it.
		orphans, err := tx.QueryContext(ctx, `SELECT id FROM deliveries WHERE state = 'sending' AND id NOT IN (SELECT work FROM leases)
			UNION ALL SELECT id FROM jobs WHERE state = 'running' AND id NOT IN (SELECT work FROM leases)`)
		if err != nil {
			return err
		}
		for orphans.Next() {
			var w string
			if err := orphans.Scan(&w); err != nil {
				orphans.Close()
				return err
			}
			works = append(works, w)
			dead = append(dead, lease{N: 0})
		}
		if err := orphans.Close(); err != nil {
			return err
		}
		for i, w := range works {
			done, err := q.interrupt(tx, w, &dead[i], now)
			if err != nil {
				return err
			}
			if done {
				count++
			}
		}
		return q.compact(tx, now)
	})
	return count, err
}

// Due lists the pending deliveries whose next attempt has come, oldest first. An
// assistant's delivery waits while an earlier one of the same channel and conversation is
// pending, being sent or uncertain, so answers arrive in order and an uncertain one holds
// its conversation until resolved; a failed one no longer holds it.
func (q *Queue) Due() ([]string, error) {
	var ids []string
	err := q.read(func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT d.id FROM deliveries d
			WHERE d.state = 'pending' AND d.next_attempt <= ? AND (d.job = '' OR NOT EXISTS (
				SELECT 1 FROM deliveries e WHERE e.job <> '' AND e.channel = d.channel AND e.conversation = d.conversation
				AND e.state IN ('pending', 'sending', 'uncertain') AND (e.created < d.created OR (e.created = d.created AND e.id < d.id))))
			ORDER BY d.created, d.id`, ms(q.now()))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	return ids, err
}

// IsEcho reports whether messageID is the receipt of one of channel's deliveries from the
// last tombstone age (35 days): a message the brain sent itself, which reads and streams
// drop.
func (q *Queue) IsEcho(channel, messageID string) (bool, error) {
	var echo bool
	err := q.read(func(tx *sql.Tx) error {
		var err error
		echo, err = isEcho(tx, channel, messageID, q.now().Add(-q.opts.TombstoneAge))
		return err
	})
	return echo, err
}

func isEcho(tx *sql.Tx, channel, messageID string, since time.Time) (bool, error) {
	if messageID == "" {
		return false, nil
	}
	var n int
	err := tx.QueryRowContext(ctx, `SELECT count(*) FROM deliveries WHERE channel = ? AND receipt_id = ? AND state = 'delivered'
		AND finished >= ?`, channel, messageID, ms(since)).Scan(&n)
	return n > 0, err
}

func notFound(id string) error {
	return newError(ErrNotFound, "no job or delivery %s in the assistant queue; list them with bf queue", id)
}

func stateError(kind, id string, s State, doing string) error {
	switch s {
	case Delivered, Completed:
		return newError(ErrState, "%s %s is already %s; there is nothing to %s", kind, id, s, doing)
	case Cancelled:
		return newError(ErrState, "%s %s was cancelled; send or run it again under a new ID", kind, id)
	case Failed, Uncertain:
		return newError(ErrState, "%s %s is %s; retry or cancel it with bf queue %s", kind, id, s, id)
	}
	return newError(ErrState, "%s %s is %s; it cannot %s now", kind, id, s, doing)
}
