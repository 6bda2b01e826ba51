package channel

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/proc"
)

// readError is a read whose output is not a complete batch. Its message reads
// "channel NAME: read must return a complete JSON messages batch: FIELD: REASON".
type readError struct {
	Channel string
	Err     *fieldError
}

func (e *readError) Error() string {
	return fmt.Sprintf("channel %s: read must return a complete JSON messages batch: %v", e.Channel, e.Err)
}

func (e *readError) Unwrap() error { return e.Err }

// Read runs the channel's read command over [start, end) ({{start}} and {{end}} in its
// argv) and returns the whole batch, oldest first. It changes nothing: admitting the
// messages and moving a checkpoint are the caller's. Failures are the command's own (a
// *proc.Error wrapped with the channel's name), a *readError, or errTooMany.
func (e *Endpoint) Read(ctx context.Context, start, end time.Time) ([]Message, error) {
	c, err := e.capability(config.OpRead)
	if err != nil {
		return nil, err
	}
	start, end = start.UTC().Truncate(time.Microsecond), end.UTC().Truncate(time.Microsecond)
	if !start.Before(end) {
		return nil, &kindError{kind: ErrWindow, msg: fmt.Sprintf("channel %s: the read window must end after it starts", e.Name)}
	}
	res, err := proc.Run(ctx, e.spec(config.OpRead, c, proc.Vars{Start: start, End: end}))
	if err != nil {
		return nil, fmt.Errorf("channel %s: %w", e.Name, err)
	}
	msgs, err := parseBatch(res.Stdout, start, end)
	var fe *fieldError
	switch {
	case errors.Is(err, errTooMany):
		return nil, &kindError{kind: errTooMany,
			msg: fmt.Sprintf("channel %s: the window holds more than %d messages; split it into smaller windows", e.Name, maxBatch)}
	case errors.As(err, &fe):
		return nil, &readError{Channel: e.Name, Err: fe}
	case err != nil:
		return nil, err
	}
	return msgs, nil
}
