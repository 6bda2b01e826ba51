package config

import (
	"encoding/json"
	"errors"
	"slices"
)

// Limits and defaults of assistants.
const (
	maxSchedules   = 32
	maxInputs      = 32
	maxWhenSources = 64
	defaultRetries = 5 // automatic attempts of an idempotent run kind
	maxRetries     = 20
)

// Run kinds of an assistant, as idempotent lists them.
const (
	RunSchedule = "schedule" // a named schedule came due
	RunMessage  = "message"  // a channel message arrived through an input
	RunWake     = "wake"     // the assistant asked to run again
)

// RunKinds are the run kinds idempotent may list.
var RunKinds = []string{RunSchedule, RunMessage, RunWake}

// Days are the weekday names of at schedules, Monday first.
var Days = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// Input modes.
const (
	InputRead   = "read"   // a batch read of the channel every Every seconds
	InputStream = "stream" // watch keeps the channel's stream running
)

// Assistant runs a model through a harness: a declared program that receives the expanded
// prompt on stdin and prints the answer.
type Assistant struct {
	// Command is the harness argv.
	Command Command `json:"command"`
	// Prompt is the brain-relative Markdown prompt file, prompts/NAME.md when unset.
	Prompt string `json:"prompt,omitempty"`
	// Enabled is false for an assistant that never runs.
	Enabled bool `json:"enabled,omitempty"`
	// Schedules are named times at which the assistant runs.
	Schedules map[string]*Schedule `json:"schedules,omitempty"`
	// Inputs are the channels whose messages the assistant answers.
	Inputs []*Input `json:"inputs,omitempty"`
	// Post is the channel that receives unsolicited output (schedule and wake runs).
	Post string `json:"post,omitempty"`
	// Reply makes the harness print JSON and selects its {say, wake} object.
	Reply *Reply `json:"reply,omitempty"`
	// Gate is a program run before a schedule or wake run; a nonzero exit skips the model.
	Gate Command `json:"gate,omitempty"`
	// When holds built-in gates over the brain's state for schedule and wake runs.
	When *When `json:"when,omitempty"`
	// Propose saves the answer as a draft ACTION.md proposal.
	Propose bool `json:"propose,omitempty"`
	// Idempotent says which run kinds retry by themselves after a failure.
	Idempotent Idempotent `json:"idempotent,omitempty"`
	// Retries is the number of automatic attempts of an idempotent run (1–20, default 5).
	Retries int `json:"retries,omitempty"`
	// InputArgs are appended to Command for message runs.
	InputArgs []string `json:"input_args,omitempty"`
	// ScheduleArgs are appended to Command for schedule and wake runs.
	ScheduleArgs []string `json:"schedule_args,omitempty"`
	// Keep keeps only the newest N run records in memories/NAME/; 0 keeps all.
	Keep int `json:"keep,omitempty"`
	// Timeout in seconds (1–3600, default 300).
	Timeout int `json:"timeout,omitempty"`
	// MaxBytes caps the harness output (1 byte–4 MiB, default 1 MiB).
	MaxBytes int64 `json:"max_bytes,omitempty"`
}

// Schedule is exactly one of an interval (Every) or a wall-clock time (At, on Days, in
// Timezone).
type Schedule struct {
	// Every is the interval in seconds.
	Every int `json:"every,omitempty"`
	// At is a wall-clock time HH:MM.
	At string `json:"at,omitempty"`
	// Days limits an at schedule to these weekdays (mon…sun); empty means every day.
	Days []string `json:"days,omitempty"`
	// Timezone is the IANA zone of At; empty means the machine's zone.
	Timezone string `json:"timezone,omitempty"`
}

// Input feeds an assistant the messages of one channel.
type Input struct {
	// Channel names a declared channel; it must also declare send, which answers.
	Channel string `json:"channel"`
	// Mode is read (batch reads every Every seconds) or stream.
	Mode string `json:"mode"`
	// Every is the batch-read cadence of a read input, in seconds.
	Every int `json:"every,omitempty"`
}

// Reply selects the structured answer in the harness's JSON output.
type Reply struct {
	// Path is a JSON Pointer to the {say, wake} object.
	Path string `json:"path"`
}

// When holds built-in gates: a schedule or wake run starts the harness only when at least
// one of the set conditions holds.
type When struct {
	// Sources are sensors that must have collected new or changed records since the
	// assistant's last run.
	Sources []string `json:"sources,omitempty"`
	// Review: some note is due for review.
	Review bool `json:"review,omitempty"`
	// Actions: some action is open.
	Actions bool `json:"actions,omitempty"`
	// Attention: bf status reports something needing attention.
	Attention bool `json:"attention,omitempty"`
}

// Idempotent is written true, false or a list of run kinds.
type Idempotent struct {
	// All is true for `idempotent: true`: every run kind retries by itself.
	All bool
	// Kinds lists the run kinds that retry by themselves when All is false.
	Kinds []string
}

// Retries reports whether runs of kind retry by themselves.
func (i Idempotent) Retries(kind string) bool {
	return i.All || slices.Contains(i.Kinds, kind)
}

// Any reports whether some run kind retries by itself.
func (i Idempotent) Any() bool { return i.All || len(i.Kinds) > 0 }

var errIdempotent = errors.New("expected true, false or a list of run kinds: schedule, message, wake")

// FromYAML reads true, false or a list of distinct run kinds.
func (i *Idempotent) FromYAML(v any, _ string) error {
	*i = Idempotent{}
	switch x := v.(type) {
	case nil:
		return nil
	case bool:
		i.All = x
		return nil
	case []any:
		kinds := make([]string, 0, len(x))
		for _, item := range x {
			s, ok := item.(string)
			if !ok || !slices.Contains(RunKinds, s) || slices.Contains(kinds, s) {
				return errIdempotent
			}
			kinds = append(kinds, s)
		}
		if len(kinds) > 0 {
			i.Kinds = kinds
		}
		return nil
	}
	return errIdempotent
}

// MarshalJSON writes the form bf.yaml uses.
func (i Idempotent) MarshalJSON() ([]byte, error) {
	if i.All || len(i.Kinds) == 0 {
		return json.Marshal(i.All)
	}
	return json.Marshal(i.Kinds)
}
