package channel

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Settings of read inputs.
const (
	// ReadOverlap is how far a poll reaches back before its checkpoint, so messages a
	// provider indexes a little late are still seen; IDs deduplicate the repeats.
	ReadOverlap = 30 * time.Second
	// maxParts is the most parts one poll admits while catching up on a backlog.
	maxParts = 16
	// minPart is the shortest part; a second holding more than maxBatch messages cannot
	// be read in batches at all.
	minPart = time.Second
)

// errTooDense is more than maxBatch messages within one second of a read input's window.
var errTooDense = errors.New("more than 1000 messages within one second")

// ReadFunc reads one complete window [start, end); more messages than one batch holds is
// an error matching errTooMany. Endpoint.Read is one.
type ReadFunc func(ctx context.Context, start, end time.Time) ([]Message, error)

// AdmitFunc durably admits the messages of one part and moves the input's checkpoint to
// end, both at once. An error stops the poll; parts admitted before stay admitted.
type AdmitFunc func(ctx context.Context, msgs []Message, end time.Time) error

// Window is what one poll of a read input covers: from its checkpoint to End (now).
type Window struct {
	// Checkpoint is where the input's admitted messages end.
	Checkpoint time.Time
	// End is where this poll stops.
	End time.Time
	// Overlap reaches back before Checkpoint on a regular read (ReadOverlap for inputs).
	Overlap time.Duration
}

// PollResult says what a poll admitted.
type PollResult struct {
	// Parts counts admitted reads: 1 when the window fit at once, up to maxParts while
	// catching up.
	Parts int
	// Messages counts the messages handed to admit.
	Messages int
	// Checkpoint is where the input's checkpoint now stands.
	Checkpoint time.Time
	// Backlog says the checkpoint stopped before End: poll again soon (bf watch waits a second)
	// rather than after the input's usual interval.
	Backlog bool
}

// Poll reads window w of channel through read and hands each complete part to admit.
//
// A regular poll reads [Checkpoint-Overlap, End) at once. When that holds more than one
// batch, the poll catches up from the checkpoint without the overlap: it halves the part
// until it fits (never below minPart), admits it and moves the checkpoint to its end, then
// tries a part twice as long, never past End. It admits at most maxParts parts; halving
// does not count, being bounded by minPart. More than one batch within minPart fails with
// errTooDense, keeping every part admitted before.
func Poll(ctx context.Context, channel string, w Window, read ReadFunc, admit AdmitFunc) (PollResult, error) {
	cp := w.Checkpoint.UTC().Truncate(time.Microsecond)
	end := w.End.UTC().Truncate(time.Microsecond)
	res := PollResult{Checkpoint: cp}
	if !cp.Before(end) {
		return res, nil
	}
	msgs, err := read(ctx, cp.Add(-w.Overlap.Truncate(time.Microsecond)), end)
	switch {
	case err == nil:
		if err := admit(ctx, msgs, end); err != nil {
			return res, err
		}
		return PollResult{Parts: 1, Messages: len(msgs), Checkpoint: end}, nil
	case !errors.Is(err, errTooMany):
		return res, err
	}
	length := end.Sub(cp)
	for res.Parts < maxParts && cp.Before(end) {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		length = min(length, end.Sub(cp))
		partEnd := cp.Add(length)
		msgs, err := read(ctx, cp, partEnd)
		if errors.Is(err, errTooMany) {
			if length <= minPart {
				return res, &kindError{kind: errTooDense,
					msg: fmt.Sprintf("channel %s: more than %d messages fall within one second; read them with a stream input", channel, maxBatch)}
			}
			length = max((length / 2).Truncate(time.Microsecond), minPart)
			continue
		}
		if err != nil {
			return res, err
		}
		if err := admit(ctx, msgs, partEnd); err != nil {
			return res, err
		}
		res.Parts++
		res.Messages += len(msgs)
		res.Checkpoint, cp = partEnd, partEnd
		length *= 2
	}
	res.Backlog = cp.Before(end)
	return res, nil
}
