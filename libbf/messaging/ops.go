package messaging

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unicode"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/channel"
	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/reply"
)

// List is bf queue.
func List(ctx context.Context, b *brain.Brain) (*ListReply, error) { return Messenger{}.List(ctx, b) }

// Get is bf queue ID.
func Get(ctx context.Context, b *brain.Brain, id string) (*Detail, error) {
	return Messenger{}.Get(ctx, b, id)
}

// Retry is bf queue ID --retry.
func Retry(ctx context.Context, b *brain.Brain, id string) (*Retried, error) {
	return Messenger{}.Retry(ctx, b, id)
}

// Cancel is bf queue ID --cancel.
func Cancel(ctx context.Context, b *brain.Brain, id string) (*Item, error) {
	return Messenger{}.Cancel(ctx, b, id)
}

// List returns every job and delivery of b's queue, oldest first, without bodies. It
// rolls back an interrupted write and rebinds a moved brain, but records no interrupted
// attempt: one whose process was killed shows as sending or running. A brain without a
// queue has an empty list, and nothing is created.
func (o Messenger) List(ctx context.Context, b *brain.Brain) (*ListReply, error) {
	op, err := o.openQueue(b, existing, false, false)
	if err != nil {
		return nil, err
	}
	defer op.close()
	out := &ListReply{Items: []Item{}}
	if op.q == nil {
		return out, nil
	}
	items, err := op.q.List()
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		out.Items = append(out.Items, o.item(it))
	}
	return out, nil
}

// Get opens job or delivery id explicitly, with its private bodies and attempts.
func (o Messenger) Get(ctx context.Context, b *brain.Brain, id string) (*Detail, error) {
	return onWork(o, b, id, false, (*queue.Queue).Get, o.detail)
}

// Retried is what a retry did: the delivery's new attempt or the job made pending again,
// exactly one of them. It prints as the one it holds.
type Retried struct {
	Delivery *SendReply
	Job      *Item
}

// MarshalJSON prints the delivery's reply or the job's item.
func (r Retried) MarshalJSON() ([]byte, error) {
	if r.Delivery != nil {
		return reply.Marshal(r.Delivery)
	}
	return reply.Marshal(r.Job)
}

// Retry retries job or delivery id. A delivery (pending, failed or uncertain) starts its
// attempts over and is attempted at once, which needs collection trust; its reply comes
// with a *notDeliveredError when it did not arrive. A job becomes pending again, or
// resumes its saved answer, for a worker to run. An attempt still running in a live
// process is refused. The reply is nil beside an error that left nothing to report.
func (o Messenger) Retry(ctx context.Context, b *brain.Brain, id string) (*Retried, error) {
	op, err := o.openWork(b, id, true)
	if err != nil {
		return nil, err
	}
	defer op.close()
	d, err := op.q.Get(id)
	if err != nil {
		return nil, err
	}
	if d.Type == "delivery" && b.ConfigErr != nil {
		return nil, fmt.Errorf("%w; retrying a delivery runs its channel's send command: fix bf.yaml first", b.ConfigErr)
	}
	if d.Type != "delivery" {
		it, err := op.q.Retry(id)
		if err != nil {
			return nil, err
		}
		out := o.item(it)
		return &Retried{Job: &out}, nil
	}
	if err := o.env().RequireTrust(b.Root, collect.ErrUntrusted); err != nil {
		return nil, err
	}
	// A channel removed, or its send, leaves no capability: the attempt then sends
	// nothing and the delivery becomes uncertain.
	var e *channel.Endpoint
	var c *config.Capability
	if ep, err := channel.Open(b, o.env().Home, d.Channel); err == nil {
		e, c = ep, ep.Config.Capability(config.OpSend)
	}
	if _, err := op.q.Retry(id); err != nil {
		return nil, err
	}
	r, err := o.attempt(ctx, op.q, e, c, id, false)
	if r == nil {
		return nil, err
	}
	return &Retried{Delivery: r}, err
}

// Cancel cancels job or delivery id: it keeps its identity and no longer holds later
// work. An attempt still running in a live process is refused.
func (o Messenger) Cancel(ctx context.Context, b *brain.Brain, id string) (*Item, error) {
	return onWork(o, b, id, true, (*queue.Queue).Cancel, o.item)
}

// onWork runs call on job or delivery id in b's queue, opened as openWork does, and
// returns its answer as answer words it.
func onWork[T, R any](o Messenger, b *brain.Brain, id string, record bool, call func(*queue.Queue, string) (T, error), answer func(T) R) (*R, error) {
	op, err := o.openWork(b, id, record)
	if err != nil {
		return nil, err
	}
	defer op.close()
	v, err := call(op.q, id)
	if err != nil {
		return nil, err
	}
	out := answer(v)
	return &out, nil
}

// openWork opens b's existing queue for a command on job or delivery id: an invalid id is
// refused as input, and a brain with no queue yet holds no such id. record is openQueue's:
// whether the attempts of dead processes are recorded first (commands that change the
// work record them; reading it does not).
func (o Messenger) openWork(b *brain.Brain, id string, record bool) (*opened, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	op, err := o.openQueue(b, existing, false, record)
	if err != nil {
		return nil, err
	}
	if op.q == nil {
		op.close()
		return nil, notFound(id)
	}
	return op, nil
}

// checkID refuses an ID no job or delivery can have as invalid input.
func checkID(id string) error {
	if id == "" {
		return &reply.InputError{Argument: "ID", Err: errors.New("must not be empty; list the IDs with bf queue")}
	}
	for _, r := range id {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return &reply.InputError{Argument: "ID", Err: errors.New("holds a control or format character; list the IDs with bf queue")}
		}
	}
	return nil
}

func notFound(id string) error {
	return &queue.Error{Kind: queue.ErrNotFound, Msg: fmt.Sprintf("no job or delivery %s in the assistant queue; list them with bf queue", id)}
}

// TakeoverReply is bf queue --adopt: the brain the queue was bound to before, and the
// work it now holds for this brain.
type TakeoverReply struct {
	Items    []Item        `json:"items"`
	Previous queue.Binding `json:"previous"`
}

// Takeover is bf queue --adopt.
func Takeover(ctx context.Context, b *brain.Brain) (*TakeoverReply, error) {
	return Messenger{}.Takeover(ctx, b)
}

// Takeover rebinds b's queue to b although it holds unresolved work admitted under
// another path, once that path is gone: the brain there was moved here, or deleted and b
// is a new brain on its inode. The work is listed so it can be retried or cancelled; it
// runs only while its configuration snapshot still matches b's. A brain without a queue
// has nothing to take over, and nothing is created.
func (o Messenger) Takeover(ctx context.Context, b *brain.Brain) (*TakeoverReply, error) {
	bind, dir, err := o.adopt(b)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(filepath.Join(dir, queue.FileName)); errors.Is(err, fs.ErrNotExist) {
		return nil, &queue.Error{Kind: queue.ErrNotFound, Msg: "this brain has no assistant queue; there is nothing to take over"}
	}
	q, prev, err := queue.Takeover(dir, bind, o.Queue)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	items, err := q.List()
	if err != nil {
		return nil, err
	}
	out := &TakeoverReply{Previous: prev, Items: []Item{}}
	for _, it := range items {
		out.Items = append(out.Items, o.item(it))
	}
	return out, nil
}

// Filter selects unresolved work for a bulk cancel: every field given must match.
type Filter struct {
	Assistant string
	Channel   string
	State     queue.State
}

func (f Filter) empty() bool { return f == Filter{} }

func (f Filter) matches(it queue.Item) bool {
	return !it.State.Resolved() && (f.Assistant == "" || it.Assistant == f.Assistant) &&
		(f.Channel == "" || it.Channel == f.Channel) && (f.State == "" || it.State == f.State)
}

// CancelAllReply is bf queue --cancel FILTERS: how many unresolved items match, and, once
// confirmed, those cancelled and those skipped (still being attempted, or resolved
// meanwhile).
type CancelAllReply struct {
	Cancelled []string `json:"cancelled"`
	Matched   int      `json:"matched"`
	Skipped   []string `json:"skipped"`
}

// CancelAll is bf queue --cancel with filters.
func CancelAll(ctx context.Context, b *brain.Brain, f Filter, confirm int) (*CancelAllReply, error) {
	return Messenger{}.CancelAll(ctx, b, f, confirm)
}

// CancelAll cancels every unresolved job and delivery f matches, in one commit. With
// confirm < 0 it only counts them; otherwise confirm must equal that count, so work
// admitted or resolved since the count is never cancelled unseen.
func (o Messenger) CancelAll(ctx context.Context, b *brain.Brain, f Filter, confirm int) (*CancelAllReply, error) {
	if f.empty() {
		return nil, &reply.InputError{Argument: "--cancel", Err: errors.New("without an ID needs --assistant, --channel or --state to select the work")}
	}
	switch f.State {
	case "", queue.Pending, queue.Running, queue.Answered, queue.Sending, queue.Failed, queue.Uncertain:
	default:
		return nil, &reply.InputError{Argument: "--state", Err: fmt.Errorf("%s is not an unresolved state; use pending, running, answered, sending, failed or uncertain", f.State)}
	}
	op, err := o.openQueue(b, existing, false, confirm >= 0)
	if err != nil {
		return nil, err
	}
	defer op.close()
	out := &CancelAllReply{Cancelled: []string{}, Skipped: []string{}}
	if op.q == nil {
		return out, nil
	}
	items, err := op.q.List()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, it := range items {
		if f.matches(it) {
			ids = append(ids, it.ID)
		}
	}
	out.Matched = len(ids)
	if confirm < 0 {
		return out, nil
	}
	if confirm != len(ids) {
		return nil, &queue.Error{Kind: queue.ErrState, Msg: fmt.Sprintf(
			"%d items match now, not the %d confirmed; count them again without --confirm, then confirm that number", len(ids), confirm)}
	}
	res, err := op.q.CancelAll(ids)
	if err != nil {
		return nil, err
	}
	out.Cancelled, out.Skipped = res.Cancelled, res.Skipped
	return out, nil
}
