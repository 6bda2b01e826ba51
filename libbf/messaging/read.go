package messaging

import (
	"context"
	"errors"
	"io"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/channel"
	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/reply"
)

// Read is bf channel read NAME --since T --until T.
func Read(ctx context.Context, b *brain.Brain, name, since, until string) (*ReadReply, error) {
	return Messenger{}.Read(ctx, b, name, since, until)
}

// Read runs channel name's read over [since, until) and returns its complete batch,
// oldest first. since is required; until defaults to now; both take collect.ParseTime's
// forms. Messages whose ID is one of the channel's recent send receipts are dropped as
// echoes and counted. Nothing is admitted, no assistant starts and no checkpoint moves.
func (o Messenger) Read(ctx context.Context, b *brain.Brain, name, since, until string) (*ReadReply, error) {
	e, _, err := o.endpoint(b, name, config.OpRead)
	if err != nil {
		return nil, err
	}
	now, loc := o.now(), o.loc()
	if since == "" {
		return nil, &reply.InputError{Argument: "since", Err: errors.New("required; pass the window's start, such as --since 24h or an ISO 8601 time")}
	}
	start, err := collect.ParseTime(since, now, loc)
	if err != nil {
		return nil, &reply.InputError{Argument: "since", Err: err}
	}
	end := now
	if until != "" {
		if end, err = collect.ParseTime(until, now, loc); err != nil {
			return nil, &reply.InputError{Argument: "until", Err: err}
		}
	}
	if !start.Before(end) {
		return nil, &reply.InputError{Argument: "since", Err: errors.New("the window must start before it ends; pass an earlier --since or a later --until")}
	}
	op, err := o.openQueue(b, existing, true, true)
	if err != nil {
		return nil, err
	}
	defer op.close()
	msgs, err := e.Read(ctx, start, end)
	if errors.Is(err, channel.ErrWindow) {
		return nil, &reply.InputError{Argument: "since", Err: errors.New("the window must start before it ends; pass an earlier --since or a later --until")}
	}
	if err != nil {
		return nil, err
	}
	echoes := 0
	if op.q != nil {
		if msgs, echoes, err = channel.DropEchoes(op.q, name, msgs); err != nil {
			return nil, err
		}
	}
	if msgs == nil {
		msgs = []channel.Message{}
	}
	return &ReadReply{Channel: name, Echoes: echoes, Messages: msgs, Notice: reply.Notice,
		Since: o.instant(start), Until: o.instant(end)}, nil
}

// Stream runs channel name's stream in the foreground until ctx ends, to test an adapter
// by hand. It starts at the current time with an empty cursor, under the same supervision
// as an assistant's stream (restarts with backoff, the stream lock of the brain, echoes of
// the brain's own sends acknowledged unseen), and writes every other message to out as
// one canonical JSON line, acknowledging it once written. Nothing is admitted and no
// cursor is kept. report, when not nil, receives each new stream error (a failed adapter,
// an invalid frame) as it happens. Stream runs until ctx ends and returns its error, or
// fails when out cannot be written.
func (o Messenger) Stream(ctx context.Context, b *brain.Brain, name string, out io.Writer, report func(error)) error {
	e, _, err := o.endpoint(b, name, config.OpStream)
	if err != nil {
		return err
	}
	op, err := o.openQueue(b, existing, true, true)
	if err != nil {
		return err
	}
	defer op.close()
	dir := op.state
	if dir == "" {
		if dir, err = o.stateDir(b); err != nil {
			return err
		}
	}
	outer := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var werr error
	opts := channel.StreamOptions{
		LockDir: dir,
		Commit: func(_ context.Context, m channel.Message, _ string) error {
			if _, err := out.Write(append(m.Canonical(), '\n')); err != nil {
				werr = err
				cancel()
				return err
			}
			return nil
		},
	}
	if op.q != nil {
		opts.Receipts = op.q
	}
	if report != nil {
		var last error
		opts.State = func(s channel.StreamState) {
			if s.Err != nil && s.Err != last {
				report(s.Err)
			}
			last = s.Err
		}
	}
	if err := e.Stream(ctx, opts); err != nil {
		return err
	}
	if werr != nil {
		return errors.New("cannot write the stream's messages to stdout: " + werr.Error())
	}
	return outer.Err()
}
