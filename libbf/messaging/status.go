package messaging

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/reply"
)

// StatusBlock is the messaging block of bf status: each channel, the queue and what
// keeps them from being healthy.
type StatusBlock struct {
	// Channels holds every declared channel, and every channel the queue still holds
	// deliveries of.
	Channels map[string]ChannelStatus `json:"channels"`
	// Healthy is false while a delivery or a job is failed or uncertain, or the queue
	// has a problem.
	Healthy bool `json:"healthy"`
	// Problems are what keeps the queue from being read or used: an interrupted write, a
	// refused format, unresolved work bound to the brain's previous path or name.
	Problems []reply.Problem `json:"problems"`
	// Queue summarises the queue; absent when the brain has none or it cannot be read.
	Queue *QueueStatus `json:"queue,omitempty"`

	disabled map[string]bool // assistants bf.yaml disables
}

// UnresolvedByChannel counts each channel's failed and uncertain deliveries, so bf status
// attention can name the channels that need a look.
func (b *StatusBlock) UnresolvedByChannel() map[string]int {
	out := make(map[string]int, len(b.Channels))
	for name, ch := range b.Channels {
		out[name] = len(ch.Unresolved)
	}
	return out
}

// FailingChannels names the channels with a current read or stream error, so bf status
// attention marks them failed whether or not they hold unresolved deliveries.
func (b *StatusBlock) FailingChannels() map[string]bool {
	out := map[string]bool{}
	for name, ch := range b.Channels {
		if ch.Error != nil {
			out[name] = true
		}
	}
	return out
}

// UnresolvedByAssistant counts each assistant's failed and uncertain jobs, so bf status
// attention can name the assistants that need a look. A disabled assistant's work stays
// listed in bf queue without failing it.
func (b *StatusBlock) UnresolvedByAssistant() map[string]int {
	out := map[string]int{}
	if b.Queue == nil {
		return out
	}
	for _, e := range b.Queue.Attention {
		if e.Type == "job" && !b.disabled[e.Assistant] {
			out[e.Assistant]++
		}
	}
	return out
}

// ChannelStatus is one channel in bf status.
type ChannelStatus struct {
	// Capabilities are the declared operations, in the order send, read, stream; empty
	// for a channel no longer declared.
	Capabilities []string `json:"capabilities"`
	// Deliveries counts the channel's deliveries by state.
	Deliveries map[queue.State]int `json:"deliveries"`
	// Error is the channel's current read or stream error, until one succeeds again; it
	// keeps bf status --check failing.
	Error *InputError `json:"error,omitempty"`
	// Unresolved lists its failed and uncertain deliveries, oldest first: each keeps
	// bf status --check failing until retried or cancelled with bf queue.
	Unresolved []Entry `json:"unresolved"`
}

// QueueStatus summarises the queue.
type QueueStatus struct {
	// Attention lists failed and uncertain work, jobs and deliveries, oldest first.
	Attention  []Entry             `json:"attention"`
	Deliveries map[queue.State]int `json:"deliveries"`
	InFlight   []Entry             `json:"in_flight"`
	Jobs       map[queue.State]int `json:"jobs"`
	Oldest     *Entry              `json:"oldest_unresolved,omitempty"`
	Unresolved int                 `json:"unresolved"`
}

// Entry names one job or delivery in bf status.
type Entry struct {
	Assistant string      `json:"assistant,omitempty"`
	Channel   string      `json:"channel,omitempty"`
	Created   string      `json:"created"`
	Error     string      `json:"error,omitempty"`
	ID        string      `json:"id"`
	State     queue.State `json:"state"`
	Type      string      `json:"type"`
	Updated   string      `json:"updated"`
}

// Block is the status.Options.Messaging hook of bf status.
func Block(ctx context.Context, b *brain.Brain) (any, bool, error) { return Messenger{}.Block(ctx, b) }

// Block reports b's channels and queue for bf status without changing anything: the
// queue is opened read-only and an interrupted write, a refused format or a refused
// binding becomes a problem. A brain that declares no channel and has no queue has no
// block (nil). healthy is false while any job or delivery is failed or uncertain, or the
// queue has a problem. An error is a failure to look at all.
func (o Messenger) Block(ctx context.Context, b *brain.Brain) (any, bool, error) {
	var declared map[string]*config.Channel
	if b.Config != nil {
		declared = b.Config.Channels
	}
	dir, err := o.env().BrainStatePath(b.ID)
	if err != nil {
		return nil, false, err
	}
	_, statErr := os.Lstat(filepath.Join(dir, queue.FileName))
	hasQueue := !errors.Is(statErr, fs.ErrNotExist)
	if len(declared) == 0 && !hasQueue {
		return nil, true, nil
	}
	out := &StatusBlock{Channels: map[string]ChannelStatus{}, Problems: []reply.Problem{}, disabled: map[string]bool{}}
	if b.Config != nil {
		for name, a := range b.Config.Assistants {
			if !a.Enabled {
				out.disabled[name] = true
			}
		}
	}
	for name, ch := range declared {
		caps := []string{}
		for _, op := range []string{config.OpSend, config.OpRead, config.OpStream} {
			if ch.Capability(op) != nil {
				caps = append(caps, op)
			}
		}
		out.Channels[name] = ChannelStatus{Capabilities: caps, Deliveries: map[queue.State]int{}, Unresolved: []Entry{}}
	}
	if hasQueue {
		if err := o.queueStatus(b, dir, out); err != nil {
			out.Problems = append(out.Problems, reply.Problem{Error: err.Error()})
		}
	}
	transport := false
	for name, e := range LoadInputErrors(dir) {
		if ch, ok := out.Channels[name]; ok {
			e := e
			ch.Error = &e
			out.Channels[name] = ch
			transport = true
		}
	}
	needs := 0
	if out.Queue != nil {
		for _, e := range out.Queue.Attention {
			if !(e.Type == "job" && out.disabled[e.Assistant]) {
				needs++
			}
		}
	}
	out.Healthy = len(out.Problems) == 0 && !transport && needs == 0
	return out, out.Healthy, nil
}

// queueStatus fills out from the queue in dir. An error is a problem of the queue.
func (o Messenger) queueStatus(b *brain.Brain, dir string, out *StatusBlock) error {
	q, err := queue.OpenReadOnly(dir, o.Queue)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer q.Close()
	if bind, err := binding(b); err != nil {
		return err
	} else if err := q.CheckBinding(bind); err != nil {
		out.Problems = append(out.Problems, reply.Problem{Error: err.Error()})
	}
	s, err := q.Summary()
	if err != nil {
		return err
	}
	items, err := q.List()
	if err != nil {
		return err
	}
	qs := &QueueStatus{Attention: []Entry{}, Deliveries: map[queue.State]int{}, InFlight: []Entry{},
		Jobs: map[queue.State]int{}, Unresolved: s.Unresolved}
	for k, v := range s.Jobs {
		qs.Jobs[k] = v
	}
	for k, v := range s.Deliveries {
		qs.Deliveries[k] = v
	}
	for _, it := range s.Attention {
		qs.Attention = append(qs.Attention, o.entry(it))
	}
	for _, it := range s.InFlight {
		qs.InFlight = append(qs.InFlight, o.entry(it))
	}
	if s.Oldest != nil {
		e := o.entry(*s.Oldest)
		qs.Oldest = &e
	}
	out.Queue = qs
	for _, it := range items {
		if it.Type != "delivery" {
			continue
		}
		ch, ok := out.Channels[it.Channel]
		if !ok {
			ch = ChannelStatus{Capabilities: []string{}, Deliveries: map[queue.State]int{}, Unresolved: []Entry{}}
		}
		ch.Deliveries[it.State]++
		if it.State == queue.Failed || it.State == queue.Uncertain {
			ch.Unresolved = append(ch.Unresolved, o.entry(it))
		}
		out.Channels[it.Channel] = ch
	}
	return nil
}

func (o Messenger) entry(it queue.Item) Entry {
	return Entry{Assistant: it.Assistant, Channel: it.Channel, Created: o.instant(it.Created), Error: it.Error, ID: it.ID, State: it.State,
		Type: it.Type, Updated: o.instant(it.Updated)}
}
