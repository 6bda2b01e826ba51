package queue

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// NewJob is assistant work to admit: answering a message, a due schedule or wake, or a
// manual run. The runner that executes jobs lives elsewhere; the queue keeps their state.
type NewJob struct {
	// ID is the job's identity; admitting an ID that exists returns the saved job. An
	// empty ID gets a generated one.
	ID        string
	Assistant string
	// Kind is the run kind: schedule, message, wake or run.
	Kind string
	// Channel and Conversation are the conversation a message job answers.
	Channel, Conversation string
	Schedule              string
	// Input is the private input of the run (the messages it answers, piped stdin…).
	Input []byte
	// Config is the snapshot of the assistant's prompt, harness and output settings,
	// compared byte for byte with the current ones when a worker starts the job.
	Config []byte
	// MaxBytes is the harness output cap: the most an answer may hold.
	MaxBytes int64
	// Routes are where the answer goes, one delivery each; none for a run that only
	// records its answer.
	Routes []Route
}

func (j NewJob) encodedRoutes() []byte {
	routes := j.Routes
	if routes == nil {
		routes = []Route{}
	}
	enc, _ := json.Marshal(routes) // strings and bools always encode
	return enc
}

// size is the bytes admission stores for the job; routes is encodedRoutes().
func (j NewJob) size(routes []byte) int64 {
	return int64(len(j.Input) + len(j.Config) + len(routes) + len(j.ID) + len(j.Assistant) + len(j.Kind) +
		len(j.Channel) + len(j.Conversation) + len(j.Schedule))
}

func (j *NewJob) check() error {
	if j.ID == "" {
		j.ID = newID("j-")
	}
	for _, f := range []struct {
		name, v  string
		required bool
	}{{"job ID", j.ID, true}, {"assistant", j.Assistant, true}, {"kind", j.Kind, true}, {"channel", j.Channel, false},
		{"conversation", j.Conversation, false}, {"schedule", j.Schedule, false}} {
		if err := checkField(f.name, f.v, f.required); err != nil {
			return err
		}
	}
	if j.MaxBytes <= 0 {
		return newError(errInvalid, "assistant %s: max_bytes must be positive; set the harness output cap", j.Assistant)
	}
	for i, r := range j.Routes {
		if err := checkField(fmt.Sprintf("routes.%d.channel", i), r.Channel, true); err != nil {
			return err
		}
		if len(r.Send.Command) == 0 {
			return newError(errInvalid, "channel %s: has no send command; declare send before posting to it", r.Channel)
		}
	}
	return nil
}

// AdmitJob saves a job as pending. Admitting an existing ID returns the saved job
// (admitted false) unchanged.
func (q *Queue) AdmitJob(j NewJob) (Item, bool, error) {
	return q.AdmitJobMarked(j)
}

// insertJob admits j unless its ID exists. u, when not nil, is the usage to charge
// (batch admission keeps a running total); otherwise it is read.
func (q *Queue) insertJob(tx *sql.Tx, j NewJob, u *usage, now time.Time) (bool, error) {
	if taken, err := exists(tx, "jobs", j.ID); err != nil || taken {
		return false, err
	}
	if taken, err := exists(tx, "deliveries", j.ID); err != nil || taken {
		if taken {
			return false, newError(ErrConflict, "job ID %s already names a delivery; choose another job ID", j.ID)
		}
		return false, err
	}
	enc := j.encodedRoutes()
	size := j.size(enc)
	routes := j.Routes
	if u == nil {
		cur, err := readUsage(tx)
		if err != nil {
			return false, err
		}
		u = &cur
	}
	if !u.fits(q.opts, 1+len(routes), size) {
		return false, fullError()
	}
	u.obligations += 1 + len(routes)
	u.stored += size
	u.file += 2 * size
	input := j.Input
	if input == nil {
		input = []byte{}
	}
	config := j.Config
	if config == nil {
		config = []byte{}
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO jobs (id, assistant, kind, channel, conversation, schedule, state, error, config,
		routes, route_count, max_bytes, input, answer, answer_bytes, size, held, reserved, attempts, created, updated)
		VALUES (?, ?, ?, ?, ?, ?, 'pending', '', ?, ?, ?, ?, ?, NULL, 0, ?, ?, 0, 0, ?, ?)`,
		j.ID, j.Assistant, j.Kind, j.Channel, j.Conversation, j.Schedule, config, string(enc), len(routes), j.MaxBytes,
		input, size, size, ms(now), ms(now))
	return err == nil, err
}

// JobConfig is an assistant's configuration now, compared with a job's snapshot when a
// worker starts it.
type JobConfig struct {
	// Assistant is the snapshot of the assistant's prompt, harness and output settings,
	// built the same way as NewJob.Config.
	Assistant []byte
	// Channels holds each channel's send capability now; a missing channel was removed.
	Channels map[string]Send
}

// job is the part of a jobs row the state machine works on.
type job struct {
	ID, Assistant string
	State         State
	Config        []byte
	Routes        []Route
	MaxBytes      int64
	Size          int64
	AnswerBytes   int64
	HasAnswer     bool
}

func loadJob(tx *sql.Tx, id string) (*job, error) {
	var j job
	var routes string
	err := tx.QueryRowContext(ctx, `SELECT id, assistant, state, config, routes, max_bytes, size, answer_bytes, answer IS NOT NULL
		FROM jobs WHERE id = ?`, id).Scan(&j.ID, &j.Assistant, &j.State, &j.Config, &routes, &j.MaxBytes, &j.Size, &j.AnswerBytes, &j.HasAnswer)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(routes), &j.Routes); err != nil {
		return nil, fmt.Errorf("job %s: unreadable routes: %w", id, err)
	}
	return &j, nil
}

// Run is one running harness attempt of a job, owned by this process until it answers,
// fails or is interrupted.
type Run struct {
	q     *Queue
	token string
	n     int
	job   Detail
	marks []Mark // saved with the answer (AnswerMarked)
}

// Job is the job being run, with its private input.
func (r *Run) Job() Detail { return r.job }

// StartJob records that this process starts a harness attempt of pending job id and
// reserves its answer space. It refuses, leaving the job pending, when the space is not
// free yet (ErrNoAnswerSpace: it waits until running work finishes). A job whose
// assistant or output channels changed since admission becomes failed (ErrConfigChanged),
// and so does one needing more answer space than any job may reserve.
func (q *Queue) StartJob(id string, cur JobConfig) (*Run, error) {
	var run *Run
	err := q.write("start a job in", func(tx *sql.Tx) error {
		now := q.now()
		j, refuse, err := loadForAttempt(q, tx, id, now, loadJob, func(j *job) bool { return j.State == Running })
		if err != nil {
			return err
		}
		if j.State != Pending {
			return refuse(stateError("job", id, j.State, "start"))
		}
		fail := func(kind error, msg string) error {
			if _, err := tx.ExecContext(ctx, "UPDATE jobs SET state = 'failed', error = ?, updated = ? WHERE id = ?", msg, ms(now), id); err != nil {
				return err
			}
			return commitAnyway{newError(kind, "%s", msg)}
		}
		if !bytes.Equal(j.Config, cur.Assistant) {
			return fail(ErrConfigChanged, msgAssistantChanged)
		}
		for _, r := range j.Routes {
			if s, ok := cur.Channels[r.Channel]; !ok || !s.equal(r.Send) {
				return fail(ErrConfigChanged, msgOutputChanged)
			}
		}
		need := AnswerSpace(j.MaxBytes, j.Size, len(j.Routes))
		if need > q.opts.AdmitBytes {
			return fail(ErrNoAnswerSpace, tooBigError(j.Assistant, need).Error())
		}
		u, err := readUsage(tx)
		if err != nil {
			return err
		}
		if !u.canReserve(q.opts, need) {
			return refuse(newError(ErrNoAnswerSpace, "%s", msgNoAnswerSpace))
		}
		if _, err := tx.ExecContext(ctx, "UPDATE jobs SET state = 'running', error = '', reserved = ?, attempts = attempts + 1, updated = ? WHERE id = ?",
			need, ms(now), id); err != nil {
			return err
		}
		n, token, detail, err := leaseAttempt(tx, id, now, "run leased")
		if err != nil {
			return err
		}
		run = &Run{q: q, token: token, n: n, job: detail}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return run, nil
}

// Answer saves the harness's answer. An empty answer, or one with no route, completes the
// job; otherwise it becomes answered with one pending delivery per route, named
// JOB.1, JOB.2…, and keeps the answer's space reserved until they are resolved.
func (r *Run) Answer(answer []byte) (Item, error) {
	id := r.job.ID
	if int64(len(answer)) > r.job.MaxBytes {
		return Item{}, newError(errInvalid, "job %s: the answer holds %d bytes, more than its max_bytes %d; fail the attempt instead", id, len(answer), r.job.MaxBytes)
	}
	return r.end("record an answer in", func(tx *sql.Tx, j *job, now time.Time) (string, string, error) {
		if err := setMarks(tx, r.marks, now); err != nil {
			return "", "", err
		}
		held := j.Size + int64(len(answer))
		if len(answer) == 0 || len(j.Routes) == 0 {
			_, err := tx.ExecContext(ctx, `UPDATE jobs SET state = 'completed', error = '', answer = ?, answer_bytes = ?, held = ?,
				reserved = 0, updated = ?, finished = ? WHERE id = ?`, answer, len(answer), held, ms(now), ms(now), id)
			return "answered", "", err
		}
		_, err := tx.ExecContext(ctx, `UPDATE jobs SET state = 'answered', error = '', answer = ?, answer_bytes = ?, held = ?,
			reserved = ?, updated = ? WHERE id = ?`, answer, len(answer), held, AnswerSpace(int64(len(answer)), j.Size, len(j.Routes)), ms(now), id)
		if err != nil {
			return "", "", err
		}
		for i, rt := range j.Routes {
			did := id + "." + strconv.Itoa(i+1)
			size := int64(len(answer) + len(did) + len(rt.Channel) + len(rt.Conversation) + len(rt.ReplyTo))
			if err := insertDelivery(tx, did, id, rt.Channel, rt.Conversation, rt.ReplyTo, answer, rt.Send, size, now); err != nil {
				return "", "", err
			}
		}
		return "answered", "", nil
	})
}

// Fail records a failed harness attempt (non-zero exit, timeout, invalid reply, a harness
// that never started). reason is bf's own sentence naming the log, never harness output.
// The job waits for the user.
func (r *Run) Fail(reason string) (Item, error) {
	if reason == "" {
		return Item{}, newError(errInvalid, "job %s: a failed attempt needs a reason; say what failed", r.job.ID)
	}
	return r.end("record a failed attempt in", func(tx *sql.Tx, j *job, now time.Time) (string, string, error) {
		_, err := tx.ExecContext(ctx, "UPDATE jobs SET state = 'failed', error = ?, reserved = 0, updated = ? WHERE id = ?", reason, ms(now), j.ID)
		return outFailed, reason, err
	})
}

// Interrupt records an attempt stopped by Ctrl-C or SIGTERM: the harness may have acted,
// so the job becomes uncertain.
func (r *Run) Interrupt() (Item, error) {
	return r.end("record an interrupted attempt in", func(tx *sql.Tx, j *job, now time.Time) (string, string, error) {
		_, err := tx.ExecContext(ctx, "UPDATE jobs SET state = 'uncertain', error = ?, reserved = 0, updated = ? WHERE id = ?", msgInterruptedRun, ms(now), j.ID)
		return outInterrupted, "interrupted harness attempt", err
	})
}

func (r *Run) end(doing string, apply func(tx *sql.Tx, j *job, now time.Time) (string, string, error)) (Item, error) {
	id := r.job.ID
	var item Item
	err := r.q.write(doing, func(tx *sql.Tx) error {
		now := r.q.now()
		l, err := leaseOf(tx, id)
		if err != nil {
			return err
		}
		j, err := loadJob(tx, id)
		if err != nil {
			return err
		}
		if l == nil || l.Token != r.token || j == nil || j.State != Running {
			state := State("removed")
			if j != nil {
				state = j.State
			}
			return newError(ErrState, "job %s: this attempt was already recorded and the job is %s; see bf queue %s", id, state, id)
		}
		outcome, reason, err := apply(tx, j, now)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE attempts SET ended = ?, outcome = ?, error = ? WHERE work = ? AND n = ?",
			ms(now), outcome, reason, id, l.N); err != nil {
			return err
		}
		if err := dropLease(tx, id); err != nil {
			return err
		}
		crashPoint("run settled")
		if err := r.q.compact(tx, now); err != nil {
			return err
		}
		item, err = loadItem(tx, id)
		return err
	})
	return item, err
}

// settleJob completes an answered job once none of its deliveries is unresolved, and
// releases its answer space.
func settleJob(tx *sql.Tx, id string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `UPDATE jobs SET state = 'completed', reserved = 0, updated = ?, finished = ?
		WHERE id = ? AND state = 'answered' AND NOT EXISTS (
			SELECT 1 FROM deliveries WHERE job = ? AND state IN `+unresolvedDeliveries+`)`, ms(now), ms(now), id, id)
	return err
}
