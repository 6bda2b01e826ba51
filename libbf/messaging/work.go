package messaging

import (
	"context"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/channel"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/queue"
)

// OpenQueue opens b's queue, creating it when needed, for a worker that runs the brain's
// programs (bf run, bf watch): it needs collection trust, adopts a renumbered state folder,
// rolls back an interrupted write and records every attempt whose process died. It returns
// the queue and the brain's state folder; the caller closes the queue.
func (o Messenger) OpenQueue(b *brain.Brain) (*queue.Queue, string, error) {
	op, err := o.openQueue(b, create, true, true)
	if err != nil {
		return nil, "", err
	}
	return op.q, op.state, nil
}

// Deliver attempts pending delivery id of q once, through the channel's send as bf.yaml
// declares it now, and records how the attempt ended. A delivery whose channel or send was
// removed or changed sends nothing and becomes uncertain. The error is nil when the
// attempt was recorded, whatever its outcome; the returned reply tells it.
func (o Messenger) Deliver(ctx context.Context, b *brain.Brain, q *queue.Queue, id string) (*SendReply, error) {
	d, err := q.Get(id)
	if err != nil {
		return nil, err
	}
	var e *channel.Endpoint
	var c *config.Capability
	if ep, err := channel.Open(b, o.env().Home, d.Channel); err == nil {
		e, c = ep, ep.Config.Capability(config.OpSend)
	}
	r, err := o.attempt(ctx, q, e, c, id, false)
	if _, nd := err.(*notDeliveredError); nd {
		err = nil
	}
	return r, err
}
