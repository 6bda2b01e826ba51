package messaging

import (
	"time"

	"github.com/bfgo/bf/libbf/channel"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Every reply struct lists its fields in alphabetical order of their JSON keys, so the
// printed keys are sorted at every level; empty optional values are left out.

// Item is one job or delivery as bf queue lists it: identities, state and error, never
// bodies. Times carry the local offset.
type Item struct {
	Assistant    string      `json:"assistant,omitempty"`
	Attempts     int         `json:"attempts"`
	Channel      string      `json:"channel,omitempty"`
	Conversation string      `json:"conversation,omitempty"`
	Created      string      `json:"created"`
	Error        string      `json:"error,omitempty"`
	Finished     string      `json:"finished,omitempty"`
	ID           string      `json:"id"`
	Job          string      `json:"job,omitempty"`
	Kind         string      `json:"kind,omitempty"`
	NextAttempt  string      `json:"next_attempt,omitempty"`
	Schedule     string      `json:"schedule,omitempty"`
	State        queue.State `json:"state"`
	Type         string      `json:"type"`
	Updated      string      `json:"updated"`
}

// ListReply is what bf queue prints: every job and delivery, oldest first.
type ListReply struct {
	Items []Item `json:"items"`
}

// Receipt is what a channel's send returned for a delivered message.
type Receipt struct {
	Conversation string `json:"conversation"`
	ID           string `json:"id"`
}

// SendConfig is the snapshot of the channel's send capability a delivery is attempted with.
type SendConfig struct {
	Command    []string `json:"command"`
	Idempotent bool     `json:"idempotent"`
}

// Route is where a job's answer goes.
type Route struct {
	Channel      string     `json:"channel"`
	Conversation string     `json:"conversation"`
	ReplyTo      string     `json:"reply_to,omitempty"`
	Send         SendConfig `json:"send"`
}

// Attempt is one past or running attempt of a job or delivery.
type Attempt struct {
	Ended   string `json:"ended,omitempty"`
	Error   string `json:"error,omitempty"`
	N       int    `json:"n"`
	Outcome string `json:"outcome"`
	Started string `json:"started"`
}

// Detail is what bf queue ID prints: one job or delivery with its private bodies (text,
// input, answer) and its attempts. A body that retention dropped is absent and
// body_expired is set.
type Detail struct {
	Answer       *string     `json:"answer,omitempty"`
	Assistant    string      `json:"assistant,omitempty"`
	Attempts     int         `json:"attempts"`
	BodyExpired  bool        `json:"body_expired,omitempty"`
	Channel      string      `json:"channel,omitempty"`
	Conversation string      `json:"conversation,omitempty"`
	Created      string      `json:"created"`
	Error        string      `json:"error,omitempty"`
	Finished     string      `json:"finished,omitempty"`
	History      []Attempt   `json:"history"`
	ID           string      `json:"id"`
	Input        *string     `json:"input,omitempty"`
	Job          string      `json:"job,omitempty"`
	Kind         string      `json:"kind,omitempty"`
	MaxBytes     int64       `json:"max_bytes,omitempty"`
	NextAttempt  string      `json:"next_attempt,omitempty"`
	Notice       string      `json:"notice"`
	Receipt      *Receipt    `json:"receipt,omitempty"`
	ReplyTo      string      `json:"reply_to,omitempty"`
	Routes       []Route     `json:"routes,omitempty"`
	Schedule     string      `json:"schedule,omitempty"`
	Send         *SendConfig `json:"send,omitempty"`
	State        queue.State `json:"state"`
	Text         *string     `json:"text,omitempty"`
	Type         string      `json:"type"`
	Updated      string      `json:"updated"`
}

// SendReply is what bf channel send and a delivery's bf queue ID --retry print: the
// delivery's state after the attempt and, once delivered, the receipt.
type SendReply struct {
	Attempts     int    `json:"attempts"`
	Channel      string `json:"channel"`
	Conversation string `json:"conversation,omitempty"`
	Error        string `json:"error,omitempty"`
	// Existing says the ID was saved before with the same content: the saved delivery
	// is returned, and it was attempted only if it never had been.
	Existing bool        `json:"existing,omitempty"`
	ID       string      `json:"id"`
	Receipt  *Receipt    `json:"receipt,omitempty"`
	ReplyTo  string      `json:"reply_to,omitempty"`
	State    queue.State `json:"state"`
}

// Delivered reports whether the message arrived.
func (r *SendReply) Delivered() bool { return r.State == queue.Delivered }

// ReadReply is what bf channel read prints: the window's complete batch, oldest first,
// each message in its canonical envelope form.
type ReadReply struct {
	Channel string `json:"channel"`
	// Echoes counts messages dropped as the brain's own sends coming back.
	Echoes   int               `json:"echoes,omitempty"`
	Messages []channel.Message `json:"messages"`
	Notice   string            `json:"notice"`
	Since    string            `json:"since"`
	Until    string            `json:"until"`
}

func (o Messenger) instant(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return timestamp.Local(t, o.loc())
}

func (o Messenger) item(it queue.Item) Item {
	return Item{
		Assistant: it.Assistant, Attempts: it.Attempts, Channel: it.Channel, Conversation: it.Conversation,
		Created: o.instant(it.Created), Error: it.Error, Finished: o.instant(it.Finished), ID: it.ID, Job: it.Job,
		Kind: it.Kind, NextAttempt: o.instant(it.NextAttempt), Schedule: it.Schedule, State: it.State, Type: it.Type,
		Updated: o.instant(it.Updated),
	}
}

func (o Messenger) detail(d queue.Detail) Detail {
	it := o.item(d.Item)
	out := Detail{
		Assistant: it.Assistant, Attempts: it.Attempts, BodyExpired: d.BodyExpired, Channel: it.Channel,
		Conversation: it.Conversation, Created: it.Created, Error: it.Error, Finished: it.Finished,
		History: []Attempt{}, ID: it.ID, Job: it.Job, Kind: it.Kind, MaxBytes: d.MaxBytes, NextAttempt: it.NextAttempt,
		Notice: reply.Notice, ReplyTo: d.ReplyTo, Schedule: it.Schedule, State: it.State, Text: d.Text, Type: it.Type,
		Updated: it.Updated,
	}
	if d.Receipt != nil {
		out.Receipt = &Receipt{Conversation: d.Receipt.Conversation, ID: d.Receipt.ID}
	}
	if d.Send != nil {
		out.Send = &SendConfig{Command: nonNil(d.Send.Command), Idempotent: d.Send.Idempotent}
	}
	if d.Type == "job" {
		if d.Input != nil {
			s := string(d.Input)
			out.Input = &s
		}
		if d.Answer != nil {
			s := string(d.Answer)
			out.Answer = &s
		}
		out.Routes = []Route{}
		for _, r := range d.Routes {
			out.Routes = append(out.Routes, Route{Channel: r.Channel, Conversation: r.Conversation, ReplyTo: r.ReplyTo,
				Send: SendConfig{Command: nonNil(r.Send.Command), Idempotent: r.Send.Idempotent}})
		}
	}
	for _, a := range d.History {
		out.History = append(out.History, Attempt{Ended: o.instant(a.Ended), Error: a.Error, N: a.N, Outcome: a.Outcome,
			Started: o.instant(a.Started)})
	}
	return out
}

func (o Messenger) sendReply(d queue.Detail, existing bool) *SendReply {
	r := &SendReply{
		Attempts: d.Attempts, Channel: d.Channel, Conversation: d.Conversation, Error: d.Error, Existing: existing,
		ID: d.ID, ReplyTo: d.ReplyTo, State: d.State,
	}
	if d.Receipt != nil && d.State == queue.Delivered {
		r.Receipt = &Receipt{Conversation: d.Receipt.Conversation, ID: d.Receipt.ID}
	}
	return r
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
