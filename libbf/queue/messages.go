package queue

import (
	"cmp"
	"database/sql"
	"errors"
	"slices"
	"time"
)

// Message is an admitted channel message envelope.
type Message struct {
	// ID identifies the message within its channel and stays the same when the provider
	// delivers it again.
	ID string
	// Sender is who wrote it, as the adapter admitted them.
	Sender string
	// Conversation is the thread it belongs to, scoped by the channel.
	Conversation string
	// Time is when it was written, in UTC.
	Time time.Time
	// Text is the message body; it may be empty (an attachment alone, say).
	Text string
	// ReplyTo is the ID of the message it answers, if any.
	ReplyTo string
	// Own marks the brain's own output: it joins its conversation but starts no job.
	Own bool
	// Cursor is a stream adapter's provider position after this message; opaque to bf.
	Cursor string
}

func (m Message) size() int64 {
	return int64(len(m.ID) + len(m.Sender) + len(m.Conversation) + len(m.Text) + len(m.ReplyTo) + len(m.Cursor))
}

// Progress is where an input continues: a read input's position and a stream adapter's
// opaque cursor.
type Progress struct {
	Position time.Time
	Cursor   string
}

// Batch is messages a read or stream input of one channel returned.
type Batch struct {
	Channel string
	// Input names the input whose progress the batch moves.
	Input    string
	Messages []Message
	// Done is the input's progress once every message is admitted (the end of a read's
	// window, the cursor of a stream frame).
	Done Progress
	// Jobs returns the jobs a new message starts, one per assistant that answers it. Its
	// IDs should derive from the message so a replay finds them.
	Jobs func(Message) []NewJob
}

// Admission reports what AdmitMessages did.
type Admission struct {
	// Admitted counts the messages now in the queue: new ones, and known IDs kept as
	// first admitted (a provider edit reusing an ID starts nothing).
	Admitted int
	// New counts the messages admitted by this call.
	New int
	// Echoes counts messages dropped as the receipts of the channel's own sends.
	Echoes int
	// Jobs are the IDs of the jobs admitted.
	Jobs []string
	// Progress is the input's progress after the call.
	Progress Progress
}

// AdmitMessages commits messages of a batch, the jobs they start and the input's progress
// in one transaction: whatever it returns is durable, so a stream may acknowledge the
// admitted messages. Messages are admitted oldest first; when the queue cannot take them
// all it admits the longest prefix that fits, moves the progress to the last admitted
// message and returns ErrFull with the Admission (nothing is admitted from a one-message
// batch, whose progress stays). Messages whose ID is one of the channel's send receipts of
// the last 35 days are dropped as echoes.
func (q *Queue) AdmitMessages(b Batch) (Admission, error) {
	if err := checkField("channel", b.Channel, true); err != nil {
		return Admission{}, err
	}
	if err := checkField("input", b.Input, true); err != nil {
		return Admission{}, err
	}
	msgs := slices.Clone(b.Messages)
	slices.SortStableFunc(msgs, func(x, y Message) int {
		return cmp.Or(x.Time.Compare(y.Time), cmp.Compare(x.ID, y.ID))
	})
	for _, m := range msgs {
		for _, f := range []struct{ name, v string }{{"id", m.ID}, {"sender", m.Sender}, {"conversation", m.Conversation}} {
			if err := checkField("messages."+f.name, f.v, true); err != nil {
				return Admission{}, err
			}
		}
		if err := checkField("messages.reply_to", m.ReplyTo, false); err != nil {
			return Admission{}, err
		}
	}
	var res Admission
	var refusal error
	err := q.write("admit messages to", func(tx *sql.Tx) error {
		res, refusal = Admission{}, nil
		now := q.now()
		if err := q.compact(tx, now); err != nil {
			return err
		}
		u, err := readUsage(tx)
		if err != nil {
			return err
		}
		since := now.Add(-q.opts.TombstoneAge)
		var last *Message
		for i := range msgs {
			m := &msgs[i]
			ok, err := q.admitMessage(tx, b, m, &u, since, now, &res)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			last = m
			res.Admitted++
		}
		switch {
		case res.Admitted == len(msgs):
			res.Progress = b.Done
		case len(msgs) == 1:
			refusal = fullError()
		default:
			refusal = partialError(res.Admitted, len(msgs))
		}
		if refusal != nil {
			p, err := loadProgress(tx, b.Input)
			if err != nil {
				return err
			}
			res.Progress = p
			if last == nil {
				return nil
			}
			res.Progress = Progress{Position: last.Time, Cursor: last.Cursor}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO inputs (name, position, cursor, updated) VALUES (?, ?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET position = excluded.position, cursor = excluded.cursor, updated = excluded.updated`,
			b.Input, ms(res.Progress.Position), res.Progress.Cursor, ms(now))
		if err != nil {
			return err
		}
		// The conversation cache keeps its cap once the new messages are in.
		return q.compact(tx, now)
	})
	if err != nil {
		return Admission{}, err
	}
	return res, refusal
}

// admitMessage admits one message and its jobs, charging u. It reports false, changing
// nothing, when they do not fit.
func (q *Queue) admitMessage(tx *sql.Tx, b Batch, m *Message, u *usage, since, now time.Time, res *Admission) (bool, error) {
	var known int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM messages WHERE channel = ? AND id = ?", b.Channel, m.ID).Scan(&known); err != nil {
		return false, err
	}
	if known > 0 {
		return true, nil
	}
	echo, err := isEcho(tx, b.Channel, m.ID, since)
	if err != nil {
		return false, err
	}
	if echo {
		res.Echoes++
		return true, nil
	}
	var jobs []NewJob
	if b.Jobs != nil && !m.Own {
		jobs = b.Jobs(*m)
	}
	size, obligations := m.size(), 0
	for i := range jobs {
		if err := jobs[i].check(); err != nil {
			return false, err
		}
		size += jobs[i].size(jobs[i].encodedRoutes())
		obligations += 1 + len(jobs[i].Routes)
	}
	if !u.fits(q.opts, obligations, size) {
		return false, nil
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO messages (channel, id, input, conversation, sender, reply_to, time, own, text, held, admitted)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, b.Channel, m.ID, b.Input, m.Conversation, m.Sender, m.ReplyTo, ms(m.Time), m.Own,
		m.Text, m.size(), ms(now))
	if err != nil {
		return false, err
	}
	u.stored += m.size()
	u.file += 2 * m.size()
	for _, j := range jobs {
		// insertJob charges u itself; the check above made sure the whole message fits.
		added, err := q.insertJob(tx, j, u, now)
		if err != nil {
			return false, err
		}
		if added {
			res.Jobs = append(res.Jobs, j.ID)
		}
	}
	res.New++
	return true, nil
}

// InputProgress returns where input continues; the zero Progress for a new input.
func (q *Queue) InputProgress(input string) (Progress, error) {
	var p Progress
	err := q.read(func(tx *sql.Tx) error {
		var err error
		p, err = loadProgress(tx, input)
		return err
	})
	return p, err
}

func loadProgress(tx *sql.Tx, input string) (Progress, error) {
	var pos int64
	var p Progress
	err := tx.QueryRowContext(ctx, "SELECT position, cursor FROM inputs WHERE name = ?", input).Scan(&pos, &p.Cursor)
	if errors.Is(err, sql.ErrNoRows) {
		return Progress{}, nil
	}
	if err != nil {
		return Progress{}, err
	}
	p.Position = fromMS(pos)
	return p, nil
}
