package assist

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/channel"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/messaging"
	"github.com/bfgo/bf/libbf/queue"
)

// streamMark names the checkpoint of a channel's stream input: the cursor of its last
// admitted message. streamSinceMark keeps the stream's first start, which never advances.
func streamMark(ch string) string      { return "stream:" + ch }
func streamSinceMark(ch string) string { return "stream-since:" + ch }

// Streams returns the channels that the enabled assistants of b (all, or those in only)
// read as stream inputs, each with its readers, by channel name.
func Streams(b *brain.Brain, only []string) map[string][]string {
	out := map[string][]string{}
	for _, name := range selected(b, only) {
		for _, in := range b.Config.Assistants[name].Inputs {
			if in.Mode == config.InputStream {
				out[in.Channel] = append(out[in.Channel], name)
			}
		}
	}
	for _, r := range out {
		sort.Strings(r)
	}
	return out
}

// Stream keeps channel ch's stream adapter running for the assistants in readers until
// ctx ends. Each message is admitted with one job per reader and the input's cursor in one
// queue transaction, and acknowledged only then. admitted is called after each admission
// that added jobs. The stream's current error is saved for bf status.
func (o Runner) Stream(ctx context.Context, b *brain.Brain, q *queue.Queue, state, ch string, readers []string, admitted func()) error {
	e, err := channel.Open(b, o.env().Home, ch)
	if err != nil {
		return err
	}
	since, err := streamSince(q, ch, o.now())
	if err != nil {
		return err
	}
	p, err := q.InputProgress(streamMark(ch))
	if err != nil {
		return err
	}
	var last string
	return e.Stream(ctx, channel.StreamOptions{
		Since:   since,
		Cursor:  p.Cursor,
		LockDir: state,
		Commit: func(_ context.Context, m channel.Message, cursor string) error {
			// The prompts are read for each message, so one created meanwhile answers
			// the redelivered message.
			jobs, err := o.messageJobs(b, ch, readers)
			if err != nil {
				return err
			}
			admit := queue.Message(m)
			admit.Cursor = cursor
			res, err := q.AdmitMessages(queue.Batch{Channel: ch, Input: streamMark(ch),
				Messages: []queue.Message{admit}, Done: queue.Progress{Position: m.Time, Cursor: cursor}, Jobs: jobs})
			if err != nil {
				return err
			}
			if len(res.Jobs) > 0 && admitted != nil {
				admitted()
			}
			return nil
		},
		State: func(s channel.StreamState) {
			msg := ""
			if s.Err != nil {
				msg = s.Err.Error()
			}
			if msg == last {
				return
			}
			last = msg
			var err error
			if msg != "" {
				err = errors.New(msg)
			}
			messaging.SaveInputError(state, ch, err, time.Now())
		},
	})
}

// streamSince is channel ch's first stream start, saved on the first run at now. The queue
// keeps whole milliseconds, so now is cut to them before it is used: every run, the first
// included, then resumes from the same instant.
func streamSince(q *queue.Queue, ch string, now time.Time) (time.Time, error) {
	since, err := q.InputProgress(streamSinceMark(ch))
	if err != nil {
		return time.Time{}, err
	}
	if since.Position.IsZero() {
		since.Position = now.UTC().Truncate(time.Millisecond)
		if err := q.Mark(queue.Mark{Name: streamSinceMark(ch), Progress: since}); err != nil {
			return time.Time{}, err
		}
	}
	return since.Position, nil
}
