package queue

import (
	"encoding/json"
	"slices"
	"time"
)

// State is the state of a job or a delivery.
//
// A delivery is pending (waiting for its first attempt or for an automatic retry), sending
// (an attempt runs), then delivered, failed (nothing more happens without the user),
// uncertain (it may have been sent; inspect before retrying) or cancelled.
//
// A job is pending, running (a harness attempt runs), answered (its answer is saved and
// its deliveries are not all resolved), then completed, failed, uncertain or cancelled.
type State string

const (
	Pending   State = "pending"
	Sending   State = "sending"
	Running   State = "running"
	Answered  State = "answered"
	Delivered State = "delivered"
	Completed State = "completed"
	Failed    State = "failed"
	Uncertain State = "uncertain"
	Cancelled State = "cancelled"
)

// The states in which work still needs a worker or the user, as SQL lists.
const (
	unresolvedJobs       = "('pending', 'running', 'answered', 'failed', 'uncertain')"
	unresolvedDeliveries = "('pending', 'sending', 'failed', 'uncertain')"
)

// Resolved reports whether s is final: nothing more happens to the work.
func (s State) Resolved() bool {
	return s == Delivered || s == Completed || s == Cancelled
}

// Send is the snapshot of a channel's send capability taken when a delivery is admitted.
// A delivery is attempted only while the channel's current capability is equal to it.
type Send struct {
	Command    []string `json:"command"`
	Idempotent bool     `json:"idempotent"`
}

func (s Send) equal(o Send) bool {
	return s.Idempotent == o.Idempotent && slices.Equal(s.Command, o.Command)
}

func (s Send) encode() string {
	if s.Command == nil {
		s.Command = []string{}
	}
	b, _ := json.Marshal(s) // a struct of strings and a bool always encodes
	return string(b)
}

// Receipt is what a channel's send returned for a delivered message.
type Receipt struct {
	ID           string `json:"id"`
	Conversation string `json:"conversation"`
}

// Route is where a job's answer goes: one delivery per route.
type Route struct {
	Channel      string `json:"channel"`
	Conversation string `json:"conversation"`
	ReplyTo      string `json:"reply_to,omitempty"`
	Send         Send   `json:"send"`
}

// Item is one job or delivery as bf queue lists it: identities, state and errors, never
// bodies.
type Item struct {
	ID   string `json:"id"`
	Type string `json:"type"` // "job" or "delivery"
	// State is the item's state.
	State State `json:"state"`
	// Assistant, Kind and Schedule describe a job.
	Assistant string `json:"assistant,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Schedule  string `json:"schedule,omitempty"`
	// Job is the job a delivery answers, empty for a standalone send.
	Job          string `json:"job,omitempty"`
	Channel      string `json:"channel,omitempty"`
	Conversation string `json:"conversation,omitempty"`
	// Attempts counts every attempt made, as History numbers them. The retry policy
	// counts only the current round, which an explicit retry starts over.
	Attempts int `json:"attempts"`
	// NextAttempt is when a pending delivery may be attempted next.
	NextAttempt time.Time `json:"next_attempt,omitzero"`
	Error       string    `json:"error,omitempty"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	Finished    time.Time `json:"finished,omitzero"`
}

// AttemptRecord is one past or running attempt.
type AttemptRecord struct {
	N       int       `json:"n"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
	// Outcome is "delivered", "answered", "failed", "not started", "interrupted", or ""
	// while the attempt runs.
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
}

// Detail is one job or delivery opened explicitly, private bodies included. A body that
// retention dropped is nil and BodyExpired is set.
type Detail struct {
	Item
	// Text, ReplyTo, Send and Receipt describe a delivery.
	Text    *string  `json:"text,omitempty"`
	ReplyTo string   `json:"reply_to,omitempty"`
	Send    *Send    `json:"send,omitempty"`
	Receipt *Receipt `json:"receipt,omitempty"`
	// Input, Answer, Routes and MaxBytes describe a job.
	Input    []byte  `json:"input,omitempty"`
	Answer   []byte  `json:"answer,omitempty"`
	Routes   []Route `json:"routes,omitempty"`
	MaxBytes int64   `json:"max_bytes,omitempty"`
	// Config is a job's snapshot of its assistant's configuration, for the worker.
	Config []byte `json:"-"`
	// BodyExpired says retention dropped the private bodies of completed work.
	BodyExpired bool            `json:"body_expired,omitempty"`
	History     []AttemptRecord `json:"attempts_history,omitempty"`
}
